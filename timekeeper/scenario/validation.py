"""Validating many scenario files at once: every problem, errors and warnings apart."""

from __future__ import annotations

from dataclasses import dataclass, field

from timekeeper.errors import ScenarioError
from timekeeper.scenario.catalog import resolve
from timekeeper.scenario.load import load_file
from timekeeper.scenario.problems import Problem, Severity, errors, warnings
from timekeeper.scenario.rules import Timer


@dataclass
class ValidationReport:
    files: int = 0
    problems: list[Problem] = field(default_factory=list)
    strict: bool = False

    @property
    def ok(self) -> bool:
        bad = self.problems if self.strict else errors(self.problems)
        return not bad

    def summary(self) -> str:
        n_errors, n_warnings = len(errors(self.problems)), len(warnings(self.problems))
        verdict = "valid" if self.ok else "INVALID"
        plural = "s" if self.files != 1 else ""
        return f"{self.files} file{plural} checked: {n_errors} error(s), {n_warnings} warning(s) -> {verdict}"


def validate_paths(names: tuple[str, ...] | list[str], *, strict: bool = False, timer: Timer | None = None) -> ValidationReport:
    """Load and check every file (or built-in name); problems sorted by file, line, column.
    `timer(scenario)` lays out the announcements whose overlaps are warned of, as `plan` and
    `render` would speak them (default: the shipped phrase lengths of the synthesized voice)."""
    report = ValidationReport(strict=strict)
    for name in names:
        report.files += 1
        try:
            path, display = resolve(name)
        except ScenarioError as error:
            report.problems.append(Problem(name, error.line, error.column, error.detail))
            continue
        result = load_file(path, display, timer=timer)
        found = sorted(result.problems, key=lambda p: (_is_count(p), p.line, p.column, p.severity is Severity.WARNING))
        report.problems.extend(found)
    return report


def _is_count(problem: Problem) -> bool:
    """The "... and N more problems" line of a very noisy file: printed last."""
    return problem.line == 0 and problem.message.startswith("... and ")
