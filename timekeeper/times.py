"""Mission times: parsing `m:ss` / seconds and printing integer milliseconds."""

from __future__ import annotations

import re

_CLOCK = re.compile(r"^\s*(\d{1,3}):(\d{1,2})(?:\.(\d{1,3}))?\s*$", re.ASCII)
_SECONDS = re.compile(r"^\s*(\d{1,5})(?:\.(\d{1,3}))?\s*s?\s*$", re.ASCII)


def parse_time_ms(text: str) -> int:
    """Milliseconds from `m:ss`, `m:ss.fff`, or plain seconds (`225`, `225.5`, `225s`).

    Raises ValueError with a message saying what was expected.
    """
    match = _CLOCK.match(text)
    if match:
        minutes, seconds, fraction = match.groups()
        if int(seconds) >= 60:
            raise ValueError(f"seconds must be below 60 in {text.strip()!r}")
        return (int(minutes) * 60 + int(seconds)) * 1000 + _fraction_ms(fraction)
    match = _SECONDS.match(text)
    if match:
        seconds, fraction = match.groups()
        return int(seconds) * 1000 + _fraction_ms(fraction)
    raise ValueError(f"malformed time {text.strip()!r} (expected m:ss such as 3:45, or seconds)")


def _fraction_ms(fraction: str | None) -> int:
    return int((fraction or "0").ljust(3, "0"))


def format_time(ms: int, *, precise: bool = False) -> str:
    """`m:ss` for a whole number of seconds; `m:ss.fff` when `precise` and there is a fraction."""
    sign = "-" if ms < 0 else ""
    ms = abs(ms)
    seconds, millis = divmod(ms, 1000)
    text = f"{sign}{seconds // 60}:{seconds % 60:02d}"
    if precise and millis:
        text += f".{millis:03d}"
    return text
