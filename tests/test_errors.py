"""The error family: where a problem is travels as fields, and one place writes the message."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from timekeeper.errors import ExitStatus, OutputError, ScenarioError, TimekeeperError, VoiceError, located
from timekeeper.scenario import yamlnodes
from timekeeper.scenario.catalog import resolve
from timekeeper.scenario.load import load_text


def test_the_message_is_written_from_the_fields() -> None:
    error = ScenarioError("key 'at' appears twice", path="m.yaml", line=3, column=5)
    assert (error.path, error.line, error.column, error.detail) == ("m.yaml", 3, 5, "key 'at' appears twice")
    assert error.message == "m.yaml:3:5: key 'at' appears twice" and error.exit_code == ExitStatus.INVALID_SCENARIO
    assert located("no such file", "m.yaml") == "m.yaml: no such file"
    assert located("bad", "m.yaml", 7) == "m.yaml:7: bad"
    assert TimekeeperError("plain").message == "plain" and TimekeeperError("plain").path is None


@pytest.mark.parametrize("text, line, column, detail", [
    ("title: x\nevents: [1\n", 3, 1, "YAML syntax error"),
    ("title: x\ntitle: y\n", 2, 1, "key 'title' appears twice"),
    ("title: !!python/name:os.system x\n", 1, 8, "YAML tag"),
])
def test_yaml_problems_carry_line_and_column_to_the_report(text: str, line: int, column: int, detail: str) -> None:
    with pytest.raises(ScenarioError) as raised:
        yamlnodes.compose(text, "m.yaml")
    assert (raised.value.path, raised.value.line, raised.value.column) == ("m.yaml", line, column)
    assert raised.value.detail.startswith(detail) and not raised.value.detail.startswith("m.yaml")
    (problem,) = load_text(text, "m.yaml").problems
    assert (problem.line, problem.column, problem.message) == (line, column, raised.value.detail)


def test_a_name_that_does_not_exist_is_marked_missing(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError) as raised:
        resolve("misson-1")
    assert raised.value.missing and raised.value.path == "misson-1" and "did you mean 'mission-1'" in raised.value.detail
    with pytest.raises(ScenarioError) as unreadable:
        yamlnodes.read_text(tmp_path, "folder.yaml")
    assert not unreadable.value.missing and unreadable.value.path == "folder.yaml"


def test_one_error_for_every_failed_write() -> None:
    full = OutputError.cannot_write(Path("/mnt/usb/m.mp3"), OSError(errno.ENOSPC, "No space left on device"))
    assert full.message == "/mnt/usb/m.mp3: cannot write: No space left on device"
    assert full.exit_code == ExitStatus.OUTPUT and full.path == "/mnt/usb/m.mp3"
    assert OutputError.cannot_write("pack", "disk full", "the voice pack").message == "pack: cannot write the voice pack: disk full"
    assert VoiceError("x", path="p").exit_code == ExitStatus.VOICE
