"""A real `timekeeper serve` process on loopback for tests and benchmarks, and a bounded HTTP client.

Every request has a timeout; the server is stopped with Ctrl-C (SIGINT) like a user stops it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from processes import running_with
from realparts import program
from tiers import needs_full_tier
from waiting import wait_until

REQUEST_TIMEOUT_S = 30
START_TIMEOUT_S = 20
# How long a page may wait for its first sound: a bound on a hang, not the first-sound target
# (benchmarks/bench_page.py measures that). The sound file's encoder runs at nice +5, so on a
# CI machine with two test workers and their browsers busy it may wait many seconds for a core.
SOUND_START_S = 45.0
_URL = re.compile(r"timekeeper serves at (http://127\.0\.0\.1:(\d+)/)(\?token=(\S+))?")


@dataclass
class Response:
    status: int
    headers: dict
    body: bytes

    def json(self):
        return json.loads(self.body)

    @property
    def text(self) -> str:
        return self.body.decode("utf-8")


@dataclass
class Server:
    process: subprocess.Popen
    url: str
    port: int
    token: str | None
    output: list[str] = field(default_factory=list)

    def request(self, path: str, *, method: str = "GET", data: bytes | None = None, headers: dict | None = None,
                json_body: object = None, token: bool = True) -> Response:
        """One request with a timeout; the page's POST header is added for POST unless given."""
        sent = dict(headers or {})
        if method == "POST":
            sent.setdefault("X-Timekeeper", "1")
        if json_body is not None:
            data = json.dumps(json_body).encode()
            sent.setdefault("Content-Type", "application/json")
        url = self.url.rstrip("/") + path
        if token and self.token:
            url += ("&" if "?" in url else "?") + f"token={self.token}"
        request = urllib.request.Request(url, data=data, headers=sent, method=method)
        try:
            with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT_S) as reply:
                return Response(reply.status, dict(reply.headers), reply.read())
        except urllib.error.HTTPError as error:
            return Response(error.code, dict(error.headers), error.read())

    def stop(self) -> int:
        """Ctrl-C, as a user stops it; the exit status."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stdout is not None and not self.process.stdout.closed:
            self.output.append(self.process.stdout.read() or "")
            self.process.stdout.close()
        return self.process.returncode


# `--lan` (the access code on every request) but listening on 127.0.0.1 only, the link's address
# faked: tests and benchmarks never listen on the network.
LAN_ON_LOOPBACK = (
    "import dataclasses, timekeeper.serve.web.app as app, timekeeper.serve.web.network as network\n"
    "network.lan_addresses = lambda: ['127.0.0.1']\n"
    "_run = app.run\n"
    "app.run = lambda config, ready: _run(dataclasses.replace(config, host='127.0.0.1'), ready)\n"
)


@needs_full_tier("runs `timekeeper serve` in its own process")
def start_server(state: Path, *extra: str, env: dict | None = None, prelude: str = "",
                 python: str = sys.executable, own_group: bool = False) -> Server:
    """`timekeeper serve --port 0 --state STATE EXTRA...` run by `python`, once it listens. `prelude`
    is Python run in the server process first (a test's fake of what the machine would tell it).
    `own_group`: in a process group of its own, as a terminal runs a command (a signal to the group
    is Ctrl-C or a closed terminal: the server and its children get it)."""
    port = [] if "--port" in extra else ["--port", "0"]
    command = [python, "-c", f"{prelude}\nfrom timekeeper.cli import main; raise SystemExit(main())", "serve", *port,
               "--state", str(state), *extra]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env={**os.environ, **(env or {}), "PYTHONUNBUFFERED": "1"},
                               process_group=0 if own_group else None)
    deadline = time.monotonic() + START_TIMEOUT_S
    lines: list[str] = []
    assert process.stdout is not None
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line)
        match = _URL.search(line)
        if match:
            os.set_blocking(process.stdout.fileno(), False)
            return Server(process, match.group(1), int(match.group(2)), match.group(4), lines)
    process.kill()
    raise RuntimeError("timekeeper serve did not start:\n" + "".join(lines) + (process.stdout.read() or ""))


def start_counting(driver) -> None:
    """From now on, count the mission screen's animation frames and its changes to the page (DOM
    mutations under #game); `counted` reads both."""
    driver.execute_script("""window.countedChanges = 0; window.framesBefore = window.timekeeper.frames;
new MutationObserver((records) => { window.countedChanges += records.length; })
  .observe(document.getElementById('game'), {subtree: true, childList: true, characterData: true, attributes: true});""")


def counted(driver) -> tuple[int, int]:
    """The frames drawn and the changes made to the page since `start_counting`."""
    frames, changes = driver.execute_script("return [window.timekeeper.frames - window.framesBefore, window.countedChanges]")
    return frames, changes


def wait_for(driver, script: str, timeout_s: float = 15.0):
    """Poll `script` (a JS expression) in the page until it is truthy; its value."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = driver.execute_script(f"return ({script});")
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {script}")


def clock_ms(driver) -> float:
    """The mission clock the page shows (ms)."""
    return driver.execute_script("return window.timekeeper.clockMs();")


def clocks_apart_ms(a, b) -> float:
    """How far apart the mission clocks of pages `a` and `b` are at one moment (each page reads its
    clock with the device's time, so the moments between the two readings do not count)."""
    first = a.execute_script("return [Date.now(), window.timekeeper.clockMs()]")
    second = b.execute_script("return [Date.now(), window.timekeeper.clockMs()]")
    return abs((second[1] - first[1]) - (second[0] - first[0]))


def clocks_agree(a, b, within_ms: float = 100.0, samples: int = 10, timeout_s: float = 15.0) -> list[float]:
    """Pages `a` and `b` come to show the same mission clock (a position report and the clock-offset
    pings arrive when they do) and then keep it, within `within_ms`, over `samples` readings a
    tenth of a second apart; how far apart each reading was."""
    wait_until(lambda: clocks_apart_ms(a, b) <= within_ms, timeout_s, f"the two pages' clocks to agree within {within_ms:.0f} ms")
    apart = []
    for _ in range(samples):
        apart.append(clocks_apart_ms(a, b))
        time.sleep(0.1)
    assert max(apart) <= within_ms, apart
    return apart


CHROMIUM_FLAGS = (
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--autoplay-policy=no-user-gesture-required", "--hide-scrollbars", "--mute-audio",
    "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
)
PHONE = (360, 640)
LAPTOP = (1280, 800)


@needs_full_tier("drives Chromium")
def chromium(size: tuple[int, int], *, phone: bool = False, flags: tuple[str, ...] = ()):
    """Chromium in headless mode through chromedriver (Debian's, found by tests/realparts.py), at
    `size` CSS pixels (and `flags`)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = program("chromium")
    for flag in (*CHROMIUM_FLAGS, *flags):
        options.add_argument(flag)
    if phone:
        options.add_experimental_option("mobileEmulation", {
            "deviceMetrics": {"width": size[0], "height": size[1], "pixelRatio": 2.0, "touch": True}})
    else:
        options.add_argument(f"--window-size={size[0]},{size[1]}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    scratch = tempfile.mkdtemp(prefix="timekeeper-chromium-")  # its profile and the folders it leaves in TMPDIR
    options.add_argument(f"--user-data-dir={scratch}/profile")
    service = Service(program("chromedriver"), env={**os.environ, "TMPDIR": scratch})
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_page_load_timeout(REQUEST_TIMEOUT_S)
    driver.set_script_timeout(REQUEST_TIMEOUT_S)
    quit_browser = driver.quit

    def quit_and_clean() -> None:
        try:
            quit_browser()
        finally:
            _kill_left_behind(scratch)  # a browser whose chromedriver was killed outlives it
            shutil.rmtree(scratch, ignore_errors=True)

    driver.quit = quit_and_clean  # type: ignore[method-assign]
    return driver


def _kill_left_behind(scratch: str) -> None:
    """Kill the Chromium processes still running with their profile in `scratch` (one folder per browser)."""
    for pid in running_with(scratch.encode()):
        with contextlib.suppress(OSError):  # gone meanwhile
            os.kill(pid, signal.SIGKILL)


# CDP commands that change nothing a later test could see (anything else keeps a browser out of the pool)
HARMLESS_CDP = {"Page.captureScreenshot"}


class BrowserPool:
    """Headless Chromiums kept between the tests of one test process: a launch is 1.4 s of CPU,
    a fresh tab 10 ms. A browser comes back as if new (`_reset`): one blank tab without history,
    no storage, service worker, cookie or cache of any origin it visited, no console lines left.
    A browser a test reshaped (its window, or a CDP override) or quit is not kept."""

    def __init__(self, keep: int = 3) -> None:
        self.keep = keep  # idle browsers kept, the least recently used quit first
        self.idle: list[tuple[tuple, object]] = []

    def take(self, size: tuple[int, int], phone: bool = False):
        key = (tuple(size), phone)
        for index, (idle_key, driver) in enumerate(self.idle):
            if idle_key == key:
                del self.idle[index]
                if _alive(driver):
                    return driver
                _quietly_quit(driver)  # killed while it waited (a test that kills its process's children)
                break
        driver = chromium(size, phone=phone)
        _watch(driver)
        return driver

    def give_back(self, size: tuple[int, int], phone: bool, driver) -> None:
        if driver.tk_changed or not _reset(driver):
            _quietly_quit(driver)
            return
        self.idle.append(((tuple(size), phone), driver))
        while len(self.idle) > self.keep:
            _quietly_quit(self.idle.pop(0)[1])

    def close(self) -> None:
        while self.idle:
            _quietly_quit(self.idle.pop()[1])


def _watch(driver) -> None:
    """Note the origins `driver` visits and whether a test changed the browser beyond a page."""
    driver.tk_changed = False
    driver.tk_origins = set()
    get, cdp, quit_browser = driver.get, driver.execute_cdp_cmd, driver.quit

    def watched_get(url: str) -> None:
        driver.tk_origins.add(_origin(url))
        get(url)

    def watched_cdp(command: str, arguments: dict):  # type: ignore[no-untyped-def]
        driver.tk_changed |= command not in HARMLESS_CDP
        return cdp(command, arguments)

    def watched_quit() -> None:
        driver.tk_changed = True
        quit_browser()

    def reshaped(method):  # type: ignore[no-untyped-def]
        def call(*args, **kwargs):  # type: ignore[no-untyped-def]
            driver.tk_changed = True
            return method(*args, **kwargs)
        return call

    driver.get, driver.execute_cdp_cmd, driver.quit = watched_get, watched_cdp, watched_quit
    for name in ("set_window_size", "set_window_rect", "set_window_position", "maximize_window", "minimize_window",
                 "fullscreen_window", "set_network_conditions"):
        setattr(driver, name, reshaped(getattr(driver, name)))
    driver.tk_quit = quit_browser


def _origin(url: str) -> str:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme in ("http", "https") else ""


def _reset(driver) -> bool:
    """Bring `driver` back to a new browser's state; False if it cannot be (then it is quit)."""
    try:
        for handle in driver.window_handles:
            driver.switch_to.window(handle)
            driver.tk_origins.add(_origin(driver.current_url))
        old = driver.window_handles
        driver.switch_to.new_window("tab")
        fresh = driver.current_window_handle
        for handle in old:
            driver.switch_to.window(handle)
            driver.close()
        driver.switch_to.window(fresh)
        send = driver.execute  # the CDP commands of the pool itself, not a test's
        for origin in sorted(driver.tk_origins - {""}):
            send("executeCdpCommand", {"cmd": "Storage.clearDataForOrigin",
                                       "params": {"origin": origin, "storageTypes": "all"}})
        send("executeCdpCommand", {"cmd": "Network.clearBrowserCache", "params": {}})
        send("executeCdpCommand", {"cmd": "Network.clearBrowserCookies", "params": {}})
        driver.tk_origins = set()
        driver.get_log("browser")  # the console lines of the tests before
        return True
    except Exception:  # a browser that crashed or hung: a new one is launched instead
        return False


def _alive(driver) -> bool:
    """Whether `driver`'s chromedriver and browser still answer."""
    try:
        return driver.service.process.poll() is None and bool(driver.window_handles)
    except Exception:
        return False


def _quietly_quit(driver) -> None:
    try:
        driver.tk_quit()
    except Exception:
        pass
