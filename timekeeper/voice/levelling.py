"""Phrases levelled in the background, while the mix that speaks them already streams.

A synthesized phrase is made in two steps: its draft (the engine's sentences trimmed, joined and
faded: the phrase's final length) and its level (tts.level_phrase: BS.1770 loudness and a
true-peak limiter, most of the work, and no change of length). The timeline needs only lengths,
so `prepare_mix(..., background=True)` lays it out from the drafts and hands this object to the
PreparedMix; the phrases are levelled here in the order the track speaks them, and `final`
(which the mix calls for each clip it adds) waits for a phrase, or levels it at once in the
caller's thread if no worker has started it yet. The levelled clip is the very clip a foreground
preparation makes (the same functions on the same draft), so the audio is the same either way.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Callable, Iterable

from timekeeper.audio.pcm import Clip
from timekeeper.files import stopping

WORKERS = 2  # levelling threads (numpy and scipy release the GIL for the long loops)
_stops = [0]  # how often stop_background was called: a levelling started before the last call stops

# finish(text, draft) -> the phrase's final clip (levelled, stored as 16-bit, written to the cache)
Finish = Callable[[str, Clip], Clip]


def import_ahead() -> None:
    """Import the levelling's libraries (scipy, pyloudnorm: about 2 s) in a thread of their
    own, while the phrases are being drafted, unless they are loaded already."""
    if "pyloudnorm" not in sys.modules:
        from timekeeper.audio.loudness import libraries

        def load() -> None:
            stopping.signals_to_main_thread()
            libraries()

        threading.Thread(target=load, name="timekeeper-import", daemon=True).start()


def stop_background() -> None:
    """The process is ending (a server that stops): every background levelling started so far ends
    after the phrase it is on (its clip written whole); a phrase not levelled yet is levelled when
    needed."""
    _stops[0] += 1


class Levelling:
    """Drafts of phrases (by text) whose final clips are made by `finish`, in the background once
    `start` is called, or on demand by `final`."""

    def __init__(self, finish: Finish) -> None:
        self._finish = finish
        self._drafts: dict[str, Clip] = {}  # kept alive, so the ids in _by_id stay theirs
        self._by_id: dict[int, str] = {}
        self._done: dict[str, Clip] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._errors: dict[str, BaseException] = {}
        self._threads: list[threading.Thread] = []

    def __len__(self) -> int:
        return len(self._drafts)

    def add(self, text: str, draft: Clip) -> None:
        """Register the draft of phrase `text` (before `start`)."""
        self._drafts[text] = draft
        self._by_id[id(draft)] = text
        self._locks[text] = threading.Lock()

    def draft(self, text: str) -> Clip | None:
        return self._drafts.get(text)

    def start(self, order: Iterable[str] = ()) -> None:
        """Level every phrase in the background: the texts of `order` first, in that order."""
        queue = list(dict.fromkeys([*(text for text in order if text in self._drafts), *self._drafts]))
        lock = threading.Lock()
        stops = _stops[0]

        def work() -> None:
            stopping.signals_to_main_thread()
            while True:
                with lock:
                    if not queue or _stops[0] != stops or stopping.requested() is not None:  # (after a stop the process leaves without them)
                        return
                    text = queue.pop(0)
                with contextlib.suppress(BaseException):  # kept in _errors; the consumer raises it
                    self.level(text)

        for number in range(min(WORKERS, len(queue))):
            thread = threading.Thread(target=work, name=f"timekeeper-levelling-{number}")  # finishes its clip at exit
            # (not the queue: stop_background)
            thread.start()
            self._threads.append(thread)

    def level(self, text: str) -> Clip:
        """The final clip of `text`: made now unless a worker made it or is making it (then waited for)."""
        with self._locks[text]:
            if text in self._done:
                return self._done[text]
            if text in self._errors:
                raise self._errors[text]
            try:
                clip = self._finish(text, self._drafts[text])
            except BaseException as error:
                self._errors[text] = error
                raise
            self._done[text] = clip
            return clip

    def final(self, clip: Clip) -> Clip | None:
        """The final clip for `clip` if it is one of the drafts here (waiting for it), else None."""
        text = self._by_id.get(id(clip))
        if text is None or self._drafts.get(text) is not clip:
            return None
        return self.level(text)

    def ready(self, clip: Clip) -> bool:
        """Whether `clip` is a draft here whose final clip is made already."""
        text = self._by_id.get(id(clip))
        return text is not None and text in self._done

    def wait_all(self) -> None:
        """Every phrase levelled (raises the first failure)."""
        for text in self._drafts:
            self.level(text)

    @property
    def finished(self) -> bool:
        return len(self._done) == len(self._drafts)
