"""The page's "install a natural voice" offer: the recommended Piper voice of each shipped language
(voice/recommended.py) with its size, licence and whether it is installed, and one download at a
time per language, run in a worker thread with its progress in bytes (voice/install.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from timekeeper.errors import TimekeeperError
from timekeeper.grammar.phrases import LANGUAGES


@dataclass
class VoiceInstallJob:
    """The download of `language`'s recommended voice; progress in bytes of the model."""

    language: str
    voice: str
    done: int = 0
    total: int = 0
    finished: bool = False
    error: str | None = None

    def as_json(self) -> dict:
        return {"language": self.language, "voice": self.voice, "done": self.done, "total": self.total,
                "finished": self.finished, "error": self.error, "installed": self.finished and self.error is None}


def install_offers() -> list[dict]:
    """For each shipped language: its recommended voice, size, licence, and whether it is the default now."""
    from timekeeper.voice.recommended import RECOMMENDED
    from timekeeper.voice.select import default_voice

    return [{"language": language, "voice": RECOMMENDED[language].name, "name": RECOMMENDED[language].speaker,
             "size_mb": RECOMMENDED[language].size_mb, "licence": RECOMMENDED[language].licence,
             "installed": default_voice(language) is not None}
            for language in LANGUAGES]


def run_voice_install(job: VoiceInstallJob, finished: Callable[[], None]) -> None:
    """Download `job`'s voice into piper_dir() (nothing stays if it fails); then `finished()`."""
    from timekeeper.voice.install import install

    def progress(done: int, total: int) -> None:
        job.done, job.total = done, total

    try:
        install(job.voice, progress=progress, bundled_will_do=True)
    except TimekeeperError as error:
        job.error = error.message
    finally:
        job.finished = True
        finished()
