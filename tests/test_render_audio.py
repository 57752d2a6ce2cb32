"""Render real audio and decode it: sound at every cue, silence in the gaps, length, tags,
atomic writes. Most tests share one render of a three-minute track."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from decoded import RATE, decode, rms
from running import timekeeper

from timekeeper.errors import RenderError
from timekeeper.grammar.script import CueKind, Sound, Speech
from timekeeper.scenario.catalog import load_scenario
from timekeeper.soundtrack.mix import MixSettings, prepare_mix
from timekeeper.soundtrack.render import render

DATA = Path(__file__).parent / "data" / "render"
SHORT = DATA / "short.yaml"


@pytest.fixture(scope="module")
def quiet_render(tmp_path_factory: pytest.TempPathFactory):
    """The short track rendered to WAV without background: (samples, timeline)."""
    out = tmp_path_factory.mktemp("render") / "short.wav"
    settings = MixSettings(language="en", background=False)
    render(load_scenario(str(SHORT)), out, settings)
    timeline = prepare_mix(load_scenario(str(SHORT)), settings).timeline
    return decode(out), timeline


def test_sound_at_every_part_of_every_cue(quiet_render) -> None:
    samples, timeline = quiet_render
    for cue in timeline.cues:
        for part in cue.parts:
            level = rms(samples, part.at_ms, min(250, part.duration_ms))
            assert level > 0.01, f"silence at {part.key} {part.at_ms} ms ({cue.kind.value})"


def test_silence_in_the_gaps_without_background(quiet_render) -> None:
    samples, timeline = quiet_render
    busy = [(cue.at_ms, cue.end_ms) for cue in timeline.cues] + [(bed.at_ms, bed.end_ms) for bed in timeline.beds]
    busy.sort()
    checked = 0
    for (_, end_ms), (next_ms, _) in zip(busy, busy[1:]):
        if next_ms - end_ms > 600:
            assert rms(samples, end_ms + 150, next_ms - end_ms - 300) < 1e-4, f"sound in gap {end_ms}-{next_ms} ms"
            checked += 1
    assert checked >= 6


def test_static_fills_the_outage(quiet_render) -> None:
    samples, timeline = quiet_render
    (bed,) = timeline.beds
    for at_ms in range(bed.at_ms + 200, bed.end_ms - 200, 1000):
        assert rms(samples, at_ms, 200) > 0.02


def test_beep_at_the_transfer_moment_and_count_on_whole_seconds(quiet_render) -> None:
    samples, timeline = quiet_render
    transfer = next(cue for cue in timeline.cues if cue.kind is CueKind.DATA_TRANSFER)
    count = {part.key: part.at_ms for part in transfer.speech if part.key.startswith("count_")}
    beep = next(part for part in transfer.parts if isinstance(part, Sound) and part.key == "beep")
    assert beep.at_ms == count["count_1"] + 1000
    assert [count[f"count_{n}"] - count["count_5"] for n in (5, 4, 3, 2, 1)] == [0, 1000, 2000, 3000, 4000]
    start = beep.at_ms * RATE // 1000
    window = samples[start + 441 : start + 441 + 8192]
    peak_hz = np.argmax(np.abs(np.fft.rfft(window))) * RATE / len(window)
    assert abs(peak_hz - 1000) < 20  # the beep, not speech
    assert rms(samples, beep.at_ms - 400, 300) < 1e-3  # quiet just before: "one" is over


def test_phase_end_count_one_second_before_the_end(quiet_render) -> None:
    samples, timeline = quiet_render
    for cue, end_ms in zip([c for c in timeline.cues if c.kind is CueKind.PHASE_END], timeline.phase_ends_ms):
        one = next(part for part in cue.speech if part.key == "count_1")
        assert one.at_ms == end_ms - 1000
        assert rms(samples, one.at_ms, 200) > 0.01
        assert rms(samples, one.at_ms - 300, 250) < 1e-3  # "two" is over: each number stands alone


def test_duration_matches_the_timeline(quiet_render) -> None:
    samples, timeline = quiet_render
    assert abs(len(samples) * 1000 / RATE - timeline.duration_ms) < 5


def test_background_bed_is_present_and_ducks_under_speech(tmp_path: Path) -> None:
    scenario = load_scenario(str(SHORT))
    mix = prepare_mix(scenario, MixSettings(background=True))
    threat = next(cue for cue in mix.timeline.cues if cue.kind is CueKind.THREAT)
    quiet = prepare_mix(scenario, MixSettings(background=False))
    gap_ms = 20_000  # between the first threat and the one-minute warning
    bed_alone = mix.mix_chunk(gap_ms * RATE // 1000, RATE)
    assert np.sqrt(np.mean(bed_alone**2)) > 0.005
    speech_ms = threat.speech[0].at_ms + 200
    n = RATE // 4
    with_bed = mix.mix_chunk(speech_ms * RATE // 1000, n)
    without = quiet.mix_chunk(speech_ms * RATE // 1000, n)
    bed_under_speech = with_bed - without
    ratio = np.sqrt(np.mean(bed_under_speech**2)) / np.sqrt(np.mean(bed_alone[:n] ** 2))
    assert ratio < 0.4  # ducked


def test_pcm_from_any_moment_equals_the_same_part_of_the_whole(tmp_path: Path) -> None:
    mix = prepare_mix(load_scenario(str(SHORT)), MixSettings())
    whole = b"".join(mix.pcm(chunk_ms=700))
    tail = b"".join(mix.pcm(start_ms=37_000, chunk_ms=1000))
    assert tail == whole[37_000 * RATE // 1000 * 2 :]
    assert len(whole) == mix.duration_ms * RATE // 1000 * 2


def test_cli_render_mp3_with_tags(tmp_path: Path) -> None:
    import mutagen

    out = tmp_path / "drill.mp3"
    result = timekeeper("render", str(SHORT), "-o", str(out), "--players", "4")
    assert result.returncode == 0, result.stderr
    assert "Wrote" in result.stdout
    tags = mutagen.File(out, easy=True)
    assert tags["title"] == ["Render drill"]
    assert tags["album"] == ["timekeeper"]
    assert tags["genre"] == ["Custom"]
    comment = str(mutagen.File(out).tags.getall("COMM")[0])
    assert str(SHORT) in comment and "seed: 4242" in comment and "players: 4" in comment
    assert abs(mutagen.File(out).info.length - 175.7) < 1.0  # to the jump and the silence after it
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


@pytest.mark.parametrize("suffix", [".ogg", ".flac"])
def test_other_formats_by_extension(tmp_path: Path, suffix: str) -> None:
    out = tmp_path / f"drill{suffix}"
    render(load_scenario(str(SHORT)), out, MixSettings(background=False))
    samples = decode(out)
    assert abs(len(samples) / RATE - 175.7) < 1.0
    assert rms(samples, 500, 500) > 0.01  # the begin announcement


def test_failed_render_keeps_the_old_file(tmp_path: Path) -> None:
    out = tmp_path / "keep.mp3"
    out.write_bytes(b"the old track")
    bad_music = tmp_path / "music.mp3"
    bad_music.write_bytes(b"this is not audio at all" * 100)
    with pytest.raises(RenderError, match="music.mp3"):
        render(load_scenario(str(SHORT)), out, MixSettings(music=bad_music))
    assert out.read_bytes() == b"the old track"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.mp3", "music.mp3"]


def test_encoder_failure_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from timekeeper.audio import codec

    out = tmp_path / "keep.ogg"
    out.write_bytes(b"the old track")
    monkeypatch.setitem(codec.FORMATS, ".ogg", codec.Format("ogg", "libopus", rate=44_100))  # Opus refuses 44.1 kHz
    with pytest.raises(RenderError, match="libopus"):
        render(load_scenario(str(SHORT)), out, MixSettings(background=False))
    assert out.read_bytes() == b"the old track"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.ogg"]


def test_mp3_starts_on_time_and_lasts_the_track(tmp_path: Path) -> None:
    """The mp3's Info frame tells decoders to skip LAME's delay: the first word starts where the
    WAV's does (within a millisecond), and the file is exactly as long as the mix."""
    settings = MixSettings(language="en", background=False)
    scenario = load_scenario(str(SHORT))
    render(scenario, tmp_path / "t.mp3", settings)
    render(scenario, tmp_path / "t.wav", settings)
    mp3, wav = decode(tmp_path / "t.mp3"), decode(tmp_path / "t.wav")
    assert len(mp3) == len(wav)
    onset = lambda samples: int(np.argmax(np.abs(samples) > 0.05))  # noqa: E731
    assert abs(onset(mp3) - onset(wav)) <= RATE // 1000


def test_cli_unknown_format_and_no_programs_needed(tmp_path: Path) -> None:
    bad = timekeeper("render", str(SHORT), "-o", str(tmp_path / "x.aiff"))
    assert bad.returncode == 2 and "written as .mp3, .ogg, .flac or .wav, not '.aiff'" in bad.stderr and "Traceback" not in bad.stderr
    alone = timekeeper("render", str(SHORT), "-o", str(tmp_path / "x.mp3"), env={"PATH": str(Path(sys.executable).parent)})
    assert alone.returncode == 0, alone.stderr  # neither ffmpeg nor espeak-ng on PATH: wheels do both jobs
    assert abs(len(decode(tmp_path / "x.mp3")) / RATE - 175.7) < 1.0


def test_solo_and_four_players_change_the_cues() -> None:
    scenario = load_scenario(str(SHORT))
    kinds = lambda settings: [c.kind for c in prepare_mix(scenario, settings).timeline.cues]  # noqa: E731
    solo = kinds(MixSettings(solo=True))
    assert CueKind.DATA_TRANSFER not in solo and CueKind.COMMS_DOWN not in solo and CueKind.INCOMING_DATA not in solo
    four = prepare_mix(scenario, MixSettings(players=4)).timeline
    assert "unconfirmed_report" not in [p.key for c in four.cues for p in c.parts if isinstance(p, Speech)]


def test_music_from_reads_the_bed_from_any_sample(tmp_path) -> None:
    """PreparedMix.music_from is what the page's WAV download mixes with (serve/audio.py): the
    music bed from that sample on, so any window of the file is the same mix as pcm() gives."""
    import wave

    tune = tmp_path / "tune.wav"
    seconds = np.arange(RATE * 2) / RATE
    with wave.open(str(tune), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes((np.sin(2 * np.pi * 220 * seconds) * 8000).astype("<i2").tobytes())
    from timekeeper.audio.pcm import pcm16

    scenario = load_scenario(str(SHORT))
    assert prepare_mix(scenario, MixSettings()).music_from(0) is None
    mix = prepare_mix(scenario, MixSettings(music=tune))
    rate = mix.sample_rate
    window = pcm16(mix.mix_chunk(3 * rate, rate, mix.music_from(3 * rate)))
    assert window == next(mix.pcm(start_ms=3000, chunk_ms=1000))
    assert window != pcm16(mix.mix_chunk(3 * rate, rate, None))  # the music is in it


@pytest.mark.parametrize(("suffix", "name", "language"), [
    (".ogg", "mission-5", "de"), (".mp3", "mission-7", "pl"), (".flac", "mission-5", "de"), (".wav", "mission-7", "pl"),
])
def test_every_format_keeps_the_true_peak_promise(tmp_path: Path, suffix: str, name: str, language: str) -> None:
    """At most -1 dBTP in the file as it decodes (FFmpeg's EBU R 128 meter), whatever the codec does to
    the peaks: Opus raised espeak-ng's German to -0.4 dBTP, LAME its Polish to -1.0, before the
    mix was held under each format's ceiling. The loudness stays on target."""
    from timekeeper.audio.codec import ebur128

    out = tmp_path / f"{name}-{language}{suffix}"
    done = timekeeper("render", name, "--lang", language, "-o", str(out),
                      env={"TIMEKEEPER_DEFAULT_VOICE": "synthesized"})
    assert done.returncode == 0, done.stderr
    lufs, _, peak_dbtp = ebur128(out)
    assert peak_dbtp <= -1.0 and -17.0 <= lufs <= -15.0, (peak_dbtp, lufs)


def test_ctrl_c_in_a_batch_keeps_the_finished_tracks_and_a_rerun_renders_the_rest(tmp_path: Path) -> None:
    """The real command, stopped with Ctrl-C while the second track is being written: the first is a
    whole track, nothing half-written is left, and the same command again keeps the first (it is
    not rendered again) and renders the second."""
    import os
    import signal
    import subprocess
    import time

    folder = tmp_path / "cd"
    command = [sys.executable, "-m", "timekeeper", "render", "test-run-1", str(SHORT), "--no-background", "-o", f"{folder}/"]
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and not any(p.name.startswith(".02-") for p in folder.glob(".*")):
        time.sleep(0.05)  # until the second track's temporary file is being written
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "Stopped with 1 of 2 tracks done" in stderr and "Traceback" not in stderr
    assert os.listdir(folder) == ["01-test-run-1.mp3"]
    first = folder / "01-test-run-1.mp3"
    assert abs(len(decode(first)) / RATE - 425) < 2  # the whole track
    made = first.stat().st_mtime_ns
    again = timekeeper(*command[3:])
    assert again.returncode == 0, again.stderr
    assert f"Kept {first}" in again.stdout and first.stat().st_mtime_ns == made
    assert sorted(os.listdir(folder)) == ["01-test-run-1.mp3", "02-short.mp3", "playlist.m3u"]
    assert abs(len(decode(folder / "02-short.mp3")) / RATE - 175.7) < 1.0
