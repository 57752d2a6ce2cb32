"""Short missions (timekeeper/generate/shortened.py): every length `generate --help` offers works, and
a mission shorter than the official ones carries less, as the official training tracks do, while it
keeps every rule of a real one (three phases, T+ turns, no overlap, no hidden warning)."""

from __future__ import annotations

import itertools

import pytest
from inprocess import run_cli

from timekeeper.errors import ExitStatus
from timekeeper.generate import GenerateOptions, generate, relaxations
from timekeeper.generate.options import KINDS, PLAYERS, SPECS_BY_KEY
from timekeeper.generate.profile import PLACED
from timekeeper.generate.rules import FAST_RULES, RULES, check_generated
from timekeeper.generate.shortened import MIN_PHASE_MS, official_length_ms
from timekeeper.scenario.load import load_text


def keeps_every_rule(options: GenerateOptions, seeds: range) -> None:
    for seed in seeds:
        mission = generate(seed, options)
        assert check_generated(mission, options, rules=RULES if seed == seeds[0] else FAST_RULES) == [], (options, seed)
        assert mission.duration_ms == options.length_ms or options.length_ms is None
        assert min(b - a for a, b in zip((0, *mission.phase_ends_ms), mission.phase_ends_ms)) >= MIN_PHASE_MS


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("length", ["5:00", "7:00"])
def test_a_quick_game_of_every_kind_keeps_every_rule(kind: str, players: int, length: str) -> None:
    options = GenerateOptions(kind=kind, players=players, length_ms=SPECS_BY_KEY["length"].parse(length))
    keeps_every_rule(options, range(4))


@pytest.mark.parametrize("kind", KINDS)
def test_shorter_carries_less_and_the_official_length_as_much_as_official(kind: str) -> None:
    official = GenerateOptions(kind=kind).profile
    shortest_official_s = official_length_ms(official) // 1000
    levels, counts = [], []
    for seconds in range(300, shortest_official_s + 1, 30):
        options = GenerateOptions(kind=kind, length_ms=seconds * 1000)
        profile = options.profile
        levels.append(options.level)
        counts.append(tuple(profile.count(placed)[1] for placed in PLACED))
        assert options.level <= official.confirmed_points[1] and profile.scaled == (seconds * 1000 < shortest_official_s * 1000)
    assert levels == sorted(levels) and levels[0] < levels[-1] == official.confirmed_points[1]  # as long, as many points
    assert all(a <= b for low, high in zip(counts, counts[1:]) for a, b in zip(low, high))
    assert counts[-1] == tuple(official.count(placed)[1] for placed in PLACED)


def test_a_quick_game_is_one_note_and_a_real_mission() -> None:
    options = GenerateOptions(length_ms=300_000)
    [note] = relaxations(options)
    assert note == ("phase-lengths: --length 5:00 is shorter than the official tracks (3:25-4:00, 3:35-3:55, 2:20-2:35), so "
                    "it carries less, as the training tracks do: 4 threat points, 1-2 incoming data, 1-2 data transfers, "
                    "1-3 outages")
    mission = generate(7, options)
    assert len(mission.phase_ends_ms) == 3 and mission.duration_ms == 300_000
    assert sum(t.points for t in mission.threats if not t.unconfirmed) == 4
    assert {t.turn <= 4 for t in mission.threats} == {True, False}  # threats in both threat phases


def test_generate_offers_and_makes_a_quick_game(tmp_path) -> None:
    out = tmp_path / "quick.yaml"
    done = run_cli("generate", "--seed", "3", "--length", "5:00", "-o", str(out))
    assert done.exit_code == ExitStatus.SUCCESS, done.output
    assert "is shorter than the official tracks" in done.stderr
    assert "(a quick game: 5:00)" in " ".join(run_cli("generate", "--help").stdout.split())  # (the help wraps its lines)
    loaded = load_text(out.read_text(encoding="utf-8"), str(out))
    assert loaded.ok and loaded.scenario is not None and loaded.scenario.duration_ms == 300_000
    assert [p for p in loaded.problems] == []  # no warning either (no overlap)


@pytest.mark.full("every length and phase split of every kind and crew: a few minutes of generating")
def test_every_length_the_help_offers_works() -> None:
    spec = SPECS_BY_KEY["length"]
    for kind, players in itertools.product(KINDS, PLAYERS):
        for seconds in range(spec.low, 16 * 60, 15):  # longer lengths were always fine (the official content fits)
            keeps_every_rule(GenerateOptions(kind=kind, players=players, length_ms=seconds * 1000), range(6))


@pytest.mark.full("every split of six phase lengths, of every kind and crew")
def test_every_phase_length_the_help_offers_works() -> None:
    values = (90, 120, 180, 240, 360, 600)  # 1:30 (the help's shortest) to 10:00 (its longest)
    for kind, players in itertools.product(KINDS, PLAYERS):
        for phases in itertools.product(values, repeat=3):
            options = GenerateOptions(kind=kind, players=players, phase_lengths_ms=tuple(s * 1000 for s in phases))
            for seed in range(2):
                problems = [p for p in check_generated(generate(seed, options), options, rules=FAST_RULES)
                            if not p.startswith("phase-lengths")]  # (within 5 s of the phases asked for: exact here)
                assert problems == [], (options, seed, problems)
