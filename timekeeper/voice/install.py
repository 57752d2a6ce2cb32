"""`timekeeper voice install`: fetch a Piper voice from the public voice repository into piper_dir().

The repository keeps each voice as `<family>/<family>_<REGION>/<name>/<quality>/<voice>.onnx`
plus its `.onnx.json`. $TIMEKEEPER_PIPER_URL (or `--from`) points at another copy of that layout,
such as a mirror or a local folder (`file:///...`). Files are written under temporary names and
moved into place only when complete (as many bytes as the server announced, the recorded sha256
if there is one) and readable, so an interrupted or short download leaves nothing. What was
installed (size, sha256, source, licence) is kept in `<name>.install.json` beside the voice; a
second install of the same voice finds it intact and downloads nothing.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import re
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from timekeeper.audio.pcm import Progress
from timekeeper.environment import current
from timekeeper.errors import OutputError, VoiceError
from timekeeper.files.atomicfile import replacing
from timekeeper.voice.neural import NeuralModel, piper_dir
from timekeeper.voice.recommended import RECOMMENDED

DEFAULT_URL = "https://huggingface.co/rhasspy/piper-voices/resolve/main"
VOICE_NAME = re.compile(r"^(?P<family>[a-z]{2,3})_(?P<region>[A-Z]{2})-(?P<speaker>[A-Za-z0-9_]+)-(?P<quality>x_low|low|medium|high)$")
CHUNK_BYTES = 1 << 16
CARD_LIMIT_BYTES = 64_000  # a MODEL_CARD is a few hundred bytes
LICENCE_LINE = re.compile(r"^\W*licen[cs]e\W+(?P<licence>.+?)\s*$", re.IGNORECASE | re.MULTILINE)
TIMEOUT_S = 60
T = TypeVar("T")


def voice_url(name: str, base: str | None = None) -> str:
    """Where voice `name` lies in the repository (without extension)."""
    match = VOICE_NAME.match(name)
    if match is None:
        raise VoiceError(
            f"{name!r} is not a Piper voice name (expected language_REGION-speaker-quality, e.g. en_US-joe-medium)"
        )
    root = (base or current().piper_url or DEFAULT_URL).rstrip("/")
    family, region = match["family"], match["region"]
    return f"{root}/{family}/{family}_{region}/{match['speaker']}/{match['quality']}/{name}"


@dataclass(frozen=True)
class Installed:
    model: NeuralModel
    size_bytes: int
    sha256: str
    licence: str | None  # from the voice's MODEL_CARD, else the recommended table
    downloaded: bool  # False: it was already installed, intact


def install_voice(name: str, base: str | None = None, progress: Progress | None = None) -> NeuralModel:
    """Download voice `name` (model and settings) into piper_dir(); returns the installed model.
    progress(bytes_done, bytes_total) follows the model download."""
    return install(name, base, progress).model


def install(name: str, base: str | None = None, progress: Progress | None = None, *, bundled_will_do: bool = False) -> Installed:
    """Voice `name` in piper_dir(): downloaded and checked, or found there intact (then nothing is
    downloaded; with `bundled_will_do`, also when a Python package bundles it). VoiceError if the
    download fails or comes short; nothing half-installed stays."""
    url = voice_url(name, base)
    folder = piper_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise OutputError.cannot_create(folder, error, "the folder of Piper voices") from error
    target = folder / f"{name}.onnx"
    settings = folder / f"{name}.onnx.json"
    record = folder / f"{name}.install.json"
    already = _intact(target, settings, record) or (_bundled(name, folder) if bundled_will_do else None)
    if already is not None:
        return already
    expected = RECOMMENDED.get(name.split("_", 1)[0])
    sha256 = expected.sha256 if expected is not None and expected.name == name else None
    licence = _card_licence(url) or (expected.licence if expected is not None and expected.name == name else None)
    with replacing(target) as model_temp, replacing(settings) as settings_temp, replacing(record) as record_temp:
        _download(f"{url}.onnx.json", settings_temp, settings, None)
        digest = _download(f"{url}.onnx", model_temp, target, progress)
        if sha256 is not None and digest != sha256:
            raise VoiceError(f"the model's sha256 is {digest}, expected {sha256}: not installed", path=f"{url}.onnx")
        NeuralModel.load(model_temp, settings_temp)  # readable settings, or nothing is installed
        size = model_temp.stat().st_size
        record_temp.write_text(json.dumps({"name": name, "url": f"{url}.onnx", "size_bytes": size, "sha256": digest,
                                           "licence": licence}, indent=1), encoding="utf-8")
    from timekeeper.voice.select import voices_changed

    voices_changed()  # it may be a language's default voice now
    return Installed(NeuralModel.load(target), size, digest, licence, downloaded=True)


def _intact(target: Path, settings: Path, record: Path) -> Installed | None:
    """The voice as an earlier install left it (same size and sha256 as it recorded), else None."""
    try:
        noted = json.loads(record.read_text(encoding="utf-8"))
        if not settings.is_file() or target.stat().st_size != noted["size_bytes"]:
            return None
        if _sha256(target) != noted["sha256"]:
            return None
        return Installed(NeuralModel.load(target), noted["size_bytes"], noted["sha256"], noted.get("licence"), downloaded=False)
    except (OSError, ValueError, KeyError, TypeError, VoiceError):
        return None


def _bundled(name: str, folder: Path) -> Installed | None:
    """Voice `name` as a Python package bundles it (English's joe comes with timekeeper), else None."""
    from timekeeper.voice.neural import installed_models

    for model in installed_models():
        if model.name == name and model.path.parent != folder.resolve():
            return Installed(model, model.path.stat().st_size, _sha256(model.path), None, downloaded=False)
    return None


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _card_licence(url: str) -> str | None:
    """The licence line of the MODEL_CARD beside the voice, if the repository has one."""
    card = url.rsplit("/", 1)[0] + "/MODEL_CARD"
    try:
        with urllib.request.urlopen(card, timeout=TIMEOUT_S) as response:
            text = response.read(CARD_LIMIT_BYTES).decode("utf-8", "replace")
    except (urllib.error.URLError, OSError, ValueError):
        return None
    match = LICENCE_LINE.search(text)
    return match["licence"][:200] if match else None


def _download(url: str, path: Path, target: Path, progress: Progress | None) -> str:
    """Fetch `url` into `path` (the temporary file of `target`); its sha256. VoiceError if the
    repository cannot be read or sends fewer or more bytes than it announced, OutputError (naming
    `target`) if the file cannot be written."""
    digest = hashlib.sha256()
    try:
        with _fetching(url, urllib.request.urlopen, url, timeout=TIMEOUT_S) as response, open(path, "wb") as out:
            total = int(response.headers.get("Content-Length") or 0)
            done = 0
            while chunk := _fetching(url, response.read, CHUNK_BYTES):
                out.write(chunk)
                digest.update(chunk)
                done += len(chunk)
                if progress is not None:
                    progress(done, total or done)
    except OSError as error:  # the network's failures are VoiceErrors by now: this is the local file
        raise OutputError.cannot_write(target, error) from error
    if total and done != total:
        raise VoiceError(f"the download stopped at {done:,} of {total:,} bytes; nothing was installed (try again)", path=url)
    return digest.hexdigest()


def _fetching(url: str, call: Callable[..., T], *args: Any, **options: Any) -> T:
    """`call(*args, **options)`, a read from the voice repository; VoiceError if it fails."""
    try:
        return call(*args, **options)
    except urllib.error.HTTPError as error:
        raise VoiceError(f"the voice repository answered {error.code} {error.reason} (is the name right?)", path=url) from error
    except (urllib.error.URLError, OSError, http.client.HTTPException) as error:
        reason = getattr(error, "reason", None) or error.__class__.__name__
        raise VoiceError(f"cannot download ({reason}); are you online?", path=url) from error
