"""The announcement grammar: Scenario -> Timeline of cues. Every output reads this timeline.

A cue is one announcement (a threat, a data transfer, a phase-end warning ...): a run of spoken
phrases and sound effects, each placed at an absolute time in milliseconds. Phrase lengths come
from a `measure` function supplied by the voice, so the timeline is exact for that voice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Callable, Iterable, Iterator, Union

from timekeeper.model import (
    Announcement,
    CommsDown,
    DataTransfer,
    Event,
    IncomingData,
    Scenario,
    Threat,
)
from timekeeper.voice.phrases import PhraseBook

# Measure(key, text) -> how long the voice takes to say it, in milliseconds.
Measure = Callable[[str, str], int]

# Sound effects the grammar places (sound.py synthesizes them to exactly these lengths).
ALERT_MS = 1400
BEEP_MS = 400
STATIC_KEY = "white_noise"

GAP_MS = 200  # silence between two phrases of one cue
COUNT_STEP_MS = 1000  # countdown numbers fall on whole seconds
COUNT_LEAD_MS = 100  # from the end of "Data transfer in" to "five"
AFTER_BEEP_MS = 100  # from the end of the transfer beep to "Data transfer complete"
TAIL_MS = 2000  # silence after "Mission complete" before the track ends

ORDINALS = ("first", "second", "third")


class CueKind(str, Enum):
    BEGIN = "begin"
    THREAT = "threat"
    INCOMING_DATA = "incoming_data"
    DATA_TRANSFER = "data_transfer"
    COMMS_DOWN = "comms_down"
    COMMS_RESTORED = "comms_restored"
    PHASE_WARNING = "phase_warning"
    PHASE_END = "phase_end"
    ANNOUNCEMENT = "announcement"


@dataclass(frozen=True)
class Speech:
    """Phrase `key` (its words `text`) spoken from `at_ms` for `duration_ms`."""

    key: str
    text: str
    at_ms: int
    duration_ms: int

    @property
    def end_ms(self) -> int:
        return self.at_ms + self.duration_ms


@dataclass(frozen=True)
class Sound:
    """Sound effect `key` (alert, beep, white_noise) played from `at_ms` for `duration_ms`."""

    key: str
    at_ms: int
    duration_ms: int

    @property
    def end_ms(self) -> int:
        return self.at_ms + self.duration_ms


Part = Union[Speech, Sound]


@dataclass(frozen=True)
class Cue:
    """One announcement. `bundle` names the community clip that holds all of its speech, if any."""

    kind: CueKind
    parts: tuple[Part, ...]
    event: Event | None = None
    phase: int = 1
    bundle: str | None = None

    @property
    def at_ms(self) -> int:
        return self.parts[0].at_ms

    @property
    def end_ms(self) -> int:
        return max(part.end_ms for part in self.parts)

    @property
    def duration_ms(self) -> int:
        return self.end_ms - self.at_ms

    @property
    def text(self) -> str:
        """The spoken words of the cue, in order ("... in five, four, three, two, one.")."""
        words = ""
        previous = ""
        for part in self.speech:
            counting = part.key.startswith("count_")
            if counting and previous.startswith("count_"):
                words += ", "
            elif words:
                words += ". " if previous.startswith("count_") else " "
            words += part.text
            previous = part.key
        return words + ("." if previous.startswith("count_") else "")

    @property
    def speech(self) -> tuple[Speech, ...]:
        return tuple(part for part in self.parts if isinstance(part, Speech))


@dataclass(frozen=True)
class Overlap:
    first: Cue
    second: Cue

    @property
    def overlap_ms(self) -> int:
        return self.first.end_ms - self.second.at_ms


@dataclass(frozen=True)
class Timeline:
    """All cues of a track in start order, the static beds of outages, and the track length."""

    cues: tuple[Cue, ...]
    beds: tuple[Sound, ...]
    phase_ends_ms: tuple[int, ...]
    duration_ms: int
    language: str
    scenario: Scenario = field(compare=False, repr=False, default=None)  # type: ignore[assignment]
    phrases: PhraseBook = field(compare=False, repr=False, default=None)  # type: ignore[assignment]  # the words

    def overlaps(self) -> list[Overlap]:
        """Pairs of cues where the second starts before the first has finished."""
        found = []
        latest: Cue | None = None
        for cue in self.cues:
            if latest is not None and cue.at_ms < latest.end_ms:
                found.append(Overlap(latest, cue))
            if latest is None or cue.end_ms > latest.end_ms:
                latest = cue
        return found


@dataclass(frozen=True)
class ScriptOptions:
    """`players=4` drops unconfirmed reports; `solo` drops data transfers, incoming data, outages."""

    players: int = 5
    solo: bool = False

    def keeps(self, event: Event) -> bool:
        if isinstance(event, Threat) and event.unconfirmed and self.players < 5:
            return False
        if self.solo and isinstance(event, (IncomingData, DataTransfer, CommsDown)):
            return False
        return True


def build_timeline(
    scenario: Scenario,
    phrases: PhraseBook,
    measure: Measure,
    options: ScriptOptions = ScriptOptions(),
) -> Timeline:
    """Lay out every announcement of `scenario` in `phrases`' language, timed by `measure`."""
    writer = _CueWriter(phrases, measure, scenario)
    cues = [writer.begin()]
    beds: list[Sound] = []
    for event in scenario.events:
        if not options.keeps(event):
            continue
        cues.extend(writer.event(event))
        if isinstance(event, CommsDown):
            beds.append(writer.static(event))
    for index, end_ms in enumerate(scenario.phase_ends_ms):
        cues.extend(writer.phase_end(index, end_ms, last=index == len(scenario.phase_ends_ms) - 1))
    cues.sort(key=lambda cue: cue.at_ms)
    end_ms = max(cue.end_ms for cue in cues) + TAIL_MS
    return Timeline(
        cues=tuple(cues),
        beds=tuple(beds),
        phase_ends_ms=scenario.phase_ends_ms,
        duration_ms=max(end_ms, scenario.duration_ms + TAIL_MS),
        language=phrases.language,
        scenario=scenario,
        phrases=phrases,
    )


def threat_phrase_keys(threat: Threat) -> tuple[str, ...]:
    """The phrases that name one threat once: [unconfirmed], time, kind, [zone]."""
    kind = ("serious_" if threat.serious else "") + ("internal_threat" if threat.internal else "threat")
    keys = ["unconfirmed_report"] if threat.unconfirmed else []
    keys += [f"time_t_plus_{threat.turn}", kind]
    if threat.zone is not None:
        keys.append(f"zone_{threat.zone.value}")
    return tuple(keys)


class _CueWriter:
    """Places phrases and sounds; one method per kind of announcement."""

    def __init__(self, phrases: PhraseBook, measure: Measure, scenario: Scenario) -> None:
        self.phrases = phrases
        self.measure = measure
        self.scenario = scenario
        self._lengths: dict[str, int] = {}

    def speech(self, key: str, at_ms: int, text: str | None = None) -> Speech:
        text = self.phrases.say(key) if text is None else text
        cache_key = key if key != "announce" else f"announce:{text}"
        if cache_key not in self._lengths:
            self._lengths[cache_key] = self.measure(key, text)
        return Speech(key, text, at_ms, self._lengths[cache_key])

    def sequence(self, keys: Iterable[str], at_ms: int) -> Iterator[Speech]:
        """Phrases one after another with GAP_MS between them, the first at `at_ms`."""
        for key in keys:
            part = self.speech(key, at_ms)
            yield part
            at_ms = part.end_ms + GAP_MS

    def countdown(self, first_ms: int) -> Iterator[Speech]:
        """"five" at `first_ms`, "four" one second later ... "one" four seconds later."""
        for step, number in enumerate(range(5, 0, -1)):
            yield self.speech(f"count_{number}", first_ms + step * COUNT_STEP_MS)

    def begin(self) -> Cue:
        return Cue(CueKind.BEGIN, (self.speech("begin_first_phase", 0),), phase=1)

    def event(self, event: Event) -> list[Cue]:
        phase = self.scenario.phase_of(event.at_ms)
        if isinstance(event, Threat):
            return [self.threat(event, phase)]
        if isinstance(event, IncomingData):
            return [Cue(CueKind.INCOMING_DATA, (self.speech("incoming_data", event.at_ms),), event, phase)]
        if isinstance(event, DataTransfer):
            return [self.data_transfer(event, phase)]
        if isinstance(event, CommsDown):
            return self.comms_down(event, phase)
        if isinstance(event, Announcement):
            part = self.speech("announce", event.at_ms, text=event.text)
            return [Cue(CueKind.ANNOUNCEMENT, (part,), event, phase)]
        raise TypeError(f"unknown event {event!r}")

    def threat(self, threat: Threat, phase: int) -> Cue:
        once = threat_phrase_keys(threat)
        alert = Sound("alert", threat.at_ms, ALERT_MS)
        spoken = tuple(self.sequence([*once, "repeat", *once], alert.end_ms + GAP_MS))
        return Cue(CueKind.THREAT, (alert, *spoken), threat, phase)

    def data_transfer(self, transfer: DataTransfer, phase: int) -> Cue:
        intro = list(self.sequence(["data_transfer", "data_transfer_repeat", "data_transfer_in"], transfer.at_ms))
        # "five" follows "Data transfer in" at once; the beep (the transfer) comes a second after "one".
        first_ms = intro[-1].end_ms + COUNT_LEAD_MS
        count = list(self.countdown(first_ms))
        beep = Sound("beep", first_ms + 5 * COUNT_STEP_MS, BEEP_MS)
        complete = self.speech("data_transfer_complete", beep.end_ms + AFTER_BEEP_MS)
        return Cue(CueKind.DATA_TRANSFER, (*intro, *count, beep, complete), transfer, phase, bundle="data_transfer")

    def comms_down(self, outage: CommsDown, phase: int) -> list[Cue]:
        down = Cue(CueKind.COMMS_DOWN, (self.speech("communications_down", outage.at_ms),), outage, phase)
        restored_phase = self.scenario.phase_of(outage.until_ms)
        restored = Cue(
            CueKind.COMMS_RESTORED,
            (self.speech("communications_restored", outage.until_ms),),
            outage,
            restored_phase,
        )
        return [down, restored]

    def static(self, outage: CommsDown) -> Sound:
        """Radio static for the whole outage, from the end of "communications down" on."""
        start_ms = self.speech("communications_down", outage.at_ms).end_ms
        return Sound(STATIC_KEY, start_ms, max(0, outage.until_ms - start_ms))

    def phase_end(self, index: int, end_ms: int, *, last: bool) -> list[Cue]:
        """The one-minute and twenty-second warnings, and the final count of phase `index`+1."""
        phase = index + 1
        prefix = "operation" if last else f"{ORDINALS[index]}_phase"
        warnings = [
            Cue(CueKind.PHASE_WARNING, (self.speech(f"{prefix}_ends_in_1_minute", end_ms - 60_000),), phase=phase),
            Cue(CueKind.PHASE_WARNING, (self.speech(f"{prefix}_ends_in_20_seconds", end_ms - 20_000),), phase=phase),
        ]
        count_ms = end_ms - 5 * COUNT_STEP_MS
        lead_length = self.speech(f"{prefix}_ends_in", 0).duration_ms
        lead = self.speech(f"{prefix}_ends_in", count_ms - GAP_MS - lead_length)
        closing_key = "mission_complete" if last else f"{ORDINALS[index + 1]}_phase_begins"
        closing = self.speech(closing_key, end_ms)
        final = Cue(
            CueKind.PHASE_END,
            (lead, *self.countdown(count_ms), closing),
            phase=phase,
            bundle=f"{prefix}_ends",
        )
        return [*warnings, final]


def estimate_ms(key: str, text: str) -> int:
    """A voice-free length estimate (about 14 characters a second), for text-only outputs."""
    return max(300, len(text) * 1000 // 14)
