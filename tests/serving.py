"""A real `timekeeper serve` process on loopback for tests and benchmarks, and a bounded HTTP client.

Every request has a timeout; the server is stopped with Ctrl-C (SIGINT) like a user stops it.
"""

from __future__ import annotations

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

from tiers import needs_full_tier

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
    "import dataclasses, timekeeper.serve.app as app, timekeeper.serve.network as network\n"
    "network.lan_addresses = lambda: ['127.0.0.1']\n"
    "_run = app.run\n"
    "app.run = lambda config, ready: _run(dataclasses.replace(config, host='127.0.0.1'), ready)\n"
)


@needs_full_tier("runs `timekeeper serve` in its own process")
def start_server(state: Path, *extra: str, env: dict | None = None, prelude: str = "",
                 python: str = sys.executable) -> Server:
    """`timekeeper serve --port 0 --state STATE EXTRA...` run by `python`, once it listens. `prelude`
    is Python run in the server process first (a test's fake of what the machine would tell it)."""
    port = [] if "--port" in extra else ["--port", "0"]
    command = [python, "-c", f"{prelude}\nfrom timekeeper.cli import main; raise SystemExit(main())", "serve", *port,
               "--state", str(state), *extra]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env={**os.environ, **(env or {}), "PYTHONUNBUFFERED": "1"})
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


def wait_for(driver, script: str, timeout_s: float = 15.0):
    """Poll `script` (a JS expression) in the page until it is truthy; its value."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = driver.execute_script(f"return ({script});")
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {script}")


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
    """Debian's chromium in headless mode through chromedriver, at `size` CSS pixels (and `flags`)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
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
    service = Service("/usr/bin/chromedriver", env={**os.environ, "TMPDIR": scratch})
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_page_load_timeout(REQUEST_TIMEOUT_S)
    driver.set_script_timeout(REQUEST_TIMEOUT_S)
    quit_browser = driver.quit

    def quit_and_clean() -> None:
        try:
            quit_browser()
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    driver.quit = quit_and_clean  # type: ignore[method-assign]
    return driver
