"""`import --repair`: the Java generator's known FlashPlayerCode defects are repaired, one warning each."""

from __future__ import annotations

from pathlib import Path

import pytest
from running import timekeeper as run

from timekeeper.errors import ScenarioError
from timekeeper.model import CommsDown
from timekeeper.scenario.catalog import load_scenario
from timekeeper.scenario.flashcode import parse_flashcode, repair_flashcode

OVERLAPPING = "010AL1TW,050ID,120AL2TR,130CS30,150CS20,215DT,340PE1,345AL5TB,450DT,530ID,700PE2"
LOST_PHASE_END = "010AL1TW,050ID,120AL2TR,215DT,345AL5TB,450DT,530ID,700PE2"


def test_overlapping_outages_are_merged_with_one_warning() -> None:
    with pytest.raises(ScenarioError, match=r"token 5 \(column 33\) '150CS20': communications outage at 1:50 overlaps.*\n.*--repair"):
        parse_flashcode(OVERLAPPING)
    scenario, warnings = repair_flashcode(OVERLAPPING)
    outages = [e for e in scenario.events if isinstance(e, CommsDown)]
    assert outages == [CommsDown(90_000, 130_000)]
    assert warnings == ["repaired token 5 (column 33) '150CS20': its outage 1:50-2:10 overlaps the outage 1:30-2:00 "
                        "of token 4 (column 25) '130CS30'; merged into one outage 1:30-2:10"]


def test_three_overlapping_outages_merge_into_one_with_a_warning_each() -> None:
    scenario, warnings = repair_flashcode("010AL1TW,100CS20,110CS30,130CS10,340PE1,700PE2")
    assert [e for e in scenario.events if isinstance(e, CommsDown)] == [CommsDown(60_000, 100_000)]
    assert len(warnings) == 2


def test_a_phase_end_lost_to_an_event_at_the_same_second_is_put_back() -> None:
    with pytest.raises(ScenarioError, match="phase end PE1 is missing"):
        parse_flashcode(LOST_PHASE_END)
    scenario, warnings = repair_flashcode(LOST_PHASE_END)
    assert scenario.phase_ends_ms == (225_000, 420_000)  # at 3:45, where T+5 (phase 2) starts
    assert warnings == ["repaired: phase end PE1 is missing; put back at 3:45, the second of token 5 (column 31) "
                        "'345AL5TB' (an event at the same second took its place)"]
    assert scenario.phase_of(225_000) == 2


def test_repair_changes_nothing_on_a_sound_code_and_still_refuses_other_problems() -> None:
    code = "010AL1TW,050ID,120AL2TR,215DT,340PE1,345AL4TB,450DT,530ID,660PE2"
    assert repair_flashcode(code) == (parse_flashcode(code), [])
    with pytest.raises(ScenarioError, match="unknown code 'XID'"):
        repair_flashcode("010AL1TW,05XID,340PE1,700PE2")
    with pytest.raises(ScenarioError, match="phase end PE1 is missing"):
        repair_flashcode("010AL1TW,200AL2TR,700PE2")  # no event at which PE1 could have been lost


def test_import_repair_on_the_command_line(tmp_path: Path) -> None:
    refused = run("import", OVERLAPPING, "-o", "x.yaml", cwd=tmp_path)
    assert refused.returncode == 3 and "import --repair" in refused.stderr and not (tmp_path / "x.yaml").exists()
    done = run("import", "--repair", OVERLAPPING, "-o", "x.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("Warning: repaired") == 1
    assert [e for e in load_scenario(str(tmp_path / "x.yaml")).events if isinstance(e, CommsDown)] == [CommsDown(90_000, 130_000)]
    assert run("validate", "x.yaml", cwd=tmp_path).returncode == 0


def test_import_repair_of_a_file_of_codes_names_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "java.txt").write_text(f"one\t{OVERLAPPING}\n# comment\ntwo\t{LOST_PHASE_END}\n", encoding="utf-8")
    refused = run("import", "java.txt", "-o", "out/", cwd=tmp_path)
    assert refused.returncode == 3
    done = run("import", "--repair", "java.txt", "-o", "out/", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if line.startswith("Warning:")]
    assert len(warnings) == 2
    assert warnings[0].startswith("Warning: java.txt:1: repaired token 5")
    assert warnings[1].startswith("Warning: java.txt:3: repaired: phase end PE1 is missing")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["one.yaml", "two.yaml"]
