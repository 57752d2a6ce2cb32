"""Faults a careless user or a broken disk causes: damaged caches, unwritable folders, odd names,
mismatched languages. Each runs the real command line and checks that nothing is lost or wrong."""

from __future__ import annotations

import os
import random
import re
import wave
from pathlib import Path

import numpy as np
import pytest
import yaml
from running import timekeeper as run

from timekeeper.audio.clipcache import DamagedClip, read_wav, write_wav
from timekeeper.files.userfiles import read_user_file
from timekeeper.grammar.times import parse_clock_option
from timekeeper.voice.tts import TtsVoice

SHORT = str(Path(__file__).parent / "data" / "render" / "short.yaml")
LIVE_TRACK = str(Path(__file__).parent / "data" / "live" / "three-phases.yaml")


# -- the clip cache --------------------------------------------------------------------------------

def _damage(path: Path, how: str) -> None:
    data = path.read_bytes()
    if how == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif how == "odd-length":
        path.write_bytes(data[:-17])
    elif how == "empty-framed":
        with wave.open(str(path), "wb") as handle:
            handle.setnchannels(1)
            handle.setsampwidth(2)
            handle.setframerate(44100)
    elif how == "8-bit":
        with wave.open(str(path), "wb") as handle:
            handle.setnchannels(1)
            handle.setsampwidth(1)
            handle.setframerate(44100)
            handle.writeframes(bytes(range(256)) * 40)
    elif how == "stereo":
        with wave.open(str(path), "wb") as handle:
            handle.setnchannels(2)
            handle.setsampwidth(2)
            handle.setframerate(44100)
            handle.writeframes(data[44:-24])
    elif how == "one-sample-flipped":  # same size and header, different samples: only the checksum sees it
        flipped = bytearray(data)
        flipped[100] ^= 0x40
        path.write_bytes(bytes(flipped))


DAMAGE = ("truncated", "odd-length", "empty-framed", "8-bit", "stereo", "one-sample-flipped")


@pytest.mark.parametrize("how", DAMAGE)
def test_a_damaged_cached_clip_is_detected(tmp_path: Path, how: str) -> None:
    path = tmp_path / "clip.wav"
    write_wav(path, np.sin(np.linspace(0, 400, 20_000)).astype(np.float32) * 0.5)
    read_wav(path)  # intact
    _damage(path, how)
    with pytest.raises(DamagedClip):
        read_wav(path)


def test_renders_with_a_damaged_cache_equal_a_clean_render(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    clean = tmp_path / "clean.wav"
    assert run("render", SHORT, "-o", str(clean), env={"TIMEKEEPER_CACHE": str(cache)}).returncode == 0
    clips = sorted((cache / "tts").rglob("*.wav"))
    assert len(clips) >= len(DAMAGE)
    for clip, how in zip(clips, DAMAGE):
        _damage(clip, how)
    again = tmp_path / "again.wav"
    done = run("render", SHORT, "-o", str(again), env={"TIMEKEEPER_CACHE": str(cache)})
    assert done.returncode == 0, done.stderr
    assert again.read_bytes() == clean.read_bytes()  # the damaged clips were made again, not played
    for clip in clips[: len(DAMAGE)]:
        read_wav(clip)  # and the cache is healed


def test_an_unwritable_cache_warns_and_still_renders(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    out = tmp_path / "out.wav"
    done = run("render", SHORT, "-o", str(out), env={"TIMEKEEPER_CACHE": str(blocker)})
    assert done.returncode == 0, done.stderr
    assert "cannot write the clip cache" in done.stderr and "TIMEKEEPER_CACHE" in done.stderr
    assert out.stat().st_size > 1_000_000
    assert blocker.read_text() == "a file where the cache folder should be"


def test_clips_in_memory_equal_clips_from_the_cache(tmp_path: Path) -> None:
    fresh = TtsVoice("en", folder=tmp_path).clip("threat", "Threat.")
    cached = TtsVoice("en", folder=tmp_path).clip("threat", "Threat.")
    assert np.array_equal(fresh, cached)


# -- voice packs -----------------------------------------------------------------------------------

def test_voice_export_writes_a_manifest_that_reads_back_for_any_name(tmp_path: Path) -> None:
    folder = tmp_path / "my pack: v2 # 'quoted' [x]"
    done = run("voice", "export", str(folder))
    assert done.returncode == 0, done.stderr
    manifest = yaml.safe_load((folder / "pack.yaml").read_text(encoding="utf-8"))
    assert manifest == {"name": folder.name, "language": "en"}
    assert not [p for p in folder.iterdir() if p.name.endswith((".part", ".tmp"))]
    listed = run("voices", env={"TIMEKEEPER_VOICES": str(tmp_path)})
    assert f"{folder.name}  en  " in listed.stdout


def test_a_german_text_with_an_english_voice_warns(tmp_path: Path) -> None:
    done = run("plan", SHORT, "--lang", "de", "--voice", "en-gb")
    assert done.returncode == 0, done.stderr
    assert "Warning: voice 'en-gb' speaks en, not de" in done.stderr
    quiet = run("plan", SHORT, "--lang", "DE", "--voice", "de")
    assert quiet.returncode == 0 and "Warning" not in quiet.stderr


# -- command-line traps ----------------------------------------------------------------------------

CODE = "010AL1TW,050ID,340PE1,700PE2"
NOT_UTF8 = "\udcff"  # what Python makes of the byte 0xff on the command line; subprocess passes the byte back


@pytest.mark.parametrize("args, named", [
    (["import", CODE, "--title", f"a{NOT_UTF8}b"], "--title 'a\\xffb'"),
    (["import", CODE, "-o", f"t{NOT_UTF8}.yaml"], "-o 't\\xff.yaml'"),
    (["render", SHORT, "--voice", f"v{NOT_UTF8}", "-o", "x.wav"], "--voice 'v\\xff'"),
    (["live", SHORT, "--backend", "null", f"--voice=v{NOT_UTF8}"], "--voice 'v\\xff'"),
    (["log", "add", "--crew", f"Ann{NOT_UTF8}:captain,Bob"], "--crew 'Ann\\xff:captain,Bob'"),
    (["log", "print", "--title", f"x{NOT_UTF8}", "-o", "log.pdf"], "--title 'x\\xff'"),
    (["validate", f"s{NOT_UTF8}.yaml"], "'s\\xff.yaml'"),
])
def test_bytes_that_are_not_utf8_are_refused_naming_the_argument(tmp_path: Path, args: list[str], named: str) -> None:
    done = run(*args, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [f"Error: {named}: holds bytes that are not UTF-8 (shown as \\xNN); "
                                        "give text and file names in UTF-8"]
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("title, problem", [
    ("a\x1b", "contains the control character U+001B at character 2"),
    ("two\nlines", "contains a line break at character 4"),
    ("T" * 201, "201 characters; at most 200 are allowed"),
])
def test_a_title_option_is_checked_as_a_title_in_a_file_is(tmp_path: Path, title: str, problem: str) -> None:
    for args in (["import", CODE, "--title", title, "-o", "t.yaml"], ["log", "print", "--title", title, "-o", "log.pdf"]):
        done = run(*args, cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        assert done.stderr.splitlines()[-1].startswith(f"Error: Invalid value for '--title': {problem}"), done.stderr
        assert "YAML" not in done.stderr
    assert not list(tmp_path.iterdir())


def test_a_title_made_from_the_file_name_leaves_out_control_characters(tmp_path: Path) -> None:
    done = run("import", CODE, "-o", "t\x1bone.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert 'title: "tone"' in (tmp_path / "t\x1bone.yaml").read_text()


@pytest.mark.parametrize("text, ms", [("4:30", 270_000), ("4:30.5", 270_500), ("270s", 270_000), ("4m30s", 270_000),
                                      ("4m", 240_000), ("4 min", 240_000), ("0", 0), ("1.5s", 1_500)])
def test_start_at_takes_minutes_and_seconds_or_a_unit(text: str, ms: int) -> None:
    assert parse_clock_option(text) == ms


@pytest.mark.parametrize("text", ["430", "4.30", "270", "4m75s", "-1", "٤:٣٠", "4:30:00", "fourish", "4:3", "4:3.5", "0:0"])
def test_start_at_refuses_the_ambiguous_and_the_malformed(text: str) -> None:
    with pytest.raises(ValueError):
        parse_clock_option(text)


def test_start_at_with_one_digit_of_seconds_suggests_both_readings() -> None:
    with pytest.raises(ValueError, match=r"^'4:3' is ambiguous: write minutes and seconds with two digits of seconds as "
                                         r"4:03 \(or 4:30\), or seconds with a unit as 243s$"):
        parse_clock_option("4:3")
    done = run("live", LIVE_TRACK, "--backend", "null", "--start-at", "4:3")
    assert done.returncode == 2 and "'4:3' is ambiguous" in done.stderr.splitlines()[-1], done.stderr


def test_live_starts_where_a_unit_says(tmp_path: Path) -> None:
    done = run("live", LIVE_TRACK, "--backend", "null", "--start-at", "201s")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("3:2") and "Operation ends in five" in done.stdout.splitlines()[0]  # 201 s = 3:21


def test_card_warns_about_characters_its_font_cannot_draw(tmp_path: Path) -> None:
    scenario = tmp_path / "emoji.yaml"
    scenario.write_text('title: "Rocket 🚀"\nphase_ends: ["3:00", "6:00"]\nevents: []\n', encoding="utf-8")
    done = run("card", str(scenario), "-o", str(tmp_path / "c.pdf"))
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[0] == "Warning: the card font has no 🚀; they are left out of the PDF"
    assert "missing the following glyphs" not in done.stderr


@pytest.mark.parametrize("args", [
    ["generate", "--seed", "9" * 5000],
    ["generate", "--seed=" + "9" * 5000],
    ["log", "show", "9" * 5000],
    ["live", LIVE_TRACK, "--backend", "null", "--start-at", "9" * 5000],
    ["plan", LIVE_TRACK, "--lang", "x" * 5000],
    ["import", CODE, "-o", "x" * 5000 + ".yaml"],
])
def test_an_error_repeats_a_huge_argument_shortened(tmp_path: Path, args: list[str]) -> None:
    done = run(*args, cwd=tmp_path)
    assert done.returncode in (2, 10), done.stderr[:300]
    error = done.stderr.splitlines()[-1]
    assert error.startswith("Error: ") and len(error) < 200, error[:300]
    assert "9" * 20 + "..." in error or "x" * 20 + "..." in error


def test_export_writes_the_format_its_extension_names(tmp_path: Path) -> None:
    copy = tmp_path / "copy.yaml"
    done = run("export", LIVE_TRACK, "-o", str(copy))
    assert done.returncode == 0, done.stderr
    assert run("validate", str(copy)).returncode == 0
    code = tmp_path / "code.txt"
    assert run("export", LIVE_TRACK, "-o", str(code)).returncode == 0
    assert len(code.read_text().splitlines()) == 1 and "PE1" in code.read_text()


@pytest.mark.parametrize("args, message", [
    (["export", LIVE_TRACK, "-o", "x.pdf"], "x.pdf: exports are written as .txt, .yaml or .yml, not '.pdf'"),
    (["export", LIVE_TRACK, "--format", "flashcode", "-o", "x.yml"], "x.yml: a .yml file for --format flashcode; name it x.txt"),
    (["import", CODE, "-o", "i.pdf"], "i.pdf: scenarios are written as .yaml or .yml, not '.pdf'"),
])
def test_export_and_import_refuse_an_extension_of_another_format(tmp_path: Path, args: list[str], message: str) -> None:
    done = run(*args, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[-1] == f"Error: Invalid value for -o/--output: {message}"
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_draw_seed_draws_its_campaign_track_from_random_alone(tmp_path: Path, seed: int) -> None:
    done = run("log", "--db", str(tmp_path / "log.sqlite3"), "campaign", "start", "--crew", "Ann:captain,Bob",
               "--draw-seed", str(seed))
    assert done.returncode == 0, done.stderr
    drawn = int(random.Random(seed).random() * 8) + 1  # what every Python version gives for this seed
    assert f"Mission 1: play mission-{drawn} " in done.stdout, done.stdout


# -- the shared guards -----------------------------------------------------------------------------

@pytest.mark.parametrize("folder, named, kind", [("/dev/full/", "/dev/full", "a character device"),
                                                 ("{tmp}/file/", "{tmp}/file", "a file"),
                                                 ("{tmp}/file/inside/", "{tmp}/file", "a file")])
def test_generate_into_a_folder_that_is_not_one_says_so(tmp_path: Path, folder: str, named: str, kind: str) -> None:
    (tmp_path / "file").write_text("kept")
    done = run("generate", "--count", "2", "-o", folder.format(tmp=tmp_path))
    assert done.returncode == 10, done.stderr
    assert done.stderr.splitlines() == [f"Error: {named.format(tmp=tmp_path)}: is {kind}, not a folder; "
                                        "cannot write the missions into it"]
    assert (tmp_path / "file").read_text() == "kept"


def test_read_user_file_refuses_pipes_devices_and_oversized_files(tmp_path: Path) -> None:
    from timekeeper.errors import TimekeeperError

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(TimekeeperError, match="named pipe"):
        read_user_file(fifo, 1000)
    with pytest.raises(TimekeeperError, match="character device"):
        read_user_file("/dev/zero", 1000)
    big = tmp_path / "big"
    big.write_bytes(b"x" * 1001)
    with pytest.raises(TimekeeperError, match="limited to 1,000 bytes"):
        read_user_file(big, 1000)
    assert read_user_file(big, 1001) == b"x" * 1001


def test_check_output_path_keeps_links_and_refuses_what_must_not_be_replaced(tmp_path: Path) -> None:
    from timekeeper.errors import OutputError
    from timekeeper.files.outputpath import check_output_path

    real = tmp_path / "real.wav"
    real.write_bytes(b"old")
    link = tmp_path / "link.wav"
    link.symlink_to(real)
    assert check_output_path(link) == real  # written through the link, which stays a link
    with pytest.raises(OutputError, match="character device"):
        check_output_path("/dev/null")
    with pytest.raises(OutputError, match="is also the input"):
        check_output_path(link, [real])
    with pytest.raises(OutputError, match="does not exist"):
        check_output_path(tmp_path / "missing" / "x.wav")


def test_a_file_with_thousands_of_problems_reports_a_hundred_and_counts_the_rest(tmp_path: Path) -> None:
    noisy = tmp_path / "noisy.yaml"
    fields = ", ".join(f"k{i}: {i}" for i in range(5_000))
    noisy.write_text(f'title: x\nphase_ends: ["3:00", "6:00"]\nevents:\n  - {{at: "1:00", type: data_transfer, {fields}}}\n')
    done = run("validate", str(noisy))
    assert done.returncode == 3
    lines = done.stdout.splitlines()
    assert len(lines) == 101 and lines[-1] == f"{noisy}: ... and 4,900 more problems (fix these first)"


def test_an_interruption_right_after_the_temporary_file_is_made_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C landing the moment the temporary file exists (before its clean-up is armed) must
    still remove it: the signal is held until the file is noted, then delivered. Another thread is
    running meanwhile (as during a render), which a per-thread signal mask would not cover."""
    import signal
    import tempfile
    import threading

    from timekeeper.files import atomicfile, stopping

    real_mkstemp = tempfile.mkstemp

    def mkstemp_then_interrupted(*args, **kwargs):  # type: ignore[no-untyped-def]
        made = real_mkstemp(*args, **kwargs)
        os.kill(os.getpid(), signal.SIGINT)  # Python's handler raises KeyboardInterrupt when it runs
        return made

    monkeypatch.setattr(stopping.tempfile, "mkstemp", mkstemp_then_interrupted)
    target = tmp_path / "out.mp3"
    target.write_bytes(b"the old file")
    other_thread_may_end = threading.Event()
    other = threading.Thread(target=other_thread_may_end.wait)
    other.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            with atomicfile.replacing(target) as temp:
                temp.write_bytes(b"half a track")
    finally:
        other_thread_may_end.set()
        other.join()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.mp3"]
    assert target.read_bytes() == b"the old file"


# -- the live screen -------------------------------------------------------------------------------

def _prompter_states():  # type: ignore[no-untyped-def]
    """The prompter's screen state every half second of each data transfer of a generated mission
    (the longest words to read), with or without the quit question."""
    from timekeeper.generate import GenerateOptions, generate
    from timekeeper.grammar.durations import default_measure
    from timekeeper.grammar.phrases import phrase_book
    from timekeeper.grammar.script import CueKind, build_timeline
    from timekeeper.live.display import PROMPT_LEAD_MS, LiveState

    mission = generate(1, GenerateOptions())
    timeline = build_timeline(mission, phrase_book("en"), default_measure("en"))
    cues = list(timeline.cues)
    transfers = [cue for cue in cues if cue.kind is CueKind.DATA_TRANSFER]
    assert transfers
    for cue in transfers:
        for now_ms in range(cue.at_ms, cue.end_ms, 500):
            upcoming = next((later for later in cues if later.at_ms > now_ms), None)
            for asking_quit in (False, True):
                state = LiveState(timeline=timeline, title=mission.title, backend="text", prompter=True, now_ms=now_ms,
                                  made=[made for made in cues if made.at_ms <= now_ms], upcoming=upcoming,
                                  asking_quit=asking_quit)
                yield state, upcoming is not None and upcoming.at_ms - now_ms <= PROMPT_LEAD_MS


@pytest.mark.parametrize("height, width", [(20, 60), (20, 80), (21, 50), (15, 60), (22, 80)])
def test_a_small_prompter_screen_keeps_the_clock_and_the_words_to_read(height: int, width: int) -> None:
    from timekeeper.live.display import TerminalDisplay

    next_seen = 0
    for state, next_due in _prompter_states():
        lines = TerminalDisplay(key_hints=True).lines(state, height, width)
        shown = "\n".join(lines)
        assert len(lines) <= height, shown
        assert "MISSION TIME" in shown, shown
        assert " READ NOW:" in lines and re.match(r"  (>>|  ) \d+:\d\d  \S", lines[lines.index(" READ NOW:") + 1]), shown
        if next_due:
            assert any(line.startswith(" NEXT at ") for line in lines), shown
            next_seen += 1
        if state.asking_quit:
            assert lines[-1] == " Quit the mission? y = quit, any other key = carry on", shown
    assert next_seen  # the words to read next were due at some of these moments


@pytest.mark.parametrize("args, message", [
    (["generate", "--seed", "1", "-o", "{tmp}/mission.pdf"], "missions are written as .yaml or .yml, not '.pdf'"),
    (["log", "print", "-o", "{tmp}/log.txt"], "printed logs are written as .pdf, not '.txt'"),
    (["log", "export", "-o", "{tmp}/log.txt"], "logs are written as .csv or .json, not '.txt'"),
    (["log", "export", "--format", "json", "-o", "{tmp}/log.csv"], "a .csv file for --format json; name it log.json"),
])
def test_generate_and_the_log_refuse_an_output_named_for_another_format(args: list[str], message: str, tmp_path: Path) -> None:
    done = run(*(arg.format(tmp=tmp_path) for arg in args), env={"TIMEKEEPER_DATA": str(tmp_path / "data")})
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[-1].endswith(message)
    assert [path.name for path in tmp_path.iterdir() if path.name != "data"] == []  # nothing written


@pytest.mark.parametrize("option, value, field", [
    ("--crew", "Ann\x1b:captain, Bob, Cid, Dee", "crew"),
    ("--notes", "fine\nthen a bell\x07", "notes"),
    ("--destroyed-by", "Figh\x1bter", "destroyed_by"),
])
def test_log_add_refuses_control_characters_and_stores_nothing(option: str, value: str, field: str, tmp_path: Path) -> None:
    args = {"--crew": "Ann:captain, Bob, Cid, Dee", "--track": "mission-3", "--survived": "4", "--destroyed": "10"}
    args[option] = value
    env = {"TIMEKEEPER_DATA": str(tmp_path)}
    done = run("log", "add", *[part for pair in args.items() for part in pair], env=env)
    assert done.returncode == 8, done.stderr
    assert done.stderr.startswith(f"Error: {field}: ") and "control character" in done.stderr
    assert "empty" in run("log", "list", env=env).stdout
