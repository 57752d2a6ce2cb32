"""The one error family of timekeeper, and the exit codes the command line returns."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import IntEnum
from typing import Any, Protocol

import click


class Words(Protocol):
    """Words a message can be said in, in any shipped language (timekeeper.i18n.Said): str() is the
    English the command line prints, `as_json()` what a page says in its own language."""

    def in_language(self, language: str | None) -> str: ...

    def as_json(self) -> dict[str, object]: ...


class ExitStatus(IntEnum):
    SUCCESS = 0
    ERROR = 1
    USAGE = 2
    INVALID_SCENARIO = 3
    VOICE = 4
    RENDER = 5
    PLAYBACK = 6
    MISSING_TOOL = 7
    INVALID_LOG_ENTRY = 8
    LOG_DATABASE = 9
    OUTPUT = 10
    ENVIRONMENT = 11
    HUNG_UP = 129  # SIGHUP: the terminal closed (128 + its number, as a shell reports it)
    INTERRUPTED = 130
    PIPE_CLOSED = 141
    TERMINATED = 143


class Terminated(KeyboardInterrupt):
    """SIGTERM (or SIGHUP: the terminal closed) arrived: raised in the main thread so every `finally` (temporary files, the encoder, the
    sound device, the terminal) is cleaned up as for Ctrl-C; the process exits 143 (SIGHUP: 129)."""


class TimekeeperError(click.ClickException):
    """An error a user can act on; commands raise it, cli.main prints `Error: message` and exits
    with `exit_code`.

    Where it is known, the error says where the problem is as fields: `path` (a file, or the name
    of what was read: a URL, "generate" for the generator's settings), `line` and `column`
    (1-based; 0 = unknown), and `detail`, the message without the place; `message` joins them as
    `path:line:column: detail` (see `located`). Code reads the fields, never the message.
    `missing` marks a thing named that does not exist (a file, a track, a game). A detail given as
    Words (timekeeper.i18n.Said) keeps them as `said`: a page says the detail in its language.
    """

    exit_code = ExitStatus.ERROR

    def __init__(self, detail: str | Words, *, path: str | None = None, line: int = 0, column: int = 0,
                 missing: bool = False) -> None:
        self.said: Words | None = None if isinstance(detail, str) else detail
        self.detail, self.path, self.line, self.column, self.missing = str(detail), path, line, column, missing
        super().__init__(located(self.detail, path, line, column))


def place(path: str, line: int = 0, column: int = 0) -> str:
    """Where something is, as far as known: `path:line:column`, `path:line` or `path`."""
    return ":".join([path, *([str(line)] if line else []), *([str(column)] if line and column else [])])


def located(detail: str, path: str | None = None, line: int = 0, column: int = 0) -> str:
    """`detail` led by its place (`path:line:column: detail`); just `detail` without a path."""
    return detail if path is None else f"{place(path, line, column)}: {detail}"


class ScenarioError(TimekeeperError):
    """A scenario file (or built-in name) that cannot be read or is not valid.

    `lines` are the separate problems the message lists, one a line (one problem: the detail), in
    English; `lines_said` the words of each, where it has them (a page says them in its language).
    """

    exit_code = ExitStatus.INVALID_SCENARIO

    def __init__(self, detail: str | Words, *, lines: Sequence[str | Words] = (), **where: Any) -> None:
        super().__init__(detail, **where)
        self.lines = tuple(str(line) for line in lines) or (self.detail,)
        self.lines_said: tuple[Words | None, ...] = tuple(None if isinstance(line, str) else line for line in lines) or (
            self.said,)

    @classmethod
    def listing(cls, lines: Sequence[str | Words], **where: Any) -> ScenarioError:
        """One error for several problems, one a line; `where` (path, line, column) leads the first."""
        if len(lines) == 1:
            return cls(lines[0], **where)
        return cls("\n".join(str(line) for line in lines), lines=lines, **where)


class VoiceError(TimekeeperError):
    """A voice, TTS engine or voice pack that cannot be used."""

    exit_code = ExitStatus.VOICE


class RenderError(TimekeeperError):
    """Audio could not be mixed, encoded or written."""

    exit_code = ExitStatus.RENDER


class PlaybackError(TimekeeperError):
    """Live playback failed: no sound device, or the device went away."""

    exit_code = ExitStatus.PLAYBACK


class OutputError(TimekeeperError):
    """An output cannot be written: no such folder, read-only, disk full, or a target that must not
    be replaced (a device, a pipe, a folder, or the command's own input)."""

    exit_code = ExitStatus.OUTPUT

    @classmethod
    def cannot_write(cls, path: object, failure: BaseException | str, what: str = "") -> OutputError:
        """The one "cannot write" error: `path: cannot write[ what]: reason` (an OSError's strerror)."""
        return cls(f"cannot write{' ' + what if what else ''}: {_reason(failure)}", path=str(path))

    @classmethod
    def cannot_create(cls, folder: object, failure: BaseException | str, what: str = "the folder") -> OutputError:
        """A folder for the output cannot be made: `folder: cannot create what: reason`."""
        return cls(f"cannot create {what}: {_reason(failure)}", path=str(folder))


def _reason(failure: BaseException | str) -> str:
    """Why a write failed, in words: an OSError's strerror (without the errno and file name)."""
    return failure if isinstance(failure, str) else getattr(failure, "strerror", None) or str(failure)


class EnvironmentVariableError(TimekeeperError):
    """A documented environment variable (TIMEKEEPER_TTS_ENGINE, TIMEKEEPER_DEFAULT_VOICE, ...) holds a
    value timekeeper cannot use: `variable: detail`, the detail saying what was expected."""

    exit_code = ExitStatus.ENVIRONMENT

    def __init__(self, variable: str, detail: str) -> None:
        super().__init__(detail, path=variable)
        self.variable = variable


class MissingToolError(TimekeeperError):
    """A program or library a job needs is not installed (a speech engine, Piper, matplotlib)."""

    exit_code = ExitStatus.MISSING_TOOL


class LogEntryError(TimekeeperError):
    """A ship's log entry (mission, campaign step, imported row) with a bad value; nothing is stored.

    `problems` maps each bad field (the form field name) to what was expected, for forms that mark
    the fields; the message lists them all. `problems_said` keeps those given as Words (a page says
    them in its language).
    """

    exit_code = ExitStatus.INVALID_LOG_ENTRY

    def __init__(self, detail: str | Words, problems: Mapping[str, str | Words] | None = None, **where: Any) -> None:
        super().__init__(detail, **where)
        given = dict(problems or {})
        self.problems = {field: str(problem) for field, problem in given.items()}
        self.problems_said = {field: problem for field, problem in given.items() if not isinstance(problem, str)}


class AlreadyRecorded(LogEntryError):
    """A game of `timekeeper serve` already has its mission in the log (`entry_id`); nothing is stored."""

    def __init__(self, game: str, entry_id: int) -> None:
        super().__init__(f"already recorded in the ship's log as mission #{entry_id}",
                         {"game": "already recorded"}, path=f"game {game}")
        self.game, self.entry_id = game, entry_id


class LogDatabaseError(TimekeeperError):
    """The ship's log database cannot be used (damaged, from a newer timekeeper, locked); it is left as it is."""

    exit_code = ExitStatus.LOG_DATABASE
