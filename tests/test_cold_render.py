"""A first render (empty clip cache) sounds exactly as every later one: phrases levelled in the
background while the mix streams (prepare_mix(background=True), voice/levelling.py), the shipped
seed of effects, of joe's English phrases and of the other languages' espeak-ng phrases
(timekeeper/audio/seed.py), and damaged cache files."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from decoded import decode
from realparts import require

from timekeeper.audio import effects, seed
from timekeeper.audio.loudness import SPEECH_LUFS, integrated_lufs
from timekeeper.audio.pcm import SAMPLE_RATE, pcm16
from timekeeper.scenario.catalog import load_scenario
from timekeeper.soundtrack.mix import MixSettings, prepare_mix
from timekeeper.soundtrack.render import render
from timekeeper.voice.levelling import Levelling
from timekeeper.voice.select import default_voice

DATA = Path(__file__).parent / "data" / "render"
SHORT = DATA / "short.yaml"
# two data transfers 11 s apart: the first is squeezed (its phrases sped up), so its clips are
# levelled before the mix returns; and a custom announcement (a text no seed holds)
SQUEEZED = """title: "Squeezed drill"
kind: custom
phase_ends: ["1:10", "2:10"]
events:
  - {at: "0:10", type: data_transfer}
  - {at: "0:21", type: data_transfer}
  - {at: "0:45", type: announce, text: "Check the gravolift, please."}
"""
ESPEAK = "synthesized"


@pytest.fixture
def empty_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A clip cache of its own, empty, and no effect kept in this process."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("TIMEKEEPER_CACHE", str(folder))
    monkeypatch.setattr(effects, "_EFFECTS", {})
    return folder


def fresh(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    monkeypatch.setenv("TIMEKEEPER_CACHE", str(folder))
    monkeypatch.setattr(effects, "_EFFECTS", {})


def pcm_of(mix) -> bytes:
    return b"".join(mix.pcm())


def wav_render(scenario_path: Path, out: Path, settings: MixSettings) -> np.ndarray:
    render(load_scenario(str(scenario_path)), out, settings)
    return decode(out)


@pytest.mark.parametrize("voice", [ESPEAK, ""])  # "" = the English default: joe where Piper is installed
def test_first_render_sounds_as_a_warm_one(voice: str, empty_cache: Path, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIMEKEEPER_DEFAULT_VOICE", voice)
    settings = MixSettings(language="en")
    cold = wav_render(SHORT, tmp_path / "cold.wav", settings)  # every clip made (or taken from the seed)
    assert any(empty_cache.rglob("*.wav"))
    warm = wav_render(SHORT, tmp_path / "warm.wav", settings)  # every clip read from the cache
    assert len(cold) == len(warm) > 44_100 * 170
    assert np.array_equal(cold, warm)
    assert np.sqrt(np.mean(cold**2)) > 0.01  # (not two silent files)


@pytest.mark.parametrize("workers", [0, 2])  # 0: no worker, each clip levelled when a chunk needs it
def test_background_levelling_gives_the_foreground_samples(workers: int, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks read out of order (a seek), settled placements, squeezed (sped-up) phrases, the
    ship-computer effect and a custom announcement: the same samples as a mix whose every clip
    was levelled before it returned."""
    from timekeeper.voice import levelling

    monkeypatch.setattr(levelling, "WORKERS", workers)
    monkeypatch.setenv("TIMEKEEPER_DEFAULT_VOICE", ESPEAK)
    path = tmp_path / "squeezed.yaml"
    path.write_text(SQUEEZED, encoding="utf-8")
    scenario = load_scenario(str(path))
    for computer_voice in (False, True):
        settings = MixSettings(language="en", computer_voice=computer_voice)
        fresh(monkeypatch, tmp_path / f"fore-{computer_voice}")
        foreground = prepare_mix(scenario, settings)
        assert foreground.levelling is None
        fresh(monkeypatch, tmp_path / f"back-{computer_voice}")
        background = prepare_mix(scenario, settings, background=True)
        assert any(cue.pace.tempo > 1.0 for cue in background.timeline.cues)  # the squeeze is exercised
        assert background.timeline == foreground.timeline
        assert background.n_samples == foreground.n_samples
        if not computer_voice and not workers:
            assert background.levelling is not None and len(background.levelling) > 5  # really left to the mix
        for begin in (30 * 44_100, 0, 11 * 44_100 + 123, 44 * 44_100):  # out of order
            assert np.array_equal(background.mix_chunk(begin, 44_100), foreground.mix_chunk(begin, 44_100))
        assert pcm_of(background) == pcm_of(foreground)
        settled = background.settle().placements
        assert [(p.at_ms, p.speech, p.key) for p in settled] == [(p.at_ms, p.speech, p.key) for p in foreground.placements]
        assert all(np.array_equal(a.clip, b.clip) for a, b in zip(settled, foreground.placements))


def test_a_failed_levelling_reaches_the_reader() -> None:
    def finish(text: str, draft: np.ndarray) -> np.ndarray:
        if text == "bad":
            raise RuntimeError("levelling failed")
        return draft * 0.5

    levelling = Levelling(finish)
    good, bad = np.ones(10, dtype=np.float32), np.ones(5, dtype=np.float32)
    levelling.add("good", good)
    levelling.add("bad", bad)
    levelling.start(["bad", "good"])
    assert np.array_equal(levelling.final(good), good * 0.5)
    with pytest.raises(RuntimeError, match="levelling failed"):
        levelling.final(bad)
    assert levelling.final(np.ones(10, dtype=np.float32)) is None  # not a draft here: the mix keeps it


def test_damaged_cache_files_are_made_again(empty_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIMEKEEPER_DEFAULT_VOICE", ESPEAK)
    settings = MixSettings(language="en")
    clean = wav_render(SHORT, tmp_path / "clean.wav", settings)
    phrases = sorted((empty_cache / "tts").rglob("*.wav"))
    effect_files = sorted((empty_cache / "effects").glob("*.wav"))
    assert len(phrases) > 10 and effect_files
    truncated = phrases[0].read_bytes()[:1000]
    phrases[0].write_bytes(truncated)
    flipped = bytearray(phrases[1].read_bytes())
    flipped[len(flipped) // 2] ^= 0x40
    phrases[1].write_bytes(bytes(flipped))
    phrases[2].write_bytes(b"")
    effect_files[0].write_bytes(effect_files[0].read_bytes()[:-100])
    monkeypatch.setattr(effects, "_EFFECTS", {})
    again = wav_render(SHORT, tmp_path / "again.wav", settings)
    assert np.array_equal(again, clean)
    assert phrases[0].read_bytes() != truncated and phrases[2].stat().st_size > 1000  # made again and cached


def test_shipped_effects_are_the_effects_this_machine_makes(empty_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    index = json.loads((seed.seed_dir() / seed.INDEX).read_text(encoding="utf-8"))["clips"]
    shipped = {key: value for key, value in index.items() if key.startswith("effects/")}
    assert len(shipped) == 7  # alert, beep, jump, static, three alarm beds
    monkeypatch.setattr(seed, "USE_SEED", False)
    made = {"alert": effects.alert(), "beep": effects.beep(), "jump": effects.jump(), "static": effects.static_loop(),
            **{f"bed-{phase + 1}": effects.bed_loop(phase) for phase in range(3)}}
    for name, clip in made.items():
        key = next(k for k in shipped if k.startswith(f"effects/v{effects.EFFECTS_VERSION}-{name}"))
        samples = pcm16(clip)
        assert shipped[key]["sha256"] == hashlib.sha256(samples).hexdigest(), f"{name}: the shipped clip differs"
        monkeypatch.setattr(seed, "USE_SEED", True)
        assert np.array_equal(seed.seed_clip(empty_cache / key, empty_cache), clip)
        monkeypatch.setattr(seed, "USE_SEED", False)


def test_a_damaged_seed_is_not_used(tmp_path: Path) -> None:
    folder = tmp_path / "seed"
    shutil.copytree(seed.seed_dir(), folder)
    seed.seed_index.cache_clear()
    key = f"effects/v{effects.EFFECTS_VERSION}-beep-400.wav"
    cache = tmp_path / "cache"
    assert seed.seed_clip(cache / key, cache, folder) is not None
    flac = seed.seed_file(folder, key)
    data = bytearray(flac.read_bytes())
    data[len(data) * 7 // 8] ^= 0x10  # (in the audio frames: the file opens with metadata and padding)
    flac.write_bytes(bytes(data))
    assert seed.seed_clip(cache / key, cache, folder) is None  # a changed sample: the checksum refuses it
    flac.write_bytes(bytes(data[: len(data) // 3]))
    assert seed.seed_clip(cache / key, cache, folder) is None  # truncated
    flac.write_bytes(b"not audio at all")
    assert seed.seed_clip(cache / key, cache, folder) is None
    assert seed.seed_clip(tmp_path / "elsewhere" / key, cache, folder) is None  # not under the cache: no key
    seed.seed_index.cache_clear()


@pytest.fixture
def joe(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.delenv("TIMEKEEPER_DEFAULT_VOICE")
    require("piper", "joe")
    spec = default_voice("en")
    assert spec is not None and "joe" in spec, spec  # Piper and joe installed: English's default voice is joe
    return spec


def test_joe_speaks_every_english_phrase_from_the_seed(joe: str, empty_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The shipped phrases are keyed for the installed joe (model, fingerprint, pace) and decode to
    their checksums; a first mix synthesizes nothing (Piper is never started) and caches them."""
    from timekeeper.grammar.phrases import phrase_book
    from timekeeper.voice import neural

    def no_piper(*args, **kwargs):
        raise AssertionError("Piper was started although every phrase is shipped")

    monkeypatch.setattr(neural, "run_piper", no_piper)
    voice = neural.NeuralVoice("en", neural.find_model(joe))
    texts = set(phrase_book("en").spoken.values())
    for text in texts:
        assert seed.seed_clip(voice.cache_path(text), voice.base) is not None, f"{text!r} is not shipped for {joe}"
    mix = prepare_mix(load_scenario("mission-1"), MixSettings(language="en"), background=True)
    assert mix.voice_name == joe and mix.levelling is None
    assert len(list((empty_cache / "piper").rglob("*.wav"))) == len({p.text for c in mix.timeline.cues for p in c.speech})


def test_joe_as_synthesized_here_matches_the_shipped_clips(joe: str, empty_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Piper draws its noise at random, so no two syntheses are equal sample for sample; what this
    machine synthesizes now has the shipped clips' length (within 4 %) and level (within 0.5 LU)."""
    from timekeeper.voice import neural

    monkeypatch.setattr(seed, "USE_SEED", False)
    voice = neural.NeuralVoice("en", neural.find_model(joe))
    texts = ["Alert. Enemy activity detected. Please begin first phase.", "Time T plus three.", "Zone white."]
    voice.prepare((text, text) for text in texts)
    monkeypatch.setattr(seed, "USE_SEED", True)
    for text in texts:
        shipped = seed.seed_clip(voice.cache_path(text), voice.base)
        made = voice.clip(text, text)
        assert shipped is not None
        # Piper draws its noise at random: lengths vary by up to about 60 ms (docs/voices.md), or 4 % of a long phrase
        assert abs(len(made) - len(shipped)) <= max(0.04 * len(shipped), 0.060 * SAMPLE_RATE), text
        assert abs(integrated_lufs(made) - integrated_lufs(shipped)) < 0.5 and abs(integrated_lufs(made) - SPEECH_LUFS) < 0.5


def test_silence_is_found_where_pydub_finds_it(tmp_path: Path) -> None:
    """audio.leading_silence_ms (running sums) against pydub's own detect_leading_silence (an
    AudioSegment per millisecond), which trimmed() used before: silent, tiny, noisy clips, sound
    at random places and levels, steps just around the -40 dBFS threshold, real speech."""
    from pydub.silence import detect_leading_silence

    from timekeeper.audio.clips import SILENCE_DBFS, leading_silence_ms, to_segment
    from timekeeper.audio.pcm import from_pcm16

    rng = np.random.default_rng(5)
    cases = [np.zeros(n, np.int16) for n in (0, 1, 44, 45, 46, 89, 4410)]
    cases += [rng.integers(-20_000, 20_000, n).astype(np.int16) for n in (1, 44, 45, 441)]
    for _ in range(150):
        n = int(rng.integers(1, 20_000))
        first = int(rng.integers(0, n))
        last = int(rng.integers(first, n + 1))
        samples = np.zeros(n, np.int16)
        samples[first:last] = np.clip(rng.normal(0, 10 ** rng.uniform(0, 4.5), last - first), -32768, 32767)
        cases.append(samples)
    for value in range(320, 336):  # -40 dBFS is an RMS of 327.68
        cases.append(np.concatenate([np.zeros(1000, np.int16), np.full(2000, value, np.int16)]))
    from timekeeper.voice.engines import get_engine
    from timekeeper.voice.tts import TtsVoice

    voice, engine = TtsVoice("en", folder=tmp_path), get_engine()
    voice._voice_id = engine.resolve(voice.settings.voice)
    for sentence in ("Alert.", "Enemy activity detected.", "Time T plus three."):  # as espeak-ng says them, untrimmed
        cases.append(np.frombuffer(pcm16(voice._speak(engine, sentence, tmp_path)), "<i2"))
    for samples in cases:
        segment = to_segment(from_pcm16(samples.astype("<i2").tobytes()))
        for part in (segment, segment.reverse()):
            expected = detect_leading_silence(part, silence_threshold=SILENCE_DBFS, chunk_size=1)
            assert leading_silence_ms(np.frombuffer(part.raw_data, dtype="<i2")) == expected


SEEDED = ["de", "es", "fr", "it", "pl", "cs"]  # their default voice: espeak-ng, until their Piper voice is installed


@pytest.mark.parametrize("language", SEEDED)
def test_espeak_as_synthesized_here_is_the_shipped_clip(language: str, empty_cache: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """espeak-ng speaks each sentence in a fresh process and draws nothing at random: a few
    phrases of each language's default voice, made now, are the shipped clips sample for sample."""
    from timekeeper.grammar.phrases import phrase_book
    from timekeeper.voice.tts import TtsVoice

    voice = TtsVoice(language)
    book = phrase_book(language)
    texts = sorted(set(book.spoken.values()), key=len)
    texts = [texts[0], texts[len(texts) // 2], texts[-1]]  # short, middle, the longest (several sentences)
    shipped = {text: seed.seed_clip(voice.cache_path(text), voice.base) for text in texts}
    assert all(clip is not None for clip in shipped.values()), f"not every phrase is shipped for {voice.name}"
    monkeypatch.setattr(seed, "USE_SEED", False)
    voice.prepare((text, text) for text in texts)
    for text in texts:
        made = voice.clip(text, text)
        assert np.array_equal(made, shipped[text]), f"{language}: {text!r} differs from the shipped clip"


def test_a_first_german_mix_synthesizes_nothing(empty_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """German's default voice (espeak-ng while its Piper voice is not installed) takes every phrase
    of a game from the seed: no sentence is spoken, nothing is left to level, and the mix is the
    one a warm cache gives."""
    from timekeeper.voice import tts

    monkeypatch.setenv("TIMEKEEPER_DEFAULT_VOICE", ESPEAK)
    settings = MixSettings(language="de")
    warm_folder = empty_cache.parent / "warm"
    fresh(monkeypatch, warm_folder)
    monkeypatch.setattr(seed, "USE_SEED", False)
    made = prepare_mix(load_scenario("mission-1"), settings)  # every phrase synthesized, levelled
    monkeypatch.setattr(seed, "USE_SEED", True)

    def no_speaking(*args, **kwargs):
        raise AssertionError("espeak-ng was started although every phrase is shipped")

    monkeypatch.setattr(tts.TtsVoice, "_speak", no_speaking)
    fresh(monkeypatch, empty_cache)
    cold = prepare_mix(load_scenario("mission-1"), settings, background=True)
    assert cold.levelling is None
    assert cold.timeline == made.timeline
    assert pcm_of(cold) == pcm_of(made)
    assert len(list((empty_cache / "tts").rglob("*.wav"))) == len({p.text for c in cold.timeline.cues for p in c.speech})
