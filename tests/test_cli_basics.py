"""The command line as a user runs it: list, show, validate, schema, errors and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import jsonschema
import pytest
import yaml
from running import timekeeper as run

from timekeeper.cli import COMMANDS
from timekeeper.errors import ExitStatus
from timekeeper.scenario.catalog import builtin_paths

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).parent / "data" / "scenarios"


def test_version_and_help() -> None:
    assert run("--version").stdout.startswith("timekeeper, version")
    result = run("--help")
    assert result.returncode == 0
    assert "Examples:" in result.stdout


def every_command_path() -> list[tuple[str, ...]]:
    """Every command and subcommand click knows, as the words that name it (("log", "campaign", "start"), ...)."""
    import click

    from timekeeper.cli import cli

    found: list[tuple[str, ...]] = []

    def walk(group: click.Group, path: tuple[str, ...]) -> None:
        context = click.Context(group)
        for name in group.list_commands(context):
            command = group.get_command(context, name)
            assert command is not None, name
            found.append((*path, name))
            if isinstance(command, click.Group):
                walk(command, (*path, name))

    walk(cli, ())
    return found


def test_the_command_walk_finds_groups_and_their_commands() -> None:
    paths = every_command_path()
    assert {(name,) for name in COMMANDS} <= set(paths)
    assert ("log", "campaign", "start") in paths and ("voice", "install") in paths
    assert len(paths) >= 2 * len(COMMANDS)


@pytest.mark.parametrize("path", every_command_path(), ids=" ".join)
def test_every_command_has_help_with_an_example(path: tuple[str, ...]) -> None:
    """Usage line, a description and an example that runs the same command."""
    result = run(*path, "--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"Usage: timekeeper {' '.join(path)} "), result.stdout[:200]
    description = result.stdout.split("\n\n")[1].strip()
    assert len(description) > 20 and not description.startswith("Options"), result.stdout[:400]
    assert "Example" in result.stdout
    examples = [line.split() for line in result.stdout.split("Example", 1)[1].splitlines()]
    assert any(words[:1] == ["timekeeper"] and _names(words[1:], path) for words in examples), result.stdout


@pytest.mark.parametrize("command", ["render", "plan", "live", "validate", "generate"])
def test_voice_help_names_every_kind_of_voice(command: str) -> None:
    words = " ".join(run(command, "--help").stdout.split())  # as one text: click wraps the help
    assert "--voice NAME|DIR|piper:NAME|FILE.onnx" in words
    assert "piper:en_US-joe-medium" in words and "de_DE-thorsten-medium.onnx" in words and "voice pack" in words


def _names(words: list[str], path: tuple[str, ...]) -> bool:
    """True if `words` name the command `path` in order (group options such as --db in between)."""
    rest = iter(words)
    return all(name in rest for name in path)


def test_list_shows_every_builtin_track_in_natural_order() -> None:
    result = run("list")
    assert result.returncode == 0
    head, *lines = result.stdout.splitlines()
    assert head.split() == ["NAME", "KIND", "LENGTH", "TITLE"]
    names = [line.split()[0] for line in lines]
    assert names[:3] == ["test-run-1", "test-run-2", "simulation-1"]
    assert names.index("double-action-2") < names.index("double-action-9") < names.index("double-action-10")  # natural, not text
    assert len(names) == len(builtin_paths())
    mission_3 = next(line for line in result.stdout.splitlines() if line.startswith("mission-3 "))
    assert mission_3.split()[1:3] == ["mission", "10:00"]


@pytest.mark.parametrize("language, words", [
    ("en", ["Serious threat", "White", "Time T plus two. Serious threat. Zone white."]),
    ("de", ["Ernsthafte Bedrohung", "Weiß", "Zeit T plus zwei. Ernsthafte Bedrohung in Zone Weiß."]),
    ("es", ["Amenaza grave", "Blanca", "Tiempo T más dos. Amenaza grave. Zona blanca."]),
])
def test_show_prints_the_timeline_in_three_languages(language: str, words: list[str]) -> None:
    result = run("show", "mission-1", "--lang", language)
    assert result.returncode == 0, result.stderr
    flat = " ".join(result.stdout.split())
    for word in words:
        assert word in flat


def test_show_a_file_path() -> None:
    result = run("show", str(DATA / "valid" / "quoted-times.yaml"), "--no-spoken")
    assert result.returncode == 0
    assert "Quoted times" in result.stdout and "0:10" in result.stdout and "T+1" in result.stdout


def test_unknown_builtin_name_suggests_the_closest() -> None:
    result = run("show", "mision-3")
    assert result.returncode == ExitStatus.INVALID_SCENARIO
    assert "did you mean 'mission-3'?" in result.stderr
    assert "Traceback" not in result.stderr


def test_validate_reports_every_problem_and_exits_with_the_scenario_code() -> None:
    bad = [str(p) for p in sorted((DATA / "invalid").glob("*.yaml"))]
    result = run("validate", *bad)
    assert result.returncode == ExitStatus.INVALID_SCENARIO
    assert "Traceback" not in result.stdout + result.stderr
    for path in bad:
        assert path in result.stdout
    for line in result.stdout.splitlines():
        assert line.split(":", 1)[0] in bad


def test_validate_valid_files_exits_zero_and_strict_turns_warnings_into_errors() -> None:
    assert run("validate", *map(str, (DATA / "valid").glob("*.yaml"))).returncode == 0
    assert run("validate", "test-run-2").returncode == 0
    strict = run("validate", "--strict", "test-run-2")
    assert strict.returncode == ExitStatus.INVALID_SCENARIO
    assert "warning: T+4 belongs to phase 1" in strict.stdout


def test_python_tag_never_runs(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    evil = tmp_path / "evil.yaml"
    evil.write_text(f'title: !!python/object/apply:os.system ["touch {marker}"]\nphase_ends: [1, 2]\nevents: []\n')
    result = run("validate", str(evil))
    assert result.returncode == ExitStatus.INVALID_SCENARIO
    assert not marker.exists()


def test_schema_accepts_every_shipped_scenario_and_rejects_bad_ones() -> None:
    result = run("schema")
    assert result.returncode == 0
    schema = json.loads(result.stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for path in [*builtin_paths().values(), *(DATA / "valid").glob("*.yaml")]:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
        document = json.loads(json.dumps(document, default=str))
        if path.name == "unquoted-times.yaml":  # PyYAML reads unquoted 3:45 as 225; editors see a string
            continue
        errors = list(validator.iter_errors(document))
        assert not errors, (path, errors[0].message)
    for name in ("bad-zone", "unknown-key", "missing-zone", "unknown-type", "comms-both"):
        document = yaml.safe_load((DATA / "invalid" / f"{name}.yaml").read_text())
        assert list(validator.iter_errors(document)), name


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_registered_command_is_importable(name: str) -> None:
    import importlib

    import click

    module_name, attribute = COMMANDS[name].split(":")
    command = getattr(importlib.import_module(module_name), attribute)
    assert isinstance(command, click.Command) and command.name == name


def test_builtin_scenarios_and_voices_ship_in_the_wheel(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path), str(ROOT)],
        check=True, capture_output=True, timeout=300,
    )
    wheel = next(tmp_path.glob("timekeeper-*.whl"))
    unpacked = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        archive.extractall(unpacked)
    assert "timekeeper/_shipped/scenarios/official/mission-1.yaml" in names
    assert "timekeeper/_shipped/voices/de.yaml" in names
    assert {f"timekeeper/locales/{code}.po" for code in ("en", "de", "es", "fr", "it", "pl", "cs")} <= set(names)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(unpacked)!r}); "
         "from timekeeper.cli import main; raise SystemExit(main(['show', 'mission-3', '--lang', 'de']))"],
        capture_output=True, text=True, cwd=elsewhere, timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "Zeit T plus" in result.stdout
    words = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(unpacked)!r}); "
         "from timekeeper.i18n import translate; print(translate('cs', 'prompter.read_now'))"],
        capture_output=True, text=True, cwd=elsewhere, timeout=60,
    )
    assert words.stdout.strip() == "ČTI TEĎ:", words.stderr
    assert str(unpacked) in subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(unpacked)!r}); "
         "from timekeeper.files.paths import scenarios_dir; print(scenarios_dir())"],
        capture_output=True, text=True, cwd=elsewhere,
    ).stdout
