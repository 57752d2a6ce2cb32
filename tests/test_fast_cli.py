"""The command line in the test's own process (tests/inprocess.py): every command's happy path and
its exit codes, the voice a MeasuredVoice of the shipped phrase lengths (tests/measuredvoice.py),
so the fast tier reaches each command without starting Python or synthesizing a word."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml
from inprocess import run_cli
from measuredvoice import TONE_PEAK, speak_measured

from timekeeper.audio.codec import decode
from timekeeper.audio.pcm import SAMPLE_RATE
from timekeeper.errors import ExitStatus

SHORT = Path(__file__).resolve().parent / "data" / "render" / "short.yaml"


def test_list_and_show_name_the_official_tracks() -> None:
    listed = run_cli("list")
    assert listed.exit_code == ExitStatus.SUCCESS and "mission-1" in listed.stdout and "test-run-1" in listed.stdout
    head, first = listed.stdout.splitlines()[:2]
    assert head.split() == ["NAME", "KIND", "LENGTH", "TITLE"] and first.split()[0] == "test-run-1"
    assert head.index("LENGTH") + len("LENGTH") == first.index("7:00") + len("7:00")  # the lengths line up under it
    shown = run_cli("show", "mission-3", "--lang", "de")
    assert shown.exit_code == ExitStatus.SUCCESS and "Bedrohung" in shown.stdout


def test_validate_exit_codes(tmp_path: Path) -> None:
    assert run_cli("validate", str(SHORT)).exit_code == ExitStatus.SUCCESS
    bad = tmp_path / "bad.yaml"
    bad.write_text("title: x\nphase_ends: ['3:00', '6:00']\nevents:\n  - {at: '0:30', type: threat, t: 1, zone: green}\n")
    refused = run_cli("validate", str(bad))
    assert refused.exit_code == ExitStatus.INVALID_SCENARIO
    assert f"{bad}:4:" in refused.output and "green" in refused.output
    usage = run_cli("render", str(SHORT))  # -o is required
    assert usage.exit_code == ExitStatus.USAGE and "-o" in usage.stderr
    assert run_cli("no-such-command").exit_code == ExitStatus.USAGE


def test_schema_is_json_naming_the_event_types() -> None:
    done = run_cli("schema")
    assert done.exit_code == ExitStatus.SUCCESS
    assert "threat" in json.dumps(json.loads(done.stdout))


def test_render_wav_has_speech_where_the_plan_says(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    voices = speak_measured(monkeypatch)
    out = tmp_path / "short.wav"
    done = run_cli("render", str(SHORT), "--no-background", "-o", str(out))
    assert done.exit_code == ExitStatus.SUCCESS, done.output
    assert voices["en"].asked  # the mix spoke through the measured voice
    samples = decode(out, SAMPLE_RATE)
    assert abs(len(samples) / SAMPLE_RATE - 170) < 15  # the track ends at 2:50, the last words after it
    first_threat = samples[int(8.0 * SAMPLE_RATE): int(9.0 * SAMPLE_RATE)]  # the 0:08 threat is announced
    assert np.sqrt(np.mean(first_threat**2)) > 0.05
    assert float(np.max(np.abs(samples))) <= 1.0 and float(np.max(np.abs(samples))) > TONE_PEAK * 0.5


def test_plan_lists_every_cue_with_measured_lengths(monkeypatch: pytest.MonkeyPatch) -> None:
    speak_measured(monkeypatch)
    done = run_cli("plan", str(SHORT))
    assert done.exit_code == ExitStatus.SUCCESS, done.output
    starts = [line.split(" - ")[0].strip() for line in done.stdout.splitlines() if " - " in line]
    assert "0:08" in starts and any(start.startswith("1:35") for start in starts)
    assert done.stdout.rstrip().endswith("13 cues, track length 2:56, 0 overlapping")


def test_card_as_text_and_pdf(tmp_path: Path) -> None:
    text = run_cli("card", "mission-4", "--format", "text")
    assert text.exit_code == ExitStatus.SUCCESS and "Mission 4" in text.stdout
    pdf = tmp_path / "cards.pdf"
    assert run_cli("card", "mission-4", str(SHORT), "-o", str(pdf)).exit_code == ExitStatus.SUCCESS
    assert pdf.read_bytes().startswith(b"%PDF")


def test_generate_is_the_same_for_the_same_seed_and_valid(tmp_path: Path) -> None:
    first, second = tmp_path / "a.yaml", tmp_path / "b.yaml"
    assert run_cli("generate", "--seed", "4711", "-o", str(first)).exit_code == ExitStatus.SUCCESS
    assert run_cli("generate", "--seed", "4711", "-o", str(second)).exit_code == ExitStatus.SUCCESS
    assert first.read_text() == second.read_text()
    assert yaml.safe_load(first.read_text())["events"]
    assert run_cli("validate", "--strict", str(first)).exit_code == ExitStatus.SUCCESS
    stats = run_cli("stats", "--count", "3", "--seed", "1")
    assert stats.exit_code == ExitStatus.SUCCESS and stats.stdout.strip()


def test_export_then_import_gives_the_same_code(tmp_path: Path) -> None:
    code = run_cli("export", "mission-3").stdout.strip()
    assert code.endswith("PE2") or "PE2" in code
    track = tmp_path / "m3.yaml"
    assert run_cli("import", code, "-o", str(track)).exit_code == ExitStatus.SUCCESS
    assert run_cli("export", str(track)).stdout.strip() == code
    assert run_cli("import", "not-a-code").exit_code == ExitStatus.INVALID_SCENARIO


def test_log_add_list_and_stats(tmp_path: Path) -> None:
    db = str(tmp_path / "log.sqlite3")
    added = run_cli("log", "--db", db, "add", "--crew", "Ann:captain, Bob:co, Cid, Dee:sc", "--track", "mission-3",
                    "--survived", "4", "--destroyed", "10", "--damage", "red=2,blue=1")
    assert added.exit_code == ExitStatus.SUCCESS, added.output
    listed = run_cli("log", "--db", db, "list")
    assert listed.exit_code == ExitStatus.SUCCESS and "Ann (C), Bob (CO), Cid, Dee (SC)" in listed.stdout
    assert run_cli("log", "--db", db, "stats").exit_code == ExitStatus.SUCCESS
    csv = tmp_path / "log.csv"
    assert run_cli("log", "--db", db, "export", "-o", str(csv)).exit_code == ExitStatus.SUCCESS
    assert "Ann" in csv.read_text() and len(csv.read_text().splitlines()) == 2  # a header and the mission


def test_voices_lists_the_languages() -> None:
    done = run_cli("voices")
    assert done.exit_code == ExitStatus.SUCCESS and "de" in done.stdout and "en" in done.stdout


def test_undecodable_argument_is_a_usage_error() -> None:
    done = run_cli("show", "mission-\udcff")
    assert done.exit_code == ExitStatus.USAGE and "\\xff" in done.stderr


def test_the_command_line_runs_in_the_environment_it_is_given(tmp_path, capsys):
    """main(argv, env): the folders come from the environment passed in, not the process's variables."""
    from dataclasses import replace

    from timekeeper.cli import main
    from timekeeper.environment import current
    from timekeeper.logbook.database import LOG_FILE_NAME

    given = replace(current(), data=tmp_path / "crew-data", log=None)
    status = main(["log", "add", "--crew", "Ann, Bob, Cid, Dee", "--track", "mission-3", "--survived", "4",
                  "--destroyed", "10"], given)
    assert status == 0, capsys.readouterr()
    assert (tmp_path / "crew-data" / LOG_FILE_NAME).is_file()
    assert current() != given  # installed for that run only


@pytest.mark.parametrize(("args", "hint"), [
    (("cards",), "did you mean 'card'?"),
    (("rendr", "mission-1"), "did you mean 'render'?"),
    (("log", "lst"), "did you mean 'list'?"),
    (("voice", "instal", "x"), "did you mean 'install'?"),
    (("log", "campaign", "list"), "the commands are end, next, show, start"),
])
def test_a_mistyped_command_gets_a_suggestion(args: tuple[str, ...], hint: str) -> None:
    done = run_cli(*args)
    assert done.exit_code == ExitStatus.USAGE
    assert hint in done.stderr and "Traceback" not in done.output


def test_a_crew_of_one_plays_solo(monkeypatch: pytest.MonkeyPatch) -> None:
    from timekeeper.cards.html import html_card
    from timekeeper.scenario.catalog import load_scenario

    speak_measured(monkeypatch)
    one, solo, four = (run_cli("plan", "simulation-1", *options) for options in (("--players", "1"), ("--solo", "--players", "4"), ("--players", "4")))
    assert one.exit_code == solo.exit_code == ExitStatus.SUCCESS, one.output
    assert one.stdout == solo.stdout
    assert "data_transfer" in four.stdout and "data_transfer" not in one.stdout and "comms_down" not in one.stdout
    card = html_card(load_scenario("simulation-1"), "en", players=1)
    assert card.count('class="dropped"') == 2 + 2 + 4  # incoming data, outages, data transfers
    assert card.count('class="unconfirmed dropped"') == 1


@pytest.mark.parametrize("args", [("show", "mission-1"), ("card", "mission-1", "--format", "text"), ("show", "double-action-easy-1")])
def test_cards_and_show_print_no_notes_meant_for_maintainers(args: tuple[str, ...]) -> None:
    from timekeeper.scenario.catalog import builtin_paths, load_scenario

    done = run_cli(*args)
    assert done.exit_code == ExitStatus.SUCCESS, done.output
    assert "Sources disagreed" not in done.stdout and "martin" not in done.stdout and "nibuen" not in done.stdout
    official = [name for name, path in builtin_paths().items() if path.parent.name == "official"]
    assert len(official) == 34 and not any(load_scenario(name).notes for name in official)
    assert "Keep someone near the computer." in run_cli("show", "ambush-night").stdout  # a crew's own notes are printed


def test_validate_and_plan_tell_the_same_overlap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two threats at 0:10: the mix plays them at once; validate says so with plan's words and figures."""
    speak_measured(monkeypatch)
    both = tmp_path / "both.yaml"
    both.write_text('title: Both\nphase_ends: ["3:45", "7:30", "10:00"]\nevents:\n'
                    '  - {at: "0:10", type: threat, t: 1, zone: red}\n  - {at: "0:10", type: threat, t: 2, zone: blue}\n')
    for default in ("synthesized", ""):  # the synthesized voice's shipped lengths, and the default voice (joe, if installed)
        monkeypatch.setenv("TIMEKEEPER_DEFAULT_VOICE", default)
        checked, planned = run_cli("validate", str(both)), run_cli("plan", str(both))
        [warning] = [line for line in checked.stdout.splitlines() if "warning" in line]
        [marker] = [line.strip() for line in planned.stdout.splitlines() if "!! OVERLAP" in line]
        said = marker.removeprefix("!! OVERLAP: ")
        assert said.startswith("the threat at 0:10 starts ") and said.endswith("both are heard at once")
        assert warning == f"{both}:5:10: warning: {said}; move one of them"
        assert "late" not in checked.output
