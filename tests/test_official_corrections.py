"""The two official tracks a second transcription corrected, as data, card and FlashPlayerCode."""

from __future__ import annotations

import pytest

from timekeeper.cards.text import text_card
from timekeeper.generate.features import measure
from timekeeper.model import Threat, Zone
from timekeeper.scenario.catalog import builtin_paths, load_scenario
from timekeeper.scenario.flashcode import format_flashcode


def _threat_at(name: str, at: str) -> Threat:
    minutes, seconds = at.split(":")
    at_ms = (int(minutes) * 60 + int(seconds)) * 1000
    [threat] = [threat for threat in load_scenario(name).threats if threat.at_ms == at_ms]
    return threat


def test_easier_1_at_6_45_is_an_unconfirmed_white_threat() -> None:
    threat = _threat_at("double-action-easy-1", "6:45")
    assert (threat.turn, threat.zone, threat.serious, threat.unconfirmed) == (7, Zone.WHITE, False, True)


def test_easier_2_at_7_25_is_a_serious_blue_threat() -> None:
    threat = _threat_at("double-action-easy-2", "7:25")
    assert (threat.turn, threat.zone, threat.serious, threat.unconfirmed) == (8, Zone.BLUE, True, False)


@pytest.mark.parametrize(("name", "points"), [
    ("double-action-easy-1", (8, 2)), ("double-action-easy-2", (8, 2)), ("double-action-easy-5", (7, 3)),
])
def test_threat_points_confirmed_and_unconfirmed(name: str, points: tuple[int, int]) -> None:
    features = measure(load_scenario(name))
    assert (features.confirmed_points, features.unconfirmed_points) == points


@pytest.mark.parametrize(("name", "token"), [("double-action-easy-1", "645UR7TW"), ("double-action-easy-2", "725AL8STB")])
def test_flashplayercode_matches_the_second_transcription(name: str, token: str) -> None:
    """siefkenj's FlashPlayerCode strings carry these exact tokens; the export now agrees."""
    assert token in format_flashcode(load_scenario(name)).split(",")


def test_cards_print_the_corrected_threats() -> None:
    easier_1 = [line for line in text_card(load_scenario("double-action-easy-1"), "en").splitlines()
                if line.startswith("6:45")]
    easier_2 = [line for line in text_card(load_scenario("double-action-easy-2"), "en").splitlines()
                if line.startswith("7:25")]
    assert "Unconfirmed report" in easier_1[0] and "White" in easier_1[0]
    assert "Serious threat" in easier_2[0] and "Blue" in easier_2[0]


@pytest.mark.parametrize("name", ["double-action-easy-1", "double-action-easy-2"])
def test_the_files_name_both_transcriptions(name: str) -> None:
    text = builtin_paths()[name].read_text(encoding="utf-8")
    header = [line for line in text.splitlines() if line.startswith("# Transcriptions:")]
    assert header and "nibuen/SpaceAlertMissionGenerator" in header[0] and "siefkenj/spacealertweb" in header[0]
    disagreed = text.split("# Sources disagreed:")[1].split("\ntitle:")[0]  # a comment for maintainers, not the notes
    assert "siefkenj" in disagreed and not load_scenario(name).notes
