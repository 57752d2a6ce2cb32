"""The Chromiums the page tests share (serving.BrowserPool): a browser given back comes again as
new, with nothing of the test before it; one a test reshaped is not given again."""

from __future__ import annotations

import http.server
import os
import signal
import threading

import pytest
from processes import children, command_line, running_with
from realparts import needs
from serving import PHONE, BrowserPool

pytestmark = needs("chromium", "chromedriver")

PAGE = b"""<!doctype html><title>pool</title><p>page</p>
<script>navigator.serviceWorker && navigator.serviceWorker.register('/sw.js');</script>"""
PLAIN = b"<!doctype html><title>plain</title><p>a page of the worker's scope that registers nothing"


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
        body, kind = {"/sw.js": (b"self.addEventListener('fetch', () => {});", "text/javascript"),
                      "/plain": (PLAIN, "text/html")}.get(self.path, (PAGE, "text/html"))
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Cache-Control", "max-age=3600")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:  # type: ignore[no-untyped-def]
        pass


@pytest.fixture
def origin():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


STATE = """navigator.serviceWorker.getRegistrations().then((workers) => ({
  stored: localStorage.length + sessionStorage.length, cookies: document.cookie, history: history.length,
  workers: workers.length}))"""


def _state(driver, url: str) -> dict:
    driver.get(url)
    return driver.execute_async_script("const done = arguments[0];" + STATE + ".then(done);")


def test_a_browser_given_back_comes_again_as_new(origin):
    pool = BrowserPool()
    try:
        new = pool.take(PHONE, True)
        as_new = _state(new, origin + "plain")  # what a browser never used has, for comparison
        assert as_new["stored"] == 0 and as_new["cookies"] == "" and as_new["workers"] == 0, as_new
        first_session = new.session_id
        new.get(origin)
        new.execute_script("localStorage.setItem('tk-language', 'de'); sessionStorage.setItem('x', '1');"
                           " document.cookie = 'crew=abc; max-age=3600'; console.log('from the test before');")
        new.get(origin + "?second")
        new.execute_script("window.open(arguments[0])", origin + "?a-second-tab")
        new.execute_async_script("const done = arguments[0]; navigator.serviceWorker.ready.then(() => done())")
        used = _state(new, origin + "plain")
        assert used["history"] > as_new["history"] and used == {**used, "stored": 2, "cookies": "crew=abc", "workers": 1}
        pool.give_back(PHONE, True, new)

        again = pool.take(PHONE, True)
        assert again.session_id == first_session  # the same browser, not a new launch
        assert len(again.window_handles) == 1
        assert again.get_log("browser") == []
        assert _state(again, origin + "plain") == as_new
        # the phone's emulation holds in the fresh tab
        assert again.execute_script("return [innerWidth, devicePixelRatio, navigator.maxTouchPoints > 0]") == [980, 2, True]
        pool.give_back(PHONE, True, again)
    finally:
        pool.close()


def test_a_browser_a_test_reshaped_is_not_given_again(origin):
    pool = BrowserPool()
    try:
        driver = pool.take(PHONE, True)
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]})
        pool.give_back(PHONE, True, driver)
        assert pool.idle == []
        other = pool.take(PHONE, True)
        assert other.session_id != driver.session_id
        other.get(origin)
        assert other.execute_script("return matchMedia('(prefers-reduced-motion: reduce)').matches") is False
        other.quit()  # a test that quits its browser
        pool.give_back(PHONE, True, other)
        assert pool.idle == []
    finally:
        pool.close()


def test_a_browser_killed_while_it_waited_is_replaced(origin):
    """A test may kill its process's children (test_serve_childrender.py kills a render child): a
    pooled browser that died meanwhile is not given again."""
    pool = BrowserPool()
    try:
        driver = pool.take(PHONE, True)
        pool.give_back(PHONE, True, driver)
        (browser,) = children(driver.service.process.pid)
        profile = next(arg for arg in command_line(browser).split(b"\0") if arg.startswith(b"--user-data-dir="))
        os.kill(driver.service.process.pid, signal.SIGKILL)  # chromedriver: the session is gone
        driver.service.process.wait(10)
        fresh = pool.take(PHONE, True)
        assert fresh.session_id != driver.session_id
        fresh.get(origin + "plain")
        assert fresh.title == "plain"
        pool.give_back(PHONE, True, fresh)
    finally:
        pool.close()
    left = running_with(profile)
    assert not left, f"the killed chromedriver's browser is still running: {left}"  # (it would run on after the tests)
