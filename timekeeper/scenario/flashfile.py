"""Files of FlashPlayerCodes (one per line, optionally `name<TAB>code`) -> scenario YAML files."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from timekeeper.errors import OutputError, ScenarioError, located, place
from timekeeper.files.atomicfile import write_atomic
from timekeeper.model import Scenario
from timekeeper.scenario.dump import dump_checked
from timekeeper.scenario.flashcode import parse_flashcode, repair_flashcode

MAX_NAME_CHARS = 80
MAX_CODES = 5000  # codes per file (about 4 s of work); split larger collections
MAX_SHOWN_PROBLEMS = 20


@dataclass(frozen=True)
class CodeLine:
    """One code of a file: its line number (1-based), its name column ('' if none) and the code."""

    line: int
    name: str
    code: str
    column: int = 1  # where the code starts in its line


@dataclass(frozen=True)
class ImportedTrack:
    file_name: str
    scenario: Scenario
    code: str
    text: str = ""  # the checked YAML file


@dataclass
class ImportBatch:
    """The tracks a file yields and one message per line that could not be imported."""

    tracks: list[ImportedTrack]
    problems: list[str]
    bad_lines: int = 0
    repairs: list[str] = field(default_factory=list)  # one `file:line: repaired ...` per repair (--repair)


def read_code_lines(text: str) -> list[CodeLine]:
    """The codes of a file's `text`; blank lines and lines starting with `#` are skipped."""
    lines = []
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip().lstrip("\ufeff")
        if not stripped or stripped.startswith("#"):
            continue
        name, tab, code = raw.rpartition("\t")
        column = len(name) + len(tab) + len(code) - len(code.lstrip()) + 1
        lines.append(CodeLine(number, name.strip(), code.strip(), column))
    return lines


def import_code_file(text: str, display: str, *, repair: bool = False) -> ImportBatch:
    """Parse every line of a code file named `display`; problems say `display:line: ...`.

    With `repair`, the Java generator's known defects are repaired, each with a warning.
    """
    stem = safe_file_name(Path(display).stem) or "track"
    batch = ImportBatch([], [])
    used: dict[str, int] = {}
    lines = read_code_lines(text)
    if len(lines) > MAX_CODES:
        raise ScenarioError(f"{len(lines):,} codes; a file may hold at most {MAX_CODES:,} (split it)", path=display)
    for line in lines:
        title = line.name or f"{Path(display).stem} line {line.line}"
        try:
            if repair:
                scenario, repairs = repair_flashcode(line.code, title, first_column=line.column)
                batch.repairs += [located(message, display, line.line) for message in repairs]
            else:
                scenario = parse_flashcode(line.code, title, first_column=line.column)
            yaml_text = scenario_yaml(scenario, line.code, place(display, line.line))
        except ScenarioError as error:
            batch.bad_lines += 1
            batch.problems += [located(problem, display, line.line) for problem in error.lines]
            continue
        base = safe_file_name(line.name) or f"{stem}-{line.line}"
        batch.tracks.append(ImportedTrack(_unique(base, used) + ".yaml", scenario, line.code, yaml_text))
    if not batch.tracks and not batch.problems:
        batch.problems.append(located("no FlashPlayerCode lines found", display))
    return batch


def safe_file_name(name: str) -> str:
    """`name` as a plain file name: no folders, no leading dots, no control or shell characters."""
    text = unicodedata.normalize("NFC", name)
    text = re.sub(r"[^\w\-. ]+", "-", text)
    text = re.sub(r"\s+", "-", text.strip())
    text = re.sub(r"-{2,}", "-", text).strip("-. ")
    text = text[:MAX_NAME_CHARS].rstrip("-. ")
    return "" if text in ("", ".", "..") else text


def _unique(base: str, used: dict[str, int]) -> str:
    """`base`, or `base-2`, `base-3` ... if taken; `used` remembers each base's next number, so a
    file of many lines with one name stays linear."""
    name, counter = base, used.get(base.lower() + "\0", 2)
    while name.lower() in used:
        name = f"{base}-{counter}"
        counter += 1
    used[base.lower() + "\0"] = counter
    used[name.lower()] = 1
    return name


def scenario_yaml(scenario: Scenario, code: str, display: str = "<imported track>") -> str:
    """The YAML file of an imported track; its header records the code it came from.
    ScenarioError if the file would not pass `timekeeper validate` (see dump_checked)."""
    return dump_checked(scenario, header=f"Imported from FlashPlayerCode:\n{code}", display=display)


def write_batch(batch: ImportBatch, folder: Path) -> list[Path]:
    """Write every track of `batch` into `folder` (created if needed), each file atomically."""
    if folder.exists() and not folder.is_dir():
        raise OutputError("not a folder (a file of codes writes one scenario per line into a folder)", path=str(folder))
    make_folder(folder)
    return [write_atomic(folder / track.file_name, track.text or scenario_yaml(track.scenario, track.code)) for track in batch.tracks]


def make_folder(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise OutputError.cannot_create(folder, error) from error


def shown_problems(problems: list[str]) -> list[str]:
    """The first MAX_SHOWN_PROBLEMS problems, and how many more there are."""
    shown = problems[:MAX_SHOWN_PROBLEMS]
    if len(problems) > len(shown):
        shown.append(f"... and {len(problems) - len(shown)} more problems")
    return shown

