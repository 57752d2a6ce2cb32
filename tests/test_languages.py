"""French, Italian, Polish and Czech end to end, as a user runs them: the espeak-ng voice speaks
every cue (decoded render), plan has no overlap, the card prints in the language, live speaks it."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from decoded import RATE, decode
from running import timekeeper

from timekeeper.grammar.phrases import phrase_book

SHORT = Path(__file__).parent / "data" / "render" / "short.yaml"
LIVE_TRACK = Path(__file__).parent / "data" / "live" / "three-phases.yaml"
NEW_LANGUAGES = ("fr", "it", "pl", "cs")


@pytest.mark.parametrize("language", NEW_LANGUAGES)
def test_render_speaks_every_cue_in_the_language(language: str, tmp_path: Path) -> None:
    from timekeeper.scenario.catalog import load_scenario
    from timekeeper.soundtrack.mix import MixSettings, prepare_mix

    out = tmp_path / f"short-{language}.wav"
    done = timekeeper("render", str(SHORT), "--lang", language, "--no-background", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert "voice tts:" in done.stdout
    samples = decode(out)
    timeline = prepare_mix(load_scenario(str(SHORT)), MixSettings(language=language, background=False)).timeline
    assert timeline.language == language
    for cue in timeline.cues:
        for part in cue.speech:
            window = samples[part.at_ms * RATE // 1000 : part.end_ms * RATE // 1000]
            assert np.sqrt(np.mean(window**2)) > 0.01, (cue.kind, part.key)
    texts = " ".join(part.text for cue in timeline.cues for part in cue.speech)
    assert phrase_book(language).say("begin_first_phase") in texts


@pytest.mark.parametrize("language", NEW_LANGUAGES)
def test_plan_and_card_in_the_language(language: str) -> None:
    planned = timekeeper("plan", "mission-3", "--lang", language, "--strict")
    assert planned.returncode == 0, planned.stdout[-400:]
    assert planned.stdout.rstrip().endswith("0 overlapping")
    book = phrase_book(language)
    assert book.say("mission_complete") in planned.stdout
    shown = timekeeper("show", "mission-3", "--lang", language)
    assert shown.returncode == 0
    assert book.word("serious_threat") in shown.stdout and book.word("data_transfer") in shown.stdout


def test_live_speaks_french() -> None:
    done = timekeeper("live", str(LIVE_TRACK), "--lang", "fr", "--backend", "null", "--start-at", "3:21")
    assert done.returncode == 0, done.stderr
    assert "Fin de l'opération dans cinq" in done.stdout and "Mission accomplie." in done.stdout
    book = phrase_book("fr")
    header = rf"^{book.word('time')}\s+T\+\s+{book.word('event')}\s+{book.word('zone')}$"  # the card, in French
    assert re.search(header, done.stdout, re.MULTILINE), done.stdout
    assert book.word("phase_end").format(n=2) in done.stdout and book.word("mission_end") in done.stdout
