"""Synthesize every phrase of a language's default voice and ship the clips (voices/seed/).

    python tools/seed_clips.py                      # English: joe (Piper), and the effects
    python tools/seed_clips.py --language de        # German: the synthesized voice (espeak-ng)
    python tools/seed_clips.py --all                # the synthesized voice of every other language
    python tools/seed_clips.py --check --all        # only check the shipped seed against this install

The clips are made exactly as a first render makes them (NeuralVoice: Piper, or TtsVoice:
espeak-ng; trimming, levelling) into an empty clip cache, then stored under the same keys as
lossless FLAC with the sha256 of their samples (timekeeper.audio.seed). English's default is joe, which
comes with timekeeper; every other language's default is the synthesized voice until its Piper voice
is installed. Before writing, the official tracks are laid out with the new clips (5 players,
4 players, solo): a language is refused if any of them overlaps. The clips of the other languages
already shipped are kept; the effects are made again. Piper draws its noise at random, so a new run
gives slightly different clips for English; espeak-ng gives the same samples every time. Run it
after changing a voice, its pace, a phrase, the trimming or the levelling (the cache key changes,
and the old seed is simply not found any more).
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

from timekeeper.audio import effects, seed
from timekeeper.audio.clipcache import read_wav
from timekeeper.audio.pcm import clip_ms, pcm16
from timekeeper.audio.seed import INDEX, encode_flac, seed_clip, seed_dir, seed_file, seed_key
from timekeeper.files.atomicfile import replacing
from timekeeper.grammar.phrases import LANGUAGES, phrase_book
from timekeeper.voice.base import Voice
from timekeeper.voice.pace import official_pressure

NEURAL = {"en"}  # the languages whose default voice comes with timekeeper as a Piper voice (joe)


def made_effects() -> None:
    """Every effect a render uses, made (not taken from the seed) into the clip cache."""
    effects.alert()
    effects.beep()
    effects.jump()
    effects.static_loop()
    for phase in range(len(effects.BED_TONES)):
        effects.bed_loop(phase)


def default_voice(language: str, scratch: Path) -> Voice:
    """The voice a fresh install speaks `language` with, caching under `scratch`."""
    if language in NEURAL:
        from timekeeper.voice.neural import NeuralVoice, find_model
        from timekeeper.voice.recommended import RECOMMENDED

        return NeuralVoice(language, find_model(f"piper:{RECOMMENDED[language].name}"), folder=scratch)
    from timekeeper.voice.tts import TtsVoice

    return TtsVoice(language, folder=scratch)


def check(language: str) -> bool:
    with tempfile.TemporaryDirectory() as scratch:
        voice = default_voice(language, Path(scratch))
        texts = list(dict.fromkeys(phrase_book(language).spoken.values()))
        missing = [text for text in texts if seed_clip(voice.cache_path(text), voice.base) is None]  # type: ignore[attr-defined]
    print(f"{language}: {len(texts) - len(missing)} of {len(texts)} phrases shipped for {voice.name}", file=sys.stderr)
    return not missing


def made_clips(language: str, scratch: Path) -> dict[str, tuple[bytes, str]] | None:
    """key -> (16-bit samples, text) of every phrase of `language`'s default voice, made in `scratch`
    (an empty clip cache); None when the official tracks overlap with them."""
    book = phrase_book(language)
    voice = default_voice(language, scratch)
    texts = list(dict.fromkeys(book.spoken.values()))
    voice.prepare((text, text) for text in texts)
    lengths = {key: clip_ms(voice.clip(key, text)) for key, text in book.spoken.items()}
    pressure = official_pressure(language, lambda key, text: lengths.get(key) or clip_ms(voice.clip(key, text)))
    if pressure.overlaps:
        print(f"{language}: refused: {pressure.overlaps} overlaps in the official tracks with these clips", file=sys.stderr)
        return None
    print(f"{language}: {len(texts)} phrases of {voice.name}; official tracks: {pressure.squeezed} squeezed cues, 0 overlaps",
          file=sys.stderr)
    clips = {}
    for text in texts:
        key = seed_key(voice.cache_path(text), voice.base)  # type: ignore[attr-defined]
        assert key is not None
        clips[key] = (pcm16(voice.clip(text, text)), text)
    return clips


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], epilog="example: python tools/seed_clips.py --language de",
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--language", action="append", choices=LANGUAGES,
                        help="a language to seed (repeatable; en when neither this nor --all is given)")
    parser.add_argument("--all", action="store_true", help="every shipped language but English (whose joe clips differ at each run)")
    parser.add_argument("--check", action="store_true", help="check the shipped seed: every phrase found and exact")
    args = parser.parse_args()
    languages = list(dict.fromkeys((args.language or []) + ([lang for lang in LANGUAGES if lang not in NEURAL] if args.all else [])))
    languages = languages or ["en"]
    if args.check:
        return 0 if all([check(language) for language in languages]) else 1
    target = seed_dir()
    old = json.loads((target / INDEX).read_text(encoding="utf-8")) if (target / INDEX).is_file() else {"clips": {}, "voices": {}}
    shipped = old.get("voices") or ({old["language"]: old["voice"]} if "voice" in old else {})
    voices = {lang: name for lang, name in shipped.items() if lang not in languages}
    entries = {key: value for key, value in old["clips"].items()
               if not key.startswith("effects/") and value.get("language", "en") not in languages}
    new = target.with_name(target.name + ".new")
    shutil.rmtree(new, ignore_errors=True)
    for key in entries:  # the other languages' clips, as shipped
        seed_file(new, key).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(seed_file(target, key), seed_file(new, key))
    seed.USE_SEED = False
    clips: dict[str, tuple[bytes, str, str | None]] = {}
    for language in languages:
        with tempfile.TemporaryDirectory() as scratch:
            os.environ["TIMEKEEPER_CACHE"] = scratch
            made = made_clips(language, Path(scratch))
            if made is None:
                return 1
            voices[language] = default_voice(language, Path(scratch)).name
            clips.update({key: (samples, text, language) for key, (samples, text) in made.items()})
    with tempfile.TemporaryDirectory() as scratch:
        os.environ["TIMEKEEPER_CACHE"] = scratch
        effects._EFFECTS.clear()
        made_effects()
        for path in sorted((Path(scratch) / "effects").glob("*.wav")):
            clips[path.relative_to(scratch).as_posix()] = (pcm16(read_wav(path)), path.stem, None)
    for key, (samples, what, language) in clips.items():
        encode_flac(seed_file(new, key), samples)
        entries[key] = {"samples": len(samples) // 2, "sha256": hashlib.sha256(samples).hexdigest(), "what": what,
                        **({"language": language} if language else {})}
    with replacing(new / INDEX) as temp:
        temp.write_text(json.dumps({"voices": voices, "effects_version": effects.EFFECTS_VERSION, "clips": entries}, indent=1,
                                   ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
    shutil.rmtree(target, ignore_errors=True)
    new.rename(target)
    size = sum(path.stat().st_size for path in target.rglob("*") if path.is_file())
    print(f"{len(entries)} clips, {size / 2**20:.1f} MiB in {target}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
