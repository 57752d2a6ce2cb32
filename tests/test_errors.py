"""The error family: where a problem is travels as fields, and one place writes the message."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from timekeeper.errors import ExitStatus, OutputError, ScenarioError, TimekeeperError, VoiceError, located, place
from timekeeper.generate.options import options_from_text
from timekeeper.scenario import yamlnodes
from timekeeper.scenario.catalog import resolve
from timekeeper.scenario.flashcode import parse_flashcode
from timekeeper.scenario.flashfile import import_code_file
from timekeeper.scenario.load import load_text
from timekeeper.scenario.problems import Problem, Severity
from timekeeper.voice import install


def test_the_message_is_written_from_the_fields() -> None:
    error = ScenarioError("key 'at' appears twice", path="m.yaml", line=3, column=5)
    assert (error.path, error.line, error.column, error.detail) == ("m.yaml", 3, 5, "key 'at' appears twice")
    assert error.message == "m.yaml:3:5: key 'at' appears twice" and error.exit_code == ExitStatus.INVALID_SCENARIO
    assert located("no such file", "m.yaml") == "m.yaml: no such file"
    assert located("bad", "m.yaml", 7) == "m.yaml:7: bad"
    assert place("m.yaml", 7, 2) == "m.yaml:7:2" and place("m.yaml", 0, 2) == "m.yaml"
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


def test_a_problem_is_written_by_the_same_place() -> None:
    assert str(Problem("m.yaml", 4, 9, "unknown zone")) == "m.yaml:4:9: unknown zone"
    assert str(Problem("m.yaml", 0, 0, "overlaps", Severity.WARNING)) == "m.yaml: warning: overlaps"


def test_several_problems_travel_as_lines_and_each_is_placed_in_a_file_of_codes() -> None:
    error = ScenarioError.listing(["first", "second"], path="codes.txt", line=3)
    assert error.lines == ("first", "second") and error.message == "codes.txt:3: first\nsecond"
    assert ScenarioError("one problem").lines == ("one problem",)
    with pytest.raises(ScenarioError) as raised:
        parse_flashcode("010AL1TW,050ZZ,060QQ,340PE1,700PE2")
    assert [line.split(":")[0] for line in raised.value.lines] == ["token 2 (column 10) '050ZZ'", "token 3 (column 16) '060QQ'"]
    batch = import_code_file("010AL1TW,050ZZ,060QQ,340PE1,700PE2\n", "codes.txt")
    assert batch.problems == [f"codes.txt:1: {line}" for line in raised.value.lines]


def test_generator_settings_are_placed_at_generate_and_the_option_parser_says_only_why() -> None:
    with pytest.raises(ScenarioError) as raised:
        options_from_text({"outages": "9"})
    assert (raised.value.path, raised.value.detail) == ("generate", "--outages '9': out of range (expected 0 to 8)")
    with pytest.raises(ScenarioError) as impossible:
        options_from_text({"length": "10:00", "phase_lengths": "3:00,3:00,4:00"})
    assert impossible.value.path == "generate" and impossible.value.detail == "give --length or --phase-lengths, not both"


def test_a_folder_that_cannot_be_made_is_an_output_error(tmp_path: Path) -> None:
    error = OutputError.cannot_create(tmp_path / "x", OSError(errno.EACCES, "Permission denied"), "the voice pack folder")
    assert error.message == f"{tmp_path / 'x'}: cannot create the voice pack folder: Permission denied"
    assert error.exit_code == ExitStatus.OUTPUT


def test_voice_install_tells_a_local_write_failure_from_a_failed_download(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a-file").write_text("not a folder")
    monkeypatch.setenv("TIMEKEEPER_PIPER_VOICES", str(tmp_path / "a-file" / "piper"))
    with pytest.raises(OutputError, match="cannot create the folder of Piper voices"):
        install.install_voice("en_US-joe-medium", base=(tmp_path / "repository").as_uri())
    source = tmp_path / "voice.onnx.json"
    source.write_text("{}")
    with pytest.raises(OutputError) as unwritable:  # the download works; the file it goes into is a folder
        install._download(source.as_uri(), tmp_path, tmp_path / "target.onnx.json", None)
    assert unwritable.value.path == str(tmp_path / "target.onnx.json")
    with pytest.raises(VoiceError) as unreachable:
        install._download((tmp_path / "missing").as_uri(), tmp_path / "part", tmp_path / "target", None)
    assert unreachable.value.path == (tmp_path / "missing").as_uri() and "cannot download" in unreachable.value.detail
