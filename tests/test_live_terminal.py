"""`timekeeper live` driven as a user would: in tmux (keys, screen) and through a pipe.

The program runs for real (espeak-ng speech, the render mix) on the silent real-time
`null`/`text` outputs, started near the end of a short track so each test lasts seconds.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest
from realparts import needs, not_here, program
from running import AT_ONCE_S, timekeeper
from waiting import wait_until

from timekeeper.errors import ExitStatus

TRACK = str(Path(__file__).parent / "data" / "live" / "three-phases.yaml")





def live_args(*args: str) -> list[str]:
    return [sys.executable, "-m", "timekeeper", "live", TRACK, *args]


needs_tmux = needs("tmux")


class Tmux:
    """One private tmux server running one command in a 100x30 terminal."""

    def __init__(self, tmp_path: Path, args: list[str], size: tuple[int, int] = (100, 30), stdin: str = "") -> None:
        self.socket = f"timekeeper-live-test-{os.getpid()}-{id(self)}"
        self.exit_file = tmp_path / "exit"
        self.stty_file = tmp_path / "stty"
        script = (
            f"trap : INT; {shlex.join(args)}{stdin}; echo $? > {self.exit_file}; stty -a > {self.stty_file}; sleep 600"
        )
        self.tmux("new-session", "-d", "-x", str(size[0]), "-y", str(size[1]), "-s", "live", "sh", "-c", script)

    def tmux(self, *args: str) -> str:
        done = subprocess.run([program("tmux"), "-L", self.socket, *args], capture_output=True, text=True, check=True)
        return done.stdout

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "live", *keys)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-J", "-t", "live")

    def wait_for(self, pattern: str, timeout_s: float = 15) -> str:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            screen = self.screen()
            if re.search(pattern, screen):
                return screen
            time.sleep(0.05)
        raise AssertionError(f"{pattern!r} never appeared; screen:\n{self.screen()}")

    def exit_code(self, timeout_s: float = 15) -> int:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.exit_file.exists() and self.stty_file.exists() and self.stty_file.read_text():
                return int(self.exit_file.read_text())
            time.sleep(0.05)
        raise AssertionError(f"the program did not end; screen:\n{self.screen()}")

    def terminal_restored(self) -> bool:
        settings = self.stty_file.read_text().split()
        return "icanon" in settings and "echo" in settings

    def close(self) -> None:
        subprocess.run([program("tmux"), "-L", self.socket, "kill-server"], capture_output=True)


@pytest.fixture
def tmux(tmp_path: Path):  # type: ignore[no-untyped-def]
    sessions: list[Tmux] = []

    def start(*args: str, size: tuple[int, int] = (100, 30), stdin: str = "", track: str = TRACK) -> Tmux:
        sessions.append(Tmux(tmp_path, [sys.executable, "-m", "timekeeper", "live", track, *args], size, stdin))
        return sessions[-1]

    yield start
    for session in sessions:
        session.close()


def mission_time(screen: str) -> str:
    match = re.search(r"MISSION TIME\s+(\d+:\d\d)", screen)
    assert match, screen
    return match.group(1)


@needs_tmux
def test_screen_pause_resume_and_quit(tmux) -> None:  # type: ignore[no-untyped-def]
    session = tmux("--backend", "null", "--start-at", "2:45")
    screen = session.wait_for(r"MISSION TIME\s+2:4[56]")
    assert "PHASE 3 of 3" in screen and "COMMUNICATION SYSTEM DOWN" in screen  # down from 2:35 to 2:50
    assert "Incoming data" in screen  # 2:25, already made
    assert "Data transfer" not in screen  # 2:55: the future is never shown
    session.keys("Space")
    screen = session.wait_for("PAUSED")
    frozen = mission_time(screen)
    time.sleep(1.2)
    assert mission_time(session.screen()) == frozen
    session.keys("Space")
    session.wait_for("Resumed")
    assert "PAUSED" not in session.screen()
    session.keys("q")
    session.wait_for("Quit the mission\\? y = quit")
    session.keys("n")
    session.wait_for("Carrying on")
    session.keys("q")
    session.wait_for("Quit the mission")
    session.keys("y")
    assert session.exit_code() == ExitStatus.SUCCESS
    screen = session.screen().replace("\n", "")  # the hint wraps at 100 columns
    assert re.search(r"Stopped at 2:4[5-7]\. To carry on: timekeeper live .* --start-at 2:4[5-7]", screen), screen
    assert session.terminal_restored()


@needs_tmux
def test_early_end_plays_mission_complete_and_shows_the_card(tmux) -> None:  # type: ignore[no-untyped-def]
    session = tmux("--backend", "null", "--start-at", "2:21")
    session.wait_for(r"e end the mission now")
    session.keys("e")
    screen = session.wait_for(r"Mission complete")
    assert mission_time(screen).startswith("2:2")  # the real end time stays on the clock
    assert "ACTION ROUND ENDED" in screen and re.search(r"Action round ended at 2:2\d", screen)
    assert session.exit_code() == ExitStatus.SUCCESS
    screen = session.screen()
    assert "Live test track" in screen and "T+5" in screen  # the card, for the resolution round
    assert re.search(r"Action round ended at 2:2\d\.", screen)
    assert session.terminal_restored()


@needs_tmux
def test_ctrl_c_stops_cleanly_with_130(tmux) -> None:  # type: ignore[no-untyped-def]
    session = tmux("--backend", "null", "--start-at", "1:00")
    session.wait_for(r"MISSION TIME\s+1:0")
    session.keys("C-c")
    assert session.exit_code() == ExitStatus.INTERRUPTED
    assert "Stopped at 1:0" in session.screen()
    assert "Traceback" not in session.screen()
    assert session.terminal_restored()


@needs_tmux
def test_prompter_shows_the_words_ahead_with_a_countdown(tmux) -> None:  # type: ignore[no-untyped-def]
    session = tmux("--backend", "text", "--start-at", "2:19")
    screen = session.wait_for(r"NEXT at 2:25 — read in [3-5] s")
    assert "Incoming data. Repeat, incoming data." in screen
    screen = session.wait_for(r">> 2:25\s+Incoming data")
    assert "READ NOW:" in screen
    session.keys("q")
    session.keys("y")
    assert session.exit_code() == ExitStatus.SUCCESS


@needs_tmux
def test_the_prompter_speaks_german(tmux) -> None:  # type: ignore[no-untyped-def]
    """Every word of the full-screen prompter in the run's language: headings, clock line, keys, notes."""
    session = tmux("--backend", "text", "--lang", "de", "--start-at", "2:19")
    screen = session.wait_for(r"NÄCHSTE um 2:25 — vorlesen in [3-5] s:")
    assert "Eingehende Daten. Wiederhole, eingehende Daten." in screen
    assert re.search(r"MISSIONSZEIT\s+2:[12]\d\s+PHASE [23] von 3  ·  noch \d:\d\d", screen), screen
    assert "Leertaste Pause/weiter · q beenden · e Mission jetzt beenden" in screen and "Durchsagen:" in screen
    screen = session.wait_for(r">> 2:25\s+Eingehende Daten")
    assert "JETZT VORLESEN:" in screen
    session.keys("Space")
    screen = session.wait_for("Pausiert\\.")
    assert "‖ PAUSE — weiter mit der Leertaste" in screen
    session.keys("q")
    session.wait_for("Mission abbrechen\\? y = abbrechen, jede andere Taste = weiter")
    session.keys("y")
    assert session.exit_code() == ExitStatus.SUCCESS
    for english in ("READ NOW", "NEXT at", "MISSION TIME", "PHASE 3 of", "PAUSED", "Announcements", "space pause"):
        assert english not in screen, english


@needs_tmux
def test_the_prompter_speaks_czech_and_ends_the_round_in_czech(tmux) -> None:  # type: ignore[no-untyped-def]
    session = tmux("--backend", "text", "--lang", "cs", "--start-at", "2:19")
    screen = session.wait_for(r"DALŠÍ v 2:25 — čti za [3-5] s:")
    assert re.search(r"ČAS MISE\s+2:[12]\d\s+FÁZE [23] z 3  ·  zbývá \d:\d\d", screen), screen
    assert "mezerník pauza/pokračovat · q konec · e ukončit misi hned" in screen and "Hlášení:" in screen
    session.wait_for(r"ČTI TEĎ:")
    session.keys("e")
    screen = session.wait_for(r"Akční kolo skončilo v 2:2\d\.")
    assert "AKČNÍ KOLO SKONČILO" in screen
    assert session.exit_code() == ExitStatus.SUCCESS
    for english in ("READ NOW", "NEXT at", "MISSION TIME", "ACTION ROUND", "Action round", "left"):
        assert english not in screen, english


def test_piped_output_is_one_line_per_cue_as_it_starts() -> None:
    started = time.monotonic()
    process = subprocess.Popen(
        live_args("--backend", "null", "--start-at", "3:21"),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    first = process.stdout.readline()  # type: ignore[union-attr]
    first_s = time.monotonic() - started
    rest, errors = process.communicate(timeout=30)
    ended_s = time.monotonic() - started
    assert process.returncode == 0, errors
    assert re.match(r"^3:2\d Operation ends in five\W+four\W+three\W+two\W+one\W+Mission complete\.", first), first
    assert ended_s - first_s > 5  # printed (flushed) when the cue started, not at the end
    assert "Live test track" in rest  # then the card
    assert "Traceback" not in errors


def run_live(*args: str) -> subprocess.CompletedProcess[str]:
    return timekeeper("live", TRACK, *args, timeout=60)


def test_no_sound_device_is_one_clear_line() -> None:
    done = run_live("--backend", "miniaudio")
    if done.returncode == 0:
        not_here("this machine has a sound device")
    assert done.returncode == ExitStatus.PLAYBACK
    assert done.stderr.startswith("Error: no sound device could be opened")
    assert "--backend text" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr  # no ALSA noise, no traceback


def test_simpleaudio_is_refused_clearly_where_it_cannot_work() -> None:
    try:
        import simpleaudio  # noqa: F401

        if sys.version_info < (3, 12):
            not_here("simpleaudio is installed and this Python can run it")
    except ImportError:
        pass
    done = run_live("--backend", "simpleaudio")
    assert done.returncode == ExitStatus.PLAYBACK
    assert "simpleaudio" in done.stderr and "--backend" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


@pytest.mark.parametrize("start_at, message", [("9:99", "seconds must be below 60"), ("3:30", "not before the end")])
def test_bad_start_at_is_a_usage_error(start_at: str, message: str) -> None:
    done = run_live("--backend", "null", "--start-at", start_at)
    assert done.returncode == ExitStatus.USAGE
    assert message in done.stderr


def test_simpleaudio_is_refused_on_python_3_12(monkeypatch: pytest.MonkeyPatch) -> None:
    from timekeeper.errors import PlaybackError
    from timekeeper.live.devices import SimpleaudioOutput
    from timekeeper.live.outputs import PcmFormat

    monkeypatch.setattr(sys, "version_info", (3, 12, 1, "final", 0))
    with pytest.raises(PlaybackError, match=r"does not work on Python 3\.12 .*--backend miniaudio"):
        SimpleaudioOutput().open(PcmFormat(44100, 1))


LONG = str(Path(__file__).parent / "data" / "live" / "long-words.yaml")


@needs_tmux
def test_small_terminal_wraps_long_announcements_and_compacts_old_ones(tmux) -> None:  # type: ignore[no-untyped-def]
    session = tmux("--backend", "null", "--start-at", "1:21", size=(60, 15), track=LONG)
    screen = session.wait_for(r"MISSION TIME\s+1:2[2-9]")
    rows = screen.splitlines()
    assert all(len(row) <= 60 for row in rows)
    assert "Captain's orders" in screen and re.search(r"\n\s+(then )?waits\n", screen)  # wrapped, not cut
    assert "T+1 Threat BLUE ?" in screen  # the old threat in its compact form: the zone is kept
    assert "█" not in screen  # no room for the big clock


@needs_tmux
def test_large_terminal_shows_a_big_clock_and_every_announcement_in_full(tmux) -> None:  # type: ignore[no-untyped-def]
    session = tmux("--backend", "null", "--start-at", "1:21", size=(100, 30), track=LONG)
    screen = session.wait_for(r"MISSION TIME\s+1:2[2-9]")
    assert screen.count("█") > 20
    assert "Unconfirmed report. Time T plus one. Threat. Zone blue." in screen, screen
    session = tmux("--backend", "null", "--start-at", "1:21", size=(160, 50), track=LONG)
    big = session.wait_for(r"MISSION TIME\s+1:2[2-9]")
    assert big.count("█") > 2 * screen.count("█")  # the clock grows with the terminal


@needs_tmux
def test_status_notes_fade_and_do_not_push_out_the_clock(tmux) -> None:  # type: ignore[no-untyped-def]
    session = tmux("--backend", "null", "--start-at", "1:00", size=(60, 15))
    session.wait_for(r"MISSION TIME\s+1:0")
    session.keys("q")
    session.wait_for("Quit the mission")
    session.keys("n")
    screen = session.wait_for("Carrying on")
    assert "MISSION TIME" in screen
    screen = wait_until(lambda: "Carrying on" not in (now := session.screen()) and now, 15, "the note to fade")
    assert "Quit?" not in screen and "MISSION TIME" in screen


@needs_tmux
def test_no_key_hints_when_stdin_is_not_a_terminal(tmux) -> None:  # type: ignore[no-untyped-def]
    session = tmux("--backend", "null", "--start-at", "2:21", stdin=" < /dev/null")
    screen = session.wait_for(r"MISSION TIME\s+2:2")
    time.sleep(0.3)
    assert "space pause/resume" not in session.screen() and "q quit" not in screen


def test_the_end_card_fits_the_terminal_without_notes_or_spoken_words() -> None:
    done = timekeeper("live", LONG, "--backend", "null", "--start-at", "1:55", env={"COLUMNS": "60"}, timeout=60)
    assert done.returncode == 0, done.stderr
    card = done.stdout[done.stdout.index("Live screen test track"):]
    assert all(len(line) <= 60 for line in card.splitlines()), card
    assert "Sources disagreed" not in card and "T+1" in card
    words = " ".join(card.split())  # wrapped lines read as one text: nothing of the order is cut
    assert "Captain's orders: from now on every crew member repeats each threat aloud before moving, then waits" in words
    assert "Time T plus one" not in card  # the card lists events, not the words spoken


def _first_prompter_line(*options: str) -> str:
    """The prompt of the threat at 0:05 that the piped prompter prints for the long track started at
    0:01 (it starts where the phase warning under way then begins, so it reads that first and the
    alert after it); then it is stopped."""
    process = subprocess.Popen(
        [sys.executable, "-m", "timekeeper", "live", LONG, *options, "--backend", "text", "--start-at", "0:01"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    try:
        for _ in range(8):
            line = process.stdout.readline()  # type: ignore[union-attr]
            if " next at 0:05 " in line or not line:
                return line
        return line
    finally:
        process.kill()
        process.wait()


def test_prompter_marks_the_klaxon_and_the_transfer_beep() -> None:
    from timekeeper.grammar.durations import default_measure
    from timekeeper.grammar.phrases import phrase_book
    from timekeeper.grammar.script import CueKind, build_timeline
    from timekeeper.live.display import prompt_text
    from timekeeper.scenario.catalog import load_scenario

    threat = _first_prompter_line()
    assert re.match(r"0:0\d next at 0:05 \(in \d s\): \[KLAXON\] ", threat), threat
    timeline = build_timeline(load_scenario(LONG), phrase_book("en"), default_measure("en"))
    transfer = prompt_text(next(cue for cue in timeline.cues if cue.kind is CueKind.DATA_TRANSFER))
    assert transfer.index("one") < transfer.index("[TRANSFER BEEP]") < transfer.index("Data transfer complete")


def test_the_prompter_names_the_sounds_in_the_words_of_the_language() -> None:
    """German screens mark the klaxon and the beep with the German table's words, as cards and the voice do."""
    from timekeeper.grammar.durations import default_measure
    from timekeeper.grammar.phrases import phrase_book
    from timekeeper.grammar.script import CueKind, Sound, build_timeline
    from timekeeper.grammar.times import format_time
    from timekeeper.live.display import LiveState, TerminalDisplay
    from timekeeper.scenario.catalog import load_scenario

    threat = _first_prompter_line("--lang", "de")
    assert re.match(r"0:0\d next at 0:05 \(in \d s\): \[ALARMSIRENE\] Unbestätigter Bericht\.", threat), threat
    timeline = build_timeline(load_scenario(LONG), phrase_book("de"), default_measure("de"))
    transfer = next(cue for cue in timeline.cues if cue.kind is CueKind.DATA_TRANSFER)
    beep = next(part for part in transfer.parts if isinstance(part, Sound) and part.key == "beep")
    state = LiveState(timeline, "Lange Wörter", "null", prompter=True, now_ms=beep.at_ms + 100, made=[transfer])
    screen = "\n".join(TerminalDisplay().lines(state, 40, 100))
    assert ">> " + format_time(beep.at_ms) + "  [ÜBERTRAGUNGSTON]" in screen, screen
    assert "BEEP" not in screen and "KLAXON" not in screen


def test_live_stops_when_the_reader_of_its_output_goes_away() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "timekeeper", "live", TRACK, "--backend", "null", "--start-at", "2:54"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    assert process.stdout.readline().startswith(b"2:55 Data transfer")  # type: ignore[union-attr]
    process.stdout.close()  # type: ignore[union-attr]  # as `| head -1` does
    started = time.monotonic()
    assert process.wait(timeout=10) == ExitStatus.PIPE_CLOSED
    assert time.monotonic() - started < AT_ONCE_S  # not at the next announcement, 15 s later
    assert b"Traceback" not in process.stderr.read()  # type: ignore[union-attr]


@needs_tmux
def test_the_prompter_names_an_official_track_in_the_run_s_language(tmux) -> None:  # type: ignore[no-untyped-def]
    session = tmux("--backend", "text", "--lang", "de", "--start-at", "1:00", track="test-run-2")
    screen = session.wait_for(r"Zweiter Testlauf")
    assert "Second Test Run" not in screen
    session.keys("q")
    session.keys("y")
    assert session.exit_code() == ExitStatus.SUCCESS
