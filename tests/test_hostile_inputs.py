"""Hostile and careless input, generated over every command and every kind of input, run as a user
runs it: the real `timekeeper` entry point in a subprocess, each with a time limit.

Every case must end quickly with its documented exit code and one clear message (never a
traceback or an "internal error"), leave every input, device and pipe as it was, and leave no
temporary file behind. The cases run in parallel once per session; each is its own test.
"""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from timekeeper.errors import ExitStatus as X

CASE_TIMEOUT_S = 20  # a case that takes this long has hung
CASE_LIMIT_S = 8.0  # "quickly", with room for a machine busy with other work
WORKERS = 4
WRITER_SUFFIXES = {"card": ".pdf", "export": ".txt", "import": ".yaml", "generate": ".yaml", "log-export": ".csv"}  # what each -o writes

VALID = """title: "Hostile test"
phase_ends: ["3:00", "6:00"]
events:
  - {at: "1:00", type: threat, t: 1, zone: red}
  - {at: "4:00", type: data_transfer}
"""


@dataclass
class Case:
    name: str
    args: list[str]
    expect: int
    stdin: str | None = None  # a file to feed as stdin
    env: dict[str, str] = field(default_factory=dict)
    in_stderr: str = ""  # a fragment the message must hold


@dataclass
class Outcome:
    code: int | None
    stdout: str
    stderr: str
    seconds: float


# -- the hostile world ---------------------------------------------------------------------------

def _scenario(events: str = "", **fields: str) -> str:
    head = {"title": '"Hostile test"', "phase_ends": '["3:00", "6:00"]', **fields}
    text = "".join(f"{key}: {value}\n" for key, value in head.items())
    return text + "events:\n" + (events or '  - {at: "1:00", type: data_transfer}\n')


def _alias_bomb() -> str:
    lines = ['a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    lines += [f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}]"
              for i in range(1, 12)]
    return "\n".join(lines) + "\n"


SCENARIO_FILES: dict[str, bytes | str] = {  # name -> content of a scenario file that must be refused
    "empty": "",
    "binary": b"\x7fELF\x00\x01\x02" * 100,
    "not-utf8": b"title: \xff\xfe caf\xe9\n",
    "too-large": "# " + "x" * 1_100_000 + "\n" + VALID,
    "alias-bomb": _alias_bomb(),
    "nested-50000": "a: " + "[" * 50_000 + "]" * 50_000 + "\n",
    "nested-mapping": "".join("  " * i + f"k{i}:\n" for i in range(60)) + "  " * 60 + "v\n",
    "unicode-digit-players": _scenario(players='"³"'),
    "arabic-digit-players": _scenario(players='"٣"'),
    "seed-5000-digits": _scenario(seed="9" * 5000),
    "nul-in-title": _scenario(title='"a\\0b"'),
    "surrogate-in-title": _scenario(title='"a\\ud800b"'),
    "control-in-text": _scenario('  - {at: "1:00", type: announce, text: "hi\\x07there"}\n'),
    "newline-in-title": _scenario(title='"two\\nlines"'),
    "announcement-200k": _scenario('  - {at: "1:00", type: announce, text: "' + "word " * 40_000 + '"}\n'),
    "title-240k": _scenario(title='"' + "T" * 240_000 + '"'),
    "600-events": _scenario("".join(f'  - {{at: "{i // 100}:{i % 60:02d}", type: data_transfer}}\n' for i in range(600))),
    "python-tag": _scenario(title="!!python/object/apply:os.system [echo hacked]"),
    "duplicate-key": _scenario() + "title: again\n",
    "list-root": "- a\n- b\n",
    "scalar-root": "just words\n",
    "time-huge": _scenario('  - {at: "99999:59", type: data_transfer}\n'),
    "time-unicode": _scenario('  - {at: "١:٠٠", type: data_transfer}\n'),
    "time-negative": _scenario('  - {at: "-1:00", type: data_transfer}\n'),
    "turn-unicode": _scenario('  - {at: "1:00", type: threat, t: "²", zone: red}\n'),
    "tab-indent": "title: x\n\tphase_ends: [1]\n",
    "crlf-garbage": "title: x\r\nphase_ends: [\r\n",
    "bom-only": "\ufeff",
    "20000-unknown-fields": _scenario('  - {at: "1:00", type: data_transfer, ' + ", ".join(f"k{i}: {i}" for i in range(20_000)) + "}\n"),
}

SCENARIO_COMMANDS: dict[str, list[str]] = {  # command name -> args after the scenario; {out} is replaced
    "validate": ["validate"],
    "show": ["show"],
    "plan": ["plan"],
    "render": ["render", "-o", "{out}.wav"],
    "live": ["live", "--backend", "null"],
    "card": ["card", "-o", "{out}.pdf"],
    "card-text": ["card", "--format", "text"],
    "export": ["export"],
    "export-yaml": ["export", "--format", "yaml", "-o", "{out}.yaml"],
}


def _args(command: str, scenario: str, out: str) -> list[str]:
    parts = SCENARIO_COMMANDS[command]
    return [parts[0], scenario, *[part.replace("{out}", out) for part in parts[1:]]]


def build_world(root: Path) -> tuple[list[Case], dict[str, Path]]:
    """Create the hostile files under `root` and the cases that use them."""
    files = root / "files"
    out = root / "out"
    files.mkdir()
    out.mkdir()
    for name, content in SCENARIO_FILES.items():
        path = files / f"{name}.yaml"
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8", "surrogatepass"))
    valid = files / "valid.yaml"
    valid.write_text(VALID)
    os.mkfifo(files / "fifo.yaml")
    for suffix in sorted(set(WRITER_SUFFIXES.values())):
        os.mkfifo(out / f"fifo{suffix}")
    (files / "folder.yaml").mkdir()
    (files / "loop.yaml").symlink_to(files / "loop.yaml")
    (files / "dangling.yaml").symlink_to(files / "nowhere.yaml")
    (out / "existing-folder.pdf").mkdir()
    protected = {p.name: p for p in [*files.iterdir(), *out.iterdir()]}
    try:
        for suffix in sorted(set(WRITER_SUFFIXES.values())):
            os.mknod(out / f"null-copy{suffix}", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
            protected[f"null-copy{suffix}"] = out / f"null-copy{suffix}"
    except (PermissionError, AttributeError, OSError):
        pass

    cases: list[Case] = []
    odd_files = {
        **{name: str(files / f"{name}.yaml") for name in SCENARIO_FILES},
        "fifo": str(files / "fifo.yaml"),
        "dev-zero": "/dev/zero",
        "dev-null": "/dev/null",
        "folder": str(files / "folder.yaml"),
        "symlink-loop": str(files / "loop.yaml"),
        "dangling-link": str(files / "dangling.yaml"),
        "missing": str(files / "missing.yaml"),
        "unknown-name": "mision-1",
    }
    # validate and show read every kind; the other commands share their loader, so each kind also
    # goes through two of them in turn (every command meets about ten kinds).
    others = [command for command in SCENARIO_COMMANDS if command not in ("validate", "show")]
    for index, (kind, path) in enumerate(odd_files.items()):
        for command in ["validate", "show", others[index % len(others)], others[(index + 3) % len(others)]]:
            cases.append(Case(f"{command}:{kind}", _args(command, path, str(out / f"{command}-{kind}")),
                              X.INVALID_SCENARIO))

    # -- outputs that must never be replaced -------------------------------------------------
    os.mkfifo(out / "fifo.wav")
    protected["fifo.wav"] = out / "fifo.wav"

    def targets_named(suffix: str) -> dict[str, str]:  # outputs that must never be replaced, named for a writer
        found = {"dev-null": "/dev/null", "dev-full": "/dev/full", "fifo": str(out / f"fifo{suffix}")}
        if f"null-copy{suffix}" in protected:
            found["mknod-copy"] = str(out / f"null-copy{suffix}")
        return found

    writers = {
        "card": ["card", str(valid), "-o"],
        "export": ["export", str(valid), "-o"],
        "import": ["import", "010AL1TW,050ID,340PE1,700PE2", "-o"],
        "generate": ["generate", "--seed", "1", "-o"],
    }
    for writer, args in writers.items():
        for kind, target in targets_named(WRITER_SUFFIXES[writer]).items():
            cases.append(Case(f"{writer}-to:{kind}", [*args, target], X.OUTPUT, in_stderr="refusing"))
        cases.append(Case(f"{writer}-to:missing-folder", [*args, str(out / "no" / "such" / f"x{WRITER_SUFFIXES[writer]}")],
                          X.OUTPUT))
    for writer in ("card", "export"):
        cases.append(Case(f"{writer}-to:folder", [*writers[writer], str(out / "existing-folder.pdf")], X.USAGE))
    render = ["render", str(valid), "-o"]
    cases += [
        Case("render-to:fifo", [*render, str(out / "fifo.wav")], X.OUTPUT, in_stderr="refusing"),
        Case("render-to:dev-null", [*render, "/dev/null"], X.OUTPUT, in_stderr="refusing"),
        Case("render-to:missing-folder", [*render, str(out / "no" / "such" / "x.wav")], X.OUTPUT),
    ]
    if "null-copy.pdf" in protected:
        os.mknod(out / "null-copy.wav", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        protected["null-copy.wav"] = out / "null-copy.wav"
        cases.append(Case("render-to:mknod-copy", [*render, str(out / "null-copy.wav")], X.OUTPUT, in_stderr="refusing"))
    cases += [
        Case("render-to:its-own-input", ["render", str(files / "valid.yaml"), "-o", str(files / "valid.yaml")], X.USAGE),
        Case("card-to:its-own-input", ["card", str(valid), "-o", str(valid)], X.USAGE, in_stderr=".yaml"),
        Case("export-to:its-own-input", ["export", str(valid), "-o", str(valid)], X.OUTPUT, in_stderr="is also the input"),
        Case("export-yaml-to:its-own-input", ["export", str(valid), "--format", "yaml", "-o", str(valid)], X.OUTPUT),
        Case("card-text-to:its-own-input", ["card", str(valid), "--format", "text", "-o", str(valid)], X.USAGE),
        Case("card:png-extension", ["card", str(valid), "-o", str(out / "c.png")], X.USAGE, in_stderr=".png"),
        Case("card:pdf-as-txt", ["card", str(valid), "--format", "pdf", "-o", str(out / "c.txt")], X.USAGE),
        Case("render:unknown-extension", ["render", str(valid), "-o", str(out / "x.pdf")], X.USAGE),
        Case("export:pdf-extension", ["export", str(valid), "-o", str(out / "x.pdf")], X.USAGE, in_stderr=".pdf"),
        Case("export:code-as-yaml", ["export", str(valid), "--format", "flashcode", "-o", str(out / "x.yaml")], X.USAGE,
             in_stderr="name it x.txt"),
        Case("import:pdf-extension", ["import", "010AL1TW,050ID,340PE1,700PE2", "-o", str(out / "i.pdf")], X.USAGE,
             in_stderr=".pdf"),
        Case("voice-export-to:proc", ["voice", "export", "/proc/timekeeper-pack"], X.OUTPUT),
        Case("voice-export-to:device", ["voice", "export", "/dev/full/pack"], X.OUTPUT),
        Case("voice-export-to:file", ["voice", "export", str(valid)], X.USAGE),
        Case("stats-plot-to:device", ["stats", "--count", "5", "--plot", "/dev/full"], X.OUTPUT),
        Case("generate-count-to:device", ["generate", "--count", "2", "-o", "/dev/full/"], X.OUTPUT, in_stderr="not a folder"),
        Case("generate-render-to:device", ["generate", "--seed", "1", "--render", "/dev/full"], X.OUTPUT, in_stderr="refusing"),
        Case("generate-render-to:png", ["generate", "--seed", "1", "--render", str(out / "x.png")], X.USAGE),
    ]

    # -- command-line values -------------------------------------------------------------------
    for value in ("430", "4.30", "-1", "1:75", "abc", "99999:00", "9" * 400, "", "٤:٣٠", "4:3"):
        cases.append(Case(f"live-start-at:{value[:12] or 'empty'}", ["live", str(valid), "--backend", "null",
                                                                     "--start-at", value], X.USAGE))
    for option, value in [("--lang", "xx"), ("--lang", ""), ("--lang", "english"), ("--players", "0"), ("--players", "³"),
                          ("--players", "9" * 5000), ("--voice", "no-such-voice")]:
        expect = X.VOICE if option == "--voice" or value == "xx" else X.USAGE  # a well-formed code, but no words for it
        cases.append(Case(f"plan{option}:{value[:12] or 'empty'}", ["plan", str(valid), option, value], expect))
    for option, value in [("--seed", "9" * 5000), ("--seed", "-1"), ("--seed", "³"), ("--count", "0"),
                          ("--count", "10000000"), ("--threat-level", "-5"), ("--threat-level", "99"),
                          ("--kind", "tutorial"), ("--players", "3")]:
        cases.append(Case(f"generate{option}:{value[:12]}", ["generate", option, value], X.USAGE))
    cases += [
        Case("generate:count-into-a-yaml-file", ["generate", "--count", "3", "-o", str(out / "three.yaml")], X.USAGE),
        Case("card:per-page-3", ["card", str(valid), "--per-page", "3", "--format", "text"], X.USAGE),
        Case("card:nothing", ["card", "-o", str(out / "n.pdf")], X.USAGE),
        Case("plan:lang-DE-is-fine", ["plan", str(valid), "--lang", "DE"], X.SUCCESS),
        Case("show:lang-Es-is-fine", ["show", str(valid), "--lang", "Es"], X.SUCCESS),
        Case("unknown-command", ["rendr", "mission-1"], X.USAGE),
        Case("unknown-option", ["show", "mission-1", "--colour"], X.USAGE),
        Case("show:name-5000-chars", ["show", "x" * 5000], X.INVALID_SCENARIO),
        Case("render:output-name-5000-chars", ["render", str(valid), "-o", "x" * 5000 + ".wav"], X.OUTPUT),
        Case("import:output-name-5000-chars", ["import", "010AL1TW,050ID,340PE1,700PE2", "-o", "x" * 5000], X.OUTPUT),
    ]

    # -- FlashPlayerCode ---------------------------------------------------------------------
    stdin_files = {
        "dev-zero": "/dev/zero",
        "one-mb-line": _write(files / "one-mb.txt", ",".join(["050ID"] * 180_000) + "\n"),
        "many-lines": _write(files / "many.txt", "x\t010AL1TW,050ID,340PE1,700PE2\n" * 6000),
        "binary": _write(files / "binary.txt", "\x00\x01\x02" * 100),
        "empty": _write(files / "empty.txt", ""),
    }
    for kind, source in stdin_files.items():
        cases.append(Case(f"import-stdin:{kind}", ["import", "-", "-o", str(out / f"stdin-{kind}") + "/"],
                          X.INVALID_SCENARIO, stdin=source))
    for kind, source in {"fifo": str(files / "fifo.yaml"), "dev-zero": "/dev/zero", "folder": str(files / "folder.yaml"),
                         "600-events-file": _write(files / "600.txt", ",".join(["050ID"] * 600) + ",340PE1,700PE2\n")}.items():
        cases.append(Case(f"import-file:{kind}", ["import", source, "-o", str(out / f"file-{kind}") + "/"], X.INVALID_SCENARIO))
    codes = {
        "600-events": ",".join(["050ID"] * 600) + ",340PE1,700PE2",
        "garbage": "hello,world",
        "commas-only": ",,,,",
        "unicode-digits": "٠١٠AL1TW,340PE1,700PE2",
        "huge-time": "99999ID,340PE1,700PE2",
    }
    for kind, code in codes.items():
        cases.append(Case(f"import-code:{kind}", ["import", code], X.INVALID_SCENARIO))
    for kind, title in {"control": "a\x07b", "newline": "two\nlines", "huge": "T" * 50_000}.items():
        cases.append(Case(f"import-title:{kind}", ["import", "010AL1TW,050ID,340PE1,700PE2", "--title", title,
                                                   "-o", str(out / f"title-{kind}.yaml")], X.USAGE))

    # -- voice packs and music ---------------------------------------------------------------
    packs = root / "packs"
    for name, manifest in {"bomb": _alias_bomb(), "deep": "a: " + "[" * 50_000 + "]" * 50_000,
                           "list": "- a\n", "tag": "name: !!python/name:os.system\n",
                           "huge": "name: " + "x" * 200_000 + "\n", "outside": "clips:\n  alert: ../../etc/passwd\n",
                           "bad-language": "language: [de, en]\n", "no-language": "language: not a code\n"}.items():
        folder = packs / name
        folder.mkdir(parents=True)
        (folder / "pack.yaml").write_text(manifest)
        # an alias bomb among keys a pack does not use is never expanded: harmless, and quick
        cases.append(Case(f"plan-voice-pack:{name}", ["plan", str(valid), "--voice", str(folder)],
                          X.SUCCESS if name == "bomb" else X.VOICE))
    german = packs / "german"
    german.mkdir()
    (german / "pack.yaml").write_text("language: de\n")
    cases.append(Case("plan-voice-pack:german-with-lang-en", ["plan", str(valid), "--voice", str(german), "--lang", "en"],
                      X.VOICE, in_stderr="use --lang de"))
    cases.append(Case("plan-voice-pack:german-speaks-german", ["plan", str(valid), "--voice", str(german)], X.SUCCESS))
    fifo_pack = packs / "fifo"
    fifo_pack.mkdir()
    os.mkfifo(fifo_pack / "pack.yaml")
    cases.append(Case("render-voice-pack:fifo-manifest", ["plan", str(valid), "--voice", str(fifo_pack)], X.VOICE))
    garbage_pack = packs / "garbage"
    garbage_pack.mkdir()
    (garbage_pack / "threat.wav").write_bytes(b"RIFF nonsense" * 10)
    cases.append(Case("plan-voice-pack:garbage-clip", ["plan", str(valid), "--voice", str(garbage_pack)], X.VOICE))
    cases.append(Case("voices:broken-packs-installed", ["voices"], X.SUCCESS, env={"TIMEKEEPER_VOICES": str(packs)}))
    # -- the ship's log (its database lives in the session's folder: conftest) -------------------
    for kind, source in {"dev-zero": "/dev/zero", "fifo": str(files / "fifo.yaml"), "binary": str(files / "binary.yaml"),
                         "scenario": str(valid)}.items():
        cases.append(Case(f"log-import:{kind}", ["log", "import", source], X.INVALID_LOG_ENTRY))
    cases.append(Case("log-import:folder", ["log", "import", str(files / "folder.yaml")], X.USAGE))
    for kind, target in targets_named(WRITER_SUFFIXES["log-export"]).items():
        cases.append(Case(f"log-export-to:{kind}", ["log", "export", "-o", target], X.OUTPUT, in_stderr="refusing"))
    cases.append(Case("log-print-to:dev-full", ["log", "print", "-o", "/dev/full"], X.OUTPUT, in_stderr="refusing"))
    for value in ("9" * 30, "0", "-5", "³"):
        cases.append(Case(f"log-show:{value[:8]}", ["log", "show", "--", value], X.USAGE))
    cases.append(Case("log-campaign-show:huge", ["log", "campaign", "show", "9" * 30], X.USAGE))
    for kind, database in {"dev-zero": "/dev/zero", "fifo": str(files / "fifo.yaml")}.items():
        cases.append(Case(f"log-database:{kind}", ["log", "list"], X.LOG_DATABASE, env={"TIMEKEEPER_LOG": database}))
    # a folder named as the log file: the variable's value is wrong, said at the front door
    cases.append(Case("log-database:folder", ["log", "list"], X.ENVIRONMENT, env={"TIMEKEEPER_LOG": str(files / "folder.yaml")},
                      in_stderr="TIMEKEEPER_LOG:"))

    one_sample = files / "one-sample.wav"
    _one_sample_wav(one_sample)
    for kind, music in {"fifo": str(files / "fifo.yaml"), "dev-zero": "/dev/zero", "garbage": str(files / "binary.yaml"),
                        "empty": str(files / "empty.yaml")}.items():
        cases.append(Case(f"render-music:{kind}", ["render", str(valid), "--music", music, "-o",
                                                   str(out / f"music-{kind}.wav")], X.RENDER))
    cases.append(Case("render-music:one-sample", ["render", str(valid), "--music", str(one_sample), "-o",
                                                  str(out / "music-one.wav")], X.SUCCESS))
    return cases, protected


def _write(path: Path, text: str) -> str:
    path.write_text(text)
    return str(path)


def _one_sample_wav(path: Path) -> None:
    import wave

    with wave.open(str(path), "wb") as handle:
        handle.setnchannels(1)
        handle.setsampwidth(2)
        handle.setframerate(44100)
        handle.writeframes(b"\x10\x00")


def _fingerprint(path: Path) -> tuple[int, str]:
    info = os.lstat(path)
    digest = ""
    if stat.S_ISREG(info.st_mode):
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return stat.S_IFMT(info.st_mode), digest


def _run(case: Case, cwd: Path) -> Outcome:
    started = time.monotonic()
    stdin = open(case.stdin, "rb") if case.stdin else subprocess.DEVNULL  # noqa: SIM115
    try:
        done = subprocess.run(
            [sys.executable, "-m", "timekeeper", *case.args], stdin=stdin, capture_output=True, cwd=cwd,
            timeout=CASE_TIMEOUT_S, env={**os.environ, **case.env},
        )
        return Outcome(done.returncode, done.stdout.decode("utf-8", "replace")[:5000],
                       done.stderr.decode("utf-8", "replace")[:5000], time.monotonic() - started)
    except subprocess.TimeoutExpired:
        return Outcome(None, "", "", time.monotonic() - started)
    finally:
        if case.stdin:
            stdin.close()  # type: ignore[union-attr]


@pytest.fixture(scope="session")
def hostile_world(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("hostile")
    cases, protected = build_world(root)
    before = {name: _fingerprint(path) for name, path in protected.items()}
    devices = {path: _fingerprint(Path(path)) for path in ("/dev/null", "/dev/full")}
    # the session's clip cache (conftest), warmed once so no case waits for the voice
    subprocess.run([sys.executable, "-m", "timekeeper", "render", str(root / "files" / "valid.yaml"), "-o",
                    str(root / "warm.wav")], capture_output=True, timeout=120, check=True)
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        outcomes = dict(zip((case.name for case in cases), pool.map(lambda case: _run(case, root), cases)))
    return {"cases": {case.name: case for case in cases}, "outcomes": outcomes, "root": root,
            "protected": protected, "before": before, "devices": devices}


def _case_names() -> list[str]:
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        return [case.name for case in build_world(Path(scratch))[0]]


@pytest.mark.parametrize("name", _case_names())
def test_hostile_case(hostile_world, name: str) -> None:  # type: ignore[no-untyped-def]
    case: Case = hostile_world["cases"][name]
    outcome: Outcome = hostile_world["outcomes"][name]
    shown = f"timekeeper {' '.join(arg[:60] for arg in case.args)}\nstdout: {outcome.stdout[-800:]}\nstderr: {outcome.stderr[-800:]}"
    assert outcome.code is not None, f"hung (killed after {CASE_TIMEOUT_S} s): {shown}"
    assert "Traceback" not in outcome.stderr and "internal error" not in outcome.stderr, shown
    assert outcome.code == case.expect, f"exit {outcome.code}, expected {case.expect} ({X(case.expect).name}): {shown}"
    assert outcome.seconds < CASE_LIMIT_S, f"took {outcome.seconds:.1f} s: {shown}"
    if case.expect != X.SUCCESS:
        messages = outcome.stderr if case.args[0] != "validate" else outcome.stdout + outcome.stderr
        assert messages.strip(), f"no message: {shown}"
        if case.args[0] != "validate":
            first = messages.strip().splitlines()[0]
            assert first.startswith(("Error: ", "Usage: ")), shown
    assert case.in_stderr in outcome.stderr, shown


def test_nothing_protected_was_touched_and_no_temporary_file_is_left(hostile_world) -> None:  # type: ignore[no-untyped-def]
    for name, path in hostile_world["protected"].items():
        assert _fingerprint(path) == hostile_world["before"][name], f"{path} was changed or replaced"
    for path, before in hostile_world["devices"].items():
        assert _fingerprint(Path(path)) == before
    leftovers = [p for p in hostile_world["root"].rglob("*") if p.name.endswith((".part", ".tmp")) and p.is_file()]
    assert not leftovers, leftovers
    written = [p for p in (hostile_world["root"] / "out").rglob("*") if p.is_file() and not p.name.startswith("music-one")]
    assert not written, f"refused commands wrote files: {written}"


def test_the_suite_is_large_and_covers_every_command(hostile_world) -> None:  # type: ignore[no-untyped-def]
    commands = {case.args[0] for case in hostile_world["cases"].values()}
    assert len(hostile_world["cases"]) >= 200
    assert {"validate", "show", "plan", "render", "live", "card", "export", "import", "generate", "stats", "voice",
            "voices", "log"} <= commands
