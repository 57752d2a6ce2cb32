"""Training pace: the whole mission stretched, the announcements at their natural speed; in the
model, in a decoded render, and on the card and plan of the command line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from decoded import RATE, decode, rms
from running import timekeeper

from timekeeper.errors import ExitStatus
from timekeeper.grammar.pace import stretched
from timekeeper.grammar.script import CueKind
from timekeeper.grammar.times import format_time
from timekeeper.model import CommsDown
from timekeeper.scenario.catalog import load_scenario
from timekeeper.scenario.flashcode import format_flashcode
from timekeeper.soundtrack.mix import MixSettings, prepare_mix

SHORT = Path(__file__).parent / "data" / "render" / "short.yaml"


def later(at_ms: int, pace: float) -> int:
    """`at_ms` at `pace`, as the players should hear it (to the nearest whole second)."""
    return int(at_ms * pace / 1000 + 0.5) * 1000


def test_every_time_is_multiplied_and_nothing_else_changes() -> None:
    normal = load_scenario("mission-1")
    slow = stretched(normal, 1.5)
    assert slow.phase_ends_ms == tuple(later(ms, 1.5) for ms in normal.phase_ends_ms) == (338_000, 675_000, 900_000)
    assert [event.at_ms for event in slow.events] == [later(event.at_ms, 1.5) for event in normal.events]
    outages = [(e.at_ms, e.until_ms) for e in slow.events if isinstance(e, CommsDown)]
    assert outages == [(later(e.at_ms, 1.5), later(e.until_ms, 1.5)) for e in normal.events if isinstance(e, CommsDown)]
    assert [type(e) for e in slow.events] == [type(e) for e in normal.events] and slow.title == normal.title
    assert slow.pace == 1.5 and stretched(slow, 1.2).pace == 1.8  # paces compound
    assert stretched(normal, 1.0) is normal
    assert format_flashcode(slow).endswith("1500PE3")  # whole seconds: the code still says it
    for wrong in (0.5, 2.5, float("nan"), True):
        with pytest.raises(ValueError, match="pace"):
            stretched(normal, wrong)


def test_the_announcements_keep_their_natural_length_at_a_slower_pace() -> None:
    settings = MixSettings(language="en", background=False)
    normal = prepare_mix(load_scenario(str(SHORT)), settings).timeline
    slow = prepare_mix(stretched(load_scenario(str(SHORT)), 1.5), settings).timeline
    natural = 0
    for kind in CueKind:
        before, after = [c for c in normal.cues if c.kind is kind], [c for c in slow.cues if c.kind is kind]
        assert len(before) == len(after), kind
        for old, new in zip(before, after):
            if old.event is not None:
                assert new.at_ms == later(old.at_ms, 1.5), old
            if new.pace.natural and old.pace.natural:  # (a cue crowded by a fixed warning is squeezed, as in any track)
                assert new.end_ms - new.at_ms == old.end_ms - old.at_ms, old  # spoken at the same speed
                natural += 1
    assert natural >= len(slow.cues) - 2

    def before_the_ends(timeline) -> list[int]:  # the warnings, as ms before the end of their phase
        warnings = [cue.at_ms for cue in timeline.cues if cue.kind is CueKind.PHASE_WARNING]
        return [min(end for end in timeline.phase_ends_ms if end > at_ms) - at_ms for at_ms in warnings]

    assert before_the_ends(slow) == before_the_ends(normal)  # "one minute" is still a minute before the end


def test_a_slower_render_sounds_every_event_at_its_stretched_time(tmp_path: Path) -> None:
    out = tmp_path / "slow.wav"
    done = timekeeper("render", str(SHORT), "--pace", "1.5", "--no-background", "-o", str(out))
    assert done.returncode == 0, done.stderr
    samples = decode(out)
    normal = load_scenario(str(SHORT))
    assert len(samples) / RATE > later(normal.duration_ms, 1.5) / 1000  # 2:50 became 4:15
    busy = [(cue.at_ms, cue.end_ms) for cue in prepare_mix(stretched(normal, 1.5), MixSettings(background=False)).timeline.cues]
    silent_originals = 0
    for event in normal.events:
        at_ms = later(event.at_ms, 1.5)
        assert rms(samples, at_ms + 50, 300) > 0.01, f"no sound at {format_time(at_ms)} (event of {format_time(event.at_ms)})"
        assert rms(samples, at_ms - 600, 500) < 1e-3 or any(a < at_ms - 100 < b for a, b in busy), "sound before the cue"
        if not any(a - 700 <= event.at_ms <= b + 700 for a, b in busy):  # the original moment is now a quiet gap
            assert rms(samples, event.at_ms + 50, 300) < 1e-3, f"sound at the unstretched {format_time(event.at_ms)}"
            silent_originals += 1
    assert silent_originals >= 2


def test_card_and_plan_show_the_stretched_times() -> None:
    card = timekeeper("card", str(SHORT), "--pace", "1.5", "--format", "text")
    assert card.returncode == 0, card.stderr
    assert "training pace 1.5×" in card.stdout
    assert re.search(r"^0:12\s+T\+1", card.stdout, re.M) and "2:15" in card.stdout and "4:15" in card.stdout  # 0:08, 1:30, 2:50
    german = timekeeper("card", str(SHORT), "--pace", "1.25", "--format", "text", "--lang", "de").stdout
    assert "Trainingstempo 1,25×" in german and "3:33" in german  # 2:50 * 1.25 = 3:32.5
    plan = timekeeper("plan", str(SHORT), "--pace", "1.5x")
    assert plan.returncode == 0, plan.stderr
    threat = next(line for line in plan.stdout.splitlines() if " threat " in line)
    assert threat.split()[0] == "0:12", threat  # 0:08 * 1.5
    assert re.search(r"track length 4:[12]\d", plan.stdout), plan.stdout  # 2:50 * 1.5 = 4:15, then the closing words


@pytest.mark.parametrize(("pace", "message"), [
    ("3", "pace 3 is out of range (expected 1 to 2; 1 is the normal pace)"),
    ("0.5", "pace 0.5 is out of range"),
    ("fast", "pace 'fast': expected a number from 1 to 2"),
    ("nan", "expected a number from 1 to 2"),
])
def test_a_pace_out_of_range_is_a_usage_error(pace: str, message: str) -> None:
    for command in (["card", str(SHORT), "--format", "text"], ["plan", str(SHORT)], ["live", str(SHORT), "--backend", "null"]):
        done = timekeeper(*command, "--pace", pace)
        assert done.returncode == ExitStatus.USAGE, done.stderr
        assert message in done.stderr and "Traceback" not in done.stderr


def test_live_at_a_training_pace_says_each_event_at_its_stretched_time() -> None:
    import subprocess
    import sys

    process = subprocess.Popen(  # 1:52 at 1.5 is 2:48; --start-at counts in the stretched mission
        [sys.executable, "-m", "timekeeper", "live", str(SHORT), "--pace", "1.5", "--backend", "null", "--start-at", "2:46"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    try:
        first = process.stdout.readline()  # type: ignore[union-attr]
    finally:
        process.kill()
        process.wait()
    assert first.startswith("2:48 Incoming data."), first
