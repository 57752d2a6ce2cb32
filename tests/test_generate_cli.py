"""`timekeeper generate` and `timekeeper stats` run as a user runs them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from realparts import require
from running import timekeeper as run

from timekeeper.errors import ScenarioError
from timekeeper.generate import GenerateOptions, generate
from timekeeper.generate.rules import check_generated
from timekeeper.generate.stats import FEATURES, fidelity_report, format_report
from timekeeper.model import MAX_SEED
from timekeeper.scenario.catalog import load_scenario


def test_generate_writes_a_valid_mission_with_its_seed(tmp_path: Path) -> None:
    done = run("generate", "--seed", "4711", "-o", "my.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Wrote my.yaml (seed 4711)" in done.stderr
    mission = load_scenario(str(tmp_path / "my.yaml"))
    assert mission.seed == 4711 and mission.events == generate(4711).events
    assert check_generated(mission, GenerateOptions()) == []
    assert run("validate", "my.yaml", cwd=tmp_path).returncode == 0
    again = run("generate", "--seed", "4711", cwd=tmp_path)
    assert again.stdout in (tmp_path / "my.yaml").read_text(encoding="utf-8")
    assert not list(tmp_path.glob(".*tmp"))  # the atomic write left no temporary file


def test_generate_without_seed_writes_the_random_seed(tmp_path: Path) -> None:
    done = run("generate", "--kind", "double-action", "--players", "4", "--threat-level", "8", "-o", "x.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    mission = load_scenario(str(tmp_path / "x.yaml"))
    assert mission.seed is not None
    options = GenerateOptions(kind="double-action", players=4, threat_level=8)
    assert mission.events == generate(mission.seed, options).events
    assert dict(mission.generator)["threat_level"] == "8"


def test_count_and_campaign_write_folders(tmp_path: Path) -> None:
    done = run("generate", "--seed", "10", "--count", "4", "-o", "many/", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "many").iterdir()) == [f"mission-{s}.yaml" for s in range(10, 14)]
    done = run("generate", "--campaign", "--seed", "7", "--lang", "de", "-o", "campaign", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    names = sorted(p.name for p in (tmp_path / "campaign").iterdir())
    assert names == ["campaign-7-1.yaml", "campaign-7-2.yaml", "campaign-7-3.yaml"]
    second = load_scenario(str(tmp_path / "campaign" / names[1]))
    assert second.title == "Exploration campaign 7, mission 2 of 3" and second.language == "de"


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (("--threat-level", "99"), 2, "threat level 99 is impossible for a mission with 5 players"),
        (("--count", "3"), 2, "need -o FOLDER/"),
        (("--count", "3", "-o", "x.yaml"), 2, "3 missions need a folder"),
        (("--players", "3"), 2, "'3' is not one of '4', '5'"),
        (("--campaign", "--render", "a.mp3", "-o", "d/"), 2, "--render renders one mission"),
    ],
)
def test_bad_options_give_one_clear_line(tmp_path: Path, args: tuple[str, ...], code: int, message: str) -> None:
    done = run("generate", *args, cwd=tmp_path)
    assert done.returncode == code
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def test_stats_takes_the_seeds_generate_takes(tmp_path: Path) -> None:
    done = run("stats", "--seed", str(MAX_SEED - 1), "--count", "2", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    with pytest.raises(ScenarioError, match=f"seed {MAX_SEED + 1} is out of range"):
        fidelity_report(3, first_seed=MAX_SEED - 1)
    too_high = run("stats", "--seed", str(MAX_SEED + 1), cwd=tmp_path)
    assert too_high.returncode == 2 and f"0<=x<={MAX_SEED}" in too_high.stderr


def test_stats_prints_official_and_generated_side_by_side(tmp_path: Path) -> None:
    done = run("stats", "--count", "200", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "official missions 1-8 (8)" in lines[0] and "generated (200)" in lines[0]
    assert {line.split("  ")[0] for line in lines[2:2 + len(FEATURES)]} == {feature.name for feature in FEATURES}
    threats = next(line for line in lines if line.startswith("threats "))
    assert "5:25% 6:50% 7:25%" in threats  # missions 1-8: two with 5 threats, four with 6, two with 7
    zones = next(line for line in lines if line.startswith("zones used "))
    assert zones.split()[-1] == "100%"  # every generated mission uses all three zones, as every official one
    assert "Every official rule holds" in done.stdout


def test_stats_names_the_rules_the_settings_relax(tmp_path: Path) -> None:
    done = run("stats", "--count", "100", "--length", "13:00", "--outages", "6", "--ambush-chance", "60", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    relaxed = done.stdout.split("These settings relax official rules")[1]
    assert "phase-lengths: --length 13:00" in relaxed
    assert "event-counts: --outages 6 (official 2-5" in relaxed
    assert "ambush: --ambush-chance 60% (official 19%)" in relaxed
    outages = next(line for line in done.stdout.splitlines() if line.startswith("outages "))
    assert "6:100%" in outages


def test_report_ranges_hold_for_generated_missions() -> None:
    report = fidelity_report(300, GenerateOptions(kind="simulation"))
    shares = {c.feature.name: c.inside_share for c in report.comparisons}
    for name in ("phase 1 length (s)", "threats", "serious threats", "incoming data", "data transfers", "outages",
                 "comms down total (s)", "outage length (s)", "first event (s)"):
        assert shares[name] == 1.0, name
    assert "official simulations 1-3 + advanced 1-3" in format_report(report)


def test_stats_plot_draws_a_png(tmp_path: Path) -> None:
    require("matplotlib")
    done = run("stats", "--count", "100", "--kind", "double-action", "--plot", "fidelity.png", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    from matplotlib import image

    pixels = image.imread(str(tmp_path / "fidelity.png"))
    assert pixels.shape[0] > 800 and pixels.shape[1] > 800
    assert pixels[..., :3].std() > 0.05  # drawn, not blank


def test_stats_plot_without_matplotlib_says_how_to_install(tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    (blocker / "matplotlib.py").write_text("raise ImportError('no matplotlib here')\n", encoding="utf-8")
    env_path = f"{blocker}"
    done = subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
                           "from timekeeper.cli import main; raise SystemExit(main(['stats', '--plot', 'x.png']))", env_path],
                          cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 7
    assert "pip install 'timekeeper[plot]'" in done.stderr
    assert "Traceback" not in done.stderr


def test_generate_does_not_load_audio_libraries(tmp_path: Path) -> None:
    code = ("import sys; from timekeeper.cli import main\n"
            "try:\n main(['generate', '--seed', '5', '-o', 'x.yaml'])\n"
            "except SystemExit:\n pass\n"
            "print(sorted(m for m in ('pydub', 'miniaudio', 'pyttsx3', 'matplotlib', 'fpdf') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert done.stdout.strip() == "[]", done.stderr


def test_generate_renders_the_mission_right_away(tmp_path: Path) -> None:
    import wave

    import numpy as np

    done = run("generate", "--seed", "4711", "--render", "m.wav", "-o", "m.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Rendered m.wav" in done.stderr
    mission = load_scenario(str(tmp_path / "m.yaml"))
    with wave.open(str(tmp_path / "m.wav")) as audio:
        rate = audio.getframerate()
        samples = np.frombuffer(audio.readframes(audio.getnframes()), dtype=np.int16).astype(np.float64)
    assert 0 <= len(samples) / rate * 1000 - mission.duration_ms < 8000  # to the end: last words, jump, silence

    from timekeeper.audio.loudness import integrated_lufs

    def loudness(from_ms: int, to_ms: int) -> float:
        return integrated_lufs(samples[from_ms * rate // 1000: to_ms * rate // 1000] / 32768)

    first = mission.threats[0]  # klaxon and voice stand out from the alarm bed before them
    assert loudness(first.at_ms, first.at_ms + 6000) > loudness(first.at_ms - 3000, first.at_ms - 500) + 3


def test_generate_renders_a_file_named_without_an_extension_as_mp3(tmp_path: Path) -> None:
    done = run("generate", "--seed", "5", "--render", "five", "-o", "five.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Rendered five.mp3" in done.stderr and (tmp_path / "five.mp3").read_bytes()[:3] == b"ID3"
    refused = run("generate", "--seed", "5", "--render", "five.aiff", cwd=tmp_path)
    assert refused.returncode == 2 and "soundtracks are written as .mp3, .ogg, .flac or .wav, not '.aiff'" in refused.stderr
