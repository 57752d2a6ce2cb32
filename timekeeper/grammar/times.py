"""Mission times: parsing `m:ss` / seconds and printing integer milliseconds."""

from __future__ import annotations

import re

_CLOCK = re.compile(r"^\s*(\d{1,3}):(\d{1,2})(?:\.(\d{1,3}))?\s*$", re.ASCII)
_SECONDS = re.compile(r"^\s*(\d{1,5})(?:\.(\d{1,3}))?\s*s?\s*$", re.ASCII)


class TimeProblem(ValueError):
    """A time that cannot be read: `key` says what is wrong (the catalogues' problem.time.<key>
    word it for a page), `written` is the time as written."""

    def __init__(self, key: str, written: str, message: str) -> None:
        super().__init__(message)
        self.key, self.written = key, written


def parse_time_ms(text: str) -> int:
    """Milliseconds from `m:ss`, `m:ss.fff`, or plain seconds (`225`, `225.5`, `225s`).

    Raises TimeProblem (a ValueError) with a message saying what was expected.
    """
    written = repr(text.strip())
    match = _CLOCK.match(text)
    if match:
        minutes, seconds, fraction = match.groups()
        if int(seconds) >= 60:
            raise TimeProblem("seconds", written, f"seconds must be below 60 in {written}")
        return (int(minutes) * 60 + int(seconds)) * 1000 + _fraction_ms(fraction)
    match = _SECONDS.match(text)
    if match:
        seconds, fraction = match.groups()
        return int(seconds) * 1000 + _fraction_ms(fraction)
    raise TimeProblem("malformed", written, f"malformed time {written} (expected m:ss such as 3:45, or seconds)")


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


_UNIT = re.compile(
    r"^\s*(?:(?P<minutes>\d{1,3})\s*(?:m|min)\s*)?(?:(?P<seconds>\d{1,5}(?:\.\d{1,3})?)\s*(?:s|sec)\s*)?$",
    re.ASCII | re.IGNORECASE,
)


def parse_clock_option(text: str) -> int:
    """Milliseconds from a command-line mission time: `m:ss` (`4:30`, `4:30.5`) or a number with an
    explicit unit (`270s`, `4m30s`, `4m`, `4min`).

    A bare number is refused as ambiguous (`430` is 4:30 in FlashPlayerCode but 430 s elsewhere;
    `4.30` looks like 4:30 but would be 4.3 s), and so is one digit of seconds (`4:3`: 4:03 or
    4:30?): ValueError says how to write it.
    """
    stripped = text.strip()
    short = re.fullmatch(r"(\d{1,3}):(\d)(\.\d{1,3})?", stripped, re.ASCII)  # 4:3: 4:03 or 4:30?
    if short:
        minutes, second, fraction = short[1], short[2], short[3] or ""
        seconds = f"seconds with a unit as {int(minutes) * 60 + int(second)}{fraction}s"
        if second == "0":
            raise ValueError(f"{stripped!r} needs two digits of seconds: write {minutes}:00{fraction}, or {seconds}")
        raise ValueError(f"{stripped!r} is ambiguous: write minutes and seconds with two digits of seconds as "
                         f"{minutes}:0{second}{fraction} (or {minutes}:{second}0{fraction}), or {seconds}")
    if ":" in stripped:
        return parse_time_ms(stripped)
    match = _UNIT.match(stripped)
    if stripped and match and (match["minutes"] or match["seconds"]):
        minutes = int(match["minutes"] or 0)
        whole, _, fraction = (match["seconds"] or "0").partition(".")
        if match["minutes"] and int(whole) >= 60:
            raise ValueError(f"seconds must be below 60 in {stripped!r}")
        return (minutes * 60 + int(whole)) * 1000 + _fraction_ms(fraction or None)
    if re.fullmatch(r"0+", stripped):
        return 0  # the start, however it is read
    if re.fullmatch(r"\d{1,5}(\.\d+)?", stripped, re.ASCII):
        clock = stripped.replace(".", ":") if "." in stripped else f"{stripped[:-2] or 0}:{stripped[-2:]:0>2}"
        raise ValueError(f"{stripped!r} is ambiguous: write minutes and seconds as {clock}, or seconds with a unit as {stripped}s")
    raise ValueError(f"malformed time {stripped!r} (expected m:ss such as 4:30, or a number with a unit such as 270s)")

