"""Prerecorded voice packs built here from espeak-ng: lookup, fallback with a warning, bundles,
German combined clips, refusing paths outside the pack, damaged clips, export and listing."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from running import timekeeper
from tones import convert
from voicepacks import espeak_wav

from timekeeper.audio.pcm import clip_ms
from timekeeper.errors import VoiceError
from timekeeper.grammar.script import CueKind, Sound
from timekeeper.scenario.catalog import load_scenario
from timekeeper.soundtrack.mix import MixSettings, prepare_mix
from timekeeper.voice.export import export_pack
from timekeeper.voice.packs import PackVoice
from timekeeper.voice.settings import TtsSettings
from timekeeper.voice.tts import TtsVoice

SHORT = Path(__file__).parent / "data" / "render" / "short.yaml"




@pytest.fixture(scope="module")
def english_pack(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("packs") / "drill-en"
    export_pack("en", folder)
    return folder


def espeak_clip(path: Path, text: str, voice: str = "en-gb", rate: int = 120) -> None:
    espeak_wav(path, text, voice, rate)


def copy_pack(source: Path, target: Path) -> Path:
    target.mkdir()
    for path in source.iterdir():
        (target / path.name).write_bytes(path.read_bytes())
    return target


def test_pack_clips_replace_the_synthesized_voice(english_pack: Path, tmp_path: Path) -> None:
    pack = copy_pack(english_pack, tmp_path / "slow")
    espeak_clip(pack / "threat.wav", "Threat.")  # a slower, British recording of one phrase
    voice = PackVoice(pack, "en", fallback=TtsVoice("en"))
    voice.prepare([("threat", "Threat."), ("zone_red", "Zone red.")])
    assert voice.warnings == []
    assert voice.measure("threat", "Threat.") > TtsVoice("en").measure("threat", "Threat.") + 100
    assert voice.name == "pack:drill-en"  # the name in pack.yaml


def test_missing_clips_fall_back_with_a_warning(english_pack: Path, tmp_path: Path) -> None:
    pack = copy_pack(english_pack, tmp_path / "partial")
    for name in ("zone_red", "incoming_data", "data_transfer"):
        (pack / f"{name}.wav").unlink()
    mix = prepare_mix(load_scenario(str(SHORT)), MixSettings(voice=str(pack)))
    (warning,) = mix.warnings
    assert str(pack) in warning
    listed = warning.split("has no clip for ")[1].split(";")[0].split(", ")
    assert sorted(listed) == ["data_transfer", "incoming_data", "zone_red"]  # the bundle's own phrase too
    threat = next(cue for cue in mix.timeline.cues if cue.kind is CueKind.THREAT)
    start = threat.at_ms * 44_100 // 1000
    assert np.abs(mix.mix_chunk(start, 44_100 * 6)).max() > 0.1


def test_audio_files_in_other_formats_are_named_in_a_warning(english_pack: Path, tmp_path: Path) -> None:
    """An .m4a or .opus clip (the Android app records them) cannot be read: the pack says which
    files it skips, and the voice speaks those phrases, instead of dropping them without a word."""
    pack = copy_pack(english_pack, tmp_path / "m4a")
    for name, suffix in (("threat", ".m4a"), ("zone_red", ".opus")):
        wav = pack / f"{name}.wav"
        convert(wav, wav.with_suffix(suffix))
        wav.unlink()
    (pack / "notes.txt").write_text("recorded on a phone\n", encoding="utf-8")
    mix = prepare_mix(load_scenario(str(SHORT)), MixSettings(voice=str(pack), background=False))
    skipped = next(warning for warning in mix.warnings if "skips" in warning)
    assert "threat.m4a, zone_red.opus" in skipped and "notes.txt" not in skipped
    assert ".mp3, .ogg, .wav, .flac" in skipped and "ffmpeg -i threat.m4a threat.ogg" in skipped
    missing = next(warning for warning in mix.warnings if "has no clip for" in warning)
    assert "threat" in missing and "zone_red" in missing  # spoken by the synthesized voice


def test_bundle_ends_at_the_beep(english_pack: Path) -> None:
    voice = PackVoice(english_pack, "en", fallback=TtsVoice("en"))
    mix = prepare_mix(load_scenario(str(SHORT)), MixSettings(voice=str(english_pack), background=False))
    transfer = next(cue for cue in mix.timeline.cues if cue.kind is CueKind.DATA_TRANSFER)
    beep = next(part for part in transfer.parts if isinstance(part, Sound) and part.key == "beep")
    placed = voice.placements(transfer)
    bundle = voice.pack_clip("data_transfer")
    assert placed[0].at_ms + clip_ms(bundle) == beep.at_ms
    assert [p.at_ms for p in placed[1:]] == [transfer.speech[-1].at_ms]  # then "Data transfer complete."
    assert mix.warnings == ()


def test_german_combined_threat_zone_clips(tmp_path: Path) -> None:
    pack = tmp_path / "drill-de"
    export_pack("de", pack)
    assert (pack / "serious_threat_zone_white.wav").is_file() and not (pack / "zone_white.wav").exists()
    voice = PackVoice(pack, "de", fallback=TtsVoice("de"))
    assert voice.measure("zone_red", "Zone Rot.") == 0
    mix = prepare_mix(load_scenario(str(SHORT)), MixSettings(language="de", voice=str(pack)))
    assert mix.warnings == ()
    threat = next(cue for cue in mix.timeline.cues if cue.kind is CueKind.THREAT)
    keys = [part.key for part in threat.speech]  # the timeline speaks the combined clips
    assert keys == ["time_t_plus_1", "threat_zone_red", "repeat", "time_t_plus_1", "threat_zone_red"]
    combined = [p for p in mix.placements if p.key == "threat_zone_red"]
    assert len(combined) == 2  # once, and again after "Wiederhole"
    assert all(p.source == str(pack / "threat_zone_red.wav") for p in combined)
    assert all(np.array_equal(p.clip, voice.pack_clip("threat_zone_red")) for p in combined)


def test_clip_paths_may_not_leave_the_pack(english_pack: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.wav"
    espeak_clip(outside, "Threat.")
    by_manifest = copy_pack(english_pack, tmp_path / "manifest")
    (by_manifest / "pack.yaml").write_text("name: sneaky\nclips:\n  threat: ../outside.wav\n", encoding="utf-8")
    with pytest.raises(VoiceError, match="outside the voice pack"):
        PackVoice(by_manifest, "en", fallback=TtsVoice("en"))
    by_link = copy_pack(english_pack, tmp_path / "link")
    (by_link / "threat.wav").unlink()
    (by_link / "threat.wav").symlink_to(outside)
    with pytest.raises(VoiceError, match="outside the voice pack"):
        PackVoice(by_link, "en", fallback=TtsVoice("en"))


def test_manifest_may_point_inside_the_pack(english_pack: Path, tmp_path: Path) -> None:
    pack = copy_pack(english_pack, tmp_path / "nested")
    (pack / "takes").mkdir()
    espeak_clip(pack / "takes" / "red-3.wav", "Zone red.", rate=100)
    (pack / "pack.yaml").write_text("name: Nested\nlanguage: en\nclips:\n  zone_red: takes/red-3.wav\n", encoding="utf-8")
    voice = PackVoice(pack, "en", fallback=TtsVoice("en"))
    assert voice.files["zone_red"] == (pack / "takes" / "red-3.wav").resolve()
    with pytest.raises(VoiceError, match="use --lang en"):
        PackVoice(pack, "de", fallback=TtsVoice("de"))


def test_damaged_clip_names_the_file(english_pack: Path, tmp_path: Path) -> None:
    pack = copy_pack(english_pack, tmp_path / "damaged")
    (pack / "zone_red.wav").unlink()
    (pack / "zone_red.mp3").write_bytes(b"ID3 but then nothing useful" * 10)
    with pytest.raises(VoiceError, match="zone_red.mp3"):
        prepare_mix(load_scenario(str(SHORT)), MixSettings(voice=str(pack)))


def test_cli_export_list_and_render_by_pack_name(tmp_path: Path) -> None:
    env = {"TIMEKEEPER_VOICES": str(tmp_path / "voices")}
    export = timekeeper("voice", "export", "--lang", "es", "--format", "mp3", str(tmp_path / "voices" / "nave"), env=env)
    assert export.returncode == 0, export.stderr
    assert (tmp_path / "voices" / "nave" / "data_transfer.mp3").is_file()
    listing = timekeeper("voices", env=env)
    assert listing.returncode == 0
    rate = TtsSettings.default("es").rate_wpm
    assert f"es  es at {rate} words/min" in listing.stdout and "nave  es" in listing.stdout
    out = tmp_path / "nave.wav"
    rendered = timekeeper("render", str(SHORT), "--lang", "es", "--voice", "nave", "-o", str(out), env=env)
    assert rendered.returncode == 0, rendered.stderr
    assert "voice pack:nave" in rendered.stdout and "Warning" not in rendered.stderr
    bad = timekeeper("render", str(SHORT), "--voice", "./nowhere", "-o", str(out), env=env)
    assert bad.returncode == 4 and "no such voice pack folder" in bad.stderr


def test_a_second_plan_with_a_pack_levels_nothing_and_loads_no_scipy(english_pack: Path, tmp_path: Path) -> None:
    """The pack's levelled clips come from the clip cache the second time (scipy, which levelling
    needs, takes about 2 s to load)."""
    import subprocess
    import sys

    pack = copy_pack(english_pack, tmp_path / "levelled")
    env = {**os.environ, "TIMEKEEPER_CACHE": str(tmp_path / "cache")}
    plan = f"from timekeeper.cli import main; import sys; main(['plan', {str(SHORT)!r}, '--voice', {str(pack)!r}]); " \
           "print('scipy loaded' if 'scipy' in sys.modules else 'no scipy')"
    first, again = (subprocess.run([sys.executable, "-c", plan], env=env, capture_output=True, text=True, timeout=300)
                    for _ in range(2))
    assert first.returncode == 0 and first.stdout.rstrip().endswith("scipy loaded"), first.stdout[-300:] + first.stderr[-300:]
    assert again.returncode == 0 and again.stdout.rstrip().endswith("no scipy"), again.stdout[-300:] + again.stderr[-300:]
    assert first.stdout == again.stdout.replace("no scipy", "scipy loaded")  # the same plan
    assert len(list((tmp_path / "cache" / "packs").rglob("*.wav"))) >= 20
