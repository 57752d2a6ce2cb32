"""Phrase lengths of the default synthesized voice, measured once and shipped as a table.

Validation and the generator judge spacing with these lengths without synthesizing anything.
`tools/measure_phrases.py` rewrites voices/durations-<lang>.yaml from the real TTS voice.
"""

from __future__ import annotations

from functools import cache

import yaml

from timekeeper.paths import voices_dir
from timekeeper.script import Measure, estimate_ms


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
