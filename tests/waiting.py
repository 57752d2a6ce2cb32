"""Waiting for what a test checks by polling it, never by sleeping for a fixed window: a busy
machine (two test workers and their browsers on two cores, other work beside them) overruns any
window, and then a sleep of 0.6 s is 1.2 s and a check of "between 400 and 900 ms" fails.

A clock that should run in real time is checked against the real time measured around its own
readings (`runs_in_real_time`): it must get to where it should, however long that takes, and must
never run ahead of the time that passed. So is a limit of so many a minute (`asked_until_refused`):
a slow machine's requests take long enough for its bucket to refill a little.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")
EVERY_S = 0.02  # how often a condition is looked at


def wait_until(check: Callable[[], T], timeout_s: float = 60.0, what: str = "the condition") -> T:
    """Call `check` until it gives something truthy, and give that; an AssertionError naming `what`
    after `timeout_s` (a bound on a hang, not a figure the test measures)."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s:.0f} s waiting for {what}")
        time.sleep(EVERY_S)


@dataclass(frozen=True)
class Reading(Generic[T]):
    """A value read between two moments of the real clock (time.monotonic(), seconds)."""

    value: T
    before_s: float
    after_s: float


def read_timed(read: Callable[[], T]) -> Reading[T]:
    """`read()`, with the real moments just before and just after it."""
    before_s = time.monotonic()
    value = read()
    return Reading(value, before_s, time.monotonic())


def most_ms_between(first: Reading[object], last: Reading[object]) -> float:
    """The most real time (ms) that can have passed between the moments `first` and `last` were read."""
    return (last.after_s - first.before_s) * 1000


def least_ms_between(first: Reading[object], last: Reading[object]) -> float:
    """The least real time (ms) that can have passed between the moments `first` and `last` were read."""
    return max(0.0, (last.before_s - first.after_s) * 1000)


def runs_in_real_time(read_ms: Callable[[], float], moved_ms: float, *, slack_ms: float = 150.0,
                      timeout_s: float = 15.0) -> float:
    """Poll `read_ms` (a clock, in ms) until it has moved on `moved_ms` from its first reading, and
    check at every reading that it never moved further than the real time that passed (plus
    `slack_ms`: a sound position advances in steps, and a correction may move it a little); how
    far it moved."""
    first = read_timed(read_ms)
    while True:
        now = read_timed(read_ms)
        moved, most = now.value - first.value, most_ms_between(first, now)
        assert moved <= most + slack_ms, f"the clock moved {moved:.0f} ms in at most {most:.0f} ms of real time"
        if moved >= moved_ms:
            return moved
        assert now.after_s - first.before_s < timeout_s, f"the clock moved {moved:.0f} ms in {timeout_s:.0f} s, not {moved_ms:.0f}"
        time.sleep(EVERY_S)


def asked_until_refused(ask: Callable[[], T], refused: Callable[[T], bool], limit: int, *,
                        fresh: bool = True) -> tuple[list[T], float]:
    """Ask (`ask()`, an answer) until an answer is `refused`, of a limit of `limit` a minute (a
    bucket of `limit` that refills evenly over the minute); the answers, the last one refused.
    Checked: no more are allowed than the bucket held plus what it refilled over the real time the
    asking took, and, of a `fresh` bucket (nothing asked of it before), none of the first `limit`
    is refused."""
    answers: list[T] = []
    started = time.monotonic()
    while not answers or not refused(answers[-1]):
        refills = (time.monotonic() - started) * limit / 60
        assert len(answers) <= limit + refills + 1, f"{len(answers)} allowed in {time.monotonic() - started:.1f} s: {answers[-3:]}"
        answers.append(ask())
    allowed = len(answers) - 1
    assert allowed >= limit or not fresh, f"refused after {allowed} of a limit of {limit} a minute: {answers[-1]}"
    return answers, time.monotonic() - started
