"""The timeline as a voice really speaks it: every cue re-timed to where its clips are placed.

`build_timeline` lays phrases out one after another with the voice's lengths. A voice pack may
place clips elsewhere: a bundle ("... five, four, three, two, one") that is longer than the
synthesized lead-in starts earlier so that it ends at the beep; a whole-cue recording replaces a
cue's phrases and sounds. `voice_timeline` asks the voice for its placements and rebuilds each
cue from them, so plan, overlap checks, captions and the mix all read the same times.
"""

from __future__ import annotations

import dataclasses

from timekeeper.audio.pcm import clip_ms
from timekeeper.errors import VoiceError
from timekeeper.grammar.script import TAIL_MS, Cue, Part, Sound, Speech, Timeline
from timekeeper.grammar.times import format_time
from timekeeper.voice.base import Placement, Voice

AFTER_END_MS = 30_000  # a clip may run this long past the end of the mission (the closing words)


def voice_timeline(timeline: Timeline, voice: Voice) -> tuple[Timeline, list[Placement]]:
    """`timeline` re-timed to the clips of `voice`, and the spoken placements themselves.

    Raises VoiceError naming the clip when one does not fit its slot: it would have to start
    before the track begins, or it runs more than AFTER_END_MS past the end of the mission."""
    end_ms = timeline.phase_ends_ms[-1] if timeline.phase_ends_ms else timeline.duration_ms
    cues: list[Cue] = []
    spoken: list[Placement] = []
    for cue in timeline.cues:
        placed = voice.placements(cue)
        for placement in placed:
            check_slot(placement, end_ms)
        speech = [Speech(p.key, p.text, p.at_ms, clip_ms(p.clip)) for p in placed]
        sounds: list[Part] = [part for part in cue.parts if isinstance(part, Sound) and voice.keeps_sound(cue, part.key)]
        parts = tuple(sorted([*sounds, *speech], key=lambda part: part.at_ms))
        cues.append(dataclasses.replace(cue, parts=parts) if parts else cue)
        spoken += placed
    cues.sort(key=lambda cue: cue.at_ms)
    last_ms = max(cue.end_ms for cue in cues) + TAIL_MS
    scenario_ms = timeline.scenario.duration_ms + TAIL_MS if timeline.scenario is not None else 0
    voiced = dataclasses.replace(timeline, cues=tuple(cues), duration_ms=max(last_ms, scenario_ms))
    return voiced, spoken


def check_slot(placement: Placement, mission_end_ms: int) -> None:
    """VoiceError naming the clip if `placement` starts before 0:00 or ends long after the mission."""
    length_ms = clip_ms(placement.clip)
    name = f"clip {placement.key!r}" + (f" ({placement.source})" if placement.source else "")
    if placement.at_ms < 0:
        raise VoiceError(
            f"{name} is {format_time(length_ms, precise=True)} long: to end on time it would have to start"
            f" {format_time(-placement.at_ms, precise=True)} before the track begins"
        )
    limit_ms = mission_end_ms + AFTER_END_MS
    if placement.at_ms + length_ms > limit_ms:
        raise VoiceError(
            f"{name} is {format_time(length_ms, precise=True)} long: from {format_time(placement.at_ms, precise=True)}"
            f" it runs past {format_time(limit_ms)}, {AFTER_END_MS // 1000} s after the mission ends; shorten the clip"
        )
