"""Every sound target, measured on real renders of missions 1-8 in English, German and Spanish.

    python benchmarks/bench_sound.py                  # all 24 renders (a few minutes of CPU)
    python benchmarks/bench_sound.py --missions 1 3 --languages de
    python benchmarks/bench_sound.py --missions 1 5 7 --languages en de pl --formats mp3 ogg flac

Each track is rendered (to mp3, or each of --formats) as `timekeeper render` does, then measured by
timekeeper.soundtrack.soundcheck: FFmpeg's ebur128 filter (in PyAV) on the file (integrated loudness, LRA, true peak),
pyloudnorm on each layer of the mix over its own windows (speech, klaxon, beep, static, bed),
spectra of the bed and the static, fades, lead-in, ending and pacing from the timeline.
Prints one row per render, the range of each figure, and every target missed (exit 1 if any).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--missions", type=int, nargs="+", default=list(range(1, 9)))
    parser.add_argument("--languages", nargs="+", default=["en", "de", "es"])
    parser.add_argument("--formats", nargs="+", default=["mp3"], choices=["mp3", "ogg", "flac", "wav"])
    args = parser.parse_args()
    from timekeeper.scenario.catalog import load_scenario
    from timekeeper.soundtrack.mix import MixSettings, prepare_mix
    from timekeeper.soundtrack.render import render
    from timekeeper.soundtrack.soundcheck import TARGETS, measure

    rows = []
    missed: list[str] = []
    head = (f"{'track':<19} {'I LUFS':>7} {'TP dBTP':>7} {'LRA':>5} {'speech':>7} {'alert':>6} {'beep':>6}"
            f" {'static':>6} {'bed@sp':>7} {'bed 1/2/3 LUFS':>17} {'>300Hz min':>10} {'st>8k':>6}"
            f" {'fades ms':>9} {'lead':>5} {'tail':>5} {'gap':>4} squeezed")
    print(head)
    with tempfile.TemporaryDirectory() as scratch:
        for number, language, suffix in ((n, lang, f) for n in args.missions for lang in args.languages for f in args.formats):
            name = f"mission-{number}"
            out = Path(scratch) / f"{name}-{language}.{suffix}"
            settings = MixSettings(language=language)
            scenario = load_scenario(name)
            render(scenario, out, settings, source=name)
            figures = measure(prepare_mix(scenario, settings), out)
            rows.append(figures)
            e = figures.element_lufs
            print(f"{name + ' ' + language + ' ' + suffix:<19} {figures.integrated_lufs:7.1f} {figures.true_peak_dbtp:7.1f}"
                  f" {figures.lra_lu:5.1f} {figures.speech_lufs:7.1f} {e.get('alert', 0):6.1f} {e.get('beep', 0):6.1f}"
                  f" {e.get('static', 0):6.1f} {figures.bed_under_speech_lufs:7.1f}"
                  f" {'/'.join(f'{v:.1f}' for v in figures.bed_phase_lufs):>17}"
                  f" {min(figures.bed_phase_high_share):10.2f} {figures.static_high_share * 100:5.2f}%"
                  f" {min(figures.static_fade_ms):4.0f}/{max(figures.static_fade_ms):<4.0f}"
                  f" {figures.lead_in_ms:5d} {figures.tail_silence_ms:5d} {figures.min_sentence_gap_ms:4d}"
                  f" {'; '.join(figures.squeezed) or '-'}", flush=True)
            missed += [f"{name} {language} {suffix}: {failure}" for failure in figures.failures()]


    def span(values: list[float], digits: int = 1) -> str:
        return f"{min(values):.{digits}f} .. {max(values):.{digits}f}"

    print()
    print(f"renders: {len(rows)}")
    print(f"integrated loudness   {span([r.integrated_lufs for r in rows])} LUFS   (target -16 +/- 1)")
    print(f"true peak             {span([r.true_peak_dbtp for r in rows])} dBTP   (target <= -1)")
    print(f"loudness range        {span([r.lra_lu for r in rows])} LU     (target <= 10)")
    print(f"speech - loudest fx   {span([r.speech_lufs - max(r.element_lufs.values()) for r in rows])} LU     (target >= 3)")
    print(f"speech - bed under it {span([r.speech_lufs - r.bed_under_speech_lufs for r in rows])} LU     (target >= 15)")
    print(f"bed energy > 300 Hz   {span([min(r.bed_phase_high_share) * 100 for r in rows])} %      (target >= 50, every phase)")
    print(f"bed growth per phase  {span([min(b - a for a, b in zip(r.bed_phase_lufs, r.bed_phase_lufs[1:])) for r in rows])} LU     (target > 0)")
    print(f"static energy > 8 kHz {span([r.static_high_share * 100 for r in rows], 2)} %      (target < 1)")
    print(f"static fades          {span([min(r.static_fade_ms) for r in rows])} ms     (target >= 30)")
    print(f"effects above 7 kHz   {span([r.effects_alias_db for r in rows])} dB     (target < -50)")
    print(f"lead-in before Alert  {span([r.lead_in_ms for r in rows])} ms     (target >= 500)")
    print(f"silence at the end    {span([r.tail_silence_ms for r in rows])} ms     (target >= 1000)")
    print(f"sentence gaps         {span([r.min_sentence_gap_ms for r in rows])} ms     (target >= 500 where not squeezed)")
    print(f"squeezed cues         {sum(len(r.squeezed) for r in rows)} in {len(rows)} renders; overlaps {sum(r.overlaps for r in rows)}")
    if missed:
        print("\nmissed targets:")
        print("\n".join(f"  {line}" for line in missed))
        return 1
    print(f"\nall {len(TARGETS)} targets met on every render")
    return 0


if __name__ == "__main__":
    sys.exit(main())
