"""Byte ranges as every route that streams reads them (serve/web/ranges.py, RFC 9110 section 14):
clamped to the file, another unit ignored, what cannot be served refused."""

from __future__ import annotations

import pytest

from timekeeper.serve.web.ranges import Unsatisfiable, parse_range

SIZE = 1000
HUGE = "9" * 30  # more than any file has bytes (and than 64 bits hold)


@pytest.mark.parametrize("header, expected", [
    (None, None),
    ("", None),
    ("bytes=0-99", (0, 99)),
    ("bytes=100-", (100, 999)),
    ("bytes=-100", (900, 999)),
    ("bytes=999-999", (999, 999)),
    (" bytes = 5-9 ", (5, 9)),
    ("bytes=0-1000", (0, 999)),  # past the end: clamped (RFC 9110 14.1.2)
    (f"bytes=0-{HUGE}", (0, 999)),
    (f"bytes=10-{'9' * 5000}", (10, 999)),  # (never parsed: no 5,000-digit number is made)
    ("bytes=-1000", (0, 999)),
    (f"bytes=-{HUGE}", (0, 999)),
    ("items=0-1", None),  # another unit: ignored, the whole file
    ("lines=1-2", None),
])
def test_a_range_is_clamped_to_the_file(header, expected):
    assert parse_range(header, SIZE) == expected


@pytest.mark.parametrize("header", [
    "bytes=1000-", f"bytes={HUGE}-", "bytes=-0", "bytes=20-10", "bytes=a-b", "bytes=\u00b2-", "bytes=-", "bytes=",
    "bytes=0-1,5-6", "bytes=+5-9",
])
def test_a_range_that_cannot_be_served_is_refused(header):
    with pytest.raises(Unsatisfiable):
        parse_range(header, SIZE)


@pytest.mark.parametrize("header", ["bytes=0-", "bytes=-5"])
def test_an_empty_file_has_no_range(header):
    with pytest.raises(Unsatisfiable):
        parse_range(header, 0)
