"""`timekeeper import` (FlashPlayerCode -> scenario YAML) and `timekeeper export` (scenario -> code)."""

from __future__ import annotations

from pathlib import Path

import click

from timekeeper.commands.options import OneLineText, output_format

IMPORT_SUFFIXES = {".yaml": "yaml", ".yml": "yaml"}
EXPORT_SUFFIXES = {".txt": "flashcode", **IMPORT_SUFFIXES}


@click.command("import")
@click.argument("code_or_file")
@click.option("-o", "--output", type=click.Path(), default=None,
              help="Scenario file to write (a folder for a file of codes). Default: print the YAML.")
@click.option("--title", type=OneLineText(), default=None, help="Title of the imported track (a single code only).")
@click.option("--skip-invalid", is_flag=True,
              help="With a file of codes: write the valid lines, warn about the others.")
@click.option("--repair", is_flag=True,
              help="Repair the Java generator's known defects (overlapping outages are merged, a phase end lost "
                   "to an event at the same second is put back), with one warning per repair.")
def import_command(code_or_file: str, output: str | None, title: str | None, skip_invalid: bool, repair: bool) -> None:
    """Import a FlashPlayerCode string, or a file of them, as scenario YAML.

    CODE_OR_FILE is a code such as 010AL1TW,050ID,340PE1,700PE2, or a file
    with one code per line (optionally `name<TAB>code`; `-` reads stdin). A
    file writes one scenario per line into the folder given by -o, named
    after the name column (made a plain file name) or FILE-LINE. Existing
    files are replaced. A single code is written to a .yaml or .yml file; its
    title is --title, else the stem of the -o file, else "Imported track".

    \b
    Examples:
      timekeeper import 010AL1TW,050ID,120AL2TR,340PE1,700PE2 -o mine.yaml
      timekeeper import fan-missions.txt -o fan-missions/
      timekeeper import --repair 010AL1TW,130CS30,150CS20,345AL5TB,700PE2 -o fixed.yaml
    """
    from timekeeper.errors import ScenarioError
    from timekeeper.files.atomicfile import write_atomic
    from timekeeper.scenario import flashfile
    from timekeeper.scenario.flashcode import DEFAULT_TITLE, parse_flashcode, repair_flashcode
    from timekeeper.scenario.load import printable_text

    source = _code_file(code_or_file)
    folder = output is not None and (output.endswith(("/", "\\")) or _is_folder(output))
    if source is None:
        if output is not None and not folder:
            output_format(Path(output), None, IMPORT_SUFFIXES, "yaml", what="scenarios")
        default_title = printable_text(Path(output).stem)[:MAX_DEFAULT_TITLE] if output and not folder else DEFAULT_TITLE
        if repair:
            scenario, repairs = repair_flashcode(code_or_file, title or default_title)
            for message in repairs:
                click.echo(f"Warning: {message}", err=True)
        else:
            scenario = parse_flashcode(code_or_file, title or default_title)
        text = flashfile.scenario_yaml(scenario, code_or_file.strip(), output or "<imported track>")
        if output is None:
            click.echo(text, nl=False)
            return
        target = Path(output)
        if folder:
            flashfile.make_folder(target)
            target = target / f"{flashfile.safe_file_name(scenario.title) or 'track'}.yaml"
        write_atomic(target, text)
        click.echo(f"Wrote {target} ({len(scenario.events)} event(s)).", err=True)
        return
    display, text = source
    if output is None:
        raise click.UsageError("a file of codes needs -o FOLDER to write its scenarios into")
    batch = flashfile.import_code_file(text, display, repair=repair)
    for message in batch.repairs:
        click.echo(f"Warning: {message}", err=True)
    if batch.problems and not (skip_invalid and batch.tracks):
        raise ScenarioError.listing(flashfile.shown_problems(batch.problems))
    paths = flashfile.write_batch(batch, Path(output))
    for problem in batch.problems:
        click.echo(f"Skipped: {problem}", err=True)
    click.echo(f"Wrote {len(paths)} scenario(s) into {output}"
               + (f"; skipped {batch.bad_lines} invalid line(s)." if batch.bad_lines else "."), err=True)


MAX_CODE_FILE_BYTES = 2_000_000  # about 20,000 lines of codes
MAX_DEFAULT_TITLE = 100  # a title taken from the -o file name is cut to this length


def _is_folder(name: str) -> bool:
    try:
        return Path(name).is_dir()
    except (OSError, ValueError):
        return False


def _code_file(argument: str) -> tuple[str, str] | None:
    """(display name, text) when `argument` names a file of codes (or `-`), else None."""
    from timekeeper.environment import current
    from timekeeper.errors import ScenarioError
    from timekeeper.files.userfiles import binary_of, path_exists, read_user_file, read_user_stream

    what = "a file of FlashPlayerCodes"
    if argument == "-":
        display = "<stdin>"
        raw = read_user_stream(binary_of(current().streams.stdin), MAX_CODE_FILE_BYTES, what=what, error=ScenarioError)
    else:
        path = Path(argument)
        if not path_exists(path):
            if "," not in argument and ("/" in argument or argument.endswith((".txt", ".csv", ".tsv"))):
                raise ScenarioError("no such file of codes", path=argument, missing=True)
            return None
        display = argument
        raw = read_user_file(path, MAX_CODE_FILE_BYTES, what=what, error=ScenarioError)
    if b"\x00" in raw:
        raise ScenarioError("is a binary file, expected text with one FlashPlayerCode per line", path=display)
    try:
        return display, raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ScenarioError(f"is not UTF-8 text (byte {error.start})", path=display) from error


@click.command("export")
@click.argument("scenario")
@click.option("--format", "format_name", type=click.Choice(["flashcode", "yaml"], case_sensitive=False), default=None,
              help="flashcode: the FlashPlayerCode string; yaml: the scenario file. "
                   "Default: from the -o suffix (.txt, .yaml, .yml), else flashcode.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="File to write (default: print).")
def export_command(scenario: str, format_name: str | None, output: Path | None) -> None:
    """Write a scenario as a FlashPlayerCode string (or as scenario YAML).

    SCENARIO is a scenario file or a built-in name (see `timekeeper list`).
    The code holds phase ends and events only; free-text announcements and
    times that are not whole seconds cannot be written.

    \b
    Examples:
      timekeeper export mission-3
      timekeeper export my-mission.yaml --format flashcode -o my-mission.txt
      timekeeper export mission-3 -o mission-3.yaml

    The format follows the extension of -o (.txt: the code, .yaml or .yml:
    the scenario file) unless --format names it.
    """
    from timekeeper.commands.options import scenario_inputs
    from timekeeper.files.atomicfile import write_atomic
    from timekeeper.files.outputpath import check_output_path
    from timekeeper.scenario.catalog import load_scenario
    from timekeeper.scenario.dump import dump_checked
    from timekeeper.scenario.flashcode import format_flashcode, parse_flashcode

    chosen = output_format(output, format_name, EXPORT_SUFFIXES, "flashcode", what="exports")
    loaded = load_scenario(scenario)
    if output is not None:
        check_output_path(output, scenario_inputs(scenario), what="export")
    if chosen == "flashcode":
        text = format_flashcode(loaded) + "\n"
        parse_flashcode(text.strip(), loaded.title)  # what is written reads back (ScenarioError otherwise)
    else:
        text = dump_checked(loaded, display=str(output or scenario))
    if output is None:
        click.echo(text, nl=False)
    else:
        write_atomic(output, text)
        click.echo(f"Wrote {output}.", err=True)
