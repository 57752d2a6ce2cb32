"""A stream's peaks held under a ceiling before a lossy encoder, which makes them higher.

The mix's true peak stays under -1.95 dBTP (every clip is levelled under CLIP_CEILING_DBTP), which
a lossless file keeps. A lossy codec changes the waveform: Opus raised the peak of a mission by up
to 1.75 dB (espeak-ng's voice in Opus at 96 kbit/s: -0.3 dBTP), LAME by up to 0.6 dB, so the
render promise of -1 dBTP would not hold. Holding the stream's sample peaks under a lower ceiling
first (codec.Format.ceiling_dbfs) keeps the promise for every format; the loudness changes by less
than 0.4 LU, since only the few loudest milliseconds of a word are turned down.

The gain is worked out per block of BLOCK samples (about 0.7 ms): each block's gain is the
smallest its own and its two neighbours' peaks need, and the gain between the blocks' centres is
interpolated, so it never rises above what a block needs anywhere inside it, and it turns down
and up again over a block or two (no click). Pure numpy, in one pass: a block never needs more
than its neighbours, so a stream is done chunk by chunk with one block of context either side.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np

from timekeeper.audio.pcm import Clip

BLOCK = 32  # samples per block of the gain (0.73 ms at 44.1 kHz)


def ceiling_gain(peaks: np.ndarray, ceiling: float) -> np.ndarray:
    """The gain of each block whose peak is `peaks` (linear), so no block and none of its
    neighbours goes above `ceiling` (linear)."""
    needed = np.minimum(1.0, ceiling / np.maximum(peaks, 1e-12))
    held = needed.copy()
    np.minimum(held[1:], needed[:-1], out=held[1:])
    np.minimum(held[:-1], needed[1:], out=held[:-1])
    return held


def held_under(chunks: Iterable[Clip], ceiling_dbfs: float) -> Iterator[Clip]:
    """`chunks` (float samples, full scale 1.0) with every sample held under `ceiling_dbfs`, in the
    same lengths; chunks whose neighbourhood stays under the ceiling pass through unchanged. The
    blocks sit on the stream's own grid, so any cut into chunks gives the same samples."""
    ceiling = 10 ** (ceiling_dbfs / 20)
    pending: Clip | None = None
    before = np.zeros(0, dtype=np.float32)
    at = 0  # the stream's sample where `pending` starts
    for chunk in chunks:
        if pending is not None:
            yield _held(before, pending, chunk, at, ceiling)
            before, at = pending, at + len(pending)
        pending = chunk
    if pending is not None:
        yield _held(before, pending, np.zeros(0, dtype=np.float32), at, ceiling)


CONTEXT = 4 * BLOCK  # samples either side that decide a chunk's gain (a block, its neighbours, theirs)


def _held(before: Clip, chunk: Clip, after: Clip, at: int, ceiling: float) -> Clip:
    """`chunk`, which starts at the stream's sample `at`, held under `ceiling` (its gain worked out
    with up to CONTEXT samples of `before` and `after`; fewer only at the stream's ends)."""
    head, tail = before[-CONTEXT:], after[:CONTEXT]
    span = np.abs(np.concatenate((head, chunk, tail)))
    if len(span) == 0 or float(span.max()) <= ceiling:
        return chunk
    lead = (at - len(head)) % BLOCK  # zeros before the span put its blocks on the stream's grid
    blocks = -(-(lead + len(span)) // BLOCK)
    padded = np.zeros(blocks * BLOCK, dtype=np.float32)
    padded[lead: lead + len(span)] = span
    gain = ceiling_gain(padded.reshape(blocks, BLOCK).max(axis=1), ceiling)
    centres = np.arange(blocks) * BLOCK + (BLOCK - 1) / 2
    inside = np.arange(lead + len(head), lead + len(head) + len(chunk))
    return (chunk * np.interp(inside, centres, gain)).astype(np.float32)
