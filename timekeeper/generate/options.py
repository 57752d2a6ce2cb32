"""What a user may ask the generator for, described once as data, checked up front.

`OPTION_SPECS` lists every generator setting (name, type, default, range or choices, help text,
example). The `generate` and `stats` commands build their click options from it, and a web form
can build its fields from it; `options_from_text` turns raw strings (as a form sends them) into a
checked `GenerateOptions` (settings.py, with the profile the settings make). Every value None
means "as on the official tracks". relax.py says which official rules a setting relaxes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from timekeeper.errors import ScenarioError
from timekeeper.generate.problems import LENGTHS, BadValue, SettingProblem, ValueProblem, Word, flag, label
from timekeeper.generate.room import check_room
from timekeeper.generate.settings import GenerateOptions, Span
from timekeeper.generate.windows import GRID_MS
from timekeeper.grammar.times import format_time, parse_time_ms
from timekeeper.i18n import FALLBACK, translate, ui_language
from timekeeper.model import MAX_SEED, Pile, TrackKind

GENERATOR_VERSION = "6"  # bump when the same seed and options would give a different mission
KINDS = tuple(kind.value for kind in (TrackKind.MISSION, TrackKind.SIMULATION, TrackKind.DOUBLE_ACTION))  # imitated
PLAYERS = (4, 5)
PILES = tuple(pile.value for pile in Pile)


# --- the option specs --------------------------------------------------------------------------------

_DEFAULTS = {option.name: option.default for option in fields(GenerateOptions)}


@dataclass(frozen=True)
class OptionSpec:
    """One generator setting, for the command line and for forms.

    `key` names it in a form and in the scenario's `generator:` mapping (`--phase-lengths` ->
    `phase_lengths`); `field` is the GenerateOptions field, whose default is the value used when
    the text is empty. `type` says how text is read: choice, integer, span (N or N-M), seconds (a
    span of seconds), time (m:ss), times (m:ss list), percent, piles (a list of white/yellow/red).
    `low`/`high` bound every number (seconds for times).
    """

    key: str
    field: str
    type: str
    example: str
    metavar: str
    choices: tuple[Any, ...] = ()  # the typed values a choice may take (read and written as text)
    low: int | None = None
    high: int | None = None
    rule: str = ""  # the official rule a value outside the official range relaxes
    presets: tuple[tuple[str, str], ...] = ()  # (value, its name's catalogue key): choices a form offers (a quick game)

    @property
    def default(self) -> Any:
        """The typed default of the setting: GenerateOptions' own (None: as on the official tracks)."""
        return _DEFAULTS[self.field]

    @property
    def help(self) -> str:
        """What the setting does, as `generate --help` says it (the English catalogue's generate.help.<key>)."""
        return self.help_in(FALLBACK)

    def help_in(self, ui: str) -> str:
        return translate(ui, f"generate.help.{self.key}")

    def label_in(self, ui: str) -> str:
        """The page's name of the setting in `ui` ("Communication outages"), without its unit."""
        return label(self.key, ui)

    @property
    def flag(self) -> str:
        return flag(self.key)

    def shown(self, value: Any) -> str:
        """`value` as a message shows it: as written, a percentage with its sign ("19%")."""
        return self.text(value) + ("%" if self.type == "percent" else "")

    @property
    def range(self) -> str:
        """The allowed values as `--help` shows them (`0-8`, `5:00-25:00`, `0-100 %`); empty for a list of choices."""
        if self.low is None or self.high is None:
            return ""
        if self.type in ("time", "times"):
            return f"{format_time(self.low * 1000)}-{format_time(self.high * 1000)}" + (" each" if self.type == "times" else "")
        return f"{self.low}-{self.high}" + {"seconds": " s", "percent": " %"}.get(self.type, "")

    def parse(self, text: str) -> Any:
        """The typed value of `text` (empty: the default); BadValue (a ScenarioError) names the option
        and says what was expected."""
        try:
            return self.read(text)
        except ValueError as error:
            raise BadValue(self.key, text, error) from None

    def read(self, text: str) -> Any:
        """The typed value of `text` (empty: the default); ValueError says what was expected."""
        text = str(text).strip()
        return _PARSERS[self.type](self, text) if text else self.default

    def describe(self, ui: str = FALLBACK) -> dict[str, Any]:
        """The spec as plain data (JSON-ready) for a form, its words in the page's language `ui`: the
        default as text ('' for "as official"), the field's label (with its unit) and help, the
        placeholder of an empty field, a label for each choice, and the presets a form offers (value
        and name: a quick game). `unit` names the catalogue's generate.unit.<unit> entry the label
        takes ('' for none)."""
        unit = {"percent": "percent", "seconds": "seconds", "time": "time"}.get(self.type, "")
        label = self.label_in(ui)
        return {"key": self.key, "flag": self.flag, "type": self.type, "default": self.text(self.default), "unit": unit,
                "choices": [str(choice) for choice in self.choices], "low": self.low, "high": self.high,
                "help": self.help_in(ui), "example": self.example, "metavar": self.metavar,
                "label": translate(ui, f"generate.unit.{unit}", label=label) if unit else label,
                "placeholder": translate(ui, "generate.official_example", example=self.example),
                "choice_labels": [choice_label(self, choice, ui) for choice in self.choices],
                "presets": [{"value": value, "label": translate(ui, key, **{self.key: value})} for value, key in self.presets]}

    def text(self, value: Any) -> str:
        """`value` written the way `parse` reads it (empty for the default None)."""
        if value is None or value == ():
            return ""
        return _WRITERS[self.type](value)


def choice_label(spec: OptionSpec, choice: Any, ui: str) -> str:
    """A choice as the page shows it: a kind or pile in the printed words of `ui` ("Doppelaktion"),
    a crew size as "5 Spieler"."""
    from timekeeper.grammar.phrases import phrase_book

    words = phrase_book(ui_language(ui))
    if spec.key == "players":
        return words.word("players", n=choice)
    return words.word(f"{'kind' if spec.key == 'kind' else 'pile'}_{choice}")


def _choice(spec: OptionSpec, text: str) -> Any:
    for choice in spec.choices:
        if str(choice) == text.lower():
            return choice
    raise ValueProblem("one_of", choices=", ".join(map(str, spec.choices)))


def _number(spec: OptionSpec, text: str) -> int:
    if not text.isdigit():
        raise ValueProblem("whole_number", low=spec.low, high=spec.high)
    value = int(text)
    if not spec.low <= value <= spec.high:  # type: ignore[operator]
        raise ValueProblem("out_of_range", low=spec.low, high=spec.high)
    return value


def _span(spec: OptionSpec, text: str) -> Span:
    parts = text.replace("..", "-").split("-")
    if len(parts) > 2 or not all(p.strip().isdigit() for p in parts):
        raise ValueProblem("span", low=spec.low, high=spec.high)
    low, high = (_number(spec, p.strip()) for p in (parts[0], parts[-1]))
    if low > high:
        raise ValueProblem("backwards", low=low, high=high)
    return (low, high)


def _grid_ms(spec: OptionSpec, text: str) -> int:
    """m:ss, or a whole number of minutes (`12` is 12:00)."""
    try:
        ms = int(text) * 60_000 if text.isdigit() else parse_time_ms(text)
    except ValueError as error:
        raise ValueProblem("time", cli=str(error)) from None
    if ms % GRID_MS:
        raise ValueProblem("grid")
    if not spec.low * 1000 <= ms <= spec.high * 1000:  # type: ignore[operator]
        raise ValueProblem("out_of_range", low=format_time(spec.low * 1000), high=format_time(spec.high * 1000))  # type: ignore[operator]
    return ms


def _seconds(spec: OptionSpec, text: str) -> Span:
    low, high = _span(spec, text.replace("s", ""))
    if low % 5 or high % 5:
        raise ValueProblem("outage_steps")
    return (low * 1000, high * 1000)


def _times(spec: OptionSpec, text: str) -> tuple[int, ...]:
    parts = [part for part in text.replace(" ", "").split(",")]
    if len(parts) != 3:
        raise ValueProblem("three_lengths")
    return tuple(_grid_ms(spec, part) for part in parts)


def _percent(spec: OptionSpec, text: str) -> int:
    return _number(spec, text.rstrip("%").strip())


def _piles(spec: OptionSpec, text: str) -> tuple[str, ...]:
    names = tuple(name.strip().lower() for name in text.split(","))
    wrong = [name for name in names if name not in PILES]
    if wrong:
        raise ValueProblem("unknown_pile", pile=repr(wrong[0]), piles=", ".join(PILES))
    if len(names) > 6:
        raise ValueProblem("too_many_piles")
    return names


def span_text(value: Span) -> str:
    return str(value[0]) if value[0] == value[1] else f"{value[0]}-{value[1]}"


_PARSERS: dict[str, Callable[[OptionSpec, str], Any]] = {
    "choice": _choice, "integer": _number, "span": _span, "seconds": _seconds, "time": _grid_ms,
    "times": _times, "percent": _percent, "piles": _piles,
}
_WRITERS: dict[str, Callable[[Any], str]] = {
    "choice": str, "integer": str, "span": span_text,
    "seconds": lambda v: span_text((v[0] // 1000, v[1] // 1000)),
    "time": format_time, "times": lambda v: ",".join(format_time(ms) for ms in v),
    "percent": str, "piles": ",".join,
}

OPTION_SPECS: tuple[OptionSpec, ...] = (  # help texts: generate.help.<key> in the message catalogues
    OptionSpec("kind", "kind", "choice", "double-action", "KIND", choices=KINDS),
    OptionSpec("players", "players", "choice", "4", "N", choices=PLAYERS),
    OptionSpec("threat_level", "threat_level", "integer", "9", "POINTS", low=1, high=99, rule="threat-mix"),
    OptionSpec("length", "length_ms", "time", "5:00", "M:SS", low=5 * 60, high=25 * 60, rule="phase-lengths",
               presets=(("5:00", "generate.preset.quick"), ("7:00", "generate.preset.short"))),
    OptionSpec("phase_lengths", "phase_lengths_ms", "times", "4:00,4:00,3:00", "P1,P2,P3", low=90, high=10 * 60,
               rule="phase-lengths"),
    OptionSpec("outages", "outages", "span", "3", "N[-M]", low=0, high=8, rule="event-counts"),
    OptionSpec("outage_length", "outage_length_ms", "seconds", "10-20", "S[-S]", low=5, high=60, rule="comms-down"),
    OptionSpec("incoming_data", "incoming_data", "span", "2-4", "N[-M]", low=0, high=6, rule="event-counts"),
    OptionSpec("data_transfers", "data_transfers", "span", "5", "N[-M]", low=0, high=8, rule="event-counts"),
    OptionSpec("ambush_chance", "ambush_percent", "percent", "50", "PERCENT", low=0, high=100, rule="ambush"),
    OptionSpec("max_serious", "max_serious", "integer", "1", "N", low=0, high=10, rule="threat-mix"),
    OptionSpec("max_internal", "max_internal", "integer", "0", "N", low=0, high=8, rule="threat-mix"),
    OptionSpec("threat_colors", "threat_colors", "piles", "white,yellow", "COLOURS", choices=PILES),
)
SPECS_BY_KEY = {spec.key: spec for spec in OPTION_SPECS}


def generator_pairs(options: GenerateOptions) -> tuple[tuple[str, str], ...]:
    """`options` as written into the scenario's `generator:` mapping (settings left at default omitted)."""
    pairs = [("version", GENERATOR_VERSION), ("kind", options.kind), ("players", str(options.players)),
             ("threat_level", str(options.level))]
    for spec in OPTION_SPECS[3:]:
        value = getattr(options, spec.field)
        if value != spec.default:
            pairs.append((spec.key, spec.text(value)))
    return tuple(pairs)


def setting_facts(generator: Iterable[tuple[str, str]], language: str | None) -> list[str]:
    """A generated mission's `generator:` pairs as a card prints them, in `language`: each setting
    by its name in the form ("Threat level: 7", "Threat piles: White pile, Yellow pile"), the
    generator's version and the mission's place in a campaign; kind and crew are printed apart."""
    from timekeeper.grammar.phrases import phrase_book

    ui = ui_language(language)
    words = phrase_book(ui)
    facts = []
    for key, value in generator:
        spec = SPECS_BY_KEY.get(key)
        if key == "version":
            facts.append(translate(ui, "card.generator_version", version=value))
        elif key == "campaign":
            facts.append(translate(ui, "card.campaign", campaign=value))
        elif key == "mission":
            facts.append(translate(ui, "card.campaign_mission", mission=value))
        elif spec is not None and key not in ("kind", "players"):
            shown = ", ".join(words.word(f"pile_{pile}") for pile in value.split(",")) if spec.type == "piles" else value
            facts.append(translate(ui, "card.setting", label=spec.label_in(ui), value=shown))
    return facts


def reproducing_command(seed: int, generator: Iterable[tuple[str, str]]) -> str:
    """The `timekeeper generate` command that makes the mission of `seed` again, from its
    `generator:` pairs (GenerateOptions.pairs; pairs that are not settings are left out)."""
    settings = " ".join(f"{SPECS_BY_KEY[key].flag} {value}" for key, value in generator if key in SPECS_BY_KEY)
    return f"timekeeper generate --seed {seed} {settings}".rstrip()


def options_from_text(raw: Mapping[str, str]) -> GenerateOptions:
    """Checked GenerateOptions from raw strings keyed by spec key (`phase_lengths` or `phase-lengths`).

    Empty strings mean the default. Raises ScenarioError naming the option and what it expects.
    """
    values: dict[str, Any] = {}
    for key, text in raw.items():
        spec = SPECS_BY_KEY.get(key.replace("-", "_").lstrip("_"))
        if spec is None:
            raise ScenarioError(f"unknown option {key!r} (expected {', '.join(SPECS_BY_KEY)})", path="generate")
        values[spec.field] = spec.parse(text if text is not None else "")
    return check_options(GenerateOptions(**values))


# --- checking ------------------------------------------------------------------------------------


def check_options(options: GenerateOptions) -> GenerateOptions:
    """`options` if the generator can honour them, else ScenarioError saying what is possible."""
    o = options
    if o.kind not in KINDS:
        raise ScenarioError(f"unknown kind {o.kind!r} (expected one of {', '.join(KINDS)})", path="generate")
    if o.players not in PLAYERS:
        raise ScenarioError(f"{o.players} players; missions are generated for 4 or 5 players", path="generate")
    if not 1 <= o.level <= o.max_level:
        raise SettingProblem("threat_level", field="threat_level", level=o.level, kind=Word(f"kind.{o.kind}"),
                             players=o.players, slots=o.threat_slots, most=o.max_level, official=o.official.confirmed_points[1])
    if o.length_ms is not None and o.phase_lengths_ms is not None:
        raise SettingProblem("both_lengths", LENGTHS)
    for spec in OPTION_SPECS:
        value = getattr(o, spec.field)
        if value != spec.default and spec.type in ("span", "seconds", "integer", "percent"):
            _check_bounds(spec, value)
    if o.phase_lengths_ms is not None and len(o.phase_lengths_ms) != 3:
        raise ScenarioError("--phase-lengths takes three lengths, one per phase", path="generate")
    for spec, times in ((SPECS_BY_KEY["length"], (o.length_ms,)), (SPECS_BY_KEY["phase_lengths"], o.phase_lengths_ms or ())):
        for ms in times:
            if ms is not None and (ms % GRID_MS or not spec.low * 1000 <= ms <= spec.high * 1000):  # type: ignore[operator]
                raise ScenarioError(f"{spec.flag} {format_time(ms, precise=True)}: expected a time on the 5-second grid "
                                    f"from {format_time(spec.low * 1000)} to {format_time(spec.high * 1000)}",  # type: ignore[operator]
                                    path="generate")
    if o.threat_colors and any(pile not in PILES for pile in o.threat_colors):
        raise ScenarioError(f"unknown threat pile in {','.join(o.threat_colors)} (expected {', '.join(PILES)})", path="generate")
    if o.max_serious is not None:
        slots = o.threat_slots - o.max_unconfirmed
        needed = max(0, o.level - slots)
        if needed > o.max_serious:
            raise SettingProblem("too_few_serious", (("setting", "max_serious", str(o.max_serious)),), level=o.level, slots=slots,
                                 needed=needed)
    check_room(o)
    return o


def _check_bounds(spec: OptionSpec, value: Any) -> None:
    numbers = value if isinstance(value, tuple) else (value,)
    scale = 1000 if spec.type == "seconds" else 1
    if any(not spec.low * scale <= n <= spec.high * scale for n in numbers) or numbers[0] > numbers[-1]:  # type: ignore[operator]
        raise ScenarioError(f"{spec.flag} {spec.text(value)} is out of range (expected {spec.low} to {spec.high})", path="generate")


def check_seed(seed: int) -> int:
    if not 0 <= seed <= MAX_SEED:
        raise ScenarioError(f"seed {seed} is out of range (expected 0 to {MAX_SEED})", path="generate")
    return seed


def parse_seed(text: str) -> int | None:
    """A seed from a form field (empty: None, a random one)."""
    text = str(text).strip()
    if not text:
        return None
    if not text.isdigit():
        raise ScenarioError(f"seed {text!r}: expected a whole number from 0 to {MAX_SEED}", path="generate")
    return check_seed(int(text))

