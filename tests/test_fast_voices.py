"""Voice machinery without a real engine at work (the full tier synthesizes for real): packs written,
indexed and spoken, the cue layouts, background levelling, the neural voices' pace check, the
soundcheck's pacing, and the quiet block around chatty libraries."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
import yaml
from inprocess import run_cli
from measuredvoice import MeasuredVoice, speak_measured, tone

from timekeeper.audio.clipcache import write_wav
from timekeeper.audio.pcm import clip_ms
from timekeeper.errors import ExitStatus
from timekeeper.grammar.durations import default_measure
from timekeeper.grammar.phrases import phrase_book
from timekeeper.grammar.script import build_timeline
from timekeeper.scenario.catalog import load_scenario

SHORT = Path(__file__).resolve().parent / "data" / "render" / "short.yaml"


def test_an_exported_pack_reads_back_and_speaks_its_clips(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from timekeeper.voice import export
    from timekeeper.voice.packs import PackVoice, index_pack

    monkeypatch.setattr(export, "pack_clips", lambda language, voice=None, progress=None: {
        "threat": tone(400), "zone_red": tone(600)})  # two clips instead of the synthesized voice's hundred
    folder = tmp_path / "my pack: v2"
    written = export.export_pack("en", folder, fmt="mp3")
    assert sorted(path.name for path in written) == ["pack.yaml", "threat.mp3", "zone_red.mp3"]
    assert yaml.safe_load((folder / "pack.yaml").read_text(encoding="utf-8")) == {"name": "my pack: v2", "language": "en"}
    files, manifest = index_pack(folder)
    assert set(files) == {"threat", "zone_red"} and manifest["language"] == "en"
    voice = PackVoice(folder, "en", fallback=MeasuredVoice("en"))
    assert voice.name == "pack:my pack: v2"
    assert abs(clip_ms(voice.clip("zone_red", "Zone red.")) - 600) < 60  # the pack's clip (mp3 padding trimmed or not)
    assert clip_ms(voice.clip("zone_blue", "Zone blue.")) == default_measure("en")("zone_blue", "Zone blue.")  # fallback


def test_a_pack_of_another_language_is_refused(tmp_path: Path) -> None:
    from timekeeper.errors import VoiceError
    from timekeeper.voice.packs import PackVoice

    (tmp_path / "pack.yaml").write_text("name: x\nlanguage: de\n", encoding="utf-8")
    with pytest.raises(VoiceError, match="--lang de"):
        PackVoice(tmp_path, "en", fallback=MeasuredVoice("en"))


def test_every_cue_of_a_track_has_a_recording_name_from_the_list() -> None:
    from timekeeper.voice.layouts import cue_moment_ms, cue_name, cue_names

    timeline = build_timeline(load_scenario(str(SHORT)), phrase_book("en"), default_measure("en"))
    names = set(cue_names())
    named = [cue for cue in timeline.cues if cue_name(cue) is not None]
    assert named and all(cue_name(cue) in names for cue in named)
    assert all(cue_moment_ms(cue, True) >= cue.at_ms for cue in named)


def test_levelling_in_the_background_gives_what_finish_makes() -> None:
    from timekeeper.voice.levelling import Levelling

    drafts = {text: tone(200 + 100 * n) for n, text in enumerate(("One.", "Two.", "Three."))}
    levelling = Levelling(lambda text, clip: clip * 0.5)  # finish(text, draft)
    for text, draft in drafts.items():
        levelling.add(text, draft)
    assert len(levelling) == 3 and levelling.draft("Two.") is drafts["Two."]
    levelling.start(["Three.", "One.", "Two."])
    for draft in drafts.values():
        final = levelling.final(draft)
        assert final is not None and np.array_equal(final, draft * 0.5)
    levelling.wait_all()
    assert levelling.finished and all(levelling.ready(draft) for draft in drafts.values())


def test_a_stopping_server_stops_background_levelling_after_the_phrase_it_is_on() -> None:
    """A server that stops (SIGTERM, Ctrl-C) need not wait for a mix's whole queue of phrases: each
    levelling thread ends after its phrase, and a phrase left is levelled when it is needed."""
    import threading

    from timekeeper.voice.levelling import Levelling, stop_background

    started, release = threading.Semaphore(0), threading.Event()
    finished: list[str] = []

    def finish(text, clip):
        started.release()
        release.wait(10)
        finished.append(text)
        return clip * 0.5

    drafts = {f"Phrase {n}.": tone(200 + 20 * n) for n in range(8)}
    levelling = Levelling(finish)
    for text, draft in drafts.items():
        levelling.add(text, draft)
    levelling.start()
    assert started.acquire(timeout=10) and started.acquire(timeout=10)  # both threads are on a phrase
    stop_background()
    release.set()
    for thread in levelling._threads:
        thread.join(10)
    assert len(finished) == 2  # the two phrases they were on, no more
    assert np.array_equal(levelling.final(drafts["Phrase 7."]), drafts["Phrase 7."] * 0.5)  # levelled when needed
    later = Levelling(lambda text, clip: clip)  # a levelling started after the stop runs as ever
    later.add("Again.", tone(300))
    later.start()
    later._threads[0].join(10)
    assert later.finished


def test_the_official_tracks_fit_the_measured_lengths_and_not_twice_as_slow() -> None:
    from timekeeper.voice.pace import official_overlaps, shipped_scale

    measured = default_measure("en")
    assert official_overlaps("en", measured) == 0
    assert official_overlaps("en", lambda key, text: 2 * measured(key, text)) > 0
    scale = shipped_scale("pace-en_US-joe-medium-a8b9c4b6f0674a8d-en-4.json")
    assert scale is not None and 0.5 < scale <= 1.0
    assert shipped_scale("no-such-fit.json") is None


def test_soundcheck_pacing_of_a_measured_timeline() -> None:
    from timekeeper.soundtrack.soundcheck import pacing

    timeline = build_timeline(load_scenario(str(SHORT)), phrase_book("en"), default_measure("en"))
    smallest_gap_ms, squeezed, overlaps = pacing(timeline)
    assert overlaps == 0 and squeezed == [] and 0 < smallest_gap_ms < 10_000


def test_silenced_sends_a_descriptor_to_dev_null(capfd: pytest.CaptureFixture[str]) -> None:
    from timekeeper.files.quiet import silenced

    with silenced(1):
        os.write(1, b"chatter from C\n")
    os.write(1, b"heard\n")
    assert capfd.readouterr().out == "heard\n"


def test_the_servers_terminal_says_one_line_per_kind(capsys: pytest.CaptureFixture[str]) -> None:
    from timekeeper.serve.quiet import say

    say("a phone stopped reading   (ConnectionResetError)")
    say("a phone stopped reading   (ConnectionResetError)")  # the same kind again at once: dropped
    assert capsys.readouterr().err == "timekeeper serve: a phone stopped reading (ConnectionResetError)\n"


def test_a_packs_clips_are_levelled_once_and_again_only_when_a_file_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A plan or render with a pack reads its levelled clips from the clip cache after the first
    time: no levelling (which loads scipy) then; an edited clip, or a damaged cached one, is levelled again."""
    from timekeeper.audio import loudness
    from timekeeper.environment import Environment, using
    from timekeeper.voice.packs import PackVoice

    pack = tmp_path / "pack"
    pack.mkdir()
    write_wav(pack / "threat.wav", 0.05 * tone(700))  # recorded quietly
    write_wav(pack / "alert.wav", tone(900))
    levelled: list[int] = []
    real = loudness.normalized
    monkeypatch.setattr(loudness, "normalized", lambda clip, *args, **kwargs: levelled.append(len(clip)) or real(clip, *args, **kwargs))

    def clips() -> tuple[np.ndarray, np.ndarray]:
        voice = PackVoice(pack, "en", fallback=MeasuredVoice("en"))
        return voice.clip("threat", "Threat."), voice.clip("alert", "")

    with using(Environment.from_mapping({"TIMEKEEPER_CACHE": str(tmp_path / "cache")})):
        first = clips()
        assert len(levelled) == 2 and len(list((tmp_path / "cache" / "packs").rglob("*.wav"))) == 2
        assert [len(clip) for clip in first] == levelled  # levelling keeps a clip's length (cue moments rely on it)
        assert loudness.integrated_lufs(first[0]) == pytest.approx(loudness.SPEECH_LUFS, abs=0.5)
        again = clips()
        assert len(levelled) == 2  # both from the cache, as they were
        assert all(np.array_equal(a, b) for a, b in zip(first, again))
        write_wav(pack / "threat.wav", 0.05 * tone(500))  # the clip recorded again
        assert len(clips()[0]) < len(first[0]) and len(levelled) == 3
        alert = max((tmp_path / "cache" / "packs").rglob("*.wav"), key=lambda path: path.stat().st_size)  # the longest clip
        alert.write_bytes(alert.read_bytes()[:-100])  # a damaged cache file is levelled again, not played
        assert np.array_equal(clips()[1], first[1]) and len(levelled) == 4


def test_a_pack_named_by_a_relative_path_keeps_its_language(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from timekeeper.voice.select import voice_language

    pack = tmp_path / "mein-paket"
    pack.mkdir()
    (pack / "pack.yaml").write_text("name: mein paket\nlanguage: de\n", encoding="utf-8")
    write_wav(pack / "repeat.wav", tone(500))
    monkeypatch.chdir(tmp_path)
    assert voice_language("mein-paket") == voice_language("./mein-paket") == voice_language(str(pack)) == "de"
    speak_measured(monkeypatch)
    planned = run_cli("plan", "test-run-1", "--voice", "mein-paket", cwd=tmp_path)
    assert planned.exit_code == ExitStatus.SUCCESS, planned.output
    assert "Zeit T plus eins" in planned.stdout  # German words: the pack's language


def test_the_missing_clip_warning_names_each_clip_once(tmp_path: Path) -> None:
    from timekeeper.voice.packs import PackVoice

    (tmp_path / "pack.yaml").write_text("language: de\n", encoding="utf-8")
    for name in ("repeat", "threat_zone_blue"):  # a German pack: threats and zones in combined clips
        write_wav(tmp_path / f"{name}.wav", tone(500))
    voice = PackVoice(tmp_path, "de", fallback=MeasuredVoice("de"))
    timeline = build_timeline(load_scenario("mission-1"), voice.phrases(), default_measure("de"))
    voice.prepare([(part.key, part.text) for cue in timeline.cues for part in cue.speech])
    [warning] = voice.warnings
    names = warning.split("has no clip for ")[1].split(";")[0].split(", ")
    assert len(names) == len(set(names)) and names == sorted(names)
    assert "serious_threat_zone_red" in names and "threat_zone_blue" not in names and "repeat" not in names


def test_plan_warns_of_a_packs_missing_clips_as_render_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from timekeeper.voice import select
    from timekeeper.voice.packs import PackVoice

    write_wav(tmp_path / "repeat.wav", tone(500))
    monkeypatch.setattr(select, "open_voice", lambda language, spec=None: PackVoice(tmp_path, language, MeasuredVoice(language)))
    planned = run_cli("plan", "test-run-1", "--voice", str(tmp_path))
    assert planned.exit_code == ExitStatus.SUCCESS, planned.output
    assert planned.stderr.count(f"Warning: voice pack {tmp_path} has no clip for ") == 1
    names = planned.stderr.split("has no clip for ")[1].split(";")[0].split(", ")
    assert "time_t_plus_1" in names and "repeat" not in names


# -- phrases with nothing to say -------------------------------------------------------------------

WORDLESS = ["...", " ", "-", "—", "!?", "\u00a0", "…", "🚀"]


@pytest.mark.parametrize("text", WORDLESS)
def test_a_phrase_without_words_is_silence_in_every_voice_and_no_engine_is_asked(
    text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """espeak-ng, pyttsx3, Piper and a pack's fallback speak nothing where nothing is to be said
    (Piper used to fail with Python's "wave.Error: # channels not specified")."""
    from timekeeper.voice import engines, neural
    from timekeeper.voice.neural import NeuralModel, NeuralVoice
    from timekeeper.voice.packs import PackVoice
    from timekeeper.voice.tts import TtsVoice

    def no_engine(*args: object, **kwargs: object) -> None:
        raise AssertionError("an engine was asked to speak a phrase without words")

    monkeypatch.setattr(engines, "get_engine", no_engine)
    monkeypatch.setattr(neural, "run_piper", no_engine)
    model = NeuralModel("en_US-joe-medium", tmp_path / "joe.onnx", "en", "fingerprint")
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "pack.yaml").write_text("name: pack\nlanguage: en\n", encoding="utf-8")
    for engine in ("espeak-ng", "pyttsx3"):
        voices = [TtsVoice("en", folder=tmp_path, engine=engine), NeuralVoice("en", model, 1.0, folder=tmp_path),
                  PackVoice(pack, "en", fallback=TtsVoice("en", folder=tmp_path, engine=engine))]
        for voice in voices:
            voice.prepare([("announce", text)])
            if isinstance(voice, (TtsVoice, NeuralVoice)):
                voice.draft([("announce", text)])
            assert len(voice.clip("announce", text)) == 0, voice.name
            assert voice.measure("announce", text) == 0


def test_sentences_without_words_are_left_out_of_a_phrase() -> None:
    from timekeeper.grammar.phrases import has_words
    from timekeeper.voice.tts import sentences

    assert sentences("Hello. ... World! - ?") == ["Hello.", "World!"]
    assert sentences(" ... ") == [] and sentences("") == []
    assert all(has_words(text) for text in ("a", "5", "Ž", "中文", "٣")) and not any(has_words(text) for text in WORDLESS)


def test_piper_saying_no_sound_is_told_in_the_users_words(tmp_path: Path) -> None:
    from timekeeper.errors import VoiceError
    from timekeeper.voice.neural import NeuralModel, _piper_failure, run_piper

    model = NeuralModel("en_US-joe-medium", tmp_path / "joe.onnx", "en", "fingerprint")
    messages = ["INFO:__main__:Wrote 1.wav", "Traceback (most recent call last):", "  File ...",
                "wave.Error: # channels not specified"]
    said = _piper_failure(model, "Zone blue, zap.", messages, 1)
    assert said == "Piper made no sound at 'Zone blue, zap.' with voice en_US-joe-medium: give words it can speak"
    assert "wave" not in said and "Error" not in said
    assert _piper_failure(model, None, ["onnxruntime: cannot load the model"], 2) == (
        "Piper stopped with voice en_US-joe-medium (exit status 2): onnxruntime: cannot load the model")
    damaged = ("onnxruntime.capi.onnxruntime_pybind11_state.InvalidProtobuf: [ONNXRuntimeError] : 7 : INVALID_PROTOBUF : "
               "Load model from /x/joe.onnx failed:Protobuf parsing failed.")
    assert _piper_failure(model, "Alert.", [damaged], 1) == (
        f"Piper could not read the voice's model {model.path}: damaged or not a Piper model (install it again)")
    with pytest.raises(VoiceError, match="no words to speak"):
        run_piper(model, ["Zone red.", "..."], 1.0, tmp_path)


def test_a_pack_whose_spoken_words_say_nothing_is_refused() -> None:
    from timekeeper.errors import VoiceError
    from timekeeper.grammar.phrases import pack_book

    with pytest.raises(VoiceError, match=r"pack.yaml: spoken: threat, zone_red: no words to say"):
        pack_book("en", "p", {}, {"threat": "...", "zone_red": " - ", "zone_blue": "Blue!"}, "pack.yaml")
