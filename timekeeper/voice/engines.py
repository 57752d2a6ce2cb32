"""Speech engines behind one small interface: espeak-ng (its library from the `espeakng-loader`
wheel, else the espeak-ng program), or pyttsx3.

On Linux the espeak-ng library that `pip install` brings (the `espeakng-loader` wheel: the
library and its data, no system package) is used, each sentence in a fork of this process: it gives byte-identical audio
for the same text and settings, so the shipped phrase lengths (measured with it) stay exact.
Without the wheel an installed espeak-ng program is used. pyttsx3 (SAPI5 on Windows, NSSpeech on
macOS, espeak through its driver elsewhere) is used otherwise, or when TIMEKEEPER_TTS_ENGINE=pyttsx3.
Its driver for espeak speaks the first phrases after a voice
switch at the previous pace, now and then writes an empty file, ignores unknown voices and
prints to stdout; the Pyttsx3Engine works around each of these.
"""

from __future__ import annotations

import contextlib
import ctypes
import itertools
import os
import shutil
import sys
import threading
import wave
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from timekeeper.environment import TTS_ENGINES, check_tts_engine, current
from timekeeper.errors import MissingToolError, VoiceError
from timekeeper.files.stopping import forked, run_child, scratch_folder, waited

INSTALL_HINT = "install it with 'pip install espeakng-loader' (Linux) or 'pip install pyttsx3' (other systems)"
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
        done = run_child([self.program, "--voices"])
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
        result = run_child([*command, "--", text])
        if result.returncode != 0:
            raise VoiceError(f"espeak-ng could not speak {text!r} with voice {voice_id!r}: {result.stderr.strip()}")


@cache
def espeak_name(program: str) -> str:
    """`espeak-ng-<version>` of the espeak-ng `program` (from its --version, about 10 ms; asked once
    per process, whether by the timing check of plan/validate/generate or by the engine itself)."""
    version = run_child([program, "--version"]).stdout.split()
    return f"espeak-ng-{version[3] if len(version) > 3 else '?'}"


class EspeakLibrary(Engine):
    """The espeak-ng library (libespeak-ng) driven through ctypes. The library keeps state from one
    utterance to the next (the same text comes out a few samples longer or shorter after other
    speech), so each sentence is spoken in a forked child of this process, which loaded the
    library but never spoke: every sentence starts from the same state, as with a fresh espeak-ng
    program, and the same text always gives the same samples. A fork costs a few ms; children
    run side by side (Linux only: the wheel is installed on Linux)."""

    SYNCHRONOUS = 2  # AUDIO_OUTPUT_SYNCHRONOUS: espeak_Synth returns when the callback has all samples
    RATE, VOLUME = 1, 2  # espeak_PARAMETER
    FLAGS = 0x1 | 0x100 | 0x1000  # espeakCHARS_UTF8 | espeakPHONEMES | espeakENDPAUSE, as the program speaks
    CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int, ctypes.c_void_p)

    class Voice(ctypes.Structure):
        _fields_ = [("name", ctypes.c_char_p), ("languages", ctypes.c_char_p), ("identifier", ctypes.c_char_p),
                    ("gender", ctypes.c_ubyte), ("age", ctypes.c_ubyte), ("variant", ctypes.c_ubyte),
                    ("xx1", ctypes.c_ubyte), ("score", ctypes.c_int), ("spare", ctypes.c_void_p)]

    def __init__(self, library: Path, data: Path) -> None:
        self.lib = ctypes.CDLL(str(library))
        self.lib.espeak_Info.restype = ctypes.c_char_p
        self.lib.espeak_ListVoices.restype = ctypes.POINTER(ctypes.POINTER(self.Voice))
        self.lib.espeak_SetVoiceByName.argtypes = [ctypes.c_char_p]
        self.lib.espeak_SetParameter.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int]  # (each function is
        # looked up here, in the parent: a child forked while another thread loads a library must not look one up)
        self.lib.espeak_Synth.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint, ctypes.c_int, ctypes.c_uint,
                                          ctypes.c_uint, ctypes.c_void_p, ctypes.c_void_p]
        self.sample_rate = self.lib.espeak_Initialize(self.SYNCHRONOUS, 0, str(data.parent).encode(), 0)
        if self.sample_rate <= 0:
            raise MissingToolError(f"the espeak-ng library could not start (its data in {data}); {INSTALL_HINT}")
        self.name = f"espeak-ng-{self.lib.espeak_Info(None).decode()}"
        self._samples: list[bytes] = []
        self._callback = self.CALLBACK(self._heard)  # kept: the library calls it back
        self.lib.espeak_SetSynthCallback(self._callback)
        self._lock = threading.Lock()

    def _heard(self, wav: Any, count: int, _events: Any) -> int:
        if count > 0:
            self._samples.append(ctypes.string_at(wav, count * 2))
        return 0

    def voices(self) -> list[InstalledVoice]:
        found = []
        with self._lock:
            listing = self.lib.espeak_ListVoices(None)
            for index in itertools.count():
                if not listing[index]:
                    break
                voice = listing[index].contents
                language = (voice.languages or b"?")[1:].decode("utf-8", "replace")  # after its priority byte
                found.append(InstalledVoice(id=voice.identifier.decode(), name=voice.name.decode(), languages=(language,)))
        return found

    def synthesize(self, text: str, voice_id: str, rate_wpm: int, volume: float, path: Path) -> None:
        with self._lock:  # one fork at a time
            child = forked()
        if child == 0:  # the child speaks from the library's state right after loading, then exits
            os._exit(self._speak_into(text, voice_id, rate_wpm, volume, path))
        code = waited(child)  # (a stop ends it at once)
        if code != 0:
            raise VoiceError(f"espeak-ng could not speak {text!r} with voice {voice_id!r} (exit status {code})")

    def _speak_into(self, text: str, voice_id: str, rate_wpm: int, volume: float, path: Path) -> int:
        """In a child process: speak `text` into the WAV file `path`; the child's exit status."""
        try:
            spoken = text.encode("utf-8") + b"\0"
            failed = (self.lib.espeak_SetVoiceByName(voice_id.encode()) or self.lib.espeak_SetParameter(self.RATE, rate_wpm, 0)
                      or self.lib.espeak_SetParameter(self.VOLUME, round(volume * 100), 0)
                      or self.lib.espeak_Synth(spoken, len(spoken), 0, 1, 0, self.FLAGS, None, None))
            if failed:
                return 2
            with wave.open(str(path), "wb") as out:
                out.setnchannels(1)
                out.setsampwidth(2)
                out.setframerate(self.sample_rate)
                out.writeframes(b"".join(self._samples))
            return 0
        except BaseException:
            return 3


@cache
def espeak_library() -> EspeakLibrary:
    """The one EspeakLibrary of this process (a second would re-initialize the library under the first)."""
    found = espeak_wheel()
    if found is None:
        raise MissingToolError(f"espeak-ng is not installed; {INSTALL_HINT}")
    return EspeakLibrary(*found)


def espeak_wheel() -> tuple[Path, Path] | None:
    """(library, data folder) of the espeak-ng the `espeakng-loader` wheel ships, if installed."""
    try:
        import espeakng_loader
    except ImportError:
        return None
    library, data = Path(espeakng_loader.get_library_path()), Path(espeakng_loader.get_data_path())
    return (library, data) if library.is_file() and data.is_dir() else None


@contextlib.contextmanager
def quiet_stdout() -> Iterator[None]:
    """Silence what an engine prints (pyttsx3 prints "Audio saved to ...")."""
    from timekeeper.files.quiet import silenced

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
        with scratch_folder() as scratch:
            for _ in range(WARM_UP_UTTERANCES):  # the next phrases get the new pace
                self._say("one two three.", scratch / "warm-up.wav")
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


WHEEL = "wheel"  # _espeak_source's answer for the espeak-ng library of the espeakng-loader wheel


def _espeak_source(choice: str | None) -> str | None:
    """Where the espeak-ng the engine named by `choice` or $TIMEKEEPER_TTS_ENGINE comes from:
    WHEEL (the espeakng-loader library), else the espeak-ng program's path; None = pyttsx3
    (asked for, or no espeak-ng at all)."""
    if choice is None:
        choice = current().tts_engine
        if choice is not None:
            check_tts_engine(choice)  # (the variable's error, naming it)
    elif choice not in TTS_ENGINES:
        raise VoiceError(f"unknown TTS engine {choice!r} (expected {' or '.join(TTS_ENGINES)})")
    if choice == "pyttsx3":
        return None
    source = WHEEL if espeak_wheel() is not None else shutil.which("espeak-ng")
    if choice == "espeak-ng" and source is None:
        raise MissingToolError(f"espeak-ng is not installed; {INSTALL_HINT}")
    return source


@cache
def get_engine(choice: str | None = None) -> Engine:
    """The engine named by `choice` or $TIMEKEEPER_TTS_ENGINE, else espeak-ng (the wheel's library,
    else the program) if installed, else pyttsx3."""
    source = _espeak_source(choice)
    if source == WHEEL:
        return espeak_library()
    return EspeakCli(source) if source is not None else Pyttsx3Engine()


def engine_name(choice: str | None = None) -> str:
    """The name of the engine get_engine(choice) gives (the espeak-ng library's version is asked of
    the library itself: about 20 ms, no speech)."""
    source = _espeak_source(choice)
    if source == WHEEL:
        return espeak_library().name
    return espeak_name(source) if source is not None else pyttsx3_name()
