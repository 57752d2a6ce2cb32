"""Scenario files: valid and invalid inputs, official tracks, round trip, limits, safety."""

from __future__ import annotations

from pathlib import Path

import pytest

from timekeeper.model import (
    Announcement,
    CommsDown,
    DataTransfer,
    EventType,
    IncomingData,
    Scenario,
    Threat,
    Zone,
    event_type,
)
from timekeeper.scenario.catalog import builtin_paths, load_scenario
from timekeeper.scenario.dump import dump_scenario
from timekeeper.scenario.load import MAX_EVENTS, load_file, load_text
from timekeeper.scenario.problems import Severity, errors
from timekeeper.scenario.yamlnodes import MAX_FILE_BYTES

DATA = Path(__file__).parent / "data" / "scenarios"
INVALID = sorted((DATA / "invalid").glob("*.yaml"))
VALID = sorted((DATA / "valid").glob("*.yaml"))


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.stem)
def test_invalid_file_reports_the_expected_problem(path: Path) -> None:
    expected = path.with_suffix(".expected").read_text(encoding="utf-8").strip()
    result = load_file(path)
    assert not result.ok
    messages = [str(problem) for problem in errors(result.problems)]
    assert any(expected in message for message in messages), messages
    assert all(message.startswith(str(path)) for message in messages)


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.stem)
def test_valid_file_has_no_problem(path: Path) -> None:
    result = load_file(path)
    assert result.ok, [str(p) for p in result.problems]
    assert result.problems == []


def test_quoted_and_unquoted_times_give_the_same_scenario() -> None:
    unquoted = load_file(DATA / "valid" / "unquoted-times.yaml").scenario
    quoted = load_file(DATA / "valid" / "quoted-times.yaml").scenario
    seconds = load_file(DATA / "valid" / "seconds.yaml").scenario
    assert unquoted.phase_ends_ms == quoted.phase_ends_ms == seconds.phase_ends_ms == (225_000, 450_000, 600_000)
    assert unquoted.events == quoted.events == seconds.events
    assert unquoted.events[1] == CommsDown(135_000, 150_000)


def test_block_style_file_reads_every_field() -> None:
    scenario = load_file(DATA / "valid" / "block-style.yaml").scenario
    assert scenario.language == "es" and scenario.players == 5 and scenario.seed == 42
    assert scenario.generator == (("threat_level", "normal"),)
    assert scenario.events[0] == Threat(10_000, 1, Zone.WHITE, serious=True)
    assert scenario.events[1] == Threat(60_000, 3, None, unconfirmed=True)
    assert scenario.events[-1].text == "¡Cambio de capitán!"


def test_all_problems_are_reported_at_once() -> None:
    text = """title: Many problems
kind: mision
phase_ends: ["3:45", "7:30", "10:00"]
events:
  - {at: "0:10", type: threat, t: 2, zone: green}
  - {at: "0:50", type: threat, t: 9, zone: red}
  - {at: "2:00", type: comms_down, until: "2:30"}
  - {at: "2:10", type: comms_down, until: "2:20"}
  - {at: "11:00", type: incoming_data}
"""
    result = load_text(text, "many.yaml")
    lines = {problem.line for problem in errors(result.problems)}
    assert lines == {2, 5, 6, 8, 9}


def test_double_threats_need_a_double_action_track() -> None:
    body = """phase_ends: ["5:00", "9:30", "13:30"]
events:
  - {at: "0:10", type: threat, t: 2, zone: red}
  - {at: "0:40", type: internal, t: 2}
"""
    assert not load_text("title: x\n" + body).ok
    assert load_text("title: x\nkind: double-action\n" + body).ok
    assert load_text("title: x\ndouble_threats: true\n" + body).ok


def test_late_threat_and_packed_events_are_warnings_and_strict_can_refuse_them() -> None:
    result = load_file(builtin_paths()["test-run-2"])
    assert result.ok
    assert [p.severity for p in result.problems] == [Severity.WARNING]
    assert "5 s after that phase ended" in str(result.problems[0])
    packed = load_text('title: x\nphase_ends: ["3:45", "7:30", "10:00"]\nevents:\n'
                       '  - {at: "1:00", type: threat, t: 1, zone: red}\n'
                       '  - {at: "1:03", type: incoming_data}\n')
    assert packed.ok
    assert any("both are heard at once" in p.message and p.line == 5 for p in packed.problems)


def test_every_official_track_validates() -> None:
    paths = builtin_paths()
    official = [name for name, path in paths.items() if path.parent.name == "official"]
    assert len(official) == 34
    for name in official:
        result = load_file(paths[name])
        assert result.ok, (name, [str(p) for p in result.problems])


def test_official_track_matches_the_shared_table() -> None:
    mission = load_scenario("mission-1")
    assert mission.phase_ends_ms == (225_000, 450_000, 600_000)
    assert mission.events[0] == Threat(10_000, 2, Zone.WHITE, serious=True)
    assert len(mission.threats) == 6
    assert sum(t.points for t in mission.threats if not t.unconfirmed) == 7


@pytest.mark.parametrize("name", sorted(builtin_paths()))
def test_round_trip_gives_the_same_model(name: str) -> None:
    scenario = load_scenario(name)
    again = load_text(dump_scenario(scenario), name)
    assert again.scenario == scenario


def test_every_event_type_is_written_and_read_by_its_word() -> None:
    events = (Threat(10_000, 1, Zone.RED), Threat(40_000, 2, None), IncomingData(70_000), DataTransfer(100_000),
              CommsDown(130_000, 140_000), Announcement(170_000, "Coffee break."))
    scenario = Scenario("every type", (240_000, 480_000, 600_000), events)
    text = dump_scenario(scenario)
    assert [event_type(event) for event in events] == list(EventType)
    assert all(f"type: {kind.value}" in text for kind in EventType)
    assert load_text(text, "every-type.yaml").scenario == scenario


def test_file_too_large_is_refused_without_reading_it(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    with open(big, "wb") as handle:
        handle.truncate(50 * 1024 * 1024)
    result = load_file(big)
    assert not result.ok
    assert f"limited to {MAX_FILE_BYTES:,} bytes" in str(result.problems[0])


def test_too_many_events_is_refused() -> None:
    events = "".join(f'  - {{at: "{i // 60}:{i % 60:02d}", type: incoming_data}}\n' for i in range(MAX_EVENTS + 1))
    result = load_text('title: x\nphase_ends: ["20:00", "40:00", "59:00"]\nevents:\n' + events)
    assert f"at most {MAX_EVENTS}" in str(result.problems[0])


def test_alias_bomb_is_harmless() -> None:
    levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        levels.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i-1}"] * 10) + "]")
    result = load_text("\n".join(levels) + "\n")
    assert not result.ok
    assert "unknown scenario field 'a0'" in str(result.problems[0])


def test_missing_file_and_folder() -> None:
    assert "no such file" in str(load_file("/nonexistent/x.yaml").problems[0])
    assert "is a folder" in str(load_file(DATA).problems[0])
