"""Synthesize every English phrase with the default Piper voice (joe) and ship the clips (voices/seed/).

    python tools/seed_clips.py                      # joe, English: rewrites voices/seed/piper/
    python tools/seed_clips.py --check              # only check the shipped seed against this install

The clips are made exactly as a first render makes them (NeuralVoice: Piper, trimming, levelling)
into an empty clip cache, then stored under the same keys as lossless FLAC with the sha256 of their
samples (timekeeper.seed). Before writing, the official tracks are laid out with the new
clips (5 players, 4 players, solo): the seed is refused if any of them overlaps. Piper draws its
noise at random, so a new run gives slightly different clips; run it after changing the voice,
its pace, a phrase, the trimming or the levelling (the cache key changes, and the old seed is
simply not found any more).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from timekeeper import seed, sound
from timekeeper.atomicfile import replacing
from timekeeper.pcm import Clip, clip_ms, pcm16
from timekeeper.phrases import phrase_book
from timekeeper.seed import INDEX, encode_flac, seed_clip, seed_dir, seed_file, seed_key
from timekeeper.voice.neural import NeuralVoice, find_model
from timekeeper.voice.pace import official_pressure
from timekeeper.voice.recommended import RECOMMENDED
from timekeeper.wavcache import read_wav


def made_effects() -> None:
    """Every effect a render uses, made (not taken from the seed) into the clip cache."""
    sound.alert()
    sound.beep()
    sound.jump()
    sound.static_loop()
    for phase in range(len(sound.BED_TONES)):
        sound.bed_loop(phase)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--language", default="en", help="the language whose recommended Piper voice is seeded (en)")
    parser.add_argument("--check", action="store_true", help="check the shipped seed: every phrase found and exact")
    args = parser.parse_args()
    book = phrase_book(args.language)
    model = find_model(f"piper:{RECOMMENDED[args.language].name}")
    target = seed_dir()
    with tempfile.TemporaryDirectory() as scratch:
        os.environ["TIMEKEEPER_CACHE"] = scratch
        voice = NeuralVoice(args.language, model, folder=Path(scratch))
        texts = list(dict.fromkeys(book.spoken.values()))
        if args.check:
            missing = [text for text in texts if seed_clip(voice.cache_path(text), voice.base, target) is None]
            print(f"{len(texts) - len(missing)} of {len(texts)} phrases shipped for {voice.name}", file=sys.stderr)
            return 1 if missing else 0
        seed.USE_SEED = False
        made_effects()
        voice.prepare((text, text) for text in texts)
        lengths = {key: clip_ms(voice.clip(key, text)) for key, text in book.spoken.items()}
        pressure = official_pressure(args.language, lambda key, text: lengths.get(key) or clip_ms(voice.clip(key, text)))
        if pressure.overlaps:
            print(f"refused: {pressure.overlaps} overlaps in the official tracks with these clips", file=sys.stderr)
            return 1
        index = {}
        new = target.with_name(target.name + ".new")
        shutil.rmtree(new, ignore_errors=True)
        clips: dict[str, tuple[Clip, str]] = {}
        for path in sorted((Path(scratch) / "effects").glob("*.wav")):
            clips[path.relative_to(scratch).as_posix()] = (read_wav(path), path.stem)
        for text in texts:
            key = seed_key(voice.cache_path(text), voice.base)
            assert key is not None
            clips[key] = (voice.clip(text, text), text)
        for key, (clip, what) in clips.items():
            samples = pcm16(clip)
            encode_flac(seed_file(new, key), samples)
            index[key] = {"samples": len(samples) // 2, "sha256": hashlib.sha256(samples).hexdigest(), "what": what}
        with replacing(new / INDEX) as temp:
            temp.write_text(json.dumps({"voice": voice.name, "language": args.language, "effects_version": sound.EFFECTS_VERSION,
                                        "clips": index}, indent=1,
                                       ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
        shutil.rmtree(target, ignore_errors=True)
        new.rename(target)
    size = sum(path.stat().st_size for path in target.rglob("*") if path.is_file())
    print(f"{len(index)} clips, {size / 2**20:.1f} MiB in {target}; official tracks: {pressure.squeezed} squeezed cues,"
          f" 0 overlaps", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
