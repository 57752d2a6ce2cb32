"""The one error family of timekeeper, and the exit codes the command line returns."""

from __future__ import annotations

from enum import IntEnum
from typing import Any

import click


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
    INTERRUPTED = 130
    PIPE_CLOSED = 141
    TERMINATED = 143


class Terminated(KeyboardInterrupt):
    """SIGTERM (or SIGHUP: the terminal closed) arrived: raised in the main thread so every `finally` (temporary files, ffmpeg, the
    sound device, the terminal) is cleaned up as for Ctrl-C; the process exits 143."""


class TimekeeperError(click.ClickException):
    """An error a user can act on; click prints `Error: message` and exits with `exit_code`.

    Where it is known, the error says where the problem is as fields: `path` (a file or the name
    of what was read), `line` and `column` (1-based; 0 = unknown), and `detail`, the message
    without the place; `message` joins them as `path:line:column: detail` (see `located`).
    `missing` marks a thing named that does not exist (a file, a track, a game).
    """

    exit_code = ExitStatus.ERROR

    def __init__(self, detail: str, *, path: str | None = None, line: int = 0, column: int = 0,
                 missing: bool = False) -> None:
        self.detail, self.path, self.line, self.column, self.missing = detail, path, line, column, missing
        super().__init__(located(detail, path, line, column))


def located(detail: str, path: str | None = None, line: int = 0, column: int = 0) -> str:
    """`detail` led by its place: `path:line:column: `, `path:line: ` or `path: ` as far as known."""
    if path is None:
        return detail
    place = ":".join([path, *([str(line)] if line else []), *([str(column)] if line and column else [])])
    return f"{place}: {detail}"


class ScenarioError(TimekeeperError):
    """A scenario file (or built-in name) that cannot be read or is not valid."""

    exit_code = ExitStatus.INVALID_SCENARIO


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
        reason = failure if isinstance(failure, str) else getattr(failure, "strerror", None) or str(failure)
        return cls(f"cannot write{' ' + what if what else ''}: {reason}", path=str(path))


class MissingToolError(TimekeeperError):
    """An external program (ffmpeg, espeak-ng) is not installed."""

    exit_code = ExitStatus.MISSING_TOOL


class LogEntryError(TimekeeperError):
    """A ship's log entry (mission, campaign step, imported row) with a bad value; nothing is stored.

    `problems` maps each bad field (the form field name) to what was expected, for forms that mark
    the fields; the message lists them all.
    """

    exit_code = ExitStatus.INVALID_LOG_ENTRY

    def __init__(self, detail: str, problems: dict[str, str] | None = None, **place: Any) -> None:
        super().__init__(detail, **place)
        self.problems = dict(problems or {})


class LogDatabaseError(TimekeeperError):
    """The ship's log database cannot be used (damaged, from a newer timekeeper, locked); it is left as it is."""

    exit_code = ExitStatus.LOG_DATABASE
