"""The waiting helpers of tests/waiting.py fail when what they wait for is wrong, not when the
machine is slow: clocks on a fake real clock, a bucket counted by ClientRates."""

from __future__ import annotations

import itertools

import pytest
import waiting
from waiting import asked_until_refused, runs_in_real_time, wait_until

from timekeeper.serve.guards.rates import ClientRates


@pytest.fixture
def real_s(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The helpers' real clock, moved by the test: [now in seconds]; a sleep moves it on."""
    now = [1000.0]
    monkeypatch.setattr(waiting.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(waiting.time, "sleep", lambda seconds: now.__setitem__(0, now[0] + seconds))
    return now


def test_wait_until_gives_the_first_truthy_answer_or_names_what_never_came(real_s: list[float]) -> None:
    answers = iter([0, "", None, "there"])
    assert wait_until(lambda: next(answers), 1) == "there"
    with pytest.raises(AssertionError, match="timed out after 2 s waiting for the sound"):
        wait_until(lambda: False, 2, "the sound")


def test_a_clock_in_real_time_passes_however_slow_the_machine(real_s: list[float]) -> None:
    def slow_reading() -> float:  # each reading takes 0.3 s of a busy machine, the clock keeps real time
        real_s[0] += 0.3
        return real_s[0] * 1000

    assert runs_in_real_time(slow_reading, 400) >= 400


def test_a_clock_ahead_of_real_time_or_standing_still_fails(real_s: list[float]) -> None:
    racing = itertools.count(0, 500)  # 500 ms a reading, the first two readings at once
    with pytest.raises(AssertionError, match="moved 500 ms in at most 0 ms"):
        runs_in_real_time(lambda: float(next(racing)), 400)
    with pytest.raises(AssertionError, match="moved 0 ms in 2 s, not 400"):
        runs_in_real_time(lambda: 7.0, 400, timeout_s=2)


def test_a_limit_a_minute_is_checked_against_the_time_the_asking_took(real_s: list[float]) -> None:
    rates = ClientRates({"joins": 30})

    def ask(seconds_each: float) -> int:
        real_s[0] += seconds_each
        return rates.take("192.0.2.1", "joins", now=real_s[0])

    answers, took_s = asked_until_refused(lambda: ask(0.01), lambda wait: wait > 0, 30)
    assert answers == [0] * 30 + [2] and took_s == pytest.approx(0.31)
    rates = ClientRates({"joins": 30})
    slow, took_s = asked_until_refused(lambda: ask(0.5), lambda wait: wait > 0, 30)  # a quarter back with each
    assert len(slow) - 1 == 39 and took_s == pytest.approx(20.0)
    too_many = ClientRates({"joins": 60})  # twice the limit the test expects
    with pytest.raises(AssertionError, match="32 allowed"):
        asked_until_refused(lambda: too_many.take("192.0.2.2", "joins", now=real_s[0]), lambda wait: wait > 0, 30)
    too_few = ClientRates({"joins": 10})
    with pytest.raises(AssertionError, match="refused after 10 of a limit of 30"):
        asked_until_refused(lambda: too_few.take("192.0.2.3", "joins", now=real_s[0]), lambda wait: wait > 0, 30)
