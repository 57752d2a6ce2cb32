"""The timeline every output reads: no official track overlaps in any language, the shipped
phrase lengths are current, and `timekeeper plan` prints and flags cues."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from running import timekeeper as run

from timekeeper.grammar.durations import default_measure, shipped_durations
from timekeeper.grammar.phrases import LANGUAGES, phrase_book
from timekeeper.grammar.script import ScriptOptions, build_timeline
from timekeeper.scenario.catalog import builtin_paths, load_scenario
from timekeeper.voice.engines import engine_name
from timekeeper.voice.settings import TtsSettings

SHORT = Path(__file__).parent / "data" / "render" / "short.yaml"
OFFICIAL = sorted(name for name, path in builtin_paths().items() if path.parent.name == "official")


def test_there_are_34_official_tracks() -> None:
    assert len(OFFICIAL) == 34


@pytest.mark.parametrize("language", LANGUAGES)
def test_shipped_table_covers_every_phrase(language: str) -> None:
    assert set(shipped_durations(language)) == set(phrase_book(language).spoken)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("options", [ScriptOptions(), ScriptOptions(players=4), ScriptOptions(solo=True)])
def test_no_official_track_overlaps(language: str, options: ScriptOptions) -> None:
    book, measure = phrase_book(language), default_measure(language)
    found = []
    for name in OFFICIAL:
        for overlap in build_timeline(load_scenario(name), book, measure, options).overlaps():
            found.append(f"{name}: {overlap.first.kind.value}@{overlap.first.at_ms} +{overlap.overlap_ms} ms")
    assert not found


@pytest.mark.full(reason="real espeak-ng synthesis of every phrase")
@pytest.mark.parametrize("language", LANGUAGES)
def test_shipped_lengths_match_the_real_voice(language: str) -> None:
    """Re-synthesize the phrases of the tightest cue (a data transfer) and a few others."""
    from timekeeper.voice.tts import TtsVoice

    book, table = phrase_book(language), shipped_durations(language)
    keys = ["data_transfer", "data_transfer_repeat", "data_transfer_in", "data_transfer_complete", "time_t_plus_7"]
    with tempfile.TemporaryDirectory() as scratch:
        voice = TtsVoice(language, folder=Path(scratch))
        for key in keys:
            assert abs(voice.measure(key, book.say(key)) - table[key]) <= 20, key


def test_plan_warns_once_when_this_machine_speaks_otherwise_than_the_table(tmp_path: Path) -> None:
    """The shipped lengths were measured with the espeak-ng library of the espeakng-loader wheel
    (the tables' header): another engine is named in one warning, with the command that gives
    exact timing."""
    header = Path(__file__).parent.parent / "voices" / "durations-en.yaml"
    rate = TtsSettings.default("en").rate_wpm
    assert f"engine: {engine_name()}, voice: en-us, rate: {rate} wpm" in header.read_text(encoding="utf-8")
    same = run("plan", "mission-3")
    assert same.returncode == 0 and "Warning" not in same.stderr  # this machine speaks with that library
    other = {"TIMEKEEPER_TTS_ENGINE": "pyttsx3"}
    elsewhere = run("plan", "mission-3", env=other)
    assert elsewhere.returncode == 0 and elsewhere.stdout == same.stdout
    assert elsewhere.stderr.count("Warning:") == 1, elsewhere.stderr
    version = engine_name().removeprefix("espeak-ng-")
    assert (f"phrase lengths were measured with espeak-ng {version}; this machine has pyttsx3 " in elsewhere.stderr
            and "timekeeper plan ... --voice en-us` for exact timing" in elsewhere.stderr)
    for args in (["validate", "mission-3"], ["generate", "--seed", "7"]):
        done = run(*args, env=other)
        assert done.returncode == 0 and done.stderr.count("this machine has pyttsx3 ") == 1, done.stderr
        assert f"timekeeper {args[0]} ... --voice en-us" in done.stderr
    german = run("plan", "mission-3", "--lang", "de", env=other)
    assert "this machine has pyttsx3 " in german.stderr and "--voice de`" in german.stderr
    exact = run("plan", str(SHORT), "--voice", "en-us", env=other)  # measured with this machine's voice
    assert exact.returncode == 0 and "Warning" not in exact.stderr, exact.stderr


def test_count_falls_on_its_own_seconds_before_each_phase_end() -> None:
    timeline = build_timeline(load_scenario("mission-3"), phrase_book("en"), default_measure("en"))
    finals = [cue for cue in timeline.cues if cue.kind.value == "phase_end"]
    assert len(finals) == len(timeline.phase_ends_ms)
    for cue, end_ms in zip(finals, timeline.phase_ends_ms):
        count = {part.key: part.at_ms for part in cue.speech if part.key.startswith("count_")}
        assert [count[f"count_{n}"] for n in (5, 4, 3, 2, 1)] == [end_ms - n * 1000 for n in (5, 4, 3, 2, 1)]


def test_plan_prints_every_cue_with_start_and_end() -> None:
    result = run("plan", "mission-3", "--lang", "de")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    first = lines[0].split()
    assert first[0] == "0:00.750" and first[1] == "-" and first[3] == "begin"  # the lead-in
    assert any("8:05" in line and "data_transfer" in line and "Datenübertragung" in line for line in lines)
    squeezed = [index for index, line in enumerate(lines) if "squeezed to fit" in line]
    assert len(squeezed) == 1 and "8:05" in lines[squeezed[0] - 1]  # only the tight transfer
    assert lines[-1].endswith("0 overlapping")


def test_plan_marks_overlaps_and_strict_fails(tmp_path: Path) -> None:
    crowded = tmp_path / "crowded.yaml"
    crowded.write_text(
        'title: "Crowded"\nphase_ends: ["3:00", "6:00"]\nevents:\n'
        '  - {at: "0:10", type: data_transfer}\n  - {at: "0:14", type: incoming_data}\n',
        encoding="utf-8",
    )
    relaxed = run("plan", str(crowded))
    assert relaxed.returncode == 0
    assert "!! OVERLAP" in relaxed.stdout and relaxed.stdout.splitlines()[-1].endswith("1 overlapping")
    strict = run("plan", str(crowded), "--strict")
    assert strict.returncode == 3
