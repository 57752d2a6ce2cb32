"""Timeline + Voice -> the final mix, streamed as 16-bit PCM in chunks.

Nothing here holds the whole track: each chunk adds only the clips that overlap it (found by
bisecting the sorted start times), plus the static, alarm bed and music generated for just
that chunk. Memory stays flat however long the track is.
"""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from timekeeper.audio import effects
from timekeeper.audio.pcm import SAMPLE_RATE, Clip, pcm16
from timekeeper.grammar.durations import default_measure
from timekeeper.grammar.script import STATIC_KEY, ScriptOptions, Sound, Timeline, build_timeline
from timekeeper.model import Scenario
from timekeeper.voice.base import Placement, Voice
from timekeeper.voice.levelling import Levelling
from timekeeper.voice.voicing import voice_timeline

CHANNELS = 1
SAMPLE_WIDTH = 2  # bytes: 16-bit signed little-endian PCM
# The layers of the mix; mix_chunk(layers=...) gives any of them alone (a benchmark measures each).
SPEECH, EFFECTS, STATIC, BED = "speech", "effects", "static", "bed"
LAYERS = frozenset({SPEECH, EFFECTS, STATIC, BED})


@dataclass(frozen=True)
class MixSettings:
    """What to mix: language, voice (None = default TTS voice; a TTS voice name, a pack name or a
    pack folder), crew (players 4 drops unconfirmed reports; solo drops transfers, data, outages),
    and the beds (background alarm and an optional music file, ducked under speech)."""

    language: str = "en"
    voice: str | None = None
    players: int = 5
    solo: bool = False
    background: bool = True
    music: Path | None = None
    computer_voice: bool = False  # the "ship computer" effect on the voice

    @property
    def script_options(self) -> ScriptOptions:
        return ScriptOptions(players=self.players, solo=self.solo)


def _samples(ms: int) -> int:
    return ms * SAMPLE_RATE // 1000


@dataclass
class PreparedMix:
    """A timeline with every clip loaded, ready to stream as PCM from any moment."""

    timeline: Timeline
    placements: list[Placement]
    settings: MixSettings
    voice_name: str = ""
    warnings: tuple[str, ...] = ()
    sample_rate: int = SAMPLE_RATE
    channels: int = CHANNELS
    sample_width: int = SAMPLE_WIDTH
    static_clip: Clip | None = field(default=None, repr=False)  # a voice pack's own static, looped
    _music: effects.Music | None = field(default=None, repr=False)
    # phrases still being levelled (prepare_mix(background=True)): their placements hold the draft,
    # of the same length, until mix_chunk or settle() swaps in the final clip
    levelling: Levelling | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.placements = sorted(self.placements, key=lambda p: p.at_ms)
        self._starts = [_samples(p.at_ms) for p in self.placements]
        self._longest = max((len(p.clip) for p in self.placements), default=0)
        self._speech = sorted(
            (_samples(p.at_ms), _samples(p.at_ms) + len(p.clip)) for p in self.placements if p.speech
        )
        self._speech_starts = [span[0] for span in self._speech]
        self._statics = sorted((_samples(bed.at_ms), _samples(bed.end_ms)) for bed in self.timeline.beds)
        self._static_loop = self.static_clip if self.static_clip is not None or not self._statics else effects.static_loop()
        if self.settings.background and self.settings.music is not None and self._music is None:
            self._music = effects.Music(Path(self.settings.music))

    @property
    def duration_ms(self) -> int:
        return self.timeline.duration_ms

    @property
    def n_samples(self) -> int:
        return _samples(self.duration_ms)

    def music_from(self, sample: int) -> effects.MusicReader | None:
        """A reader of the music bed from sample `sample` on, to hand to mix_chunk (None: no music)."""
        return self._music.chunks(sample) if self._music is not None else None

    def pcm(self, start_ms: int = 0, chunk_ms: int = 1000, ceiling_dbfs: float | None = None) -> Iterator[bytes]:
        """The final mix from `start_ms` to the end, as 16-bit PCM chunks of `chunk_ms`; with
        `ceiling_dbfs`, its peaks held under that ceiling (for a lossy encoder: audio/ceiling.py)."""
        chunks = self.floats(start_ms, chunk_ms)
        if ceiling_dbfs is not None:
            from timekeeper.audio.ceiling import held_under

            chunks = held_under(chunks, ceiling_dbfs)
        for chunk in chunks:
            yield pcm16(chunk)

    def floats(self, start_ms: int = 0, chunk_ms: int = 1000) -> Iterator[Clip]:
        """The final mix from `start_ms` to the end, as float chunks of `chunk_ms`."""
        step = max(1, _samples(chunk_ms))
        music = self.music_from(_samples(start_ms))
        for begin in range(_samples(start_ms), self.n_samples, step):
            yield self.mix_chunk(begin, min(step, self.n_samples - begin), music)

    def mix_chunk(
        self, begin: int, n: int, music: effects.MusicReader | None = None, layers: frozenset[str] = LAYERS
    ) -> Clip:
        """Float samples [begin, begin + n) of the mix (of just `layers`, if given)."""
        out = np.zeros(n, dtype=np.float32)
        end = begin + n
        levelling = self.levelling  # (kept here: another reader may drop it once every clip is final)
        if levelling is not None and levelling.finished:
            self.settle()
            self.levelling = None  # every placement holds its final clip: the drafts can go
        first = bisect.bisect_left(self._starts, begin - self._longest)
        last = bisect.bisect_left(self._starts, end)
        for index in range(first, last):
            start = self._starts[index]
            placement = self.placements[index]
            if (SPEECH if placement.speech else EFFECTS) not in layers:
                continue
            if levelling is not None:
                placement = self._settled(index, levelling)
            lo, hi = max(begin, start), min(end, start + len(placement.clip))
            if lo < hi:
                out[lo - begin : hi - begin] += placement.clip[lo - start : hi - start]
        speaking: list[tuple[int, int]] | None = None
        if STATIC in layers:
            for span in self._statics:
                lo, hi = max(begin, span[0]), min(end, span[1])
                if lo < hi:
                    speaking = self._near_speech(begin, end) if speaking is None else speaking
                    assert self._static_loop is not None  # made whenever there are outages
                    noise = effects.outage_static(self._static_loop, span, lo, hi - lo)
                    ducked = effects.duck_gain(lo, hi - lo, speaking, effects.STATIC_DUCK_GAIN)
                    out[lo - begin : hi - begin] += noise * ducked
        if self.settings.background and BED in layers:
            bed = effects.alarm_bed(begin, n, self.timeline.phase_ends_ms)
            if music is not None:
                bed += music.read(n)
            speaking = self._near_speech(begin, end) if speaking is None else speaking
            out += bed * effects.duck_gain(begin, n, speaking)
        return effects.soft_clip(out)

    def _settled(self, index: int, levelling: Levelling) -> Placement:
        """Placement `index` with its final clip (waiting for its levelling if need be)."""
        placement = self.placements[index]
        final = levelling.final(placement.clip)
        if final is not None:
            placement = self.placements[index] = dataclasses.replace(placement, clip=final)
        return placement

    def settle(self) -> PreparedMix:
        """Wait until every clip is final (placements then hold the clips the mix plays); self."""
        levelling = self.levelling
        if levelling is not None:
            for index in range(len(self.placements)):
                self._settled(index, levelling)
        return self

    def _near_speech(self, begin: int, end: int) -> list[tuple[int, int]]:
        reach = _samples(effects.DUCK_RELEASE_MS + effects.DUCK_ATTACK_MS) + self._longest
        first = bisect.bisect_left(self._speech_starts, begin - reach)
        last = bisect.bisect_right(self._speech_starts, end + reach)
        return self._speech[first:last]


def prepare_mix(
    scenario: Scenario,
    settings: MixSettings,
    progress: Callable[[int, int], None] | None = None,
    background: bool = False,
) -> PreparedMix:
    """Load or synthesize every clip (progress(done, total)) and lay out the timeline with the
    voice's real phrase lengths.

    background=True returns as soon as the lengths are known: a synthesized voice's new phrases
    are then levelled in the background, in the order the track speaks them, and the mix waits
    for a clip only when a chunk needs it (levelling.py), so whoever reads the chunks in order (the
    encoder, the page's stream) starts at once; the samples are the same."""
    from timekeeper.voice.select import open_voice

    voice = open_voice(settings.language, settings.voice)
    book = voice.phrases()
    phrases = _phrases(scenario, settings, voice)
    drafting = getattr(voice, "draft", None) if background else None
    levelling: Levelling | None = drafting(phrases, progress) if drafting is not None else None
    if levelling is None:
        voice.prepare(phrases, progress)
    timeline = build_timeline(scenario, book, voice.measure, settings.script_options)
    if levelling is not None and len(levelling):
        levelling.start(part.text for cue in timeline.cues for part in cue.speech)
        # a squeezed cue's phrases are sped up, and the ship-computer effect processes clips: both from the final clip
        for part in (part for cue in timeline.cues for part in cue.speech if part.tempo != 1.0 or settings.computer_voice):
            if levelling.draft(part.text) is not None:
                levelling.level(part.text)
    timeline, spoken = voice_timeline(timeline, voice)
    placements = with_voice_effect([_final(p, levelling) for p in spoken], settings.computer_voice)
    placements += effect_placements(timeline, voice)
    return PreparedMix(
        timeline=timeline,
        placements=placements,
        settings=settings,
        voice_name=voice.name,
        warnings=tuple(getattr(voice, "warnings", ())),
        static_clip=voice.effect(STATIC_KEY),
        levelling=levelling if levelling is not None and len(levelling) else None,  # (mix_chunk drops it once all is final)
    )


def spoken_timeline(scenario: Scenario, settings: MixSettings, voice: Voice,
                    progress: Callable[[int, int], None] | None = None) -> Timeline:
    """The timeline `voice` speaks `scenario` with, as prepare_mix lays it out (every clip of the
    voice prepared: synthesized or loaded, and kept by the voice), without mixing anything."""
    voice.prepare(_phrases(scenario, settings, voice), progress)
    timeline = build_timeline(scenario, voice.phrases(), voice.measure, settings.script_options)
    return voice_timeline(timeline, voice)[0]


def _phrases(scenario: Scenario, settings: MixSettings, voice: Voice) -> list[tuple[str, str]]:
    """(key, text) of every phrase `voice` must say for `scenario` (a whole-cue recording says its own)."""
    draft = build_timeline(scenario, voice.phrases(), default_measure(settings.language), settings.script_options)
    return [(part.key, part.text) for cue in draft.cues if not voice.whole(cue) for part in cue.speech]


def _final(placement: Placement, levelling: Levelling | None) -> Placement:
    """`placement` with its final clip when it is ready already (a cached phrase keeps its clip)."""
    if levelling is None or not levelling.ready(placement.clip):
        return placement
    final = levelling.final(placement.clip)
    return placement if final is None else dataclasses.replace(placement, clip=final)


def with_voice_effect(placements: list[Placement], computer_voice: bool = False) -> list[Placement]:
    """The spoken clips, with the "ship computer" effect when asked (each distinct clip processed once)."""
    if not computer_voice:
        return placements
    processed: dict[int, Clip] = {}
    result = []
    for placement in placements:
        key = id(placement.clip)
        if key not in processed:
            processed[key] = effects.ship_computer(placement.clip)
        result.append(dataclasses.replace(placement, clip=processed[key]))
    return result


def effect_placements(timeline: Timeline, voice: Voice) -> list[Placement]:
    """The alert and beep of every cue: the voice pack's own recording if it has one, else ours."""
    made: dict[tuple[str, int], Clip] = {}
    placements = []
    for cue in timeline.cues:
        for part in cue.parts:
            if not isinstance(part, Sound) or part.key == STATIC_KEY:
                continue
            key = (part.key, part.duration_ms)
            if key not in made:
                recorded = voice.effect(part.key)  # a voice pack's own recording of the effect
                made[key] = recorded if recorded is not None else _synthesize(part)
            placements.append(Placement(part.at_ms, made[key], speech=False))
    return placements


SYNTHESIZED: dict[str, Callable[[int], Clip]] = {"alert": effects.alert, "beep": effects.beep, "jump": effects.jump}


def _synthesize(part: Sound) -> Clip:
    try:
        return SYNTHESIZED[part.key](part.duration_ms)
    except KeyError:
        raise ValueError(f"no synthesized sound {part.key!r}") from None
