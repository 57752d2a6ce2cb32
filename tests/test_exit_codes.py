"""One test per row of the README's exit-code table: each code has one meaning, and a real case
that gives it, run as a user runs it."""

from __future__ import annotations

import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from realparts import not_here
from running import timekeeper as run

from timekeeper.errors import ExitStatus

README = Path(__file__).parent.parent / "README.md"
VALID = "title: Exit codes\nphase_ends: ['3:00', '6:00']\nevents:\n  - {at: '1:00', type: data_transfer}\n"


def one_error_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), done.stderr
    return lines[0]


@pytest.fixture
def valid(tmp_path: Path) -> Path:
    path = tmp_path / "valid.yaml"
    path.write_text(VALID)
    return path


def test_the_readme_table_lists_every_code_once() -> None:
    table = README.read_text(encoding="utf-8").split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    codes = [int(line.split("|")[1]) for line in table.splitlines() if line.startswith("| ") and line.split("|")[1].strip().isdigit()]
    assert sorted(codes) == sorted(status.value for status in ExitStatus)
    assert len(codes) == len(set(codes))


def test_0_success(valid: Path) -> None:
    assert run("validate", str(valid)).returncode == ExitStatus.SUCCESS


def test_1_unexpected_error_is_one_line(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from timekeeper import cli
    from timekeeper.commands import catalog

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(catalog, "builtin_listing", broken, raising=False)
    monkeypatch.setattr("timekeeper.scenario.catalog.builtin_listing", broken)
    assert cli.main(["list"]) == ExitStatus.ERROR
    assert capsys.readouterr().err.strip() == "Error: internal error: RuntimeError: a bug (run with --debug for details)"


def test_2_bad_command_line(valid: Path) -> None:
    done = run("live", str(valid), "--start-at", "430")
    assert done.returncode == ExitStatus.USAGE
    assert "ambiguous" in done.stderr and "4:30" in done.stderr and "430s" in done.stderr


def test_3_invalid_scenario(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("title: x\nplayers: '³'\nphase_ends: ['3:00', '6:00']\nevents: []\n")
    done = run("show", str(bad))
    assert done.returncode == ExitStatus.INVALID_SCENARIO
    assert "players: expected a whole number" in one_error_line(done)


def test_4_voice(valid: Path) -> None:
    done = run("plan", str(valid), "--voice", "no-such-voice")
    assert done.returncode == ExitStatus.VOICE
    assert "unknown TTS voice 'no-such-voice'" in one_error_line(done)


def test_5_rendering_failed(valid: Path, tmp_path: Path) -> None:
    music = tmp_path / "music.ogg"
    music.write_bytes(b"OggS but not really" * 50)
    done = run("render", str(valid), "--music", str(music), "-o", str(tmp_path / "out.wav"))
    assert done.returncode == ExitStatus.RENDER
    assert "not a readable music file" in one_error_line(done)
    assert not (tmp_path / "out.wav").exists()


def test_6_playback_failed(valid: Path) -> None:
    done = run("live", str(valid), "--backend", "miniaudio")
    if done.returncode == 0:
        not_here("this machine has a sound device")
    assert done.returncode == ExitStatus.PLAYBACK
    assert "--backend text" in one_error_line(done)


def test_7_missing_tool(tmp_path: Path) -> None:
    """A library an option needs is missing (matplotlib for --plot, hidden from this run)."""
    hide = "import sys; sys.modules['matplotlib'] = None; from timekeeper.cli import main; sys.argv[0] = 'timekeeper'; raise SystemExit(main())"
    done = subprocess.run([sys.executable, "-c", hide, "stats", "--count", "20", "--plot", str(tmp_path / "p.png")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == ExitStatus.MISSING_TOOL
    assert "--plot needs matplotlib" in one_error_line(done)


@pytest.mark.parametrize("args", [
    ("export", "{valid}", "-o", "/dev/full"),
    ("export", "{valid}", "--format", "yaml", "-o", "{valid}"),
    ("card", "{valid}", "-o", "{tmp}/no/such/folder/c.pdf"),
    ("import", "010AL1TW,050ID,340PE1,700PE2", "-o", "/dev/null"),
    ("render", "{valid}", "-o", "{tmp}/no/such/folder/x.wav"),
    ("generate", "--seed", "1", "-o", "/dev/full"),
    ("voice", "export", "/proc/no-pack-here"),
])
def test_10_cannot_write_the_output_is_one_code_for_every_command(args: tuple[str, ...], valid: Path, tmp_path: Path) -> None:
    before = valid.read_bytes()
    done = run(*(arg.format(valid=valid, tmp=tmp_path) for arg in args))
    assert done.returncode == ExitStatus.OUTPUT, done.stderr
    one_error_line(done)
    assert valid.read_bytes() == before
    assert Path("/dev/full").is_char_device() and Path("/dev/null").is_char_device()


def _stop_a_render(valid: Path, tmp_path: Path, signum: int) -> subprocess.CompletedProcess[str]:
    out = tmp_path / "stopped.mp3"
    out.write_bytes(b"the old file")
    process = subprocess.Popen([sys.executable, "-m", "timekeeper", "render", "mission-8", "-o", str(out)],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not [p for p in tmp_path.iterdir() if p.name.endswith(".part")] and time.monotonic() < deadline:
        time.sleep(0.05)  # wait until the encoder is writing its temporary file
    process.send_signal(signum)
    stdout, stderr = process.communicate(timeout=30)
    assert out.read_bytes() == b"the old file"
    left = [p.name for p in tmp_path.iterdir() if p.name != "valid.yaml"]
    assert left == ["stopped.mp3"], (left, process.returncode, stderr)  # no .part left
    assert "Traceback" not in stderr
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def test_130_interrupted(valid: Path, tmp_path: Path) -> None:
    done = _stop_a_render(valid, tmp_path, signal.SIGINT)
    assert done.returncode == ExitStatus.INTERRUPTED
    assert done.stderr.strip().endswith("Interrupted.")


def test_141_the_reader_of_the_output_went_away() -> None:
    track = str(Path(__file__).parent / "data" / "live" / "three-phases.yaml")
    process = subprocess.Popen([sys.executable, "-m", "timekeeper", "live", track, "--backend", "null", "--start-at", "2:54"],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout.readline()  # type: ignore[union-attr]  # as `| head -1` does
    process.stdout.close()  # type: ignore[union-attr]
    assert process.wait(timeout=30) == ExitStatus.PIPE_CLOSED
    assert process.stderr.read() == b""  # type: ignore[union-attr]  # quietly


def test_10_printing_to_a_full_disk() -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "timekeeper", "show", "mission-1"], stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=60)
    assert done.returncode == ExitStatus.OUTPUT
    assert done.stderr.strip() == "Error: <stdout>: cannot write: No space left on device"


@pytest.mark.parametrize(("signum", "status", "said"), [(signal.SIGTERM, ExitStatus.TERMINATED, "Terminated."),
                                                        (signal.SIGHUP, ExitStatus.HUNG_UP, "Hung up.")])
def test_143_terminated_and_129_hung_up_leave_no_part_file(valid: Path, tmp_path: Path, signum: int, status: int,
                                                           said: str) -> None:
    done = _stop_a_render(valid, tmp_path, signum)
    assert done.returncode == status == 128 + signum  # as a shell reports a process the signal ended
    assert done.stderr.strip().endswith(said)


def test_10_a_full_disk_while_encoding(valid: Path, tmp_path: Path) -> None:
    def small_disk() -> None:  # writes fail past 4 MB (clips fit, the track does not), as on a full disk
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4_000_000, 4_000_000))

    out = tmp_path / "full.wav"
    done = subprocess.run([sys.executable, "-m", "timekeeper", "render", str(valid), "-o", str(out)], capture_output=True,
                          text=True, preexec_fn=small_disk, timeout=300)
    assert done.returncode == ExitStatus.OUTPUT, done.stderr
    assert one_error_line(done) == f"Error: {out}: cannot write: File too large"
    assert not out.exists() and not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


def test_11_an_environment_variable_with_a_value_that_cannot_be_used(valid: Path) -> None:
    out = valid.parent / "out.wav"
    done = run("render", str(valid), "--voice", "en-us", "-o", str(out), env={"TIMEKEEPER_TTS_ENGINE": "bogus"})
    assert done.returncode == ExitStatus.ENVIRONMENT
    assert one_error_line(done).startswith("Error: TIMEKEEPER_TTS_ENGINE: unknown speech engine 'bogus' (expected espeak-ng or pyttsx3")
    assert not out.exists()
