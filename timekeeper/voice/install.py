"""`timekeeper voice install`: fetch a Piper voice from the public voice repository into piper_dir().

The repository keeps each voice as `<family>/<family>_<REGION>/<name>/<quality>/<voice>.onnx`
plus its `.onnx.json`. $TIMEKEEPER_PIPER_URL (or `--from`) points at another copy of that layout,
such as a mirror or a local folder (`file:///...`). Files are written under temporary names and
moved into place only when complete and readable, so an interrupted download leaves nothing.
"""

from __future__ import annotations

import os
import re
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from timekeeper.atomicfile import replacing
from timekeeper.errors import OutputError, VoiceError
from timekeeper.pcm import Progress
from timekeeper.voice.neural import NeuralModel, piper_dir

DEFAULT_URL = "https://huggingface.co/rhasspy/piper-voices/resolve/main"
VOICE_NAME = re.compile(r"^(?P<family>[a-z]{2,3})_(?P<region>[A-Z]{2})-(?P<speaker>[A-Za-z0-9_]+)-(?P<quality>x_low|low|medium|high)$")
SUGGESTED = {  # a good Piper voice per shipped language (docs/voices.md)
    "en": "en_US-joe-medium",
    "de": "de_DE-thorsten-medium",
    "es": "es_ES-davefx-medium",
    "fr": "fr_FR-siwis-medium",
    "it": "it_IT-riccardo-x_low",
    "pl": "pl_PL-darkman-medium",
    "cs": "cs_CZ-jirka-medium",
}
CHUNK_BYTES = 1 << 16
TIMEOUT_S = 60
T = TypeVar("T")


def voice_url(name: str, base: str | None = None) -> str:
    """Where voice `name` lies in the repository (without extension)."""
    match = VOICE_NAME.match(name)
    if match is None:
        raise VoiceError(
            f"{name!r} is not a Piper voice name (expected language_REGION-speaker-quality, e.g. en_US-joe-medium)"
        )
    root = (base or os.environ.get("TIMEKEEPER_PIPER_URL") or DEFAULT_URL).rstrip("/")
    family, region = match["family"], match["region"]
    return f"{root}/{family}/{family}_{region}/{match['speaker']}/{match['quality']}/{name}"


def install_voice(name: str, base: str | None = None, progress: Progress | None = None) -> NeuralModel:
    """Download voice `name` (model and settings) into piper_dir(); returns the installed model.
    progress(bytes_done, bytes_total) follows the model download."""
    url = voice_url(name, base)
    folder = piper_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise OutputError.cannot_create(folder, error, "the folder of Piper voices") from error
    target = folder / f"{name}.onnx"
    settings = folder / f"{name}.onnx.json"
    with replacing(target) as model_temp, replacing(settings) as settings_temp:
        _download(f"{url}.onnx.json", settings_temp, settings, None)
        _download(f"{url}.onnx", model_temp, target, progress)
        NeuralModel.load(model_temp, settings_temp)  # readable settings, or nothing is installed
    return NeuralModel.load(target)


def _download(url: str, path: Path, target: Path, progress: Progress | None) -> None:
    """Fetch `url` into `path` (the temporary file of `target`): VoiceError if the repository
    cannot be read, OutputError (naming `target`) if the file cannot be written."""
    try:
        with _fetching(url, urllib.request.urlopen, url, timeout=TIMEOUT_S) as response, open(path, "wb") as out:
            total = int(response.headers.get("Content-Length") or 0)
            done = 0
            while chunk := _fetching(url, response.read, CHUNK_BYTES):
                out.write(chunk)
                done += len(chunk)
                if progress is not None:
                    progress(done, total or done)
    except OSError as error:  # the network's failures are VoiceErrors by now: this is the local file
        raise OutputError.cannot_write(target, error) from error


def _fetching(url: str, call: Callable[..., T], *args: Any, **options: Any) -> T:
    """`call(*args, **options)`, a read from the voice repository; VoiceError if it fails."""
    try:
        return call(*args, **options)
    except urllib.error.HTTPError as error:
        raise VoiceError(f"the voice repository answered {error.code} {error.reason} (is the name right?)", path=url) from error
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", None) or error
        raise VoiceError(f"cannot download ({reason}); are you online?", path=url) from error
