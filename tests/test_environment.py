"""The environment object (timekeeper/environment.py): every documented variable read in one
module, built once from a mapping, installed by the front doors, with the streams a command uses."""

from __future__ import annotations

import ast
import io
import threading
from pathlib import Path

import pytest

from timekeeper import environment
from timekeeper.environment import Environment, Streams, current, process_wide, using
from timekeeper.errors import ExitStatus

PACKAGE = Path(__file__).resolve().parent.parent / "timekeeper"
HOME = {"HOME": "/home/crew"}


def test_defaults_follow_home():
    env = Environment.from_mapping(HOME)
    assert env.cache == Path("/home/crew/.cache/timekeeper")
    assert env.data == Path("/home/crew/.local/share/timekeeper")
    assert env.log is None
    assert env.state == Path("/home/crew/.local/state/timekeeper/serve")
    assert env.voice_packs == Path("/home/crew/.local/share/timekeeper/voices")
    assert env.piper_voices == Path("/home/crew/.local/share/timekeeper/piper")
    assert (env.tts_engine, env.default_voice, env.piper_url) == (None, None, None)


def test_xdg_folders_move_the_defaults():
    env = Environment.from_mapping({**HOME, "XDG_CACHE_HOME": "/c", "XDG_DATA_HOME": "/d", "XDG_STATE_HOME": "/s"})
    assert env.cache == Path("/c/timekeeper")
    assert env.data == Path("/d/timekeeper")
    assert env.state == Path("/s/timekeeper/serve")
    assert env.voice_packs == Path("/d/timekeeper/voices")
    assert env.piper_voices == Path("/d/timekeeper/piper")


def test_timekeeper_variables_win_over_xdg():
    env = Environment.from_mapping({
        **HOME, "XDG_CACHE_HOME": "/c", "XDG_DATA_HOME": "/d", "XDG_STATE_HOME": "/s",
        "TIMEKEEPER_CACHE": "/tk/cache", "TIMEKEEPER_DATA": "/tk/data", "TIMEKEEPER_LOG": "/tk/log.db",
        "TIMEKEEPER_STATE": "/tk/state", "TIMEKEEPER_VOICES": "/tk/packs", "TIMEKEEPER_PIPER_VOICES": "/tk/piper",
        "TIMEKEEPER_TTS_ENGINE": "pyttsx3", "TIMEKEEPER_DEFAULT_VOICE": "synthesized",
        "TIMEKEEPER_PIPER_URL": "http://mirror.invalid/voices",
    })
    assert (env.cache, env.data, env.log, env.state) == (Path("/tk/cache"), Path("/tk/data"), Path("/tk/log.db"),
                                                         Path("/tk/state"))
    assert (env.voice_packs, env.piper_voices) == (Path("/tk/packs"), Path("/tk/piper"))
    assert (env.tts_engine, env.default_voice, env.piper_url) == ("pyttsx3", "synthesized", "http://mirror.invalid/voices")


def test_an_empty_variable_counts_as_unset():
    env = Environment.from_mapping({**HOME, "TIMEKEEPER_CACHE": "", "XDG_CACHE_HOME": "", "TIMEKEEPER_DEFAULT_VOICE": ""})
    assert env.cache == Path("/home/crew/.cache/timekeeper")
    assert env.default_voice is None


def test_library_functions_take_their_folders_from_the_installed_environment(tmp_path):
    from timekeeper.audio.clipcache import cache_dir
    from timekeeper.logbook.database import default_log_path
    from timekeeper.serve.server import default_state_dir
    from timekeeper.voice.neural import piper_dir
    from timekeeper.voice.select import default_voice, packs_dir

    installed = Environment.from_mapping({"HOME": str(tmp_path), "TIMEKEEPER_DEFAULT_VOICE": "en-gb"})
    with using(installed):
        assert cache_dir() == tmp_path / ".cache" / "timekeeper"
        assert default_log_path() == tmp_path / ".local" / "share" / "timekeeper" / "shiplog.sqlite3"
        assert default_state_dir() == tmp_path / ".local" / "state" / "timekeeper" / "serve"
        assert packs_dir() == tmp_path / ".local" / "share" / "timekeeper" / "voices"
        assert piper_dir() == tmp_path / ".local" / "share" / "timekeeper" / "piper"
        assert default_voice("en") == "en-gb"
    assert cache_dir() != tmp_path / ".cache" / "timekeeper"  # the block ended: the process's variables again


def test_without_an_installed_environment_the_variables_are_read_as_they_are_now(monkeypatch, tmp_path):
    monkeypatch.setenv("TIMEKEEPER_VOICES", str(tmp_path / "one"))
    assert current().voice_packs == tmp_path / "one"
    monkeypatch.setenv("TIMEKEEPER_VOICES", str(tmp_path / "two"))
    assert current().voice_packs == tmp_path / "two"
    assert current() is current()  # built once for the same variables


def test_a_context_wins_over_the_process_wide_environment_which_threads_see(tmp_path):
    wide = Environment.from_mapping({"HOME": str(tmp_path / "wide")})
    scoped = Environment.from_mapping({"HOME": str(tmp_path / "scoped")})
    seen: list[Environment] = []
    with process_wide(wide):
        with using(scoped):
            assert current() is scoped
            worker = threading.Thread(target=lambda: seen.append(current()))  # a new thread: an empty context
            worker.start()
            worker.join()
        assert current() is wide
    assert seen == [wide]
    assert current() not in (wide, scoped)


def test_the_command_line_reads_the_environment_once_per_command(monkeypatch, tmp_path):
    from click.testing import CliRunner

    from timekeeper.cli import cli

    monkeypatch.setenv("TIMEKEEPER_VOICES", str(tmp_path / "packs"))
    installed = Environment.from_mapping({"HOME": str(tmp_path), "TIMEKEEPER_VOICES": str(tmp_path / "installed")})
    result = CliRunner().invoke(cli, ["voices"])
    assert f"Voice packs in {tmp_path / 'packs'}" in result.output
    with using(installed):  # what main(argv, env) does: the command keeps it
        result = CliRunner().invoke(cli, ["voices"])
    assert f"Voice packs in {tmp_path / 'installed'}" in result.output


def _environment_reads(tree: ast.AST) -> list[int]:
    """Lines of `tree` that read the process environment: os.environ, os.environb, os.getenv(b),
    os.putenv, os.unsetenv, or those names imported from os. An os.environ inside the `env=`
    argument of a call (the environment handed to a child program) is no read of a setting."""
    handed_to_child = {
        id(inner)
        for node in ast.walk(tree) if isinstance(node, ast.Call)
        for keyword in node.keywords if keyword.arg == "env"
        for inner in ast.walk(keyword.value)
    }
    names = {"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"}
    lines = []
    for node in ast.walk(tree):
        if id(node) in handed_to_child:
            continue
        if isinstance(node, ast.Attribute) and node.attr in names and ast.unparse(node.value) == "os":
            lines.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.module == "os" and names & {a.name for a in node.names}:
            lines.append(node.lineno)
    return lines


def test_only_the_environment_module_reads_environment_variables():
    readers = [
        f"{path.relative_to(PACKAGE.parent)}:{line}"
        for path in sorted(PACKAGE.rglob("*.py")) if path != Path(environment.__file__).resolve()
        for line in _environment_reads(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert readers == []


@pytest.mark.parametrize("source, reads", [
    ("import os\nos.environ.get('X')", [2]),
    ("import os\nos.getenv('X')", [2]),
    ("from os import environ", [1]),
    ("import os, subprocess\nsubprocess.main(['x'], env={**os.environ, 'LANG': 'C'})", []),
    ("import os\nos.path.join('a')", []),
])
def test_the_scan_finds_reads_and_leaves_child_environments(source, reads):
    assert _environment_reads(ast.parse(source)) == reads


def _streams_env(tmp_path: Path, stdin: str = "") -> tuple[Environment, io.StringIO, io.StringIO]:
    out, err = io.StringIO(), io.StringIO()
    streams = Streams(given_stdin=io.StringIO(stdin), given_stdout=out, given_stderr=err)
    return Environment.from_mapping({"HOME": str(tmp_path)}, streams), out, err


def test_a_command_run_with_streams_reads_and_writes_only_them(tmp_path, capsys):
    from timekeeper.cli import main

    env, out, err = _streams_env(tmp_path, "drill\t010AL1TW,050ID,120AL2TR,340PE1,660PE2\n")
    assert main(["import", "-", "-o", str(tmp_path / "codes")], env) == 0
    assert (tmp_path / "codes" / "drill.yaml").is_file()
    env, out, err = _streams_env(tmp_path)
    assert main(["list"], env) == 0 and "mission-1" in out.getvalue() and err.getvalue() == ""
    env, out, err = _streams_env(tmp_path)
    assert main(["show", "no-such-mission"], env) == ExitStatus.INVALID_SCENARIO
    assert out.getvalue() == "" and err.getvalue().count("\n") == 1 and "no-such-mission" in err.getvalue()
    shown = capsys.readouterr()
    assert shown.out == "" and shown.err == ""  # nothing reached the process's own streams


def test_the_live_screen_and_keys_use_the_installed_streams(tmp_path):
    from timekeeper.live.display import LineDisplay
    from timekeeper.live.keys import Keys

    env, out, err = _streams_env(tmp_path, "p")
    with using(env):
        display, keys = LineDisplay(), Keys()
    assert display.out is out and display.err is err and keys._stream is env.streams.stdin


def test_streams_left_unset_are_the_process_own_when_used(monkeypatch):
    streams = Environment.from_mapping(HOME).streams
    replaced = io.StringIO()
    monkeypatch.setattr("sys.stdout", replaced)
    assert streams.stdout is replaced and not streams.any_given


def _standard_stream_uses(tree: ast.AST) -> list[int]:
    """Lines of `tree` that name sys.stdin, sys.stdout or sys.stderr."""
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and node.attr in {"stdin", "stdout", "stderr"}
            and ast.unparse(node.value) == "sys"]


def test_only_the_front_door_and_the_environment_name_the_process_streams():
    allowed = {Path(environment.__file__).resolve(), PACKAGE / "cli.py",
               PACKAGE / "files" / "quiet.py"}  # quiet.py silences the file descriptors 1 and 2 themselves
    users = [
        f"{path.relative_to(PACKAGE.parent)}:{line}"
        for path in sorted(PACKAGE.rglob("*.py")) if path not in allowed
        for line in _standard_stream_uses(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert users == []
    assert _standard_stream_uses(ast.parse("import sys\nprint(1, file=sys.stderr)\nsys.exit(0)")) == [2]


# -- a value that cannot be used --------------------------------------------------------------------

@pytest.mark.parametrize("variable, value, expected", [
    ("TIMEKEEPER_TTS_ENGINE", "bogus", "unknown speech engine 'bogus' (expected espeak-ng or pyttsx3;"),
    ("TIMEKEEPER_TTS_ENGINE", "ESPEAK-NG", "unknown speech engine 'ESPEAK-NG' (expected espeak-ng or pyttsx3;"),
    ("TIMEKEEPER_PIPER_URL", "bogus", "'bogus' is not a URL of a Piper voice repository (expected https://HOST/PATH,"),
    ("TIMEKEEPER_PIPER_URL", "ftp://mirror/voices", "'ftp://mirror/voices' is not a URL of a Piper voice repository"),
    ("TIMEKEEPER_PIPER_URL", "https:///voices", "'https:///voices' is not a URL"),
])
def test_an_unknown_value_is_an_error_naming_the_variable_and_what_it_takes(variable, value, expected, capsys):
    from timekeeper import cli
    from timekeeper.errors import EnvironmentVariableError

    environment = Environment.from_mapping({**HOME, variable: value})
    with pytest.raises(EnvironmentVariableError) as refused:
        environment.check()
    assert refused.value.variable == variable and refused.value.exit_code == ExitStatus.ENVIRONMENT == 11
    assert cli.main(["list"], environment) == ExitStatus.ENVIRONMENT  # every command, used there or not
    said = capsys.readouterr().err
    assert said.startswith(f"Error: {variable}: {expected}") and said.count("\n") == 1


@pytest.mark.parametrize("variable", ["TIMEKEEPER_DATA", "TIMEKEEPER_STATE", "TIMEKEEPER_VOICES",
                                      "TIMEKEEPER_PIPER_VOICES", "TIMEKEEPER_LOG"])
def test_a_folder_variable_naming_a_file_is_an_error_naming_the_variable(variable, tmp_path, capsys):
    from timekeeper import cli

    a_file = tmp_path / "notes.txt"
    a_file.write_text("not a folder")
    wrong = tmp_path if variable == "TIMEKEEPER_LOG" else a_file  # the log is a file: a folder is wrong
    for value in (wrong, a_file / "below"):
        environment = Environment.from_mapping({**HOME, variable: str(value)})
        assert cli.main(["list"], environment) == ExitStatus.ENVIRONMENT
        said = capsys.readouterr().err
        assert said.startswith(f"Error: {variable}: {value}") and said.count("\n") == 1, said
        assert "(expected a f" in said
    fine = tmp_path / "new" / ("timekeeper.db" if variable == "TIMEKEEPER_LOG" else "folder")  # made when first written
    Environment.from_mapping({**HOME, variable: str(fine)}).check()
    assert not fine.exists()  # (checked, not made)


@pytest.mark.parametrize("variable, value", [("TIMEKEEPER_TTS_ENGINE", "espeak-ng"), ("TIMEKEEPER_TTS_ENGINE", "pyttsx3"),
                                             ("TIMEKEEPER_PIPER_URL", "https://mirror.example/voices"),
                                             ("TIMEKEEPER_PIPER_URL", "file:///srv/piper-voices")])
def test_a_known_value_passes(variable, value):
    Environment.from_mapping({**HOME, variable: value}).check()


@pytest.mark.parametrize("value, named", [
    ("no-such-voice", "unknown TTS voice 'no-such-voice'"),
    ("piper:xx_XX-nobody-low", "no Piper voice 'xx_XX-nobody-low'"),
    ("./no-such-pack", "./no-such-pack: no such voice pack folder"),
])
def test_a_default_voice_that_cannot_be_used_names_the_variable(value, named, tmp_path):
    from timekeeper.errors import EnvironmentVariableError
    from timekeeper.voice.select import open_voice

    with using(Environment.from_mapping({"HOME": str(tmp_path), "TIMEKEEPER_DEFAULT_VOICE": value})):
        with pytest.raises(EnvironmentVariableError) as refused:
            open_voice("en")
        assert open_voice("en", "en-us").name == "tts:en-us"  # a --voice given wins: the variable is not used
    assert refused.value.variable == "TIMEKEEPER_DEFAULT_VOICE" and named in refused.value.message
    assert refused.value.message.endswith("(expected a voice `timekeeper voices` lists, or synthesized)")


def test_a_relative_xdg_folder_is_ignored_as_the_specification_says():
    env = Environment.from_mapping({**HOME, "XDG_CACHE_HOME": "cache", "XDG_DATA_HOME": "./data", "XDG_STATE_HOME": "s"})
    assert env.cache == Path("/home/crew/.cache/timekeeper")
    assert env.data == Path("/home/crew/.local/share/timekeeper")
    assert env.state == Path("/home/crew/.local/state/timekeeper/serve")
