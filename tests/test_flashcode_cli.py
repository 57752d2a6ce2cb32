"""`timekeeper import` / `timekeeper export`: files of codes, safe names, atomic writes, exit codes."""

from __future__ import annotations

from running import result_of as run

from timekeeper.errors import ExitStatus
from timekeeper.scenario.catalog import load_scenario
from timekeeper.scenario.flashcode import same_track
from timekeeper.scenario.flashfile import import_code_file, read_code_lines, safe_file_name
from timekeeper.scenario.load import load_file

EXAMPLE = "010AL1TW,050ID,120AL2TR,215DT,340PE1,345AL4TB,450DT,530ID,660PE2"


def test_import_a_code_to_a_file_that_validates(tmp_path):
    target = tmp_path / "my-track.yaml"
    result = run("import", EXAMPLE, "-o", str(target))
    assert result.exit_code == 0, result.output
    loaded = load_file(target)
    assert loaded.ok
    assert loaded.scenario.title == "my-track"
    assert target.read_text().startswith(f"# Imported from FlashPlayerCode:\n# {EXAMPLE}\n")
    assert [p.name for p in tmp_path.iterdir()] == ["my-track.yaml"]  # no temp file left


def test_import_prints_yaml_without_output_and_takes_a_title():
    result = run("import", EXAMPLE, "--title", "Night shift")
    assert result.exit_code == 0
    assert 'title: "Night shift"' in result.output


def test_import_replaces_an_existing_file(tmp_path):
    target = tmp_path / "t.yaml"
    target.write_text("old")
    assert run("import", EXAMPLE, "-o", str(target)).exit_code == 0
    assert "old" not in target.read_text()


def test_malformed_code_exits_with_invalid_scenario_and_writes_nothing(tmp_path):
    target = tmp_path / "t.yaml"
    result = run("import", "010AL1TW,05XID,340PE1,700PE2", "-o", str(target))
    assert result.exit_code == ExitStatus.INVALID_SCENARIO
    assert "token 2 (column 10) '05XID'" in result.output
    assert not target.exists()


def test_a_file_of_codes_writes_one_scenario_per_line(tmp_path, data_dir):
    out = tmp_path / "fan"
    result = run("import", str(data_dir / "flashcode" / "quirks.txt"), "-o", str(out) + "/")
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in out.iterdir())
    assert names == ["Double-threats.yaml", "Four-digit-times.yaml", "Long-outage.yaml",
                     "Sixty-seconds.yaml", "Spaces-lower-case.yaml"]
    for path in out.iterdir():
        loaded = load_file(path)
        assert loaded.ok, [str(p) for p in loaded.problems]
    sixty = load_file(out / "Sixty-seconds.yaml").scenario
    assert sixty.title == "Sixty seconds"
    assert sixty.phase_ends_ms == (240_000, 480_000, 600_000)
    assert load_file(out / "Double-threats.yaml").scenario.double_threats


def test_a_bad_line_is_reported_with_its_line_and_nothing_is_written(tmp_path, data_dir):
    out = tmp_path / "out"
    source = data_dir / "flashcode" / "invalid.txt"
    result = run("import", str(source), "-o", str(out))
    assert result.exit_code == ExitStatus.INVALID_SCENARIO
    assert f"{source}:2: token 1 (column 10) '010AL1TX': malformed threat" in result.output
    assert f"{source}:3: no phase end" in result.output
    assert not out.exists()
    result = run("import", str(source), "-o", str(out), "--skip-invalid")
    assert result.exit_code == 0
    assert [p.name for p in out.iterdir()] == ["good.yaml"]
    assert "skipped 2 invalid line(s)" in result.output


def test_names_from_a_file_never_leave_the_output_folder(tmp_path):
    text = "".join(f"{name}\t{EXAMPLE}\n" for name in ["../../escape", "/etc/passwd", "a/b\\c", "..", "", "Zoë's run"])
    batch = import_code_file(text, "evil.txt")
    assert not batch.problems
    names = [t.file_name for t in batch.tracks]
    assert names == ["escape.yaml", "etc-passwd.yaml", "a-b-c.yaml", "evil-4.yaml", "evil-5.yaml", "Zoë-s-run.yaml"]
    folder = tmp_path / "inside"
    from timekeeper.scenario.flashfile import write_batch

    written = write_batch(batch, folder)
    assert all(path.parent == folder for path in written)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["inside"]


def test_duplicate_names_get_a_counter():
    batch = import_code_file(f"A\t{EXAMPLE}\na\t{EXAMPLE}\nA\t{EXAMPLE}\n", "x.txt")
    assert [t.file_name for t in batch.tracks] == ["A.yaml", "a-2.yaml", "A-3.yaml"]


def test_safe_file_name():
    assert safe_file_name("  Mission: Impossible?  ") == "Mission-Impossible"
    assert safe_file_name("...") == ""
    assert len(safe_file_name("x" * 500)) == 80


def test_read_code_lines_skips_comments_and_blank_lines():
    lines = read_code_lines("# c\n\n  \nname\tcode1\ncode2\n")
    assert [(line.line, line.name, line.code) for line in lines] == [(4, "name", "code1"), (5, "", "code2")]


def test_import_from_stdin(tmp_path):
    result = run("import", "-", "-o", str(tmp_path), input=f"one\t{EXAMPLE}\n")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "one.yaml").exists()


def test_file_of_codes_needs_an_output_folder(data_dir):
    result = run("import", str(data_dir / "flashcode" / "quirks.txt"))
    assert result.exit_code == ExitStatus.USAGE


def test_export_prints_the_code_and_writes_a_file(tmp_path):
    result = run("export", "mission-4")
    assert result.exit_code == 0
    assert result.output == ("010AL1TR,100UR3TW,130ID,155AL4STR,225DT,345PE1,355DT,410AL5SIT,435ID,500AL6STB,"
                             "545CS10,625ID,635CS10,720PE2,735DT,800CS20,855CS15,940PE3\n")
    target = tmp_path / "m4.txt"
    assert run("export", "mission-4", "--format", "flashcode", "-o", str(target)).exit_code == 0
    assert target.read_text() == result.output


def test_export_then_import_through_the_command_line(tmp_path):
    code = run("export", "double-action-3").output.strip()
    target = tmp_path / "da3.yaml"
    assert run("import", code, "-o", str(target)).exit_code == 0
    assert same_track(load_file(target).scenario, load_scenario("double-action-3"))


def test_export_of_a_scenario_with_an_announcement_fails_clearly(tmp_path):
    path = tmp_path / "a.yaml"
    path.write_text('title: "x"\nphase_ends: ["4:00", "7:00"]\nevents:\n  - {at: "0:10", type: announce, text: "Hi"}\n')
    result = run("export", str(path))
    assert result.exit_code == ExitStatus.INVALID_SCENARIO
    assert "no free-text announcements" in result.output



def test_a_write_failure_is_one_line(tmp_path):
    result = run("import", EXAMPLE, "-o", str(tmp_path / "missing" / "t.yaml"))
    assert result.exit_code == ExitStatus.OUTPUT
    assert result.output.strip() == f"Error: {tmp_path / 'missing' / 't.yaml'}: cannot write: folder {tmp_path / 'missing'} does not exist"
