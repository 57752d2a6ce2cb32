"""The world outside the program that timekeeper reads: its folders and engines, from the
environment variables, read in this one module, and the streams a command talks through.

`Environment.from_mapping(os.environ)` builds the frozen `Environment` once; library modules ask
`current()` for their folders and engines instead of reading variables themselves:

- a front door installs one for the work it starts: `with using(environment):` (a context
  variable, so in-process runs, one after another or nested, each see their own), and
  `process_wide(environment)` for a server whose worker threads (which start with an empty
  context) must see the same one;
- with none installed, `current()` is built from `os.environ` as it is now (one build for each
  distinct set of the variables below), so programs that embed timekeeper and the tests, which set
  a variable and then call a library function, keep working unchanged.

The variables (README.md and docs/ describe them for users):
TIMEKEEPER_CACHE (else $XDG_CACHE_HOME/timekeeper, else ~/.cache/timekeeper): the clip cache;
TIMEKEEPER_DATA (else $XDG_DATA_HOME/timekeeper, else ~/.local/share/timekeeper): the ship's log's
folder, and TIMEKEEPER_LOG the log file itself; TIMEKEEPER_STATE (else
$XDG_STATE_HOME/timekeeper/serve, else ~/.local/state/timekeeper/serve): the server's state;
TIMEKEEPER_VOICES (else $XDG_DATA_HOME/timekeeper/voices): voice packs; TIMEKEEPER_PIPER_VOICES
(else $XDG_DATA_HOME/timekeeper/piper): installed Piper voices; TIMEKEEPER_TTS_ENGINE (espeak-ng or
pyttsx3), TIMEKEEPER_DEFAULT_VOICE (a --voice value, or "synthesized") and TIMEKEEPER_PIPER_URL (where
`voice install` downloads from: an http, https or file URL). An empty variable counts as unset; an
XDG folder that is not an absolute path is ignored, as the XDG Base Directory specification says.
A value timekeeper cannot use is an error naming the variable (EnvironmentVariableError, exit 11):
`Environment.check()` at the command line's front door for the engine, the URL and the folders (a
folder variable naming a file, or a path through one; TIMEKEEPER_LOG naming a folder; not the
clip cache, which is only warned about and done without), and where the
default voice is opened (voice/select.py) for TIMEKEEPER_DEFAULT_VOICE, whose voices only an
engine knows.

`Environment.streams` holds the standard input, output and error a command uses (the live screen,
the keys it reads, prompts, progress bars, `import -`). Left unset, each is the process's own at
the moment it is used (so redirections and click's test runner apply); `cli.main(argv, env)` given
an environment with streams of its own runs the whole command on them, click's output included.

A child program is given the environment of this process unchanged (subprocess's default), or
with a few variables changed (`for_child`: Piper gets its own temporary folder and no telemetry).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TextIO
from urllib.parse import urlsplit

from timekeeper.errors import EnvironmentVariableError

TTS_ENGINE_VARIABLE = "TIMEKEEPER_TTS_ENGINE"
TTS_ENGINES = ("espeak-ng", "pyttsx3")  # its values (unset: espeak-ng where installed, else pyttsx3)
PIPER_URL_VARIABLE = "TIMEKEEPER_PIPER_URL"
PIPER_URL_SCHEMES = ("https", "http", "file")
DEFAULT_VOICE_VARIABLE = "TIMEKEEPER_DEFAULT_VOICE"  # a --voice value, or "synthesized"
# (TIMEKEEPER_CACHE is not among them: a cache that cannot be used is warned about and done without)
FOLDER_VARIABLES = ("TIMEKEEPER_DATA", "TIMEKEEPER_STATE", "TIMEKEEPER_VOICES", "TIMEKEEPER_PIPER_VOICES")
LOG_VARIABLE = "TIMEKEEPER_LOG"  # a file

VARIABLES = (
    "TIMEKEEPER_CACHE", "TIMEKEEPER_DATA", "TIMEKEEPER_LOG", "TIMEKEEPER_STATE", "TIMEKEEPER_VOICES",
    "TIMEKEEPER_PIPER_VOICES", "TIMEKEEPER_TTS_ENGINE", "TIMEKEEPER_DEFAULT_VOICE", "TIMEKEEPER_PIPER_URL",
    "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "HOME",
)


@dataclass(frozen=True)
class Streams:
    """A command's standard input, output and error: the ones given, else (None) the process's own
    at the moment they are asked for."""

    given_stdin: TextIO | None = None
    given_stdout: TextIO | None = None
    given_stderr: TextIO | None = None

    @property
    def stdin(self) -> TextIO:
        return sys.stdin if self.given_stdin is None else self.given_stdin

    @property
    def stdout(self) -> TextIO:
        return sys.stdout if self.given_stdout is None else self.given_stdout

    @property
    def stderr(self) -> TextIO:
        return sys.stderr if self.given_stderr is None else self.given_stderr

    @property
    def any_given(self) -> bool:
        return any(stream is not None for stream in (self.given_stdin, self.given_stdout, self.given_stderr))


@dataclass(frozen=True)
class Environment:
    """Where timekeeper keeps its files and which engines it uses (see the module's docstring)."""

    cache: Path  # the clip cache (and the server's sound files and downloads below it)
    data: Path  # the ship's log's folder
    log: Path | None  # the ship's log file itself, when named (TIMEKEEPER_LOG)
    state: Path  # `timekeeper serve`'s state: tracks, games
    voice_packs: Path  # installed voice packs
    piper_voices: Path  # installed Piper voices
    tts_engine: str | None = None  # espeak-ng or pyttsx3 (None: espeak-ng if installed, else pyttsx3)
    default_voice: str | None = None  # a --voice value, or "synthesized" (None: the language's recommended)
    piper_url: str | None = None  # the Piper voice repository (None: voice/install.py's DEFAULT_URL)
    named_folders: tuple[tuple[str, Path], ...] = ()  # the folder variables set, and their paths (check())
    streams: Streams = field(default_factory=Streams)  # stdin, stdout, stderr (default: the process's)

    @classmethod
    def from_mapping(cls, variables: Mapping[str, str], streams: Streams | None = None) -> Environment:
        """The environment these variables describe (os.environ, or any mapping a test or caller
        gives), talking through `streams` (default: the process's own)."""

        def value(name: str) -> str | None:
            return variables.get(name) or None

        def folder(name: str) -> Path | None:
            found = value(name)
            if found and name.startswith("XDG_") and not Path(found).is_absolute():
                return None  # (the specification: a relative path is invalid and ignored)
            return Path(found) if found else None

        home = folder("HOME") or Path.home()
        xdg_data = folder("XDG_DATA_HOME") or home / ".local" / "share"
        data = folder("TIMEKEEPER_DATA") or xdg_data / "timekeeper"
        return cls(
            cache=folder("TIMEKEEPER_CACHE") or (folder("XDG_CACHE_HOME") or home / ".cache") / "timekeeper",
            data=data,
            log=folder("TIMEKEEPER_LOG"),
            state=folder("TIMEKEEPER_STATE") or (folder("XDG_STATE_HOME") or home / ".local" / "state") / "timekeeper" / "serve",
            voice_packs=folder("TIMEKEEPER_VOICES") or xdg_data / "timekeeper" / "voices",
            piper_voices=folder("TIMEKEEPER_PIPER_VOICES") or xdg_data / "timekeeper" / "piper",
            tts_engine=value("TIMEKEEPER_TTS_ENGINE"),
            default_voice=value("TIMEKEEPER_DEFAULT_VOICE"),
            piper_url=value("TIMEKEEPER_PIPER_URL"),
            named_folders=tuple((name, Path(found)) for name in (*FOLDER_VARIABLES, LOG_VARIABLE) if (found := value(name))),
            streams=streams or Streams(),
        )

    def check(self) -> None:
        """EnvironmentVariableError for a variable whose value cannot be used: an unknown
        TIMEKEEPER_TTS_ENGINE, a TIMEKEEPER_PIPER_URL that is not an http, https or file URL, a
        folder variable that names a file (or a path through one), TIMEKEEPER_LOG naming a folder."""
        for name, path in self.named_folders:
            check_folder(name, path, is_file=name == LOG_VARIABLE)
        if self.tts_engine is not None:
            check_tts_engine(self.tts_engine)
        if self.piper_url is not None:
            parts = urlsplit(self.piper_url)
            if parts.scheme not in PIPER_URL_SCHEMES or (parts.scheme != "file" and not parts.netloc):
                raise EnvironmentVariableError(
                    PIPER_URL_VARIABLE, f"{self.piper_url[:100]!r} is not a URL of a Piper voice repository (expected "
                    "https://HOST/PATH, http://HOST/PATH or file:///FOLDER; unset: Piper's own repository)")


def check_folder(variable: str, path: Path, is_file: bool = False) -> None:
    """EnvironmentVariableError unless `path` (`variable`'s value) can be the folder it names (or,
    `is_file`, the file): what exists of it is a folder (a file, for the file itself); a path not
    made yet is made when it is first written."""
    expected = "a file timekeeper may create, not a folder" if is_file else "a folder timekeeper may create"
    if path.exists():
        if path.is_dir() == is_file:
            raise EnvironmentVariableError(variable, f"{str(path)[:200]} is {'a folder' if is_file else 'a file'} "
                                                     f"(expected {expected})")
        return
    for above in path.parents:
        if above.exists():
            if not above.is_dir():
                raise EnvironmentVariableError(variable, f"{str(path)[:200]}: {above} is a file, not a folder "
                                                         f"(expected {expected})")
            return


def check_tts_engine(name: str) -> None:
    """EnvironmentVariableError unless `name` (TIMEKEEPER_TTS_ENGINE's value) is a known engine."""
    if name not in TTS_ENGINES:
        raise EnvironmentVariableError(
            TTS_ENGINE_VARIABLE, f"unknown speech engine {name[:100]!r} (expected {' or '.join(TTS_ENGINES)}; "
            "unset: espeak-ng where installed, else pyttsx3)")


def for_child(**changes: str) -> dict[str, str]:
    """The variables of a child program: this process's, with `changes` set."""
    return {**os.environ, **changes}


_installed: ContextVar[Environment | None] = ContextVar("timekeeper_environment", default=None)
_process_wide: Environment | None = None


def current() -> Environment:
    """The environment in use: the one installed for this context, else the process-wide one, else
    the process's variables as they are now."""
    chosen = _installed.get() or _process_wide
    if chosen is not None:
        return chosen
    return _from_variables(tuple((name, os.environ.get(name, "")) for name in VARIABLES))


@lru_cache(maxsize=8)
def _from_variables(variables: tuple[tuple[str, str], ...]) -> Environment:
    return Environment.from_mapping(dict(variables))


@contextmanager
def using(environment: Environment) -> Iterator[Environment]:
    """`environment` is current() in this context (and the tasks and to_thread calls it starts) until the block ends."""
    token = _installed.set(environment)
    try:
        yield environment
    finally:
        _installed.reset(token)


@contextmanager
def process_wide(environment: Environment) -> Iterator[Environment]:
    """`environment` is current() in every thread of the process (a server's worker pools) until
    the block ends, unless a context installs its own."""
    global _process_wide
    before, _process_wide = _process_wide, environment
    try:
        yield environment
    finally:
        _process_wide = before
