"""The announcement grammar: Scenario -> Timeline of cues. Every output reads this timeline.

A cue is one announcement (a threat, a data transfer, a phase-end warning ...): a run of spoken
phrases and sound effects, each placed at an absolute time in milliseconds. Phrase lengths come
from a `measure` function supplied by the voice, so the timeline is exact for that voice.

Pacing: sentences are GAP_MS apart and the track opens with LEAD_IN_MS of lead-in. A cue that
would run into the next one is laid out again at a tighter Pace (shorter gaps, then faster
speech; never fewer words) until it fits (`_fit`); the last phase end closes with the jump.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from enum import Enum

from timekeeper.grammar.phrases import PhraseBook
from timekeeper.model import (
    Announcement,
    CommsDown,
    DataTransfer,
    Event,
    IncomingData,
    Scenario,
    Threat,
)

# Measure(key, text) -> how long the voice takes to say it, in milliseconds.
Measure = Callable[[str, str], int]

# Sound effects the grammar places (sound.py synthesizes them to exactly these lengths).
ALERT_MS = 1400
BEEP_MS = 400
STATIC_KEY = "white_noise"

JUMP_MS = 1600  # the hyperspace jump after "Mission complete. Jumping to hyperspace."
JUMP_AFTER_MS = 250  # from the end of the last words to the jump

LEAD_IN_MS = 750  # silence (and the bed fading in) before "Alert"
GAP_MS = 500  # silence between two sentences of one cue (and before "Repeat")
MIN_GAP_MS = 150  # the shortest gap a tight cue is squeezed to
MAX_TEMPO = 1.3  # the fastest a tight cue is spoken (1.3 = 30 % faster, every word kept)
FIT_MARGIN_MS = 150  # a squeezed cue ends at least this long before the next one starts
COUNT_STEP_MS = 1000  # countdown numbers fall on whole seconds
COUNT_LEAD_MS = 100  # from the end of "Data transfer in" / "... ends in" to "five"
TAIL_MS = 1500  # silence after the jump (the bed has faded out) before the track ends

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
class Pace:
    """How a cue is spoken: `gap_ms` between its sentences, at `tempo` (1.0 = the voice's own)."""

    gap_ms: int = GAP_MS
    tempo: float = 1.0

    @property
    def natural(self) -> bool:
        return self.gap_ms >= GAP_MS and self.tempo == 1.0


NATURAL = Pace()
# From natural to tightest: first shorter gaps, then (with the shortest gap) faster speech.
PACES = (
    *(Pace(gap, 1.0) for gap in range(GAP_MS, MIN_GAP_MS - 1, -50)),
    *(Pace(MIN_GAP_MS, round(1.0 + step / 20, 2)) for step in range(1, round((MAX_TEMPO - 1.0) * 20) + 1)),
)


@dataclass(frozen=True)
class Speech:
    """Phrase `key` (its words `text`) spoken from `at_ms` for `duration_ms`, at `tempo` (1.0 =
    the voice's own pace; a tight cue is sped up, never cut)."""

    key: str
    text: str
    at_ms: int
    duration_ms: int
    tempo: float = 1.0

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


Part = Speech | Sound


@dataclass(frozen=True)
class Cue:
    """One announcement. `bundle` names the community clip that holds all of its speech, if any."""

    kind: CueKind
    parts: tuple[Part, ...]
    event: Event | None = None
    phase: int = 1
    bundle: str | None = None
    pace: Pace = NATURAL

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

    def describe(self) -> str:
        """The overlap as every command words it (validate, plan, generate --voice): the mix plays
        both cues at their times, so for `overlap_ms` they are heard at once."""
        from timekeeper.grammar.times import format_time

        second, first = self.second, self.first
        return (f"the {second.kind.value.replace('_', ' ')} at {format_time(second.at_ms, precise=True)} starts "
                f"{self.overlap_ms / 1000:.1f} s before the {first.kind.value.replace('_', ' ')} of "
                f"{format_time(first.at_ms, precise=True)} ends: both are heard at once")


@dataclass(frozen=True)
class Timeline:
    """All cues of a track in start order, the static beds of outages, and the track length."""

    cues: tuple[Cue, ...]
    beds: tuple[Sound, ...]
    phase_ends_ms: tuple[int, ...]
    duration_ms: int
    language: str
    scenario: Scenario | None = field(compare=False, repr=False, default=None)  # what it was built from
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
    """`players=4` drops unconfirmed reports; `solo` drops data transfers, incoming data, outages
    (a crew of one is a solo game, asked for or not)."""

    players: int = 5
    solo: bool = False

    def __post_init__(self) -> None:
        if self.players == 1:
            object.__setattr__(self, "solo", True)

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
    makers: list[Callable[[Pace], Cue]] = [writer.begin]
    beds: list[Sound] = []
    for event in scenario.events:
        if not options.keeps(event):
            continue
        makers.extend(writer.event(event))
        if isinstance(event, CommsDown):
            beds.append(writer.static(event))
    for index, end_ms in enumerate(scenario.phase_ends_ms):
        makers.extend(writer.phase_end(index, end_ms, last=index == len(scenario.phase_ends_ms) - 1))
    cues = _fit([(maker(NATURAL), maker) for maker in makers])
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


def _fit(drafts: list[tuple[Cue, Callable[[Pace], Cue]]]) -> list[Cue]:
    """Cues in start order; a cue that would run into the next one is re-made at the first pace
    of PACES that ends FIT_MARGIN_MS before it (or the tightest pace, whose overlap is reported)."""
    drafts.sort(key=lambda draft: draft[0].at_ms)
    cues = [cue for cue, _ in drafts]
    for index in range(len(cues) - 1):
        limit_ms = cues[index + 1].at_ms - FIT_MARGIN_MS
        if cues[index].end_ms <= limit_ms:
            continue
        make = drafts[index][1]
        for pace in PACES[1:]:
            cues[index] = make(pace)
            if cues[index].end_ms <= limit_ms:
                break
    return cues


def threat_phrase_keys(threat: Threat, phrases: PhraseBook | None = None) -> tuple[str, ...]:
    """The phrases that name one threat once: [unconfirmed], time, kind, [zone]. A language whose
    rulebook says the kind and zone in one sentence ("Bedrohung in Zone Rot") has a combined
    phrase `<kind>_zone_<zone>`, used in their place."""
    kind = ("serious_" if threat.serious else "") + ("internal_threat" if threat.internal else "threat")
    keys = ["unconfirmed_report"] if threat.unconfirmed else []
    keys.append(f"time_t_plus_{threat.turn}")
    combined = f"{kind}_zone_{threat.zone.value}" if threat.zone is not None else ""
    if combined and phrases is not None and combined in phrases.spoken:
        keys.append(combined)
    else:
        keys.append(kind)
        if threat.zone is not None:
            keys.append(f"zone_{threat.zone.value}")
    return tuple(keys)


class _CueWriter:
    """Places phrases and sounds; one method per kind of announcement. Each returns makers:
    functions of a Pace that lay the cue out at that pace (see `_fit`)."""

    def __init__(self, phrases: PhraseBook, measure: Measure, scenario: Scenario) -> None:
        self.phrases = phrases
        self.measure = measure
        self.scenario = scenario
        self._lengths: dict[str, int] = {}

    def speech(self, key: str, at_ms: int, text: str | None = None, tempo: float = 1.0) -> Speech:
        text = self.phrases.say(key) if text is None else text
        cache_key = key if key != "announce" else f"announce:{text}"
        if cache_key not in self._lengths:
            self._lengths[cache_key] = self.measure(key, text)
        return Speech(key, text, at_ms, -(-self._lengths[cache_key] * 100 // round(tempo * 100)), tempo)

    def sequence(self, keys: Iterable[str], at_ms: int, pace: Pace) -> Iterator[Speech]:
        """Phrases one after another with the pace's gap between them, the first at `at_ms`."""
        for key in keys:
            part = self.speech(key, at_ms, tempo=pace.tempo)
            yield part
            at_ms = part.end_ms + pace.gap_ms

    def countdown(self, first_ms: int) -> Iterator[Speech]:
        """"five" at `first_ms`, "four" one second later ... "one" four seconds later."""
        for step, number in enumerate(range(5, 0, -1)):
            yield self.speech(f"count_{number}", first_ms + step * COUNT_STEP_MS)

    def begin(self, pace: Pace) -> Cue:
        return Cue(CueKind.BEGIN, (self.speech("begin_first_phase", LEAD_IN_MS, tempo=pace.tempo),), phase=1, pace=pace)

    def event(self, event: Event) -> list[Callable[[Pace], Cue]]:
        phase = self.scenario.phase_of(event.at_ms)
        if isinstance(event, Threat):
            return [lambda pace: self.threat(event, phase, pace)]
        if isinstance(event, IncomingData):
            return [lambda pace: Cue(CueKind.INCOMING_DATA, (self.speech("incoming_data", event.at_ms, tempo=pace.tempo),),
                                     event, phase, pace=pace)]
        if isinstance(event, DataTransfer):
            return [lambda pace: self.data_transfer(event, phase, pace)]
        if isinstance(event, CommsDown):
            return self.comms_down(event, phase)
        if isinstance(event, Announcement):
            return [lambda pace: Cue(CueKind.ANNOUNCEMENT, (self.speech("announce", event.at_ms, event.text, pace.tempo),),
                                     event, phase, pace=pace)]
        raise TypeError(f"unknown event {event!r}")

    def threat(self, threat: Threat, phase: int, pace: Pace) -> Cue:
        once = threat_phrase_keys(threat, self.phrases)
        alert = Sound("alert", threat.at_ms, ALERT_MS)
        spoken = tuple(self.sequence([*once, "repeat", *once], alert.end_ms + pace.gap_ms, pace))
        return Cue(CueKind.THREAT, (alert, *spoken), threat, phase, pace=pace)

    def data_transfer(self, transfer: DataTransfer, phase: int, pace: Pace) -> Cue:
        intro = list(self.sequence(["data_transfer", "data_transfer_repeat", "data_transfer_in"], transfer.at_ms, pace))
        # "five" follows "Data transfer in" at once; the beep (the transfer) comes a second after "one".
        first_ms = intro[-1].end_ms + COUNT_LEAD_MS
        count = list(self.countdown(first_ms))
        beep = Sound("beep", first_ms + 5 * COUNT_STEP_MS, BEEP_MS)
        complete = self.speech("data_transfer_complete", beep.end_ms + pace.gap_ms, tempo=pace.tempo)
        return Cue(CueKind.DATA_TRANSFER, (*intro, *count, beep, complete), transfer, phase, bundle="data_transfer",
                   pace=pace)

    def comms_down(self, outage: CommsDown, phase: int) -> list[Callable[[Pace], Cue]]:
        restored_phase = self.scenario.phase_of(outage.until_ms)
        return [
            lambda pace: Cue(CueKind.COMMS_DOWN, (self.speech("communications_down", outage.at_ms, tempo=pace.tempo),),
                             outage, phase, pace=pace),
            lambda pace: Cue(CueKind.COMMS_RESTORED,
                             (self.speech("communications_restored", outage.until_ms, tempo=pace.tempo),),
                             outage, restored_phase, pace=pace),
        ]

    def static(self, outage: CommsDown) -> Sound:
        """Radio static for the whole outage, from the end of "communications down" on."""
        start_ms = self.speech("communications_down", outage.at_ms).end_ms
        return Sound(STATIC_KEY, start_ms, max(0, outage.until_ms - start_ms))

    def phase_end(self, index: int, end_ms: int, *, last: bool) -> list[Callable[[Pace], Cue]]:
        """The one-minute and twenty-second warnings, and the final count of phase `index`+1
        (after the last phase: the jump to hyperspace)."""
        phase = index + 1
        prefix = "operation" if last else f"{ORDINALS[index]}_phase"

        def warning(key: str, at_ms: int) -> Callable[[Pace], Cue]:
            return lambda pace: Cue(CueKind.PHASE_WARNING, (self.speech(key, at_ms, tempo=pace.tempo),), phase=phase,
                                    pace=pace)

        def final(pace: Pace) -> Cue:
            count_ms = end_ms - 5 * COUNT_STEP_MS
            lead_length = self.speech(f"{prefix}_ends_in", 0, tempo=pace.tempo).duration_ms
            lead = self.speech(f"{prefix}_ends_in", count_ms - COUNT_LEAD_MS - lead_length, tempo=pace.tempo)
            closing = self.speech("mission_complete" if last else f"{ORDINALS[index + 1]}_phase_begins", end_ms,
                                  tempo=pace.tempo)
            jump = (Sound("jump", closing.end_ms + JUMP_AFTER_MS, JUMP_MS),) if last else ()
            return Cue(CueKind.PHASE_END, (lead, *self.countdown(count_ms), closing, *jump), phase=phase,
                       bundle=f"{prefix}_ends", pace=pace)

        return [warning(f"{prefix}_ends_in_1_minute", end_ms - 60_000),
                warning(f"{prefix}_ends_in_20_seconds", end_ms - 20_000), final]


def estimate_ms(key: str, text: str) -> int:
    """A voice-free length estimate (about 14 characters a second), for text-only outputs."""
    return max(300, len(text) * 1000 // 14)
