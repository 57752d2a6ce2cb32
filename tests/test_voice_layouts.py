"""Packs in any language, the Android app's layout (clips + grammar.xml) and whole-cue recordings,
run as a user runs them and checked in the decoded render."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from decoded import RATE, decode, rms
from running import timekeeper
from voicepacks import spoken_clip

from timekeeper.audio.clipcache import write_wav
from timekeeper.audio.codec import FORMATS, encode
from timekeeper.audio.pcm import SAMPLE_RATE, pcm16
from timekeeper.grammar.script import ALERT_MS, GAP_MS, CueKind, Sound
from timekeeper.scenario.catalog import load_scenario
from timekeeper.soundtrack.mix import MixSettings, prepare_mix
from timekeeper.voice.export import export_pack
from timekeeper.voice.tts import decode_file

SHORT = Path(__file__).parent / "data" / "render" / "short.yaml"


def spoken(path: Path, text: str, voice: str, rate_wpm: int = 160) -> None:
    spoken_clip(path, text, voice, rate_wpm)


@pytest.fixture(scope="module")
def english_export(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("export") / "en"
    export_pack("en", folder)
    return folder


def copy_pack(source: Path, target: Path) -> Path:
    shutil.copytree(source, target)
    return target


# -- a pack in a language without a phrase table ---------------------------------------------------
@pytest.fixture(scope="module")
def greek_pack(english_export: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Greek pack: every clip re-recorded with espeak-ng's Greek voice, printed words in pack.yaml."""
    pack = copy_pack(english_export, tmp_path_factory.mktemp("packs") / "greek")
    for name in ("threat", "zone_red", "repeat", "time_t_plus_1"):
        spoken(pack / f"{name}.wav", {"threat": "Απειλή.", "zone_red": "Ζώνη κόκκινη.", "repeat": "Επαναλαμβάνω.",
                                      "time_t_plus_1": "Χρόνος Τ συν ένα."}[name], "el")
    (pack / "pack.yaml").write_text(
        "name: Ελληνικά\nlanguage: el\n"
        "printed:\n  threat: Απειλή\n  zone_red: Κόκκινη\n  title: Κάρτα σεναρίου\n"
        "spoken:\n  threat: Απειλή.\n  zone_red: Ζώνη κόκκινη.\n  repeat: Επαναλαμβάνω.\n",
        encoding="utf-8",
    )
    return pack


def test_a_pack_in_any_language_renders_with_its_own_timing(greek_pack: Path, tmp_path: Path) -> None:
    out = tmp_path / "greek.wav"
    done = timekeeper("render", str(SHORT), "--voice", str(greek_pack), "--no-background", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert "voice pack:Ελληνικά" in done.stdout
    mix = prepare_mix(load_scenario(str(SHORT)), MixSettings(language="el", voice=str(greek_pack), background=False))
    assert mix.timeline.language == "el" and mix.warnings == ()
    threat = next(cue for cue in mix.timeline.cues if cue.kind is CueKind.THREAT)
    assert "Απειλή. Ζώνη κόκκινη. Επαναλαμβάνω." in threat.text  # captions from the manifest
    zone = next(part for part in threat.speech if part.key == "zone_red")
    assert zone.duration_ms == pytest.approx(1000 * len(decode_file(greek_pack / "zone_red.wav")) / RATE, abs=2)
    samples = decode(out)
    assert rms(samples, zone.at_ms, zone.duration_ms) > 0.02
    planned = timekeeper("plan", str(SHORT), "--voice", str(greek_pack))
    assert planned.returncode == 0 and "Ζώνη κόκκινη." in planned.stdout


def test_cards_print_the_packs_words_else_english(greek_pack: Path) -> None:
    card = timekeeper("card", str(SHORT), "--voice", str(greek_pack), "--format", "text")
    assert card.returncode == 0, card.stderr
    assert "Απειλή" in card.stdout and "Κόκκινη" in card.stdout  # the pack's printed words
    assert "Serious threat" in card.stdout and "Data transfer" in card.stdout  # English elsewhere


def test_a_language_without_table_or_pack_is_a_clear_error() -> None:
    done = timekeeper("render", str(SHORT), "--lang", "el", "-o", "/tmp/never-el.mp3")
    assert done.returncode == 4
    assert "no phrase table for language 'el'" in done.stderr and "--voice DIR" in done.stderr
    bad = timekeeper("plan", str(SHORT), "--lang", "Greek!")
    assert bad.returncode == 2 and "not a language code" in bad.stderr


def test_unknown_words_in_the_manifest_are_named(greek_pack: Path, tmp_path: Path) -> None:
    pack = copy_pack(greek_pack, tmp_path / "typo")
    (pack / "pack.yaml").write_text("language: el\nprinted:\n  thret: Απειλή\n", encoding="utf-8")
    done = timekeeper("plan", str(SHORT), "--voice", str(pack))
    assert done.returncode == 4 and "pack.yaml: printed: unknown key(s) thret" in done.stderr


# -- the Android app's layout ----------------------------------------------------------------------
GRAMMAR = """<Settings>
  <Grammar>{language}</Grammar>
  <CommunicationsDownHeader>Comms down!</CommunicationsDownHeader>
  <TimeTPlus1>Time T+1</TimeTPlus1>
  <Threat>Threat</Threat>
  <ZoneRed>Zone Red</ZoneRed>
  <DataTransfer>Data Transfer</DataTransfer>
  <RedAlertLevel1></RedAlertLevel1>
  <SomethingNew>ignored</SomethingNew>
</Settings>
"""


def android_pack(english_export: Path, target: Path, language: str = "English") -> Path:
    """The export rearranged as the Android app keeps packs: mp3 clips, grammar.xml, no pack.yaml."""
    target.mkdir()
    for path in english_export.glob("*.wav"):
        if path.stem in ("threat", "zone_red", "data_transfer", "time_t_plus_1"):
            encode([pcm16(decode_file(path))], SAMPLE_RATE, 1, target / f"{path.stem}.mp3", FORMATS[".mp3"], {})
        else:
            shutil.copyfile(path, target / path.name)
    (target / "grammar.xml").write_text(GRAMMAR.format(language=language), encoding="utf-8")
    return target


def test_android_pack_plays_with_its_grammar_words(english_export: Path, tmp_path: Path) -> None:
    pack = android_pack(english_export, tmp_path / "android-en")
    planned = timekeeper("plan", str(SHORT), "--voice", str(pack))
    assert planned.returncode == 0, planned.stderr
    assert "Time T+1 Threat Zone Red" in planned.stdout and "Comms down!" in planned.stdout
    mix = prepare_mix(load_scenario(str(SHORT)), MixSettings(voice=str(pack), background=False))
    assert mix.voice_name == "pack:android-en" and mix.warnings == ()
    transfer = next(p for p in mix.placements if p.key == "data_transfer")
    assert transfer.source == str(pack / "data_transfer.mp3")
    listed = timekeeper("voices")
    assert listed.returncode == 0


def test_android_language_comes_from_the_grammar(english_export: Path, tmp_path: Path) -> None:
    pack = android_pack(english_export, tmp_path / "android-el", language="Ελληνικά")
    done = timekeeper("plan", str(SHORT), "--voice", str(pack))
    assert done.returncode == 0, done.stderr
    mix = prepare_mix(load_scenario(str(SHORT)), MixSettings(language="el", voice=str(pack)))
    assert mix.timeline.language == "el"
    assert mix.timeline.phrases.word("threat") == "Threat"  # the grammar's word, printed on cards
    refused = timekeeper("plan", str(SHORT), "--lang", "de", "--voice", str(pack))
    assert refused.returncode == 4 and "speaks 'el'; use --lang el" in refused.stderr


def test_a_hostile_grammar_file_is_refused(english_export: Path, tmp_path: Path) -> None:
    pack = android_pack(english_export, tmp_path / "android-bad")
    (pack / "grammar.xml").write_text('<!DOCTYPE x [<!ENTITY a "aaaa">]><Settings>&a;</Settings>', encoding="utf-8")
    done = timekeeper("plan", str(SHORT), "--voice", str(pack))
    assert done.returncode == 4 and "grammar.xml" in done.stderr and "not allowed" in done.stderr
    (pack / "grammar.xml").write_text("<Settings><Threat>Threat</Settings>", encoding="utf-8")
    broken = timekeeper("plan", str(SHORT), "--voice", str(pack))
    assert broken.returncode == 4 and "grammar.xml: not valid XML" in broken.stderr


# -- whole-cue recordings --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def cue_pack(english_export: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A pack with two whole-cue recordings: a data transfer holding its own beep at 7.5 s, and
    the threat T+1 zone red spoken in one take (the synthesized alert kept)."""
    pack = copy_pack(english_export, tmp_path_factory.mktemp("packs") / "whole-cues")
    cues = pack / "takes"
    cues.mkdir()
    speech = cues / "dt-voice.wav"
    spoken(speech, "Data transfer. Repeat, data transfer. Transfer in five, four, three, two, one.", "en-gb", 150)
    voice = decode_file(speech)
    take = np.zeros(int(9.0 * RATE), dtype=np.float32)
    take[: min(len(voice), int(7.4 * RATE))] = voice[: int(7.4 * RATE)]
    tone = 0.5 * np.sin(2 * np.pi * 1000 * np.arange(int(0.4 * RATE)) / RATE)
    take[int(7.5 * RATE) : int(7.9 * RATE)] = tone  # the recording's own beep at 7.5 s
    write_wav(cues / "data-transfer.wav", take)
    speech.unlink()
    spoken(cues / "t1-red.wav", "Time T plus one. Threat. Zone red. Repeat. Time T plus one. Threat. Zone red.", "en-gb")
    (pack / "pack.yaml").write_text(
        "name: Takes\nlanguage: en\ncues:\n"
        "  data_transfer: {file: takes/data-transfer.wav, moment: 7.5, sounds: true}\n"
        "  t1_threat_zone_red: takes/t1-red.wav\n",
        encoding="utf-8",
    )
    return pack


def test_whole_cue_recordings_are_placed_at_their_moment(cue_pack: Path, tmp_path: Path) -> None:
    out = tmp_path / "takes.wav"
    done = timekeeper("render", str(SHORT), "--voice", str(cue_pack), "--no-background", "-o", str(out))
    assert done.returncode == 0, done.stderr
    mix = prepare_mix(load_scenario(str(SHORT)), MixSettings(voice=str(cue_pack), background=False))
    assert mix.warnings == ()
    transfer = next(cue for cue in mix.timeline.cues if cue.kind is CueKind.DATA_TRANSFER)
    assert not any(isinstance(part, Sound) for part in transfer.parts)  # the take holds its own beep
    (take,) = [p for p in mix.placements if p.key == "data_transfer"]
    default = prepare_mix(load_scenario(str(SHORT)), MixSettings(background=False)).timeline
    beep_ms = next(p.at_ms for c in default.cues for p in c.parts if isinstance(p, Sound) and p.key == "beep")
    assert take.at_ms == beep_ms - 7500  # the take's beep falls on the transfer moment
    samples = decode(out)
    window = samples[beep_ms * RATE // 1000 : (beep_ms + 400) * RATE // 1000]
    spectrum = np.abs(np.fft.rfft(window))
    assert np.argmax(spectrum) * RATE / len(window) == pytest.approx(1000, abs=20)  # the beep, on time
    threat = next(cue for cue in mix.timeline.cues if cue.kind is CueKind.THREAT)
    assert [part.key for part in threat.speech] == ["t1_threat_zone_red"]
    assert any(isinstance(p, Sound) and p.key == "alert" and p.at_ms == 8000 for p in threat.parts)
    assert threat.speech[0].at_ms == 8000 + ALERT_MS + GAP_MS  # the take starts where the words would, after the alert
    assert rms(samples, 9600, 2000) > 0.02
    planned = timekeeper("plan", str(SHORT), "--voice", str(cue_pack))
    assert re.search(r"0:08 - +0:1\d\.\d+ +threat +\[alert\] Time T plus one", planned.stdout), planned.stdout


@pytest.mark.parametrize("entry, message", [
    ("  t9_threat_zone_red: takes/t1-red.wav\n", "cues: t9_threat_zone_red: unknown cue name"),
    ("  data_transfer: {file: takes/none.wav}\n", "cues: data_transfer: no such file"),
    ("  data_transfer: {file: takes/t1-red.wav, moment: 99}\n", "moment 99 s lies beyond the end"),
    ("  data_transfer: {file: takes/t1-red.wav, moment: -1}\n", "moment must be seconds into the clip"),
    ("  data_transfer: {file: takes/t1-red.wav, at: 1}\n", "unknown field(s) at"),
    ("  data_transfer: {file: ../../etc/passwd}\n", ": pack.yaml: cues: data_transfer: ../../etc/passwd points outside the voice pack"),
])
def test_bad_cue_entries_are_named(cue_pack: Path, tmp_path: Path, entry: str, message: str) -> None:
    pack = copy_pack(cue_pack, tmp_path / "bad")
    (pack / "pack.yaml").write_text("language: en\ncues:\n" + entry, encoding="utf-8")
    done = timekeeper("plan", str(SHORT), "--voice", str(pack))
    assert done.returncode == 4, done.stdout
    assert message in done.stderr and "Traceback" not in done.stderr
