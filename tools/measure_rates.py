"""Choose the espeak-ng speaking rate of every shipped language by measurement (docs/voices.md).

For each candidate rate (ESPEAK_DEFAULT_WPM: 175 words per minute, espeak-ng's default and about
natural speech, up in steps of 5) every spoken phrase is synthesized with the real engine, and the 34 official
tracks (5 players, 4 players, solo) are laid out with those lengths. A rate is counted by how many
cues overlap and how many cues the grammar has to squeeze (shorter gaps, then faster speech). The
chosen rate is the slowest one with no overlap and at most MAX_SQUEEZED_CUES squeezed cues: slower
speech is easier to understand, and the squeeze is kept for the few cues that really need it.

    python tools/measure_rates.py              # the table for every language (markdown)
    python tools/measure_rates.py de fr        # some languages
    python tools/measure_rates.py --all-rates  # every candidate rate, not only up to the chosen one
    python tools/measure_rates.py --write      # also set tts.rate in voices/<lang>.yaml

The table also gives the words per minute really spoken at the chosen rate (the words of every
spoken phrase over their measured lengths, silence trimmed): espeak-ng's rate is a setting, and
languages with longer words speak fewer of them per minute at the same setting.

After --write, run tools/measure_phrases.py to rewrite the phrase-length tables.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from timekeeper.files.paths import voices_dir  # noqa: E402
from timekeeper.grammar.phrases import LANGUAGES, phrase_book  # noqa: E402
from timekeeper.grammar.script import Measure  # noqa: E402
from timekeeper.voice.pace import ESPEAK_DEFAULT_WPM, MAX_SQUEEZED_CUES, official_pressure  # noqa: E402
from timekeeper.voice.tts import TtsVoice  # noqa: E402

RATES = tuple(range(ESPEAK_DEFAULT_WPM, 256, 5))


@dataclass(frozen=True)
class RateResult:
    rate_wpm: int
    overlaps: int
    squeezed: int
    cues: int
    sped_up: int  # squeezed cues that also needed faster speech (not just shorter gaps)
    spoken_wpm: int  # words per minute of the phrases as spoken at this rate


def lengths_at(language: str, rate_wpm: int, scratch: Path) -> dict[str, int]:
    """key -> ms of every spoken phrase of `language` synthesized at `rate_wpm`."""
    voice = TtsVoice(language, folder=scratch)
    voice.settings = dataclasses.replace(voice.settings, rate_wpm=rate_wpm)
    phrases = list(phrase_book(language).spoken.items())
    voice.prepare(phrases)
    return {key: voice.measure(key, text) for key, text in phrases}


def table_measure(lengths: dict[str, int]) -> Measure:
    return lambda key, text: lengths[key]


def count(language: str, lengths: dict[str, int], rate_wpm: int) -> RateResult:
    pressure = official_pressure(language, table_measure(lengths))
    words = sum(len(text.split()) for text in phrase_book(language).spoken.values())
    spoken_wpm = round(words * 60_000 / sum(lengths.values()))
    return RateResult(rate_wpm, pressure.overlaps, pressure.squeezed, pressure.cues, pressure.sped_up, spoken_wpm)


def measure_language(language: str, all_rates: bool = False) -> list[RateResult]:
    """The candidate rates from the slowest, up to the first that fits (or all of them)."""
    results = []
    with tempfile.TemporaryDirectory() as scratch:
        for rate in RATES:
            results.append(count(language, lengths_at(language, rate, Path(scratch)), rate))
            if not all_rates and fits(results[-1]):
                break
    return results


def fits(result: RateResult) -> bool:
    return result.overlaps == 0 and result.squeezed <= MAX_SQUEEZED_CUES


def chosen(results: list[RateResult]) -> RateResult:
    """The slowest rate with no overlap and at most MAX_SQUEEZED_CUES squeezed cues."""
    fitting = [r for r in results if fits(r)]
    if not fitting:
        raise SystemExit(f"no rate up to {RATES[-1]} wpm fits with at most {MAX_SQUEEZED_CUES} squeezed cues")
    return min(fitting, key=lambda r: r.rate_wpm)


def write_rate(language: str, rate_wpm: int) -> None:
    path = voices_dir() / f"{language}.yaml"
    text = path.read_text(encoding="utf-8")
    new, replaced = re.subn(r"(?m)^(  rate: )\d+", rf"\g<1>{rate_wpm}", text, count=1)
    if not replaced:
        raise SystemExit(f"{path}: no 'tts: rate:' line")
    path.write_text(new, encoding="utf-8")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("languages", nargs="*", default=list(LANGUAGES))
    parser.add_argument("--all-rates", action="store_true", help="measure every candidate rate")
    parser.add_argument("--write", action="store_true", help="set the chosen rate in voices/<lang>.yaml")
    args = parser.parse_args(argv)
    print("| language | espeak-ng rate (wpm) | overlaps | squeezed cues | of which sped up | words/min spoken |")
    print("|---|---|---|---|---|---|")
    for language in args.languages:
        results = measure_language(language, args.all_rates)
        best = chosen(results)
        for r in results:
            mark = " **chosen**" if r is best else ""
            print(f"| {language} | {r.rate_wpm}{mark} | {r.overlaps} | {r.squeezed} of {r.cues} | {r.sped_up} | {r.spoken_wpm} |",
                  flush=True)
        if args.write:
            write_rate(language, best.rate_wpm)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
