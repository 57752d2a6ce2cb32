"""Other tools' pack layouts, read as they are: the Android app's packs and whole-cue recordings.

* **Android app packs** (the "Space Alert Mission Generator" app): a folder of clips named as the
  community names them (any audio extension) plus `grammar.xml`, whose root `<Settings>` holds
  `<Grammar>` (the pack's language, by name: "English", "Deutsch" ...) and one element per clip
  with the words shown while it plays (`<TimeTPlus1>Time T+1</TimeTPlus1>`). timekeeper takes
  the pack's name from its folder, the language from `<Grammar>`, and the words as captions.
* **Whole-cue recordings**: one clip per announcement, listed in pack.yaml under `cues:` with the
  moment of the event inside the clip (`moment`, seconds): the beep of a data transfer, the end
  of a phase, else the start of the event. See docs/voices.md for the cue names.
"""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from timekeeper.errors import VoiceError
from timekeeper.grammar.script import COUNT_STEP_MS, Cue, CueKind, Sound

ANDROID_GRAMMAR = "grammar.xml"
GRAMMAR_LIMIT_BYTES = 256_000
ANDROID_ELEMENTS = {  # grammar.xml element (case-insensitive) -> community clip name
    "communicationsdownheader": "communications_down",
    "communicationsdownnoise": "white_noise",
    "communicationsdownfooter": "communications_restored",
    "announcebeginfirstphase": "begin_first_phase",
    "announcefirstphaseendsinoneminute": "first_phase_ends_in_1_minute",
    "announcefirstphaseendsintwentyseconds": "first_phase_ends_in_20_seconds",
    "announcefirstphaseends": "first_phase_ends",
    "announcesecondphasebegins": "second_phase_begins",
    "announcesecondphaseendsinoneminute": "second_phase_ends_in_1_minute",
    "announcesecondphaseendsintwentyseconds": "second_phase_ends_in_20_seconds",
    "announcesecondphaseends": "second_phase_ends",
    "announcethirdphasebegins": "third_phase_begins",
    "announcethirdphaseendsinoneminute": "operation_ends_in_1_minute",
    "announcethirdphaseendsintwentyseconds": "operation_ends_in_20_seconds",
    "announcethirdphaseends": "operation_ends",
    "incomingdata": "incoming_data",
    "datatransfer": "data_transfer",
    "alertheader": "alert",
    "internalthreat": "internal_threat",
    "seriousinternalthreat": "serious_internal_threat",
    "repeat": "repeat",
    "unconfirmedreport": "unconfirmed_report",
    **{f"timetplus{n}": f"time_t_plus_{n}" for n in range(1, 9)},
    "threat": "threat",
    "seriousthreat": "serious_threat",
    "zoneblue": "zone_blue",
    "zonered": "zone_red",
    "zonewhite": "zone_white",
    **{f"{kind}zone{zone}": f"{name}_zone_{zone}" for kind, name in (("threat", "threat"), ("seriousthreat", "serious_threat"))
       for zone in ("red", "white", "blue")},
}
LANGUAGE_NAMES = {  # <Grammar> text -> language code
    "english": "en", "deutsch": "de", "german": "de", "español": "es", "espanol": "es", "spanish": "es",
    "français": "fr", "francais": "fr", "french": "fr", "italiano": "it", "italian": "it", "polski": "pl",
    "polish": "pl", "čeština": "cs", "cestina": "cs", "česky": "cs", "czech": "cs", "ελληνικά": "el", "greek": "el",
    "русский": "ru", "russian": "ru", "日本語": "ja", "japanese": "ja", "nederlands": "nl", "dutch": "nl",
    "magyar": "hu", "hungarian": "hu", "português": "pt", "portuguese": "pt", "slovenčina": "sk", "slovak": "sk",
}
PRINTED_FROM_ANDROID = ("threat", "serious_threat", "internal_threat", "serious_internal_threat", "incoming_data")


def android_manifest(folder: Path, manifest: dict) -> dict:
    """`manifest` completed from the pack's grammar.xml: name, language and words (`spoken`, and
    for a language without a shipped table some `printed` words). pack.yaml entries win."""
    path = folder / ANDROID_GRAMMAR
    if path.stat().st_size > GRAMMAR_LIMIT_BYTES:
        raise VoiceError(f"too large for a grammar file (at most {GRAMMAR_LIMIT_BYTES // 1000} kB)", path=str(path))
    text = path.read_bytes()
    if b"<!DOCTYPE" in text or b"<!ENTITY" in text:
        raise VoiceError("declarations (<!DOCTYPE>, <!ENTITY>) are not allowed in a grammar file", path=str(path))
    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError as error:
        raise VoiceError(f"not valid XML ({error})", path=str(path)) from error
    if root.tag != "Settings":
        raise VoiceError(f"expected the root element <Settings>, found <{root.tag}>", path=str(path))
    words: dict[str, str] = {}
    language = None
    for element in root:
        value = " ".join((element.text or "").split())
        if element.tag.lower() == "grammar":
            language = LANGUAGE_NAMES.get(value.lower())
        elif element.tag.lower() in ANDROID_ELEMENTS and value:
            words[ANDROID_ELEMENTS[element.tag.lower()]] = value
    merged = dict(manifest)
    merged.setdefault("name", folder.name)
    if language and "language" not in merged:
        merged["language"] = language
    merged["android_spoken"] = words
    merged["android_printed"] = {key: words[key] for key in PRINTED_FROM_ANDROID if key in words}
    return merged


@dataclass(frozen=True)
class CueRecording:
    """A recording of a whole announcement: `file`, the event at `moment_ms` into it, and whether it
    holds the cue's sound effects (alert, beep) too."""

    name: str
    file: Path
    moment_ms: int
    sounds: bool


def cue_names() -> list[str]:
    """Every cue a whole-cue recording may replace (the names pack.yaml uses under `cues:`)."""
    names = ["begin_first_phase", "incoming_data", "data_transfer", "communications_down", "communications_restored"]
    for turn in range(1, 9):
        for kind in ("threat", "serious_threat"):
            names += [f"t{turn}_{kind}_zone_{zone}" for zone in ("red", "white", "blue")]
        names += [f"t{turn}_internal_threat", f"t{turn}_serious_internal_threat"]
    names += [f"unconfirmed_{name}" for name in names if name.startswith("t")]
    for prefix in ("first_phase", "second_phase", "operation"):
        names += [f"{prefix}_ends_in_1_minute", f"{prefix}_ends_in_20_seconds", f"{prefix}_ends"]
    return names


def cue_name(cue: Cue) -> str | None:
    """The name of `cue` under `cues:` (None for free-text announcements)."""
    from timekeeper.grammar.script import threat_phrase_keys
    from timekeeper.model import Threat

    if cue.kind is CueKind.THREAT and isinstance(cue.event, Threat):
        keys = [key for key in threat_phrase_keys(cue.event) if not key.startswith("time_t_plus_")]
        prefix = "unconfirmed_" if keys[0] == "unconfirmed_report" else ""
        return f"{prefix}t{cue.event.turn}_" + "_".join(key for key in keys if key != "unconfirmed_report")
    if cue.kind is CueKind.PHASE_END:
        return cue.bundle
    if cue.kind is CueKind.BEGIN or cue.kind is CueKind.PHASE_WARNING:
        return cue.speech[0].key
    fixed = {
        CueKind.INCOMING_DATA: "incoming_data",
        CueKind.DATA_TRANSFER: "data_transfer",
        CueKind.COMMS_DOWN: "communications_down",
        CueKind.COMMS_RESTORED: "communications_restored",
    }
    return fixed.get(cue.kind)


def cue_moment_ms(cue: Cue, sounds: bool) -> int:
    """Where a whole-cue recording's `moment` falls in the track: the beep of a data transfer, the
    end of a phase; for a threat the alert when the recording holds it (`sounds`), else the first
    words after the synthesized alert; else the start of the cue."""
    if cue.kind is CueKind.DATA_TRANSFER:
        return next(part.at_ms for part in cue.parts if isinstance(part, Sound) and part.key == "beep")
    if cue.kind is CueKind.PHASE_END:
        return next(part.at_ms for part in cue.speech if part.key == "count_1") + COUNT_STEP_MS
    if cue.kind is CueKind.THREAT and not sounds:
        return cue.speech[0].at_ms
    return cue.at_ms


def cue_recordings(folder: Path, manifest: dict, where: str, inside: Callable[[Path, Path, str], Path]) -> dict[str, CueRecording]:
    """The `cues:` of pack.yaml: name -> CueRecording; every problem names `where` and the entry.
    `inside(folder, path, label)` resolves a path and refuses one outside the pack."""
    entries = manifest.get("cues") or {}
    if not isinstance(entries, dict):
        raise VoiceError("'cues' must map cue names to recordings (see docs/voices.md)", path=where)
    known = set(cue_names())
    found = {}
    for name, entry in entries.items():
        label = f"cues: {name}"
        if str(name) not in known:
            close = [k for k in known if k.startswith(str(name).split("_")[0])][:3]
            raise VoiceError(f"{label}: unknown cue name" + (f" (e.g. {', '.join(sorted(close))})" if close else ""), path=where)
        if isinstance(entry, str):
            entry = {"file": entry}
        if not isinstance(entry, dict) or not isinstance(entry.get("file"), str):
            raise VoiceError(f"{label}: expected a file name, or a mapping with file, moment and sounds", path=where)
        unknown = set(entry) - {"file", "moment", "sounds"}
        if unknown:
            raise VoiceError(f"{label}: unknown field(s) {', '.join(sorted(map(str, unknown)))} (expected file, moment, sounds)", path=where)
        moment = entry.get("moment", 0)
        if isinstance(moment, bool) or not isinstance(moment, (int, float)) or moment < 0:
            raise VoiceError(f"{label}: moment must be seconds into the clip (a number, 0 or more), not {moment!r}", path=where)
        sounds = entry.get("sounds", False)
        if not isinstance(sounds, bool):
            raise VoiceError(f"{label}: sounds must be true or false, not {sounds!r}", path=where)
        path = inside(folder, folder / entry["file"], f"{Path(where).name}: {label}: {entry['file']}")
        if not path.is_file():
            raise VoiceError(f"{label}: no such file {entry['file']!r} in the pack", path=where)
        found[str(name)] = CueRecording(str(name), path, round(moment * 1000), sounds)
    return found

