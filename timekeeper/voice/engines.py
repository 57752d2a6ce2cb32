"""Speech engines behind one small interface: the espeak-ng program, or pyttsx3.

On Linux the espeak-ng program is used when it is installed: it gives byte-identical audio for
the same text and settings, so shipped phrase lengths stay exact. pyttsx3 (SAPI5 on Windows,
NSSpeech on macOS, espeak through its driver elsewhere) is used otherwise, or when
TIMEKEEPER_TTS_ENGINE=pyttsx3. Its driver for espeak speaks the first phrases after a voice
switch at the previous pace, now and then writes an empty file, ignores unknown voices and
prints to stdout; the Pyttsx3Engine works around each of these.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from timekeeper.errors import MissingToolError, VoiceError

INSTALL_HINT = "install it with 'sudo apt-get install espeak-ng' (Debian/Ubuntu) or 'pip install pyttsx3' (other systems)"
WAV_HEADER_BYTES = 44
SYNTH_ATTEMPTS = 3
WARM_UP_UTTERANCES = 2


@dataclass(frozen=True)
class InstalledVoice:
    id: str
    name: str
    languages: tuple[str, ...]


class Engine(ABC):
    """Turns text into a WAV file with a given voice, rate (words per minute) and volume (0-1)."""

    name: str  # engine and version; part of the clip cache key

    @abstractmethod
    def voices(self) -> list[InstalledVoice]: ...

    @abstractmethod
    def synthesize(self, text: str, voice_id: str, rate_wpm: int, volume: float, path: Path) -> None: ...

    def resolve(self, wanted: str) -> str:
        """The engine's id for `wanted` (an id, an id's last part "en-us", a name or a language tag)."""
        voices = self.voices()
        lowered = wanted.lower()
        for match in (
            lambda v: v.id == wanted,
            lambda v: v.id.lower().rsplit("/", 1)[-1] == lowered,
            lambda v: v.name.lower() == lowered,
            lambda v: lowered in [lang.lower() for lang in v.languages],
        ):
            for voice in voices:
                if match(voice):
                    return voice.id
        problem = getattr(self, "listing_problem", "")
        if problem:  # the engine itself failed: say so, not "unknown voice"
            raise VoiceError(f"{self.name} could not list its voices ({problem}), so voice {wanted!r} was not found")
        raise VoiceError(f"unknown TTS voice {wanted!r}; 'timekeeper voices' lists the installed ones")


class EspeakCli(Engine):
    """The espeak-ng program, one process per phrase (about 10 ms each)."""

    def __init__(self, program: str) -> None:
        self.program = program
        self.name = espeak_name(program)

    def voices(self) -> list[InstalledVoice]:
        done = subprocess.run([self.program, "--voices"], capture_output=True, text=True)
        listing = done.stdout
        self.listing_problem = (done.stderr.strip().splitlines() or [""])[-1] or (
            f"exit status {done.returncode}" if done.returncode else "")
        found = []
        for line in listing.splitlines()[1:]:
            fields = line.split()
            if len(fields) >= 5:
                found.append(InstalledVoice(id=fields[4], name=fields[3], languages=(fields[1],)))
        return found

    def synthesize(self, text: str, voice_id: str, rate_wpm: int, volume: float, path: Path) -> None:
        command = [self.program, "-v", voice_id, "-s", str(rate_wpm), "-a", str(round(volume * 100)), "-w", str(path)]
        result = subprocess.run([*command, "--", text], capture_output=True, text=True)
        if result.returncode != 0:
            raise VoiceError(f"espeak-ng could not speak {text!r} with voice {voice_id!r}: {result.stderr.strip()}")


@cache
def espeak_name(program: str) -> str:
    """`espeak-ng-<version>` of the espeak-ng `program` (from its --version, about 10 ms; asked once
    per process, whether by the timing check of plan/validate/generate or by the engine itself)."""
    version = subprocess.run([program, "--version"], capture_output=True, text=True).stdout.split()
    return f"espeak-ng-{version[3] if len(version) > 3 else '?'}"


@contextlib.contextmanager
def quiet_stdout() -> Iterator[None]:
    """Silence what an engine prints (pyttsx3 prints "Audio saved to ...")."""
    from timekeeper.quiet import silenced

    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink), silenced(1):
        yield


class Pyttsx3Engine(Engine):
    """pyttsx3 with its pitfalls handled (see the module docstring)."""

    def __init__(self) -> None:
        try:
            import pyttsx3
        except ImportError as error:
            raise MissingToolError(f"the speech synthesizer pyttsx3 is not installed; {INSTALL_HINT}") from error
        try:
            with quiet_stdout():
                self.engine: Any = pyttsx3.init()  # kept for the process: a dropped engine unhooks espeak
        except Exception as error:  # the drivers raise OSError/RuntimeError/ImportError without a backend
            raise MissingToolError(f"no speech engine found ({error}); {INSTALL_HINT}") from error
        self.name = pyttsx3_name()
        self._settings: tuple[str, int, float] | None = None

    def voices(self) -> list[InstalledVoice]:
        found = []
        for voice in self.engine.getProperty("voices"):
            languages = tuple(
                lang.decode("ascii", "replace") if isinstance(lang, bytes) else str(lang) for lang in voice.languages or ()
            )
            found.append(InstalledVoice(str(voice.id), str(voice.name), languages))
        return found

    def _say(self, text: str, path: Path) -> None:
        with quiet_stdout():
            self.engine.save_to_file(text, str(path))
            self.engine.runAndWait()  # one file per loop: batching loses all but the last file

    def _select(self, voice_id: str, rate_wpm: int, volume: float) -> None:
        if self._settings == (voice_id, rate_wpm, volume):
            return
        with quiet_stdout():
            self.engine.setProperty("voice", voice_id)
            self.engine.setProperty("rate", rate_wpm)
            self.engine.setProperty("volume", volume)
        with tempfile.TemporaryDirectory() as scratch:
            for _ in range(WARM_UP_UTTERANCES):  # the next phrases get the new pace
                self._say("one two three.", Path(scratch) / "warm-up.wav")
        if str(self.engine.getProperty("voice")).lower() != voice_id.lower():  # pyttsx3 ignores bad voices
            raise VoiceError(f"the TTS engine ignored voice {voice_id!r}")
        self._settings = (voice_id, rate_wpm, volume)

    def synthesize(self, text: str, voice_id: str, rate_wpm: int, volume: float, path: Path) -> None:
        self._select(voice_id, rate_wpm, volume)
        for _attempt in range(SYNTH_ATTEMPTS):  # the espeak driver now and then writes nothing
            self._say(text, path)
            if path.is_file() and path.stat().st_size > WAV_HEADER_BYTES:
                return
        raise VoiceError(f"the TTS engine produced no audio for {text!r} (voice {voice_id!r})")


def pyttsx3_name() -> str:
    """`pyttsx3-<version>-<driver>` (the driver this system's pyttsx3 speaks through)."""
    import importlib.metadata

    try:
        version = importlib.metadata.version("pyttsx3")
    except importlib.metadata.PackageNotFoundError as error:
        raise MissingToolError(f"the speech synthesizer pyttsx3 is not installed; {INSTALL_HINT}") from error
    driver = {"win32": "sapi5", "darwin": "nsss"}.get(sys.platform, "espeak")
    return f"pyttsx3-{version}-{driver}"


ENGINES = ("espeak-ng", "pyttsx3")


def _espeak_program(choice: str | None) -> str | None:
    """The espeak-ng program the engine named by `choice` or $TIMEKEEPER_TTS_ENGINE runs, else
    None (pyttsx3): espeak-ng if installed, unless pyttsx3 is asked for."""
    choice = choice or os.environ.get("TIMEKEEPER_TTS_ENGINE") or None
    if choice not in (None, *ENGINES):
        raise VoiceError(f"unknown TTS engine {choice!r} (expected {' or '.join(ENGINES)})")
    program = shutil.which("espeak-ng")
    if choice == "espeak-ng" and program is None:
        raise MissingToolError(f"espeak-ng is not installed; {INSTALL_HINT}")
    return program if choice != "pyttsx3" else None


@cache
def get_engine(choice: str | None = None) -> Engine:
    """The engine named by `choice` or $TIMEKEEPER_TTS_ENGINE, else espeak-ng if installed, else pyttsx3."""
    program = _espeak_program(choice)
    return EspeakCli(program) if program is not None else Pyttsx3Engine()


def engine_name(choice: str | None = None) -> str:
    """The name of the engine get_engine(choice) gives, found without starting a speech engine."""
    program = _espeak_program(choice)
    return espeak_name(program) if program is not None else pyttsx3_name()
