"""FlashPlayerCode: parsing, quirks, located errors, and export -> import of every official track."""

from __future__ import annotations

import pytest

from timekeeper.errors import ScenarioError
from timekeeper.model import CommsDown, DataTransfer, IncomingData, Threat, Zone
from timekeeper.scenario.catalog import builtin_paths, load_scenario
from timekeeper.scenario.dump import dump_scenario
from timekeeper.scenario.flashcode import format_flashcode, parse_flashcode, same_track
from timekeeper.scenario.load import load_text
from timekeeper.scenario.problems import errors
from timekeeper.scenario.rules import check_scenario

OFFICIAL = sorted(name for name, path in builtin_paths().items() if path.parent.name == "official")
EXAMPLE = "010AL1TW,050ID,120AL2TR,215DT,340PE1,345AL4TB,450DT,530ID,660PE2"


def _loads_back(scenario):
    result = load_text(dump_scenario(scenario), "<imported>")
    assert result.ok, [str(p) for p in result.problems]
    return result.scenario


def test_there_are_34_official_tracks():
    assert len(OFFICIAL) == 34


@pytest.mark.parametrize("name", OFFICIAL)
def test_export_then_import_gives_the_same_official_track(name):
    original = load_scenario(name)
    code = format_flashcode(original)
    imported = parse_flashcode(code, original.title)
    assert same_track(imported, original)
    turns = [threat.turn for threat in original.threats]
    assert imported.double_threats == (len(turns) != len(set(turns)))  # the code says so exactly when a turn repeats
    assert _loads_back(imported).events == original.events
    assert format_flashcode(imported) == code


def test_the_game_md_example():
    scenario = parse_flashcode(EXAMPLE)
    assert scenario.title == "Imported track"
    assert scenario.phase_ends_ms == (220_000, 420_000)  # 660 = 6:60 = 7:00; two phases
    assert scenario.events[0] == Threat(10_000, 1, Zone.WHITE)
    assert scenario.events[1] == IncomingData(50_000)
    assert scenario.events[3] == DataTransfer(135_000)
    assert len(scenario.events) == 7
    assert not errors_of(scenario)
    _loads_back(scenario)


def errors_of(scenario):
    from timekeeper.scenario.problems import Severity

    return [f for f in check_scenario(scenario) if f.severity is Severity.ERROR]


@pytest.mark.parametrize("time, at_ms", [
    ("360", 240_000),      # a seconds field of 60: 3*60+60
    ("0340", 220_000),     # four-digit time with a leading zero
    ("1030", 630_000),     # ten minutes and more
    ("399", 279_000),      # 3*60+99
    ("45", 45_000),        # two digits: seconds only
    ("5", 5_000),
])
def test_times_are_minutes_times_sixty_plus_seconds(time, at_ms):
    scenario = parse_flashcode(f"{time}ID,1100PE1,2000PE2")
    assert scenario.events[0].at_ms == at_ms


def test_threat_kinds_and_zones():
    scenario = parse_flashcode("010AL1TR,100UR2STW,200AL3ITx,300AL4SIT,400PE1,800PE2".replace("ITx", "IT"))
    first, second, third, fourth = scenario.events
    assert first == Threat(10_000, 1, Zone.RED)
    assert second == Threat(60_000, 2, Zone.WHITE, serious=True, unconfirmed=True)
    assert third == Threat(120_000, 3, None)
    assert fourth == Threat(180_000, 4, None, serious=True)


def test_double_threats_and_long_outage():
    scenario = parse_flashcode("010AL1TW,015AL1TB,100CS125,340PE1,700PE2")
    assert scenario.double_threats
    assert scenario.events[2] == CommsDown(60_000, 185_000)
    assert not errors_of(scenario)
    assert _loads_back(scenario).double_threats


def test_tokens_may_come_out_of_order_and_in_any_case():
    scenario = parse_flashcode(" 700pe2, 050id ,010al1tw,340PE1,")
    assert [e.at_ms for e in scenario.events] == [10_000, 50_000]
    assert scenario.phase_ends_ms == (220_000, 420_000)


@pytest.mark.parametrize("code, expected", [
    ("010AL1TW,05XID,340PE1,700PE2", "token 2 (column 10) '05XID': unknown code 'XID'"),
    ("010AL9TW,340PE1,700PE2", "token 1 (column 1) '010AL9TW': T+9 is not a turn"),
    ("010AL1T,340PE1,700PE2", "token 1 (column 1) '010AL1T': an external threat needs a zone"),
    ("010AL1ITR,340PE1,700PE2", "token 1 (column 1) '010AL1ITR': an internal threat has no zone"),
    ("010ID,AL1TW,340PE1,700PE2", "token 2 (column 7) 'AL1TW': expected a time"),
    ("010ID,340PE1,700PE2,  800PE4", "token 4 (column 23) '800PE4': phase 4 does not exist"),
    ("010ID,340PE1,350PE1,700PE2", "token 3 (column 14) '350PE1': phase 1 already ends at 3:40"),
    ("010CS0,340PE1,700PE2", "token 1 (column 1) '010CS0': an outage of 0 seconds"),
    ("010ID,030PE1,700PE2", "token 2 (column 7) '030PE1': phase 1 lasts only 0:30"),
    ("010ID,340PE1", "only one phase end (PE1 at 3:40)"),
    ("010ID,700PE2", "phase end PE1 is missing"),
    ("010ID,050DT", "no phase end"),
    ("", "empty FlashPlayerCode"),
    ("010AL5TW,340PE1,700PE2", "token 1 (column 1) '010AL5TW': T+5 cannot be announced in a track of 2 phases"),
    ("010AL1TW,020AL1TR,030AL1TB,340PE1,700PE2", "token 3 (column 19) '030AL1TB': T+1 is used again"),
    ("010ID,800DT,340PE1,700PE2", "token 2 (column 7) '800DT': event at 8:00 comes after the mission ends"),
])
def test_malformed_codes_name_the_token_and_its_position(code, expected):
    with pytest.raises(ScenarioError) as caught:
        parse_flashcode(code)
    assert expected in caught.value.message


def test_every_bad_token_is_reported_at_once():
    with pytest.raises(ScenarioError) as caught:
        parse_flashcode("0x10ID,010AL1QQ,340PE1,700PE2")
    lines = caught.value.message.splitlines()
    assert [line.split(":")[0] for line in lines] == ["token 1 (column 1) '0x10ID'", "token 2 (column 8) '010AL1QQ'"]


def test_export_refuses_what_the_code_cannot_hold():
    scenario = load_text(
        'title: "x"\nphase_ends: ["4:00", "7:00"]\nevents:\n'
        '  - {at: "0:10", type: announce, text: "Drink"}\n  - {at: "0:20.5", type: incoming_data}\n'
    ).scenario
    assert scenario is not None
    with pytest.raises(ScenarioError) as caught:
        format_flashcode(scenario)
    assert "event 1 at 0:10: FlashPlayerCode has no free-text announcements" in caught.value.message
    assert "event 2 at 0:20.500: FlashPlayerCode times are whole seconds" in caught.value.message


def test_errors_are_not_a_problem_for_the_loader():
    scenario = parse_flashcode(EXAMPLE, "A \"quoted\" title: with colon")
    loaded = _loads_back(scenario)
    assert loaded.title == 'A "quoted" title: with colon'
    assert not errors(load_text(dump_scenario(scenario)).problems)


@pytest.mark.parametrize("name", ["mission-5", "double-action-2", "test-run-2"])
def test_an_imported_track_is_announced_like_the_original(name):
    from timekeeper.grammar.durations import default_measure
    from timekeeper.grammar.phrases import phrase_book
    from timekeeper.grammar.script import ScriptOptions, build_timeline

    original = load_scenario(name)
    imported = parse_flashcode(format_flashcode(original))
    phrases = phrase_book("de")
    timelines = [build_timeline(s, phrases, default_measure("de"), ScriptOptions(players=5)) for s in (original, imported)]
    assert [(c.kind, c.text, c.at_ms) for c in timelines[0].cues] == [(c.kind, c.text, c.at_ms) for c in timelines[1].cues]
    assert timelines[0].beds == timelines[1].beds
    assert timelines[1].duration_ms == timelines[0].duration_ms
