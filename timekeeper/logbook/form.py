"""Raw form values (strings from the command line, a web form or a CSV row) -> a checked MissionRecord.

This is the one border where a mission's values are converted and checked; everything after it is
typed. Every bad value is collected, then one LogEntryError lists them all and nothing is stored.

Fields (a value is a string, or a list of strings for a field given several times; "" is unset):

    crew                    names, comma-separated, each optionally `name:role[+role]`
                            (roles: captain, communications, security; also c, co, sc)
    captain, communications_officer, security_chief
                            a crew member's name, another way to give the roles
    date                    YYYY-MM-DD (default: today)
    track                   a built-in track name or a scenario file
    seed                    the generator seed of a file track (checked against the file)
    common, serious         threat difficulty: 1, 2 or 1+2 (default 1)
    survived, destroyed     points for threats survived and destroyed
    damage                  `red=2,white=0,blue=1` (or the fields damage_red, damage_white, damage_blue)
    knocked_out             crew members knocked out at the end
    disabled_squads         battlebot squads disabled at the end (0-2)
    visual_confirmation     visual confirmation points
    destroyed_by            the threat that destroyed the ship (the mission is lost)
    notes                   free text
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from timekeeper.errors import LogEntryError, ScenarioError, located
from timekeeper.i18n import Rephrased, Said, WordedError, said, words_of
from timekeeper.logbook.record import (
    BATTLEBOT_SQUADS,
    MAX_ZONE_DAMAGE,
    ZONES,
    Crew,
    CrewMember,
    Damage,
    Difficulty,
    MissionRecord,
    Role,
    Track,
)
from timekeeper.model import MAX_PLAYERS
from timekeeper.scenario.load import text_problem

FormValue = str | Sequence[str] | None
FormValues = Mapping[str, FormValue]

ROLE_WORDS = {
    "captain": Role.CAPTAIN, "c": Role.CAPTAIN, "capt": Role.CAPTAIN,
    "communications officer": Role.COMMUNICATIONS, "communications": Role.COMMUNICATIONS,
    "communications-officer": Role.COMMUNICATIONS, "comms": Role.COMMUNICATIONS, "co": Role.COMMUNICATIONS,
    "security chief": Role.SECURITY, "security": Role.SECURITY, "security-chief": Role.SECURITY,
    "sc": Role.SECURITY,
}
ROLE_FIELDS = {"captain": Role.CAPTAIN, "communications_officer": Role.COMMUNICATIONS, "security_chief": Role.SECURITY}
MAX_NAME = 40
MAX_TEXT = 500
INTEGER = re.compile(r"[+-]?\d+")


class Problems:
    """The problems found so far, by field (each in words a page says in its language); raises
    them as one LogEntryError."""

    def __init__(self, where: str = "") -> None:
        self.where = where
        self.by_field: dict[str, Said | str] = {}

    def add(self, field: str, message: Said | str) -> None:
        self.by_field.setdefault(field, message)

    def add_error(self, field: str, error: Exception) -> None:
        """The problem a parser's ValueError names (its words, when a WordedError)."""
        self.add(field, words_of(error))

    def raise_if_any(self) -> None:
        """Raise the problems found, if any."""
        if self.by_field:
            raise_problems(self.by_field, self.where)


def raise_problems(problems: Mapping[str, Said | str], where: str = "") -> NoReturn:
    """One LogEntryError for the `problems` (field -> message), one a line, each led by `where`
    (the command line's words); a page reads which fields to check (`log.problem.fields`)."""
    lines = [located(f"{field}: {message}", where or None) for field, message in problems.items()]
    detail = "\n".join(lines)
    fields = tuple(said(f"log.field.{field}") if field in LABELLED else field for field in problems)
    raise LogEntryError(Rephrased(detail, said("log.problem.fields", fields=fields)), dict(problems))


def text(values: FormValues, field: str) -> str:
    """The value of `field` as one stripped string ("" when unset; several values joined by commas)."""
    value = values.get(field)
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    return ",".join(str(v).strip() for v in value if str(v).strip())


def integer(raw: str, low: int, high: int | None = None) -> int:
    """A whole number in [low, high]; WordedError with what was expected otherwise."""
    number = int(raw) if INTEGER.fullmatch(raw) else None
    if number is None or number < low or (high is not None and number > high):
        got = repr(raw) if number is None else number
        if high is None:
            raise WordedError("log.problem.number_at_least", low=low, got=got)
        raise WordedError("log.problem.number_range", low=low, high=high, got=got)
    return number


def parse_crew(raw: str) -> Crew:
    """`Ann:captain, Bob:co+sc, Cid` -> Crew; ValueError naming the bad part."""
    members: list[CrewMember] = []
    seen: dict[str, str] = {}
    holders: dict[Role, str] = {}
    for part in (p.strip() for p in raw.split(",")):
        if not part:
            continue
        name, _, role_text = (s.strip() for s in part.partition(":"))
        if not name:
            raise WordedError("log.problem.no_name", part=repr(part))
        if len(name) > MAX_NAME:
            raise WordedError("log.problem.long_name", name=repr(name[:20]), most=MAX_NAME)
        problem = text_problem(name, "title")
        if problem is not None:
            raise WordedError("log.problem.in_name", name=repr(name), problem=problem)
        if name.casefold() in seen:
            raise WordedError("log.problem.named_twice", name=repr(name))
        seen[name.casefold()] = name
        roles = []
        for word in (w.strip() for w in role_text.split("+") if w.strip()) if role_text else ():
            role = ROLE_WORDS.get(word.casefold())
            if role is None:
                raise WordedError("log.problem.unknown_role", name=name, role=repr(word))
            if role in holders:
                raise WordedError("log.problem.role_taken", name=name, holder=holders[role], role=role_said(role))
            holders[role] = name
            roles.append(role)
        members.append(CrewMember(name, tuple(roles)))
    if not members:
        raise WordedError("log.problem.no_crew")
    if len(members) > MAX_PLAYERS:
        raise WordedError("log.problem.crew_size", most=MAX_PLAYERS, got=len(members))
    return Crew(tuple(members))


def role_said(role: Role) -> Said:
    """A crew role in words ("captain", "Kapitän")."""
    return said(f"log.role.{role.name.lower()}")


def with_role_fields(crew: Crew, values: FormValues, problems: Problems) -> Crew:
    """Apply the captain / communications_officer / security_chief fields (names of crew members)."""
    members = list(crew.members)
    for field, role in ROLE_FIELDS.items():
        name = text(values, field)
        if not name:
            continue
        index = next((i for i, m in enumerate(members) if m.name.casefold() == name.casefold()), None)
        if index is None:
            problems.add(field, said("log.problem.not_in_crew", name=repr(name), crew=crew.names))
            continue
        holder = next((m.name for m in members if role in m.roles), None)
        if holder is not None and holder != members[index].name:
            problems.add(field, said("log.problem.role_held", holder=holder, role=role_said(role)))
            continue
        if role not in members[index].roles:
            members[index] = CrewMember(members[index].name, members[index].roles + (role,))
    return Crew(tuple(members))


def parse_difficulty(raw: str) -> Difficulty:
    cleaned = raw.replace(" ", "")
    for difficulty in Difficulty:
        if cleaned == difficulty.value:
            return difficulty
    raise WordedError("log.problem.difficulty", got=repr(raw))


def parse_date(raw: str, today: datetime.date) -> datetime.date:
    try:
        day = datetime.date.fromisoformat(raw)
    except ValueError:
        raise WordedError("log.problem.date", got=repr(raw)) from None
    if day > today + datetime.timedelta(days=1):
        raise WordedError("log.problem.future", day=day.isoformat())
    return day


def pairs(values: FormValues, field: str, names: Iterable[str], high: int | None,
          problems: Problems) -> dict[str, int]:
    """`red=2,blue=1` in `field` -> {"red": 2, "blue": 1}; each name one of `names`, each count 0..high."""
    allowed = tuple(names)
    found: dict[str, int] = {}
    for item in (i.strip() for i in text(values, field).split(",") if i.strip()):
        name, equals, amount = (s.strip() for s in item.partition("="))
        if not equals:
            problems.add(field, said("log.problem.pair", name=allowed[0], got=repr(item)))
        elif name.casefold() not in allowed:
            problems.add(field, said("log.problem.unknown_zone" if field == "damage" else "log.problem.unknown_name",
                                     name=repr(name), names=allowed))
        else:
            try:
                found[name.casefold()] = integer(amount, 0, high)
            except ValueError as error:
                problems.add(field, said("log.problem.of", name=name, problem=words_of(error)))
    return found


def check_threat_name(raw: str) -> str:
    """The name of the threat that destroyed the ship, as its card prints it ("Behemoth"); ValueError
    for what cannot be one: a bare number (a score typed into the wrong field), an overlong name."""
    name = raw.strip()
    if name.replace(" ", "").isdigit():
        raise WordedError("log.problem.threat_number", number=name)
    if len(name) > MAX_NAME * 2:
        raise WordedError("log.problem.long_threat", most=MAX_NAME * 2)
    problem = text_problem(name, "title")
    if problem is not None:
        raise WordedError(problem)
    return name


def parse_damage(values: FormValues, max_damage: int, problems: Problems) -> Damage:
    """Damage per zone from `damage` (`red=2,blue=1`) and/or damage_red, damage_white, damage_blue."""
    per_zone = pairs(values, "damage", (z.value for z in ZONES), max_damage, problems)
    for zone in ZONES:
        field = f"damage_{zone.value}"
        raw = text(values, field)
        if raw:
            try:
                per_zone[zone.value] = integer(raw, 0, max_damage)
            except ValueError as error:
                problems.add_error(field, error)
    return Damage(**per_zone)


TrackResolver = Callable[[str, "int | None"], Track]


def resolve_track(name_or_file: str, seed: int | None) -> Track:
    """A built-in name, or a valid scenario file (its title and seed); ValueError otherwise."""
    from timekeeper.scenario.catalog import builtin_paths, load_scenario

    builtins = builtin_paths()
    if name_or_file in builtins:
        if seed is not None:
            raise ValueError(f"{name_or_file} is a built-in track; a seed belongs to a generated mission file")
        return Track(name_or_file)
    path = Path(name_or_file)
    if not path.is_file():
        import difflib

        hint = difflib.get_close_matches(name_or_file, builtins, n=1)
        also = f"; did you mean {hint[0]!r}?" if hint else " (see `timekeeper list`)"
        raise ValueError(f"{name_or_file!r} is neither a built-in track nor a scenario file{also}")
    try:
        scenario = load_scenario(str(path))
    except ScenarioError as error:
        raise ValueError(f"not a valid scenario: {error.message}") from None
    if seed is not None and scenario.seed is not None and seed != scenario.seed:
        raise ValueError(f"{path} was generated with seed {scenario.seed}, not {seed}")
    return Track(scenario.title, str(path.resolve()), scenario.seed if scenario.seed is not None else seed)


@dataclass(frozen=True)
class FormDefaults:
    """Values a form may leave out: a campaign's crew, track and difficulty."""

    crew: Crew | None = None
    track: Track | None = None
    common: Difficulty | None = None
    serious: Difficulty | None = None


def parse_mission(values: FormValues, *, today: datetime.date | None = None, where: str = "",
                  defaults: FormDefaults = FormDefaults(), tracks: TrackResolver = resolve_track) -> MissionRecord:
    """Check every value of a mission form; the MissionRecord, or one LogEntryError listing every problem.

    `today` bounds the date (default: the local date); `where` prefixes the messages (a file and
    line); `defaults` fill fields a campaign fixes; `tracks` turns the track field into a Track.
    A row with a `track_file` column (an exported log) is taken as it is, without the file.
    """
    today = today or datetime.date.today()
    problems = Problems(where)

    def number(field: str, low: int = 0, high: int | None = None) -> int:
        raw = text(values, field)
        if not raw:
            return 0
        try:
            return integer(raw, low, high)
        except ValueError as error:
            problems.add_error(field, error)
            return 0

    crew = defaults.crew
    raw_crew = text(values, "crew")
    if raw_crew:
        try:
            crew = parse_crew(raw_crew)
        except ValueError as error:
            problems.add_error("crew", error)
    elif crew is None:
        problems.add("crew", said("log.problem.no_crew"))
    if crew is not None:
        crew = with_role_fields(crew, values, problems)

    played_on = today
    if text(values, "date"):
        try:
            played_on = parse_date(text(values, "date"), today)
        except ValueError as error:
            problems.add_error("date", error)

    seed = None
    if text(values, "seed"):
        try:
            seed = integer(text(values, "seed"), 0)
        except ValueError as error:
            problems.add_error("seed", error)
    track = _track(values, seed, defaults, tracks, problems)

    common = _difficulty(values, "common", defaults.common, problems)
    serious = _difficulty(values, "serious", defaults.serious, problems)
    destroyed_by = text(values, "destroyed_by") or None
    if destroyed_by is not None:
        try:
            check_threat_name(destroyed_by)
        except ValueError as error:
            problems.add_error("destroyed_by", error)
    damage = parse_damage(values, MAX_ZONE_DAMAGE + (1 if destroyed_by else 0), problems)
    figures = crew.figures if crew is not None else MAX_PLAYERS
    record = MissionRecord(
        crew=crew or Crew(()),
        played_on=played_on,
        track=track or Track(""),
        common=common,
        serious=serious,
        survived_points=number("survived"),
        destroyed_points=number("destroyed"),
        damage=damage,
        knocked_out=number("knocked_out", 0, figures),
        disabled_squads=number("disabled_squads", 0, BATTLEBOT_SQUADS),
        visual_confirmation=number("visual_confirmation"),
        destroyed_by=destroyed_by,
        notes=text(values, "notes"),
    )
    if len(record.notes) > MAX_TEXT:
        problems.add("notes", said("log.problem.long_notes", most=MAX_TEXT, got=len(record.notes)))
    elif (problem := text_problem(record.notes, "notes")) is not None:
        problems.add("notes", problem)
    problems.raise_if_any()
    return record


def _track(values: FormValues, seed: int | None, defaults: FormDefaults, tracks: TrackResolver,
           problems: Problems) -> Track | None:
    raw = text(values, "track")
    if text(values, "track_file"):  # an exported row: the file need not exist here
        return Track(raw or Path(text(values, "track_file")).stem, text(values, "track_file"), seed)
    if not raw:
        if defaults.track is None:
            problems.add("track", said("log.problem.no_track"))
        return defaults.track
    try:
        track = tracks(raw, seed)
    except ValueError as error:
        problems.add_error("track", error)
        return None
    if defaults.track is not None and (track.name, track.file) != (defaults.track.name, defaults.track.file):
        problems.add("track", said("log.problem.campaign_track", wanted=defaults.track.label(), got=track.label()))
    return track


def _difficulty(values: FormValues, field: str, default: Difficulty | None, problems: Problems) -> Difficulty:
    raw = text(values, field)
    if not raw:
        return default or Difficulty.STANDARD
    try:
        chosen = parse_difficulty(raw)
    except ValueError as error:
        problems.add_error(field, error)
        return Difficulty.STANDARD
    if default is not None and chosen is not default:
        problems.add(field, said("log.problem.campaign_difficulty", wanted=default.value, got=chosen.value))
    return chosen


def record_values(record: MissionRecord) -> dict[str, str]:
    """A record as form values (the inverse of parse_mission): for export, prompts' defaults and edits."""
    return {
        "date": record.played_on.isoformat(),
        "crew": crew_text(record.crew),
        "track": record.track.name,
        "track_file": record.track.file or "",
        "seed": "" if record.track.seed is None else str(record.track.seed),
        "common": record.common.value,
        "serious": record.serious.value,
        "survived": str(record.survived_points),
        "destroyed": str(record.destroyed_points),
        **{f"damage_{zone.value}": str(record.damage.of(zone)) for zone in ZONES},
        "knocked_out": str(record.knocked_out),
        "disabled_squads": str(record.disabled_squads),
        "visual_confirmation": str(record.visual_confirmation),
        "destroyed_by": record.destroyed_by or "",
        "notes": record.notes,
    }


def crew_text(crew: Crew) -> str:
    """The crew as the `crew` field writes it: `Ann:captain, Bob:communications, Cid`."""
    return ", ".join(m.name + (":" + "+".join(_ROLE_SHORT[r] for r in m.roles) if m.roles else "")
                     for m in crew.members)


_ROLE_SHORT = {Role.CAPTAIN: "captain", Role.COMMUNICATIONS: "communications", Role.SECURITY: "security"}

FIELDS: tuple[str, ...] = (
    "crew", "captain", "communications_officer", "security_chief", "date", "track", "seed", "common", "serious",
    "survived", "destroyed", "damage", "damage_red", "damage_white", "damage_blue", "knocked_out",
    "disabled_squads", "visual_confirmation", "destroyed_by", "notes",
)

LABELLED = (*FIELDS, "campaign")  # fields with a label in the catalogues (log.field.<name>): a page names them


def unknown_fields(values: Iterable[str], allowed: Iterable[str] = FIELDS) -> list[str]:
    allowed_set = set(allowed)
    return [name for name in values if name not in allowed_set]
