"""The espeak-ng rates are the measured ones (docs/voices.md), paced for understanding: every
official track in every language fits at the shipped rate, with the squeeze kept for a few cues,
and `timekeeper plan` shows no overlap on the tightest tracks in any language."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from running import timekeeper

from timekeeper.grammar.durations import default_measure, measured_with
from timekeeper.grammar.phrases import LANGUAGES
from timekeeper.voice.pace import ESPEAK_DEFAULT_WPM, MAX_SQUEEZED_CUES, official_pressure
from timekeeper.voice.settings import TtsSettings

DOCS = Path(__file__).resolve().parent.parent / "docs" / "voices.md"


def documented_rates() -> dict[str, int]:
    """language -> the rate the measurement table of docs/voices.md chose (in bold)."""
    rows = re.findall(r"^\| (\w\w) \| \d+ \| [^|]+ \| \*\*(\d+)\*\* \|", DOCS.read_text(encoding="utf-8"), re.MULTILINE)
    return {language: int(rate) for language, rate in rows}


def test_every_language_speaks_at_the_documented_rate() -> None:
    chosen = documented_rates()
    assert set(chosen) == set(LANGUAGES)
    for language in LANGUAGES:
        rate = TtsSettings.default(language).rate_wpm
        assert rate == chosen[language] >= ESPEAK_DEFAULT_WPM, language
        table = measured_with(language)
        assert table is not None and table[2] == rate, f"voices/durations-{language}.yaml was measured at another rate"


@pytest.mark.parametrize("language", LANGUAGES)
def test_official_tracks_fit_with_few_squeezed_cues(language: str) -> None:
    pressure = official_pressure(language, default_measure(language))
    assert pressure.cues == 2632
    assert pressure.overlaps == 0
    assert pressure.squeezed <= MAX_SQUEEZED_CUES


@pytest.mark.parametrize("language", LANGUAGES)
def test_plan_of_the_tightest_tracks_has_no_overlap(language: str) -> None:
    for track in ("mission-3", "double-action-easy-2"):
        done = timekeeper("plan", track, "--lang", language, "--strict")
        assert done.returncode == 0, (track, done.stdout[-500:], done.stderr)
        assert done.stdout.rstrip().endswith(", 0 overlapping")
