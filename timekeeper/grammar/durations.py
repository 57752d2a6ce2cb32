"""Phrase lengths of the default synthesized voice, measured once and shipped as a table.

Validation and the generator judge spacing with these lengths without synthesizing anything.
`tools/measure_phrases.py` rewrites voices/durations-<lang>.yaml from the real TTS voice; the
table's header names the engine and settings it was measured with (`measured_with`), and
`timekeeper.voice.caveat` says when this machine would speak otherwise.
"""

from __future__ import annotations

import re
from functools import cache

import yaml

from timekeeper.files.paths import voices_dir
from timekeeper.grammar.script import Measure, estimate_ms

HEADER = re.compile(r"# engine: (?P<engine>[^,]+), voice: (?P<voice>[^,]+), rate: (?P<rate>\d+) wpm, volume: (?P<volume>[\d.]+)")


@cache
def shipped_durations(language: str) -> dict[str, int]:
    """key -> milliseconds for `language`, or {} if no table is shipped."""
    path = voices_dir() / f"durations-{language}.yaml"
    if not path.is_file():
        return {}
    with open(path, encoding="utf-8") as handle:
        data = yaml.safe_load(handle) or {}
    return {str(key): int(value) for key, value in (data.get("durations_ms") or {}).items()}


def default_measure(language: str) -> Measure:
    """Lengths of the default voice where measured, else a text-length estimate."""
    table = shipped_durations(language)

    def measure(key: str, text: str) -> int:
        return table.get(key) or estimate_ms(key, text)

    return measure


@cache
def measured_with(language: str) -> tuple[str, str, int, float] | None:
    """(engine, voice, rate in words/min, volume) that the shipped table of `language` was measured
    with, from its header; None without a table or header."""
    path = voices_dir() / f"durations-{language}.yaml"
    if not path.is_file():
        return None
    with open(path, encoding="utf-8") as handle:
        match = HEADER.search("".join(handle.readline() for _ in range(3)))
    if match is None:
        return None
    return match["engine"], match["voice"], int(match["rate"]), float(match["volume"])
