"""`pip install` is the whole set-up: a fresh virtual environment whose PATH holds neither ffmpeg
nor espeak-ng (nor anything else but the environment's own programs) gets the project from this
checkout (pip's cache may serve the wheels), then renders English (the default voice, Piper's
joe) to mp3 and German (espeak-ng from its wheel) to ogg, plans, plays on the null backend and
serves the page. The rendered files are decoded and checked as the render tests check theirs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from decoded import RATE, decode, rms
from serving import start_server

ROOT = Path(__file__).resolve().parent.parent
SHORT = ROOT / "tests" / "data" / "render" / "short.yaml"
SHORT_S = 175.7  # the short track, to the jump and the silence after it
INSTALL_TIMEOUT_S = 900


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """(the environment's bin folder, the environment its programs run in)."""
    venv = tmp_path_factory.mktemp("fresh") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    programs = venv / ("Scripts" if os.name == "nt" else "bin")
    python = programs / "python"
    done = subprocess.run([str(python), "-m", "pip", "install", "-q", str(ROOT)], capture_output=True, text=True,
                          timeout=INSTALL_TIMEOUT_S)
    assert done.returncode == 0, done.stderr[-3000:]
    env = {name: value for name, value in os.environ.items() if name not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(PATH=str(programs), TIMEKEEPER_DEFAULT_VOICE="")  # the real default voice, not the suite's
    assert shutil.which("ffmpeg", path=env["PATH"]) is None and shutil.which("espeak-ng", path=env["PATH"]) is None
    return programs, env


def run(installed: tuple[Path, dict[str, str]], *args: str) -> subprocess.CompletedProcess[str]:
    programs, env = installed
    return subprocess.run([str(programs / "timekeeper"), *args], capture_output=True, text=True, env=env,
                          stdin=subprocess.DEVNULL, timeout=600)


def test_renders_english_with_joe_to_mp3(installed, tmp_path: Path) -> None:
    out = tmp_path / "drill.mp3"
    done = run(installed, "render", str(SHORT), "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert "voice piper:en_US-joe-medium" in done.stdout and "Warning" not in done.stderr, done.stderr
    samples = decode(out)
    assert abs(len(samples) / RATE - SHORT_S) < 1.0
    assert rms(samples, 500, 500) > 0.01  # the begin announcement


def test_renders_german_with_the_wheels_espeak_to_ogg(installed, tmp_path: Path) -> None:
    out = tmp_path / "drill.ogg"
    done = run(installed, "render", str(SHORT), "--lang", "de", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert "voice tts:de" in done.stdout and "Warning" not in done.stderr  # the shipped lengths hold
    samples = decode(out)
    assert abs(len(samples) / RATE - SHORT_S) < 1.0
    assert rms(samples, 500, 500) > 0.01


def test_plans_plays_and_serves(installed, tmp_path: Path) -> None:
    plan = run(installed, "plan", "mission-1", "--lang", "de")
    assert plan.returncode == 0 and "0 overlapping" in plan.stdout, plan.stderr
    live = run(installed, "live", str(SHORT), "--backend", "null", "--start-at", "2:40", "--lang", "de")
    assert live.returncode == 0, live.stderr
    programs, env = installed
    server = start_server(tmp_path / "state", env=env, python=str(programs / "python"))
    try:
        page = server.request("/")
        assert page.status == 200 and b"<html" in page.body.lower()
    finally:
        assert server.stop() == 130 and "Traceback" not in "".join(server.output), server.output  # Ctrl-C, as a user stops it
