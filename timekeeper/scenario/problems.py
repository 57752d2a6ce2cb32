"""Problems found in a scenario: errors and warnings, each with file, line and column."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from timekeeper.errors import Words, located


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class Problem:
    """One problem at `line`:`column` (1-based; 0 when the place is unknown) of `path`: `message`
    in English, `said` its words in any language (None: English only)."""

    path: str
    line: int
    column: int
    message: str
    severity: Severity = Severity.ERROR
    said: Words | None = None

    @classmethod
    def of(cls, path: str, line: int, column: int, message: str | Words, severity: Severity = Severity.ERROR) -> Problem:
        """A problem whose message may be words (timekeeper.i18n.Said): its English kept beside them."""
        if isinstance(message, str):
            return cls(path, line, column, message, severity)
        return cls(path, line, column, str(message), severity, message)

    def __str__(self) -> str:
        label = "warning: " if self.severity is Severity.WARNING else ""
        return located(label + self.message, self.path, self.line, self.column)


def errors(problems: list[Problem]) -> list[Problem]:
    return [p for p in problems if p.severity is Severity.ERROR]


def warnings(problems: list[Problem]) -> list[Problem]:
    return [p for p in problems if p.severity is Severity.WARNING]
