"""The `timekeeper` command line: a click group whose commands are imported only when used."""

from __future__ import annotations

import contextlib
import errno
import importlib
import importlib.util
import io
import os
import re
import signal
import sys
from collections.abc import Iterator

import click

from timekeeper import __version__
from timekeeper.commands.groups import SuggestingGroup
from timekeeper.environment import Environment, Streams, current, using
from timekeeper.errors import ExitStatus, OutputError, Terminated, TimekeeperError
from timekeeper.files import stopping

# command name -> "module:attribute" of a click command in timekeeper.commands
COMMANDS = {
    "list": "timekeeper.commands.catalog:list_command",
    "show": "timekeeper.commands.catalog:show_command",
    "validate": "timekeeper.commands.validate:validate_command",
    "schema": "timekeeper.commands.validate:schema_command",
    "plan": "timekeeper.commands.render:plan_command",
    "render": "timekeeper.commands.render:render_command",
    "voices": "timekeeper.commands.voices:voices_command",
    "voice": "timekeeper.commands.voices:voice_group",
    "live": "timekeeper.commands.live:live_command",
    "generate": "timekeeper.commands.generate:generate_command",
    "stats": "timekeeper.commands.generate:stats_command",
    "card": "timekeeper.commands.cards:card_command",
    "import": "timekeeper.commands.flashcode:import_command",
    "export": "timekeeper.commands.flashcode:export_command",
    "serve": "timekeeper.commands.serve:serve_command",
    "log": "timekeeper.commands.shiplog:log_group",
}


class PipeClosed(Exception):
    """The reader of stdout went away (`| head -1`); main() returns 141 quietly."""


class LazyGroup(SuggestingGroup):
    """Lists every command but imports a command's module only when that command runs."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [name for name in COMMANDS if self._available(name)]

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        target = COMMANDS.get(name)
        if target is None or not self._available(name):
            return None
        module_name, attribute = target.split(":")
        return getattr(importlib.import_module(module_name), attribute)

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except BrokenPipeError as error:  # click would swallow it and exit 0
            raise PipeClosed() from error

    @staticmethod
    def _available(name: str) -> bool:
        module_name = COMMANDS[name].split(":")[0]
        return importlib.util.find_spec(module_name) is not None


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="timekeeper")
@click.option("--debug", is_flag=True, help="Show a full traceback on errors.")
def cli(debug: bool) -> None:
    """timekeeper: the soundtrack, timekeeper and scenario cards for Space Alert.

    \b
    Examples:
      timekeeper list
      timekeeper show mission-3 --lang de
      timekeeper render mission-1 -o mission-1.mp3
      timekeeper live mission-5
    """
    # --debug is read where it is used: main() re-raises with it, `serve` reads the root context's params
    # the environment is read once for the command (main(argv, env) may have installed one already)
    environment = current()
    environment.check()  # a variable with a value that cannot be used: exit 11, naming it
    click.get_current_context().with_resource(using(environment))


_FULL = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO}


def _quiet_stdout() -> None:
    """After the reader of stdout went away: point stdout at /dev/null so the final flush is quiet."""
    with contextlib.suppress(OSError, ValueError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)


def main(argv: list[str] | None = None, env: Environment | None = None) -> int:
    """Run the group on `argv` (default: the command line) in the environment `env` (its folders,
    engines and streams; default: built from this process) and return the exit status (the
    `timekeeper` program and `python -m timekeeper` exit with it: see __main__.run). Ctrl-C gives
    130, SIGHUP 129 and SIGTERM 143, each after cleaning up (no temporary file is left, no child
    process runs on: files/stopping.py); a closed stdout (`| head -1`) ends the command quietly
    with 141, a full one (`> /dev/full`) with 10."""
    if env is not None:
        with using(env), _talking_through(env.streams):
            return main(argv)
    args = sys.argv[1:] if argv is None else argv
    undecodable = _undecodable_argument(args)
    if undecodable is not None:
        return _fail(undecodable)
    with stopping.handling():  # (in the main thread; a caller in the same process, a test, gets its own handlers back)
        return _run_group(args)


@contextlib.contextmanager
def _talking_through(streams: Streams) -> Iterator[None]:
    """click's own output, prompts and reads on the streams given in `streams` while the block runs
    (the process's streams are left as they are when none is given)."""
    if not streams.any_given:
        yield
        return
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = streams.stdin, streams.stdout, streams.stderr
    try:
        yield
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved


def _run_group(args: list[str]) -> int:
    """The group's exit status on `args`, every failure printed as one line (see main)."""
    try:
        status = cli.main(args=args, prog_name="timekeeper", standalone_mode=False)
    except (click.exceptions.Abort, KeyboardInterrupt) as stop:  # click turns Ctrl-C into Abort
        terminated = isinstance(stop, Terminated) or isinstance(stop.__cause__, Terminated)
        return _stopped(stopping.requested() or (signal.SIGTERM if terminated else signal.SIGINT))
    except Exception as error:
        signum = stopping.requested()
        if signum is not None:  # a failure the stop caused (a speech engine it ended): the stop is the news
            return _stopped(signum)
        return _failed(error, args)
    signum = stopping.requested()
    if signum is not None:  # the stop landed where Python drops exceptions (a __del__, a callback)
        return _stopped(signum, said=status == stopping.status_of(signum))
    return status if isinstance(status, int) else ExitStatus.SUCCESS


STOP_WORDS = {ExitStatus.INTERRUPTED: "Interrupted.", ExitStatus.HUNG_UP: "Hung up.", ExitStatus.TERMINATED: "Terminated."}


def _stopped(signum: int, said: bool = False) -> int:
    """The exit status of a command stopped by `signum`, after saying so (unless the command `said`
    it already: live's "Stopped at ..."); a later signal no longer interrupts."""
    stopping.settle()
    status = stopping.status_of(signum)
    if not said:
        _echo_err(STOP_WORDS.get(status, "Terminated."))
    return status


def _failed(error: Exception, args: list[str]) -> int:
    """The exit status of a command that raised `error`, printed as one line."""
    if isinstance(error, (BrokenPipeError, PipeClosed)):
        _quiet_stdout()
        return ExitStatus.PIPE_CLOSED
    if isinstance(error, click.ClickException):
        return _fail(error, args)
    if isinstance(error, OSError):  # a system failure no command foresaw: still one line naming the file
        if "--debug" in args:
            raise error
        if error.filename is None and error.errno in _FULL:  # printing to a full disk (`> /dev/full`)
            _quiet_stdout()
            return _fail(OutputError.cannot_write("<stdout>", error), args)
        return _fail(TimekeeperError(error.strerror or str(error), path=str(error.filename)[:200] if error.filename else None),
                     args)
    if "--debug" in args:  # a bug: one line unless the user asked for the traceback
        raise error
    _echo_err(f"Error: internal error: {type(error).__name__}: {error} (run with --debug for details)")
    return ExitStatus.ERROR


_SURROGATE = re.compile("[\ud800-\udfff]")  # what Python makes of command-line bytes that are not UTF-8
MAX_SHOWN_ARGUMENT = 60  # characters of a refused argument the message repeats


def _undecodable_argument(args: list[str]) -> click.UsageError | None:
    """A usage error naming the first argument that holds bytes that are not UTF-8 (a title, a name,
    a file name): no output could write it, so it is refused before any command runs."""
    for index, argument in enumerate(args):
        if not _SURROGATE.search(argument):
            continue
        option, _, value = argument.partition("=") if argument.startswith("--") and "=" in argument else ("", "", argument)
        if not option and index and args[index - 1].startswith("-") and args[index - 1] != "--":
            option = args[index - 1]
        shown = _as_bytes(value)
        if len(shown) > MAX_SHOWN_ARGUMENT:
            shown = shown[:MAX_SHOWN_ARGUMENT] + "..."
        return click.UsageError(f"{option + ' ' if option else ''}'{shown}': holds bytes that are not UTF-8 (shown as \\xNN); "
                                "give text and file names in UTF-8")
    return None


def _as_bytes(argument: str) -> str:
    """`argument` with each byte that was not UTF-8 shown as \\xNN (any other lone surrogate as \\udNNN)."""
    try:
        raw = argument.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        raw = argument.encode("utf-8", "backslashreplace")
    return raw.decode("utf-8", "backslashreplace")


MAX_ECHOED_ARGUMENT = 200  # a longer argument is shortened where an error message repeats it
KEPT_OF_ECHOED_ARGUMENT = 20


def _shortened(text: str, args: list[str]) -> str:
    """`text` with every argument longer than MAX_ECHOED_ARGUMENT that it repeats (a 5,000-digit seed,
    a 5,000-character file name) cut to its first characters and '...'."""
    for argument in args:
        value = argument.partition("=")[2] if argument.startswith("--") else ""
        for long in (argument, value):
            if len(long) > MAX_ECHOED_ARGUMENT and long in text:
                text = text.replace(long, long[:KEPT_OF_ECHOED_ARGUMENT] + "...")
    return text


def _fail(error: click.ClickException, args: list[str] | None = None) -> int:
    """Print `error` as `Error: message` (usage errors with their usage line), with the arguments
    `args` it repeats shortened; its exit code."""
    shown = io.StringIO()
    error.show(file=shown)
    _echo_err(_shortened(shown.getvalue(), args or []), nl=False)
    return error.exit_code


def _echo_err(text: str, nl: bool = True) -> None:
    with contextlib.suppress(OSError, ValueError):
        click.echo(text, err=True, nl=nl)


__all__ = ["cli", "main", "TimekeeperError"]
