"""Audio files in and out, in this process, from wheels: no ffmpeg program on any system.

mp3 is encoded by LAME (the `lameenc` wheel: as fast as the ffmpeg program's LAME, about four
times faster than the LAME inside PyAV's wheels), 128 kbit/s, with a LAME "Info" frame so players
skip the encoder's delay (the track starts on time) and know the length, and ID3v2.3 tags
(mutagen). ogg (Opus, at 48 kHz: Opus's own rate), flac and wav (16-bit PCM) are written by PyAV
(FFmpeg's libraries inside the `av` wheels), tagged by the container. `decode` reads any file
FFmpeg reads back as mono float32 samples.
"""

from __future__ import annotations

import queue
import struct
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from timekeeper.audio.pcm import SAMPLE_RATE, Clip
from timekeeper.errors import RenderError
from timekeeper.files import stopping

Progress = Callable[[int, int], None]
MP3_KBPS = 128
LAME_QUALITY = 3  # LAME's own default (ffmpeg's too): 2 is best, 7 fastest
LAME_DELAY = 576  # samples LAME puts before the first input sample (its encoder delay)
MP3_FRAME_SAMPLES = 1152
AHEAD = 4  # PCM chunks (one second each) the mix may run ahead of the encoder
RATES = (44100, 48000, 32000)  # MPEG-1 sample rates by their header index


@dataclass(frozen=True)
class Format:
    """How one file extension is written: the container and codec (FFmpeg's names), the codec's
    sample rate (None: the input's) and bit rate (None: the codec's own), and the sample peak
    (dBFS) the mix is held under before it (audio/ceiling.py), so the file's true peak stays
    under the promised -1 dBTP: a lossy codec raises the peaks it is given."""

    container: str
    codec: str
    rate: int | None = None
    bit_rate: int | None = None
    ceiling_dbfs: float = -2.0


# The ceilings, measured on missions in six languages and a voice pack (espeak-ng's voice raises
# most): Opus at 96 kbit/s raised the true peak by up to 1.75 dB, LAME at 128 kbit/s by up to
# 0.8 dB; held at these ceilings the files peaked at -2.09 (ogg) and -1.96 (mp3) dBTP at most.
FORMATS: dict[str, Format] = {
    ".mp3": Format("mp3", "lame", bit_rate=MP3_KBPS * 1000, ceiling_dbfs=-3.0),
    ".ogg": Format("ogg", "libopus", rate=48_000, bit_rate=96_000, ceiling_dbfs=-4.5),
    ".flac": Format("flac", "flac"),
    ".wav": Format("wav", "pcm_s16le"),
}
DEFAULT_SUFFIX = ".mp3"  # a file named without an extension is written as mp3


def output_format(out: Path) -> Format:
    """The Format of `out`'s extension, mp3 for none (RenderError naming the known ones otherwise)."""
    try:
        return FORMATS[out.suffix.lower() or DEFAULT_SUFFIX]
    except KeyError:
        raise RenderError(f"unknown audio format {out.suffix!r} (expected {', '.join(FORMATS)})", path=str(out)) from None


def encode(
    chunks: Iterable[bytes],
    sample_rate: int,
    channels: int,
    path: Path,
    fmt: Format,
    metadata: dict[str, str],
    total: int = 0,
    progress: Progress | None = None,
) -> None:
    """Write interleaved 16-bit PCM `chunks` to `path` as `fmt`, tagged with `metadata` (title,
    album, artist, genre, comment, track); `progress` hears (chunks done, `total`). Raises
    OSError when the file cannot be written, RenderError when the encoder fails otherwise."""
    counted = _counting(chunks, total, progress)
    if fmt.codec == "lame":
        _encode_mp3(counted, sample_rate, channels, path, metadata)
        return
    import av

    try:
        _encode_av(counted, sample_rate, channels, path, fmt, metadata)
    except av.FFmpegError as error:
        if isinstance(error, OSError):
            raise
        raise RenderError(f"the {fmt.codec} encoder failed: {error}", path=str(path)) from error


def _counting(chunks: Iterable[bytes], total: int, progress: Progress | None) -> Iterator[bytes]:
    for done, chunk in enumerate(_ahead(chunks), start=1):
        yield chunk
        if progress is not None:
            progress(done, total)


def _ahead(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """`chunks`, made by a helper thread up to AHEAD chunks before they are asked for, so the mix
    and the encoder (both release the GIL for most of their work) use two cores, as the mix and
    the ffmpeg program once did. An error in the helper is raised here; leaving early (an error,
    Ctrl-C) stops the helper."""
    made: queue.Queue[bytes | BaseException | None] = queue.Queue(maxsize=AHEAD)
    stop = threading.Event()

    def make() -> None:
        stopping.signals_to_main_thread()
        try:
            for chunk in chunks:
                while not stop.is_set():
                    try:
                        made.put(chunk, timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if stop.is_set():
                    return
            made.put(None)
        except BaseException as error:  # handed to the encoding thread, which raises it
            made.put(error)

    helper = threading.Thread(target=make, name="mix", daemon=True)
    helper.start()
    try:
        while (item := made.get()) is not None:
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        if stopping.requested() is None:  # (after a stop the process leaves without it: it may be levelling a phrase)
            helper.join()


def _encode_av(chunks: Iterable[bytes], sample_rate: int, channels: int, path: Path, fmt: Format,
               metadata: dict[str, str]) -> None:
    import av

    layout = "mono" if channels == 1 else "stereo"
    with av.open(str(path), "w", format=fmt.container) as container:
        container.metadata.update(metadata)
        stream: Any = container.add_stream(fmt.codec, rate=fmt.rate or sample_rate, layout=layout)
        if fmt.bit_rate:
            stream.bit_rate = fmt.bit_rate
        for chunk in chunks:
            frame = av.AudioFrame.from_ndarray(np.frombuffer(chunk, dtype="<i2").reshape(1, -1), format="s16", layout=layout)
            frame.sample_rate = sample_rate
            container.mux(stream.encode(frame))
        container.mux(stream.encode(None))


def _encode_mp3(chunks: Iterable[bytes], sample_rate: int, channels: int, path: Path, metadata: dict[str, str]) -> None:
    import lameenc

    encoder = lameenc.Encoder()
    encoder.set_bit_rate(MP3_KBPS)
    encoder.set_in_sample_rate(sample_rate)
    encoder.set_channels(channels)
    encoder.set_quality(LAME_QUALITY)
    encoder.silence()
    samples = 0
    placeholder = bytes(_frame_bytes(sample_rate))  # becomes the Info frame once the counts are known
    with open(path, "w+b") as out:
        out.write(placeholder)
        for chunk in chunks:
            samples += len(chunk) // (2 * channels)
            out.write(encoder.encode(chunk))
        out.write(encoder.flush())
        info = _info_frame(out, len(placeholder), samples)
        out.seek(0)
        out.write(info)
    _write_id3(path, metadata)


def _frame_bytes(rate: int, padded: int = 0) -> int:
    """The length of one MP3_KBPS MPEG-1 layer III frame at `rate`."""
    return 144_000 * MP3_KBPS // rate + padded


def _info_frame(handle: BinaryIO, start: int, samples: int) -> bytes:
    """A LAME "Info" frame for the audio frames from `start` in `handle`: frame and byte counts,
    a seek table, and the encoder delay and padding that gapless players (browsers, ffmpeg,
    mutagen) skip, so the track starts on time and lasts exactly `samples`."""
    handle.seek(start)
    header, frames, position = b"", 0, start
    while len(found := handle.read(4)) == 4 and found[0] == 0xFF and found[1] & 0xE0 == 0xE0:
        header, frames = header or found, frames + 1
        position += _frame_bytes(RATES[found[2] >> 2 & 3], found[2] >> 1 & 1)
        handle.seek(position)
    if not frames:
        return bytes(start)
    side_info = 17 if header[3] >> 6 == 3 else 32  # mono, else stereo
    padding = max(0, frames * MP3_FRAME_SAMPLES - LAME_DELAY - samples)
    tag = b"Info" + struct.pack(">III", 0x0F, frames, position) + bytes(i * 256 // 100 for i in range(100))
    tag += bytes(4)  # quality: unused at a constant bit rate
    lame = b"LAME3.100" + bytes([0x01, 0]) + bytes(8) + bytes([0, MP3_KBPS])
    lame += (LAME_DELAY << 12 | min(padding, 0xFFF)).to_bytes(3, "big") + bytes(4) + struct.pack(">IH", position, 0)
    frame = bytes([header[0], header[1], header[2] & ~0x02, header[3]]) + bytes(side_info) + tag + lame
    frame += struct.pack(">H", _crc16(frame))
    return frame + bytes(start - len(frame))


def _crc16(data: bytes) -> int:
    """CRC-16 (polynomial 0xA001 reflected, start 0): the LAME tag's checksum."""
    crc = 0
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xA001 if crc & 1 else crc >> 1
    return crc


def _write_id3(path: Path, metadata: dict[str, str]) -> None:
    from mutagen.id3 import COMM, ID3, TALB, TCON, TIT2, TPE1, TRCK

    frames = {"title": TIT2, "album": TALB, "artist": TPE1, "genre": TCON, "track": TRCK}
    tags = ID3()
    for key, value in metadata.items():
        if key == "comment":
            tags.add(COMM(encoding=3, lang="eng", desc="", text=[value]))
        elif key in frames:
            tags.add(frames[key](encoding=3, text=[value]))
    tags.save(str(path), v2_version=3)


def decode(path: Path, rate: int = SAMPLE_RATE) -> Clip:
    """Any audio file FFmpeg reads as mono float32 samples at `rate` (OSError if it cannot be
    opened, ValueError if it is not audio FFmpeg reads)."""
    import av

    try:
        return _decoded(av, path, rate)
    except av.FFmpegError as error:
        if isinstance(error, OSError):
            raise
        raise ValueError(f"{path}: not readable audio ({error})") from error


def _decoded(av: Any, path: Path, rate: int) -> Clip:
    resampler = av.AudioResampler(format="flt", layout="mono", rate=rate)
    parts = []
    with av.open(str(path)) as container:
        for frame in container.decode(audio=0):
            parts += [out.to_ndarray().reshape(-1) for out in resampler.resample(frame)]
        parts += [out.to_ndarray().reshape(-1) for out in resampler.resample(None)]
    return np.concatenate(parts).astype(np.float32) if parts else np.zeros(0, dtype=np.float32)


def ebur128(path: Path) -> tuple[float, float, float]:
    """(integrated LUFS, loudness range LU, true peak dBTP) of an audio file, by FFmpeg's ebur128
    filter (EBU R 128; independent of the pyloudnorm meter the mix levels with)."""
    import av

    integrated = lra = float("-inf")
    peak = 0.0
    with av.open(str(path)) as container:
        stream = container.streams.audio[0]
        graph = av.filter.Graph()
        source, meter, sink = graph.add_abuffer(template=stream), graph.add("ebur128", "peak=true:metadata=1"), graph.add("abuffersink")
        source.link_to(meter)
        meter.link_to(sink)
        graph.configure()
        for frame in [*container.decode(stream), None]:
            graph.push(frame)
            while True:
                try:
                    measured = graph.pull().metadata
                except (av.BlockingIOError, av.EOFError):
                    break
                if "lavfi.r128.I" in measured:
                    integrated, lra = float(measured["lavfi.r128.I"]), float(measured["lavfi.r128.LRA"])
                peak = max([peak, *(float(v) for k, v in measured.items() if k.startswith("lavfi.r128.true_peaks"))])
    return integrated, lra, 20 * float(np.log10(peak)) if peak > 0 else float("-inf")
