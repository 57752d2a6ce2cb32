"""A command stopped by a signal in the middle of its work, with the CPU kept busy beside it, as a
user on a loaded machine stops one: how long it took to exit and what it left behind.

`stop_run(case, signum, folder)` starts `python -m timekeeper ARGS` with its own temporary folder
(TMPDIR), clip cache, data folders and an old output, waits until the case's sign that the work is
under way shows (a speech engine started, a temporary output written, some CPU time spent),
sends the signal and times the exit. It returns a `Stopped` with everything the tests check
(tests/test_stopping.py) and the benchmark measures (benchmarks/bench_stop.py). Every wait is
bounded; `busy_cores` starts the load and always ends it.
"""

from __future__ import annotations

import contextlib
import http.server
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from processes import family, with_environment
from tiers import needs_full_tier

OLD = b"the old output, which a stopped command must keep byte for byte"
READY_TIMEOUT_S = 240  # a bound on the wait for the work to begin (a loaded CI machine), not a target
EXIT_TIMEOUT_S = 60  # a bound on a hung exit, far above any target
DUMP_AFTER_S = 2.0  # a command still running this long after the signal is stuck: where, py-spy says
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


@contextlib.contextmanager
def busy_cores(count: int = 2, limit_s: float = 900) -> Iterator[list[int]]:
    """`count` processes each keeping a core busy for the block (each ends by itself after `limit_s`
    even if this process dies first); their pids."""
    loop = f"import time\nend = time.monotonic() + {limit_s}\nwhile time.monotonic() < end:\n    pass\n"
    busy = [subprocess.Popen([sys.executable, "-c", loop]) for _ in range(count)]
    try:
        yield [process.pid for process in busy]
    finally:
        for process in busy:
            process.kill()
            process.wait()


def cpu_s(pid: int) -> float:
    """The CPU seconds process `pid` has used (0 when it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


# -- the signs that the work is under way (each gets the run's folder and the command's pid) ------

Sign = Callable[[Path, int], bool]


def child_running(text: bytes = b"") -> Sign:
    """A child process runs (a speech engine: an espeak-ng fork, Piper), whose command line holds `text`."""
    def sign(_folder: Path, pid: int) -> bool:
        return any(text in _command_line(child) for child in family(pid)[1:])
    return sign


def file_appears(pattern: str) -> Sign:
    """A file matching `pattern` (a glob below the run's folder, hidden files included) exists."""
    def sign(folder: Path, _pid: int) -> bool:
        return any(folder.glob(pattern))
    return sign


def printed(text: str) -> Sign:
    """The command has printed `text` on its standard output."""
    def sign(folder: Path, _pid: int) -> bool:
        return text in (folder / "stdout.txt").read_text(encoding="utf-8", errors="replace")
    return sign


def cpu_spent(seconds: float) -> Sign:
    """The command has used `seconds` of CPU time (past its start-up: it is at work)."""
    def sign(_folder: Path, pid: int) -> bool:
        return cpu_s(pid) >= seconds
    return sign


def _command_line(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


@dataclass(frozen=True)
class Case:
    """A long command: its arguments ("{out}" is the output's path, "{dir}" the run's folder), the
    output it must keep (None: it writes none), and the sign that it is at work."""

    args: tuple[str, ...]
    ready: Sign
    output: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    prepare: Callable[[Path], None] | None = None  # makes the run's inputs in its folder
    last_words: str | None = None  # how the command's last line begins, if not "Interrupted." or "Terminated."


@dataclass(frozen=True)
class Stopped:
    returncode: int
    exit_s: float  # from the signal to the process's end
    stderr: str
    old_output_kept: bool | None  # None: the case writes no file
    left_in_tmp: list[str]  # what the run's TMPDIR holds afterwards
    left_scratch: list[str]  # temporary files and folders left in the run's folder (outputs, cache, data)
    children_left: list[int]  # processes of the run still alive afterwards
    stuck_in: str = ""  # where the command was, as py-spy saw it, when it had not ended DUMP_AFTER_S after the signal


TEMPORARY_NAMES = (".part", ".tmp", ".raw.wav", ".probe")


@needs_full_tier("runs the CLI in its own process")
def stop_run(case: Case, signum: int, folder: Path) -> Stopped:
    """Run `case` in `folder` (new and empty), stop it with `signum` once it is at work, and report."""
    tmp, cache = folder / "tmp", folder / "cache"
    tmp.mkdir()
    if case.prepare is not None:
        case.prepare(folder)
    output = folder / case.output if case.output else None
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_bytes(OLD)
    env = {**os.environ, "TMPDIR": str(tmp), "TIMEKEEPER_CACHE": str(cache), "TIMEKEEPER_DATA": str(folder / "data"),
           "TIMEKEEPER_PIPER_VOICES": str(folder / "piper"), "TIMEKEEPER_VOICES": str(folder / "packs"), **case.env}
    args = [arg.format(out=output, dir=folder) for arg in case.args]
    with open(folder / "stdout.txt", "w") as stdout, open(folder / "stderr.txt", "w+") as stderr:
        process = subprocess.Popen([sys.executable, "-m", "timekeeper", *args], cwd=folder, env=env,
                                   stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr)
        try:
            deadline = time.monotonic() + READY_TIMEOUT_S
            while not case.ready(folder, process.pid):
                assert process.poll() is None, f"{args} ended before the signal: {(folder / 'stderr.txt').read_text()}"
                assert time.monotonic() < deadline, f"{args} showed no sign of work in {READY_TIMEOUT_S} s"
                time.sleep(0.01)
            started = family(process.pid)
            sent = time.monotonic()
            process.send_signal(signum)
            stuck_in = ""
            try:
                process.wait(timeout=DUMP_AFTER_S)
            except subprocess.TimeoutExpired:
                stuck_in = where_stuck(process.pid)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=EXIT_TIMEOUT_S)
            exit_s = time.monotonic() - sent
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
        stderr.seek(0)
        said = stderr.read()
    marker = f"TMPDIR={tmp}".encode() + b"\0"  # in every process of the run, whatever it was started with
    left = sorted({pid for pid in started[1:] if _alive(pid)} | set(with_environment(marker)))
    return Stopped(
        returncode=process.returncode, exit_s=exit_s, stderr=said, stuck_in=stuck_in,
        old_output_kept=None if output is None else output.read_bytes() == OLD,
        left_in_tmp=sorted(str(path.relative_to(tmp)) for path in tmp.rglob("*")),
        left_scratch=sorted(str(path.relative_to(folder)) for path in folder.rglob("*") if _temporary(path, tmp)),
        children_left=left,
    )


def where_stuck(pid: int) -> str:
    """The Python stacks of process `pid` (py-spy dump, with the native frames when STOPS_NATIVE is
    set), or "" where py-spy is not installed."""
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(spy).exists():
        return ""
    native = ["--native"] if os.environ.get("STOPS_NATIVE") else []
    try:
        return subprocess.run([spy, "dump", *native, "--pid", str(pid)], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""


def _alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie, which waits only to be reaped, does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _temporary(path: Path, tmp: Path) -> bool:
    """Whether `path` looks like a temporary file or folder (a .part, a scratch folder) outside `tmp`."""
    if path.is_relative_to(tmp):
        return False
    name = path.name
    hidden_part = name.startswith(".") and name.endswith(TEMPORARY_NAMES)
    return hidden_part or name.endswith(TEMPORARY_NAMES) or (path.is_dir() and name.startswith("tmp"))


# -- the long commands -----------------------------------------------------------------------------

JOE = "piper:en_US-joe-medium"  # (the tests' default voice is the synthesized one: conftest.py)
ANNOUNCEMENTS = 40  # custom announcements no voice has cached: a cold synthesis for Piper and espeak-ng
MISSIONS = 2_000  # the inputs of the commands that read many files
LOG_ROWS = 3_000  # the log `log print` prints
IMPORTED_ROWS = 12_000  # the CSV `log import` reads


def _custom_track(folder: Path) -> None:
    lines = ["title: Words no voice has cached", "phase_ends: ['3:00', '6:00', '9:00']", "events:"]
    for number in range(ANNOUNCEMENTS):
        minute, second = divmod(number * 13 + 5, 60)
        lines.append(f"  - {{at: '{minute}:{second:02d}', type: announce, "
                     f"text: 'Announcement {number} for {folder.name}: check the reactor and the shields.'}}")
    (folder / "custom.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")


def make_inputs(folder: Path) -> Path:
    """Many missions, their FlashPlayerCodes and a ship's log with many missions, made in `folder`."""
    from timekeeper import cli
    from timekeeper.environment import Environment
    from timekeeper.errors import ExitStatus
    from timekeeper.generate.batch import batch, write_batch
    from timekeeper.scenario.flashcode import format_flashcode

    missions = batch(7, count=MISSIONS)
    write_batch(missions, f"{folder / 'missions'}/", len(missions))
    (folder / "codes.txt").write_text("\n".join(format_flashcode(mission) for mission in missions) + "\n")
    header = ("id,date,crew,track,track_file,seed,common,serious,survived,destroyed,damage_red,damage_white,damage_blue,"
              "knocked_out,disabled_squads,visual_confirmation,destroyed_by,notes,score,campaign,campaign_mission,"
              "campaign_status,repair_red,repair_white,repair_blue,repair_squads")
    rows = [f'{n},2026-11-27,"Ann:captain, Bob:communications, Cid, Dee:security",mission-3,,,1,1+2,4,10,2,0,1,1,0,3,,'
            f"game {n},10,,,,,,," for n in range(1, IMPORTED_ROWS + 1)]
    (folder / "log.csv").write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    (folder / "some.csv").write_text("\n".join([header, *rows[:LOG_ROWS]]) + "\n", encoding="utf-8")
    environment = Environment.from_mapping({**os.environ, "TIMEKEEPER_DATA": str(folder / "data")})
    assert cli.main(["log", "import", str(folder / "some.csv")], environment) == ExitStatus.SUCCESS
    return folder


def _with(inputs_folder: Path, *names: str):  # type: ignore[no-untyped-def]
    """A `prepare` that copies the named inputs (files or folders) into the run's folder."""
    def prepare(folder: Path) -> None:
        for name in names:
            source = inputs_folder / name
            (shutil.copytree if source.is_dir() else shutil.copy2)(source, folder / name)
    return prepare


class _SlowRepository(http.server.BaseHTTPRequestHandler):
    """A Piper voice repository on loopback that sends a model slowly (64 kB every 20 ms, 30 s at most)."""

    def do_GET(self) -> None:
        if self.path.endswith(".onnx.json"):
            body = b'{"audio": {"sample_rate": 22050}, "espeak": {"voice": "en-gb"}, "language": {"code": "en_GB"}}'
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            with contextlib.suppress(OSError):  # (the client went away: it was stopped)
                self.wfile.write(body)
            return
        if not self.path.endswith(".onnx"):
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Length", str(64_000 * 1_500))
        self.end_headers()
        end = time.monotonic() + 30
        try:
            while time.monotonic() < end:
                self.wfile.write(bytes(64_000))
                time.sleep(0.02)
        except OSError:  # the client went away
            pass

    def log_message(self, *args: object) -> None:
        pass


@contextlib.contextmanager
def slow_repository() -> Iterator[str]:
    """A Piper voice repository on loopback that sends its models slowly, for the block; its URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _SlowRepository)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def cases(inputs_folder: Path, repository: str) -> dict[str, Case]:
    """Every long command, with the sign that it is at work."""
    missions = sorted(str(path) for path in (inputs_folder / "missions").glob("*.yaml"))
    return {
        "render, cold espeak-ng": Case(("render", "custom.yaml", "--voice", "en-us", "-o", "{out}"), child_running(),
                                       "out.mp3", prepare=_custom_track),
        "render, cold Piper": Case(("render", "custom.yaml", "--voice", JOE, "-o", "{out}"), child_running(b"piper"),
                                   "out.mp3", prepare=_custom_track),
        "render, encoding": Case(("render", "mission-1", "-o", "{out}"), file_appears(".out.mp3.*.part"), "out.mp3"),
        "plan, cold espeak-ng": Case(("plan", "custom.yaml", "--voice", "en-us"), child_running(), prepare=_custom_track),
        "live, cold Piper": Case(("live", "custom.yaml", "--voice", JOE, "--backend", "null"), child_running(b"piper"),
                                 prepare=_custom_track),
        "live, playing": Case(("live", "mission-1", "--backend", "null"), printed("0:0"), last_words="Stopped at 0:"),
        "generate --count 100000": Case(("generate", "--count", "100000", "-o", "{dir}/new/"), cpu_spent(1.5)),
        "stats --count 1000000": Case(("stats", "--count", "1000000"), cpu_spent(1.5)),
        "validate, many files": Case(("validate", *missions), cpu_spent(1.0)),
        "card, many scenarios": Case(("card", *missions[:400], "-o", "{out}"), cpu_spent(1.5), "cards.pdf"),
        "import, many codes": Case(("import", "codes.txt", "-o", "{dir}/imported/"), file_appears("imported/*.yaml"),
                                   prepare=_with(inputs_folder, "codes.txt")),
        "log print": Case(("log", "print", "-o", "{out}"), cpu_spent(1.5), "log.pdf", prepare=_with(inputs_folder, "data")),
        "log import": Case(("log", "import", "log.csv"), cpu_spent(1.2), prepare=_with(inputs_folder, "log.csv")),
        "voice export, cold": Case(("voice", "export", "--voice", "en-gb", "{dir}/pack"), child_running()),
        "voice install": Case(("voice", "install", "en_GB-slow-medium", "--from", repository),
                              file_appears("piper/.en_GB-slow-medium.onnx.*.part")),
    }
