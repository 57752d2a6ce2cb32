"""The commands the other fast tests do not reach, in the test's own process (tests/inprocess.py):
`python -m timekeeper`, `live` on a virtual clock, `serve` up to the moment it would listen, the
ship's log's prompts, campaigns and printout, and `stats --plot`."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import pytest
from inprocess import run_cli
from measuredvoice import speak_measured
from realparts import require

from timekeeper.errors import ExitStatus

SHORT = Path(__file__).resolve().parent / "data" / "render" / "short.yaml"
CREW = "Ann:captain, Bob:co, Cid, Dee:sc"


def test_python_m_timekeeper_exits_with_the_status(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "argv", ["timekeeper", "--version"])
    with pytest.raises(SystemExit) as stopped:
        runpy.run_module("timekeeper", run_name="__main__")
    assert stopped.value.code == ExitStatus.SUCCESS and "timekeeper" in capsys.readouterr().out
    monkeypatch.setattr(sys, "argv", ["timekeeper", "show", "no-such-track"])
    with pytest.raises(SystemExit) as stopped:
        runpy.run_module("timekeeper", run_name="__main__")
    assert stopped.value.code == ExitStatus.INVALID_SCENARIO


def test_live_plays_the_end_of_a_track_on_a_virtual_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    from timekeeper.live import clock

    class VirtualClock(clock.Clock):  # the mission's minutes pass in milliseconds
        def __init__(self, start_ms: int = 0, source: object = None) -> None:
            super().__init__(start_ms, clock.VirtualTime())

    speak_measured(monkeypatch)
    monkeypatch.setattr(clock, "Clock", VirtualClock)
    done = run_cli("live", str(SHORT), "--backend", "null", "--start-at", "2:30")
    assert done.exit_code == ExitStatus.SUCCESS, done.output
    lines = done.stdout.splitlines()
    assert lines[0] == "2:30 Operation ends in twenty seconds."
    assert lines[1].startswith("2:43 Operation ends in five") and "Mission complete" in lines[1]
    assert "Render drill" in done.stdout and "End of mission" in done.stdout  # the card after the mission
    assert run_cli("live", str(SHORT), "--backend", "no-such-backend").exit_code == ExitStatus.USAGE


def test_live_resumed_during_an_announcement_plays_it_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """--start-at 1:25 falls in the first phase's final countdown (from 1:23.6): it is heard from its start."""
    from timekeeper.live import clock

    class VirtualClock(clock.Clock):
        def __init__(self, start_ms: int = 0, source: object = None) -> None:
            super().__init__(start_ms, clock.VirtualTime())

    speak_measured(monkeypatch)
    monkeypatch.setattr(clock, "Clock", VirtualClock)
    done = run_cli("live", str(SHORT), "--backend", "null", "--start-at", "1:25")
    assert done.exit_code == ExitStatus.SUCCESS, done.output
    first = done.stdout.splitlines()[0]
    assert first.startswith("1:23 First phase ends in five") and "Begin second phase" in first
    assert "Warning: starting at 1:23." in done.stderr and "the phase end under way then begins" in done.stderr
    between = run_cli("live", str(SHORT), "--backend", "null", "--start-at", "2:00")  # nothing under way: as asked
    assert between.stdout.splitlines()[0].startswith("2:30 Operation ends in twenty") and "starting at" not in between.stderr


def test_serve_parses_its_options_and_says_where_it_listens(monkeypatch: pytest.MonkeyPatch) -> None:
    from timekeeper.serve.web import app
    started = []

    def listen(config, ready) -> None:  # type: ignore[no-untyped-def]
        started.append(config)
        ready(43210)

    monkeypatch.setattr(app, "run", listen)
    done = run_cli("serve", "--port", "0")
    assert done.exit_code == ExitStatus.SUCCESS, done.output
    assert "http://127.0.0.1:43210/" in done.stdout
    assert started[0].host == "127.0.0.1" and started[0].token is None and not started[0].public
    refused = run_cli("serve", "--redis", "http://127.0.0.1:6379")
    assert refused.exit_code == ExitStatus.USAGE and "expected a Redis URL" in refused.stderr
    assert len(started) == 1


def test_log_prompts_for_each_value_and_prints_the_log(tmp_path: Path) -> None:
    db = str(tmp_path / "log.sqlite3")
    # crew, date (today), track, both difficulties (1), destroyed by (none), survived, destroyed, damage
    # red, white, blue, then the defaults of the rest
    answers = "\n".join([CREW, "", "mission-3", "", "", "", "4", "10", "2", "0", "1", "", "", ""]) + "\n"
    asked = run_cli("log", "--db", db, "add", "--prompt", input=answers)
    assert asked.exit_code == ExitStatus.SUCCESS, asked.output
    assert "Crew" in asked.stdout and "damage:      red 2, white 0, blue 1" in asked.stdout
    pdf = tmp_path / "log.pdf"
    assert run_cli("log", "--db", db, "print", "-o", str(pdf)).exit_code == ExitStatus.SUCCESS
    assert pdf.read_bytes().startswith(b"%PDF")


def test_log_asks_whether_the_ship_survived_before_the_points(tmp_path: Path) -> None:
    """A lost mission: asked first whether the ship survived, then for the threat by name (a number,
    a score typed into the wrong place, is asked again), then for no points."""
    db = str(tmp_path / "log.sqlite3")
    answers = "\n".join([CREW, "", "mission-3", "", "", "n", "6", "Behemoth"]) + "\n"
    asked = run_cli("log", "--db", db, "add", "--prompt", input=answers)
    assert asked.exit_code == ExitStatus.SUCCESS, asked.output
    survived, threat = asked.stdout.index("Did the ship survive? [Y/n]"), asked.stdout.index("Threat that destroyed the ship")
    assert survived < threat and "not the number 6" in asked.stdout and "Points for threats" not in asked.stdout
    assert "destroyed by Behemoth" in run_cli("log", "--db", db, "list").stdout
    refused = run_cli("log", "--db", db, "add", "--crew", CREW, "--track", "mission-3", "--destroyed-by", "6")
    assert refused.exit_code != ExitStatus.SUCCESS and "destroyed_by" in refused.stderr and "not the number 6" in refused.stderr
    assert "#2" not in run_cli("log", "--db", db, "list").stdout  # nothing stored


def test_a_campaign_starts_and_its_first_mission_is_recorded(tmp_path: Path) -> None:
    db = str(tmp_path / "log.sqlite3")
    started = run_cli("log", "--db", db, "campaign", "start", "--crew", CREW, "--track", "mission-7")
    assert started.exit_code == ExitStatus.SUCCESS, started.output
    added = run_cli("log", "--db", db, "add", "--campaign", "current", "--destroyed", "8", "--damage", "red=2")
    assert added.exit_code == ExitStatus.SUCCESS, added.output
    shown = run_cli("log", "--db", db, "campaign", "show")
    assert shown.exit_code == ExitStatus.SUCCESS and "mission 1: mission-7" in shown.stdout
    following = run_cli("log", "--db", db, "campaign", "next", "--repair", "red=1", "--track", "mission-3")
    assert following.exit_code == ExitStatus.SUCCESS, following.output
    assert "mission 2: mission-3" in run_cli("log", "--db", db, "campaign", "show").stdout


@pytest.mark.parametrize("args", [("stats", "--count", "2", "--seed", "3"), ("log", "stats")])
def test_plot_without_matplotlib_says_how_to_install_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        args: tuple[str, ...]) -> None:
    """The `plot` extra left out (matplotlib hidden): one line naming it, whether or not it is installed here."""
    for name in [name for name in sys.modules if name == "matplotlib" or name.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # (import matplotlib then fails as if it were not installed)
    monkeypatch.setenv("TIMEKEEPER_LOG", str(tmp_path / "log.sqlite3"))
    done = run_cli(*args, "--plot", str(tmp_path / "plot.png"))
    assert done.exit_code == ExitStatus.MISSING_TOOL, done.output
    assert "--plot needs matplotlib; install it with: pip install 'timekeeper[plot]'" in done.stderr
    assert not (tmp_path / "plot.png").exists()


def test_stats_plot_writes_a_png(tmp_path: Path) -> None:
    require("matplotlib")
    png = tmp_path / "stats.png"
    done = run_cli("stats", "--count", "2", "--seed", "3", "--plot", str(png))
    assert done.exit_code == ExitStatus.SUCCESS, done.output
    assert png.read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize(("browser", "said"), [
    (None, "no web browser found"),
    ("lynx", "only a text browser (lynx) found, which would take over this terminal"),
])
def test_serve_open_without_a_browser_says_so(monkeypatch: pytest.MonkeyPatch, browser: str | None, said: str) -> None:
    import webbrowser

    from timekeeper.serve.web import app

    def get(using=None):  # type: ignore[no-untyped-def]
        if browser is None:
            raise webbrowser.Error("could not locate runnable browser")
        return webbrowser.GenericBrowser(browser)

    monkeypatch.setattr(webbrowser, "get", get)
    monkeypatch.setattr(webbrowser.GenericBrowser, "open", lambda self, url, new=0, autoraise=True: pytest.fail("started"))
    monkeypatch.setattr(app, "run", lambda config, ready: ready(43210))
    done = run_cli("serve", "--port", "0", "--open")
    assert done.exit_code == ExitStatus.SUCCESS, done.output
    assert f"Warning: --open: {said}; open http://127.0.0.1:43210/ in a browser yourself." in done.stderr
