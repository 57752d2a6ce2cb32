"""Plan tells the truth with voice packs: `timekeeper plan --voice PACK` prints where the render
puts every clip (a bundle longer than the synthesized lead-in starts earlier), checked against
the decoded render; a clip longer than any slot is an error naming it."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from decoded import RATE, decode
from running import timekeeper
from tones import write_tone
from voicepacks import slow_bundle_pack

from timekeeper.grammar.times import parse_time_ms

SHORT = Path(__file__).parent / "data" / "render" / "short.yaml"


@pytest.fixture(scope="module")
def long_pack(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An English pack whose bundles are recorded much slower than the synthesized voice."""
    return slow_bundle_pack(tmp_path_factory.mktemp("packs") / "slow-bundles")


def plan_starts(output: str) -> dict[str, list[int]]:
    """cue kind -> start times (ms) from `timekeeper plan` output."""
    starts: dict[str, list[int]] = {}
    for line in output.splitlines():
        match = re.match(r"\s*(\d+:\d\d(?:\.\d+)?) - +(\d+:\d\d(?:\.\d+)?)\s+(\w+)", line)
        if match:
            starts.setdefault(match.group(3), []).append(parse_time_ms(match.group(1)))
    return starts


def onset_ms(samples: np.ndarray, from_ms: int, to_ms: int, level: float = 0.02) -> int:
    """The first moment in [from_ms, to_ms) where the track is louder than `level`."""
    window = samples[from_ms * RATE // 1000 : to_ms * RATE // 1000]
    loud = np.flatnonzero(np.abs(window) > level)
    assert len(loud), f"no sound between {from_ms} and {to_ms} ms"
    return from_ms + int(loud[0]) * 1000 // RATE


def test_plan_with_long_bundles_matches_the_decoded_render(long_pack: Path, tmp_path: Path) -> None:
    # the transfer a little later than in SHORT, so its early start clears the 0:30 phase warning
    track = tmp_path / "later-transfer.yaml"
    track.write_text(SHORT.read_text().replace('at: "0:35", type: data_transfer', 'at: "0:38", type: data_transfer'))
    planned = timekeeper("plan", str(track), "--voice", str(long_pack))
    assert planned.returncode == 0, planned.stderr
    assert "OVERLAP" not in planned.stdout, planned.stdout
    default = plan_starts(timekeeper("plan", str(track)).stdout)
    starts = plan_starts(planned.stdout)
    (transfer_ms,) = starts["data_transfer"]
    assert transfer_ms < default["data_transfer"][0] - 1000  # the long bundle starts well before 0:38
    out = tmp_path / "slow.wav"
    rendered = timekeeper("render", str(track), "--voice", str(long_pack), "--no-background", "-o", str(out))
    assert rendered.returncode == 0, rendered.stderr
    samples = decode(out)
    assert onset_ms(samples, transfer_ms - 1500, transfer_ms + 1000) == pytest.approx(transfer_ms, abs=25)
    finals = starts["phase_end"]
    assert len(finals) == 2
    for start_ms in finals:
        assert onset_ms(samples, start_ms - 2500, start_ms + 1000) == pytest.approx(start_ms, abs=25)
    # the plan's track length is the render's
    length = re.search(r"track length (\d+:\d\d)", planned.stdout)
    assert length is not None
    assert len(samples) * 1000 // RATE == pytest.approx(parse_time_ms(length.group(1)), abs=1000)


def test_a_bundle_that_cannot_end_on_time_is_an_error(long_pack: Path, tmp_path: Path) -> None:
    early = tmp_path / "early.yaml"
    early.write_text(SHORT.read_text().replace('at: "0:35", type: data_transfer', 'at: "0:01", type: data_transfer'))
    result = timekeeper("plan", str(early), "--voice", str(long_pack))
    assert result.returncode == 4
    assert "data_transfer" in result.stderr and "before the track begins" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_two_hour_clip_is_an_error_naming_it(long_pack: Path, tmp_path: Path) -> None:
    pack = tmp_path / "huge"
    pack.mkdir()
    for path in long_pack.iterdir():
        (pack / path.name).write_bytes(path.read_bytes())
    (pack / "repeat.wav").unlink()
    write_tone(pack / "repeat.flac", 7200, 8000)
    out = tmp_path / "never.mp3"
    result = timekeeper("render", str(SHORT), "--voice", str(pack), "-o", str(out))
    assert result.returncode == 4
    assert str(pack / "repeat.flac") in result.stderr and "'repeat'" in result.stderr and "120:00 long" in result.stderr
    assert not out.exists()


def test_a_clip_running_past_the_mission_is_an_error_naming_it(long_pack: Path, tmp_path: Path) -> None:
    pack = tmp_path / "long-closing"
    pack.mkdir()
    for path in long_pack.iterdir():
        (pack / path.name).write_bytes(path.read_bytes())
    (pack / "mission_complete.wav").unlink()
    write_tone(pack / "mission_complete.wav", 90, 44100)
    result = timekeeper("plan", str(SHORT), "--voice", str(pack))
    assert result.returncode == 4
    assert "mission_complete" in result.stderr and "after the mission ends" in result.stderr


def test_validate_with_a_voice_times_announcements_with_its_clips(long_pack: Path, tmp_path: Path) -> None:
    tight = tmp_path / "tight.yaml"
    tight.write_text(SHORT.read_text().replace('at: "0:35", type: data_transfer', 'at: "0:17", type: data_transfer'))
    assert timekeeper("validate", "--strict", str(tight)).returncode == 0  # fine for the built-in voice
    slow = timekeeper("validate", "--strict", str(tight), "--voice", str(long_pack))
    assert slow.returncode == 3
    assert re.search(rf"{re.escape(str(tight))}:\d+:\d+: warning: the data transfer at 0:1\d\.\d+ starts [0-9.]+ s before "
                     "the threat of 0:[0-9.]+ ends: both are heard at once; move one of them", slow.stdout)


def test_generate_with_a_voice_reports_what_validate_reports(long_pack: Path, tmp_path: Path) -> None:
    from timekeeper.generate import generate
    from timekeeper.soundtrack.mix import MixSettings
    from timekeeper.soundtrack.render import voice_overlaps

    settings = MixSettings(voice=str(long_pack))
    seed = next(seed for seed in range(1, 200) if voice_overlaps(generate(seed), settings))  # long bundles collide
    out = tmp_path / "g.yaml"
    generated = timekeeper("generate", "--seed", str(seed), "--voice", str(long_pack), "-o", str(out))
    assert generated.returncode == 0, generated.stderr
    warned = sorted(line.split(f"with voice {long_pack}: ", 1)[1] for line in generated.stderr.splitlines()
                    if line.startswith(f"Warning: seed {seed}"))
    checked = timekeeper("validate", str(out), "--voice", str(long_pack))
    found = sorted(line.split("warning: ", 1)[1].removesuffix("; move one of them") for line in checked.stdout.splitlines()
                   if "heard at once" in line)
    assert warned == found and found
    quiet = timekeeper("generate", "--seed", str(seed), "-o", str(tmp_path / "plain.yaml"))
    assert "with voice" not in quiet.stderr  # the built-in voices never overlap
