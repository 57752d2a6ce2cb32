"""A CD's worth in one command (`render A B C -o DIR/`, `render --all-official`), in the test's own
process with the measured voice: numbered files in the official order, tags, the playlist, one
file per track written whole, a re-run that keeps what was rendered with the same settings, and
the combinations that are refused. (tests/test_render_audio.py stops a real one with Ctrl-C.)"""

from __future__ import annotations

import os
from pathlib import Path

import av
import pytest
from inprocess import run_cli
from measuredvoice import speak_measured

from timekeeper.errors import ExitStatus
from timekeeper.scenario.catalog import official_names
from timekeeper.soundtrack.batch import PLAYLIST, file_stem

SHORT = Path(__file__).resolve().parent / "data" / "render" / "short.yaml"


def tags_of(path: Path) -> dict[str, str]:
    with av.open(str(path)) as container:
        return {**container.metadata, **{k: v for s in container.streams for k, v in s.metadata.items()}}


def seconds_of(path: Path) -> float:
    with av.open(str(path)) as container:
        return container.duration / 1_000_000


def test_the_official_order_and_the_kinds() -> None:
    every = official_names()
    assert len(every) == 34 and every[:3] == ["test-run-1", "test-run-2", "simulation-1"]
    assert every[8:16] == [f"mission-{n}" for n in range(1, 9)] and every[16] == "double-action-easy-1"
    assert official_names(["mission"]) == every[8:16]
    assert official_names(["test-run", "advanced-simulation"]) == every[:2] + every[5:8]
    assert file_stem("../my missions/Nacht & Nebel.yaml") == "Nacht-Nebel" and file_stem("mission-3") == "mission-3"


def test_several_tracks_go_into_a_folder_numbered_tagged_and_listed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    speak_measured(monkeypatch)
    folder = tmp_path / "cd"
    done = run_cli("render", "test-run-2", str(SHORT), "--lang", "de", "--format", "wav", "-o", f"{folder}/")
    assert done.exit_code == ExitStatus.SUCCESS, done.output
    first, second = folder / "01-test-run-2.wav", folder / "02-short.wav"
    assert sorted(path.name for path in folder.iterdir()) == [first.name, second.name, PLAYLIST]
    assert tags_of(first)["title"] == "Zweiter Testlauf (de)" and tags_of(first)["track"] == "1/2"
    assert tags_of(second)["title"] == "Render drill (de)" and tags_of(second)["album"] == "timekeeper (de)"
    assert abs(seconds_of(first) - 425) < 3 and abs(seconds_of(second) - 176) < 3  # whole tracks
    assert (folder / PLAYLIST).read_text(encoding="utf-8") == (
        f"#EXTM3U\n#EXTINF:{round(seconds_of(first))},Zweiter Testlauf (de)\n{first.name}\n"
        f"#EXTINF:{round(seconds_of(second))},Render drill (de)\n{second.name}\n")
    assert f"Wrote {first} (7:05)" in done.stdout and done.stdout.rstrip().endswith(f"playlist {folder / PLAYLIST}")

    made = {path: path.stat().st_mtime_ns for path in (first, second)}
    again = run_cli("render", "test-run-2", str(SHORT), "--lang", "de", "--format", "wav", "-o", str(folder))
    assert again.exit_code == ExitStatus.SUCCESS, again.output
    assert again.stdout.count("rendered before with these settings") == 2 and "Wrote" not in again.stdout
    assert all(path.stat().st_mtime_ns == ns for path, ns in made.items())  # kept as they were

    changed = run_cli("render", "test-run-2", str(SHORT), "--lang", "de", "--players", "4", "--format", "wav", "-o", str(folder))
    assert changed.exit_code == ExitStatus.SUCCESS and changed.stdout.count("Wrote ") == 2  # another crew: rendered again


def test_a_batch_stopped_half_way_keeps_the_finished_tracks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C in the second track: the first stays, no half file is left, and the same command
    again keeps the first and renders the second."""
    from timekeeper.audio import codec

    speak_measured(monkeypatch)
    real, calls = codec.encode, []

    def stopped_in_the_second(chunks, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        if len(calls) == 2:
            next(iter(chunks))
            raise KeyboardInterrupt
        return real(chunks, *args, **kwargs)

    monkeypatch.setattr(codec, "encode", stopped_in_the_second)
    folder = tmp_path / "training"
    args = ("render", "--kind", "test-run", "--format", "flac", "-o", str(folder))
    stopped = run_cli(*args)
    assert stopped.exit_code == ExitStatus.INTERRUPTED
    assert "Stopped with 1 of 2 tracks done" in stopped.stderr and "Interrupted." in stopped.stderr
    assert os.listdir(folder) == ["01-test-run-1.flac"]  # no half track, no temporary file, no playlist yet
    monkeypatch.setattr(codec, "encode", real)
    resumed = run_cli(*args)
    assert resumed.exit_code == ExitStatus.SUCCESS, resumed.output
    assert "Kept" in resumed.stdout.splitlines()[0] and "Wrote" in resumed.stdout.splitlines()[1]
    assert sorted(os.listdir(folder)) == ["01-test-run-1.flac", "02-test-run-2.flac", PLAYLIST]


@pytest.mark.parametrize(("args", "said"), [
    (("test-run-1", "test-run-2", "-o", "cd.mp3"), "cd.mp3: 2 tracks go into a folder; give one, such as -o cd/"),
    (("--all-official", "-o", "all.ogg"), "all.ogg: 34 tracks go into a folder; give one, such as -o all/"),
    (("mission-1", "--all-official", "-o", "cd/"), "name the tracks, or choose them with --all-official or --kind, not both"),
    (("-o", "cd/"), "name a SCENARIO (see `timekeeper list`), or render them all with --all-official"),
    (("--kind", "campaign", "-o", "cd/"), "'campaign' is not one of 'test-run', 'simulation'"),
    (("mission-1", "-o", "m1.mp3", "--format", "ogg"), "m1.mp3: a .mp3 file for --format ogg; name it m1.ogg"),
    (("mission-1", "-o", "m1.aiff"), "soundtracks are written as .mp3, .ogg, .flac or .wav, not '.aiff'"),
])
def test_combinations_that_cannot_work_are_refused_before_any_render(tmp_path: Path, args: tuple[str, ...], said: str) -> None:
    done = run_cli("render", *args, cwd=tmp_path)
    assert done.exit_code == ExitStatus.USAGE, done.output
    assert said in done.stderr and "Traceback" not in done.output
    assert os.listdir(tmp_path) == []


def test_a_bad_track_in_a_batch_is_named_with_every_other_before_any_render(tmp_path: Path) -> None:
    done = run_cli("render", "mission-1", "missoin-2", "no-such.yaml", "-o", str(tmp_path / "cd"))
    assert done.exit_code == ExitStatus.INVALID_SCENARIO
    assert "did you mean 'mission-2'" in done.stderr and "no-such.yaml" in done.stderr
    assert not (tmp_path / "cd").exists()


def test_a_file_named_without_an_extension_is_mp3(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    speak_measured(monkeypatch)
    done = run_cli("render", str(SHORT), "--no-background", "-o", str(tmp_path / "drill"))
    assert done.exit_code == ExitStatus.SUCCESS, done.output
    assert done.stdout.startswith(f"Wrote {tmp_path / 'drill.mp3'} (")
    assert (tmp_path / "drill.mp3").read_bytes()[:3] == b"ID3"
    from timekeeper.commands.options import sound_file  # (generate --render takes its file the same way)

    assert sound_file("five", option="--render") == Path("five.mp3") and sound_file("drill", "ogg") == Path("drill.ogg")


def test_one_progress_bar_for_the_whole_batch_on_a_terminal() -> None:
    """On a terminal the batch is one bar whose label names the track at work; the tracks done are
    printed above it; off a terminal there is no bar at all."""
    import io

    from timekeeper.commands.options import BatchProgress
    from timekeeper.environment import Environment, Streams, using

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    for stderr, shows in ((Terminal(), True), (io.StringIO(), False)):
        stdout = io.StringIO()
        with using(Environment.from_mapping({}, Streams(given_stdout=stdout, given_stderr=stderr))):
            progress = BatchProgress(total_s=600)
            progress.track("[1/2] test-run-1", 420)
            progress.preparing(1, 4)
            progress.encoding(210, 420)
            progress.note("Wrote cd/01-test-run-1.mp3 (7:05)")
            progress.track("[2/2] short", 180)
            progress.encoding(180, 180)
            progress.close()
        drawn = stderr.getvalue()
        assert ("[1/2] test-run-1: preparing the voice" in drawn and "[2/2] short" in drawn and "100%" in drawn) == shows
        assert ("35%" in drawn) == shows  # 210 of 600 s: one bar for both tracks, not one a track
        assert drawn.count("\r\x1b[K") == (1 if shows else 0)  # the bar cleared for the line above it
