"""The generator: every seed gives a mission that keeps every named rule; the rules catch breaks."""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from timekeeper.errors import ScenarioError
from timekeeper.generate import GenerateOptions, batch, generate
from timekeeper.generate.cues import cue_lengths
from timekeeper.generate.options import GENERATOR_VERSION, KINDS
from timekeeper.generate.rules import FAST_RULES, RULES, check_generated
from timekeeper.generate.threats import plan_threats
from timekeeper.grammar.languages import LANGUAGES
from timekeeper.model import CommsDown, DataTransfer, Threat, Zone
from timekeeper.scenario.dump import dump_scenario
from timekeeper.scenario.load import load_text
from timekeeper.scenario.rules import check_scenario

ROOT = Path(__file__).resolve().parent.parent
CI_SEEDS = 300  # the benchmark runs 10,000


@pytest.mark.full(reason="generates and checks hundreds of seeds per kind")
@pytest.mark.parametrize("players", [4, 5])
@pytest.mark.parametrize("kind", KINDS)
def test_every_seed_keeps_every_rule(kind: str, players: int) -> None:
    options = GenerateOptions(kind=kind, players=players)
    broken = {}
    for seed in range(CI_SEEDS):
        problems = check_generated(generate(seed, options), options)
        if problems:
            broken[seed] = problems
    assert broken == {}


@pytest.mark.full(reason="generates missions at every threat level")
@pytest.mark.parametrize("kind", KINDS)
def test_every_threat_level_is_generated_exactly(kind: str) -> None:
    for players in (4, 5):
        options = GenerateOptions(kind=kind, players=players)
        for level in range(1, options.max_level + 1):
            scaled = dataclasses.replace(options, threat_level=level)
            for seed in range(12):
                mission = generate(seed, scaled)
                rules = RULES if seed == 0 else FAST_RULES
                assert check_generated(mission, scaled, rules=rules) == [], (kind, players, level, seed)


def test_same_seed_same_mission_and_different_seeds_differ() -> None:
    first, again = generate(4711), generate(4711)
    assert dump_scenario(first) == dump_scenario(again)
    assert len({dump_scenario(generate(seed)) for seed in range(50)}) == 50


def test_same_mission_in_another_process_with_another_hash_seed() -> None:
    code = "from timekeeper.generate import generate; from timekeeper.scenario.dump import dump_scenario; " \
           "import sys; from timekeeper.generate import GenerateOptions; " \
           "sys.stdout.write(dump_scenario(generate(99, GenerateOptions(kind='double-action'))))"
    outputs = set()
    for hash_seed in ("0", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        outputs.add(subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True).stdout)
    assert outputs == {dump_scenario(generate(99, GenerateOptions(kind="double-action")))}


def test_threat_plan_is_pinned() -> None:
    """The threat plan does not depend on voice lengths: pin it, so a changed sampler is noticed."""
    import random

    plan = plan_threats(random.Random(4711), GenerateOptions())
    text = " ".join(f"T{t.turn}{'I' if t.internal else t.zone.value[0]}{'S' if t.serious else ''}{'u' if t.unconfirmed else ''}"
                    for t in plan)
    assert text == PINNED_4711, "the sampler changed: bump GENERATOR_VERSION and update this pin"


PINNED_4711 = "T1r T2IS T4w T5w T6r T7Iu T8b"


def test_seed_and_options_are_written_and_read_back() -> None:
    options = GenerateOptions(kind="double-action", players=4, threat_level=9)
    mission = generate(123, options)
    result = load_text(dump_scenario(mission), "generated.yaml")
    assert result.scenario == mission
    assert result.scenario.seed == 123
    assert dict(result.scenario.generator) == {"version": GENERATOR_VERSION, "kind": "double-action", "players": "4", "threat_level": "9"}
    assert not any(t.unconfirmed for t in mission.threats)


def test_impossible_options_are_refused_up_front() -> None:
    with pytest.raises(ScenarioError, match="threat level 15 is impossible for a mission"):
        generate(1, GenerateOptions(threat_level=15))
    with pytest.raises(ScenarioError, match="threat level 0"):
        generate(1, GenerateOptions(threat_level=0))
    with pytest.raises(ScenarioError, match="unknown kind"):
        generate(1, GenerateOptions(kind="training"))
    with pytest.raises(ScenarioError, match="4 or 5 players"):
        generate(1, GenerateOptions(players=3))
    with pytest.raises(ScenarioError, match="seed"):
        batch(2**63 - 2, count=5)
    assert check_generated(generate(3, GenerateOptions(threat_level=14)), GenerateOptions(threat_level=14)) == []


def test_campaign_is_three_missions_in_a_row() -> None:
    missions = batch(7, campaign=True)
    assert [m.seed for m in missions] == [7, 8, 9]
    assert [dict(m.generator)["mission"] for m in missions] == ["1/3", "2/3", "3/3"]
    assert missions[1].events == generate(8).events


def test_cue_lengths_cover_every_language() -> None:
    longest, english = cue_lengths(), cue_lengths(("en",))
    assert longest.languages == LANGUAGES
    assert all(longest.threat_ms[key] >= english.threat_ms[key] for key in english.threat_ms)
    assert longest.data_transfer_ms >= english.data_transfer_ms > 5000  # holds a 5-second count


def _mission() -> tuple:
    options = GenerateOptions()
    mission = generate(4711, options)
    assert check_generated(mission, options) == []
    return mission, options


def _broken(mission, options) -> set[str]:
    return {problem.split(":")[0] for problem in check_generated(mission, options)}


def test_rules_catch_a_threat_in_the_wrong_phase_or_order() -> None:
    mission, options = _mission()
    threats = [e for e in mission.events if isinstance(e, Threat)]
    last_phase_ms = mission.phase_ends_ms[1] + 30_000
    moved = [dataclasses.replace(e, at_ms=last_phase_ms) if e is threats[0] else e for e in mission.events]
    assert {"turn-phases", "turn-order"} <= _broken(dataclasses.replace(mission, events=tuple(moved)), options)
    twice = tuple(sorted([*mission.events, dataclasses.replace(threats[1], at_ms=threats[1].at_ms + 1000)], key=lambda e: e.at_ms))
    assert {"turn-order", "no-overlap", "threat-points"} <= _broken(dataclasses.replace(mission, events=twice), options)


def test_rules_catch_wrong_counts_internal_turns_and_hidden_warnings() -> None:
    mission, options = _mission()
    t1 = Threat(mission.phase_ends_ms[0] - 200_000, 1, None)
    events = [e for e in mission.events if not (isinstance(e, Threat) and e.turn == 1)]
    broken = _broken(dataclasses.replace(mission, events=tuple(sorted([*events, t1], key=lambda e: e.at_ms))), options)
    assert "internal-turns" in broken
    no_transfers = tuple(e for e in mission.events if not isinstance(e, DataTransfer))
    assert "event-counts" in _broken(dataclasses.replace(mission, events=no_transfers), options)
    end_ms = mission.phase_ends_ms[-1]
    hiding = CommsDown(end_ms - 65_000, end_ms - 50_000)
    kept = tuple(e for e in mission.events if e.at_ms < end_ms - 70_000)
    assert "outages-clear" in _broken(dataclasses.replace(mission, events=(*kept, hiding)), options)


def test_rules_catch_long_phases_and_a_second_ambush() -> None:
    mission, options = _mission()
    longer = tuple(end + 40_000 for end in mission.phase_ends_ms)
    shifted = tuple(dataclasses.replace(e, at_ms=e.at_ms + 40_000, **({"until_ms": e.until_ms + 40_000} if isinstance(e, CommsDown) else {}))
                    for e in mission.events)
    assert "phase-lengths" in _broken(dataclasses.replace(mission, phase_ends_ms=longer, events=shifted), options)
    end_ms = mission.phase_ends_ms[0]
    late = (Threat(end_ms - 55_000, 3, Zone.RED), Threat(end_ms - 40_000, 4, Zone.BLUE))
    kept = tuple(e for e in mission.events if not (isinstance(e, Threat) and e.turn in (3, 4)) and not end_ms - 60_000 <= e.at_ms < end_ms)
    assert "ambush" in _broken(dataclasses.replace(mission, events=tuple(sorted([*kept, *late], key=lambda e: e.at_ms))), options)


@pytest.mark.full(reason="generates missions and checks them in every language")
def test_generated_missions_have_no_scenario_warnings_in_any_language() -> None:
    for seed in range(40):
        for language in ("en", "de", "es"):
            mission = dataclasses.replace(generate(seed, GenerateOptions(kind="double-action")), language=language)
            assert check_scenario(mission) == []


@pytest.mark.full(reason="generates hundreds of missions")
def test_ambushes_are_occasional_like_the_official_ones() -> None:
    options = GenerateOptions()
    count = 2000
    missions = [generate(seed, options) for seed in range(count)]
    ambushes = sum(1 for m in missions for t in m.threats if any(0 < end - t.at_ms <= 60_000 for end in m.phase_ends_ms[:2]))
    official_rate = options.profile.ambushes / options.profile.threat_phases
    assert abs(ambushes / (2 * count) - official_rate) < 0.04


def test_figures_are_the_measured_ones() -> None:
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "measure_official.py"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_docs_say_where_the_generator_version_is_rather_than_a_value_that_goes_stale() -> None:
    text = (ROOT / "docs" / "generator.md").read_text(encoding="utf-8")
    assert "`GENERATOR_VERSION` in\n`timekeeper/generate/options.py`" in text
    assert f'GENERATOR_VERSION = "{GENERATOR_VERSION}"' in (ROOT / "timekeeper" / "generate" / "options.py").read_text(encoding="utf-8")
    assert not re.search(r"version\S* (names the rule set )?\(now", text)


def test_docs_name_every_rule_with_its_figure() -> None:
    text = (ROOT / "docs" / "generator.md").read_text(encoding="utf-8")
    for rule in RULES:
        assert f"`{rule.name}`" in text, rule.name
        assert rule.figure(GenerateOptions()) in text, rule.name
