"""What each route of `timekeeper serve` accepts: one declared schema per route (pydantic models
for its path, query, body and WebSocket messages), checked before the handler runs.

A JSON body is bounded before it is parsed (its size per route, then its nesting depth by a scan
of its bytes), parsed strictly (no NaN, no 400-digit numbers), then validated in pydantic's
strict mode: every field takes exactly its declared JSON type (a number is a JSON number, text a
string: `"players": "5"` is refused; see "field types" below), strings and lists have lengths,
and an unknown field is refused. A failure is an `Refused`
naming the field, answered as `{"error": ..., "code": ..., "field": ...}` (docs/serve.md lists
the codes).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints, ValidationError, create_model

from timekeeper.generate.options import MAX_SEED
from timekeeper.grammar.pace import MAX_PACE, MIN_PACE, NORMAL_PACE
from timekeeper.logbook.fields import MISSION_FORM
from timekeeper.model import MAX_PLAYERS
from timekeeper.scenario.yamlnodes import MAX_FILE_BYTES
from timekeeper.serve.games.game import SILENCE_PAUSE_MAX_S, SILENCE_PAUSE_S
from timekeeper.serve.games.speakers import LATE_LIMIT_MS
from timekeeper.serve.refusal import Refused
from timekeeper.serve.tracks.generate_form import MAX_PAGE_COUNT, SPEC_KEYS

MAX_JSON_DEPTH = 6  # objects and lists inside each other in any body or message
JSON_BODY_BYTES = 64 * 1024  # a JSON body, unless its route declares less
MAX_AT_MS = 24 * 3600 * 1000  # a mission position: at most a day
MAX_DIGITS = 10  # a whole number sent as text
_BRACKETS = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]')
_DIGITS = re.compile(rf"[0-9]{{1,{MAX_DIGITS}}}")


# --- field types -------------------------------------------------------------------------------
# One rule for every field (strict, docs/serve.md "Types"): a field takes the JSON type it is
# declared with and nothing else. A number is a JSON number (a whole number an integer: 5, not "5"
# nor 5.0), text is a JSON string (4 is not "4"), yes or no is true or false; null only where a
# field says it may be left empty. Only a path's parameters, which are text by nature, are whole
# numbers written in plain ASCII digits.
def _whole(value: object) -> object:
    """A whole number from JSON: an integer (not text, a fraction or true/false), of at most 10 digits."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError("expected a whole number such as 5 (a JSON number, not text)")
    if abs(value) >= 10**MAX_DIGITS:
        raise ValueError("the number is too large")
    return value


def _digits(value: object) -> object:
    """A whole number in a path: 1 to 10 plain ASCII digits, no sign, space or leading zero."""
    if not isinstance(value, str) or not _DIGITS.fullmatch(value) or (len(value) > 1 and value.startswith("0")):
        raise ValueError("expected a whole number in plain digits")
    return int(value)


def _text(value: object) -> object:
    """Text from JSON: a string (a number is not text)."""
    if not isinstance(value, str):
        raise ValueError("expected text (a JSON string)")
    return value


Whole = Annotated[int, BeforeValidator(_whole)]
PathWhole = Annotated[int, BeforeValidator(_digits)]
Text40 = Annotated[str, StringConstraints(max_length=40), BeforeValidator(_text)]
Text200 = Annotated[str, StringConstraints(max_length=200), BeforeValidator(_text)]
Id = Annotated[str, StringConstraints(max_length=300), BeforeValidator(_text)]
AtMs = Annotated[float, Field(ge=0, le=MAX_AT_MS, allow_inf_nan=False)]
WallMs = Annotated[float, Field(ge=0, le=1e14, allow_inf_nan=False)]  # milliseconds since the epoch


class Model(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


class Loose(BaseModel):
    """Query parameters of pages and assets: unknown ones are ignored (a link may carry any)."""

    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)
    token: Annotated[str, StringConstraints(max_length=100)] | None = None


class Query(Model):
    """Query parameters of the API: only the access code (LAN mode)."""

    token: Annotated[str, StringConstraints(max_length=100)] | None = None


class LangQuery(Query):
    """Query parameters of what the page shows in its language: `lang` (an unknown one: the browser's)."""

    lang: Annotated[str, StringConstraints(max_length=20)] | None = None


# --- path parameters ---------------------------------------------------------------------------
GameId = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{12}$")]


class GamePath(Model):
    game: GameId


class SoundPath(Model):
    game: GameId
    key: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{24}$")]


class PagePath(Model):
    game: Annotated[str, StringConstraints(max_length=100)] | None = None


class AssetPath(Model):
    name: Annotated[str, StringConstraints(max_length=40)]  # one of routes.ASSETS, else 404


class LangPath(Model):
    lang: Annotated[str, StringConstraints(max_length=20)]  # one of i18n.UI_LANGUAGES, else 404


class JobPath(Model):
    job: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{20}-(mp3|ogg)$")]


class LogEntryPath(Model):
    id: Annotated[PathWhole, Field(ge=1, le=999_999_999)]  # a mission's number in the ship's log


class SoundtrackPath(Model):
    game: GameId
    format: Literal["mp3", "ogg"]


# --- bodies ------------------------------------------------------------------------------------
class UploadQuery(Query):
    name: Annotated[str, StringConstraints(max_length=255)] = "upload.yaml"


class FlashcodeBody(Model):
    code: Annotated[str, StringConstraints(max_length=20_000)] = ""
    title: Text200 = ""


class GenerateForm(Model):
    """The generate form's own fields; each option of `timekeeper generate` is added below."""

    seed: Annotated[Whole, Field(ge=0, le=MAX_SEED)] | None = None  # null: a random one
    count: Annotated[Whole, Field(ge=1, le=MAX_PAGE_COUNT)] = 1
    campaign: bool = False
    language: Text40 = ""
    voice: Id = ""


_OPTION_FIELDS: dict[str, Any] = {key: (Text200, "") for key in SPEC_KEYS}
GenerateBody = create_model("GenerateBody", __base__=GenerateForm, **_OPTION_FIELDS)


class Settings(Model):
    language: Text40 = ""
    voice: Id = ""
    players: Annotated[Whole, Field(ge=1, le=MAX_PLAYERS)] = MAX_PLAYERS
    solo: bool = False
    background: bool = True
    music: Id = ""
    computer_voice: bool = False
    pace: Annotated[float, Field(ge=MIN_PACE, le=MAX_PACE, allow_inf_nan=False)] = NORMAL_PACE  # the training pace
    remote: bool = False  # a crew apart: every joined screen plays the sound (serve/games/game.py GAME_SETTINGS)
    silence_pause_s: Annotated[float, Field(ge=0, le=SILENCE_PAUSE_MAX_S, allow_inf_nan=False)] = SILENCE_PAUSE_S


class NewGameBody(Model):
    track: Id = ""
    settings: Annotated[Settings, BeforeValidator(lambda v: {} if v is None else v)] = Settings()


class LobbyBody(NewGameBody):
    """A lobby's game (serve/web/lobby_routes.py): the set-up screen's track, settings and mode."""

    mode: Literal["sound", "quiet"] = "sound"
    after: GameId | None = None  # the game just played: its screens are sent on to this one


class CodePath(Model):
    code: Annotated[str, StringConstraints(max_length=12)]


class CommandBody(Model):
    type: Literal["play", "pause", "end", "undo", "seek", "claim", "release", "report"]
    at_ms: AtMs | None = None
    playing: bool = False
    read_ms: WallMs | None = None  # a report: when at_ms was read, on the server's clock as the device knows it
    loading: bool = False  # a report: the speaker's sound waits for data (it starts, or seeks)
    late_ms: Annotated[int, Field(ge=-LATE_LIMIT_MS, le=LATE_LIMIT_MS)] = 0  # a claim: the speaker's own output delay


class RenderBody(Model):
    format: Literal["mp3", "ogg"] = "mp3"


LanguageCode = Annotated[str, StringConstraints(pattern=r"^[a-z]{2,3}$")]  # a shipped one: checked by the state


class VoiceInstallBody(Model):
    language: LanguageCode


class VoiceInstallPath(Model):
    language: LanguageCode


def _log_body(editing: bool = False) -> type[Model]:
    """The mission form of the ship's log: its fields as text (the log checks their values and
    names every bad one), a campaign number or "current"; `track` and `seed` are ignored. A
    correction (`editing`) takes neither a track nor a campaign: a mission keeps both."""
    long_text = Annotated[str, StringConstraints(max_length=2000), BeforeValidator(_text)]
    fields: dict[str, Any] = {f.name: (long_text if f.kind == "text" else Text200, "") for f in MISSION_FORM
                              if not (editing and f.kind == "track")}
    if editing:
        return create_model("LogEditBody", __base__=Model, **fields)
    fields["campaign"] = (Annotated[str, StringConstraints(pattern=r"^(|current|[1-9][0-9]{0,8})$"),
                                    BeforeValidator(_text)], "")
    fields["seed"] = (Text40, "")
    return create_model("LogBody", __base__=Model, **fields)


LogBody = _log_body()
LogEditBody = _log_body(editing=True)


# --- WebSocket messages ------------------------------------------------------------------------
class Ping(Model):
    type: Literal["ping"]
    t: Annotated[float, Field(allow_inf_nan=False, ge=-1e15, le=1e15)] | None = None


class Hello(Model):
    type: Literal["hello"]
    client: Text40 = ""
    sound: bool = False
    kind: Literal["phone", "screen", ""] = ""  # how the lobby lists it: "Phone 2", "Screen 1"


class ScreenMessage(BaseModel):
    model_config = ConfigDict(strict=True, frozen=True)
    message: Annotated[Ping | Hello | CommandBody, Field(discriminator="type")]


# --- the declaration of a route ----------------------------------------------------------------
@dataclass(frozen=True)
class RouteInput:
    """What one route takes: models for its path and query, and its body: JSON checked by `body`,
    or (`raw` set) bytes of at most `max_body`."""

    path: type[BaseModel] | None = None
    query: type[BaseModel] = Query
    body: type[BaseModel] | None = None
    max_body: int = 0
    raw: bool = False


@dataclass(frozen=True)
class Checked:
    """A request's input after its route's schema: `raw` is the bytes of a raw body."""

    path: Any = None
    query: Any = None
    body: Any = None
    raw: bytes = b""


def declares(spec: RouteInput):
    """Mark a handler with the input its route takes (checked by serve/web/app.py's middleware)."""

    def mark(handler):
        handler.route_input = spec
        return handler

    return mark


NO_INPUT = RouteInput()
UPLOAD = RouteInput(query=UploadQuery, max_body=MAX_FILE_BYTES, raw=True)


_MESSAGE_TAGS = {"ping", "hello", *get_args(CommandBody.model_fields["type"].annotation)}


def field_name(location: tuple) -> str | None:
    """The field a pydantic error location names (`settings.players`), without list indexes, the
    screen message's wrapper and its kind."""
    skipped = {"message", "function-before", *_MESSAGE_TAGS}
    parts = [str(part) for part in location if not isinstance(part, int) and part not in skipped]
    return ".".join(parts) or None


def validate(model: type[BaseModel], data: object, where: str) -> Any:
    """`data` as `model`, or Refused naming the first field at fault."""
    try:
        return model.model_validate(data)
    except ValidationError as error:
        first = error.errors(include_url=False, include_input=False)[0]
        name = field_name(tuple(first["loc"]))
        kind = first["type"]
        if kind == "extra_forbidden":
            detail = "is not a field of this request"
        elif kind == "missing":
            detail = "is missing"
        elif kind == "value_error":
            detail = str(first.get("ctx", {}).get("error", first["msg"]))
        else:
            detail = first["msg"][0].lower() + first["msg"][1:]
        shown = f"{where} field {name!r}" if name else where
        raise Refused(f"{shown}: {detail}", field=name) from None


def check_depth(data: bytes, limit: int = MAX_JSON_DEPTH) -> None:
    """Refuse JSON nested deeper than `limit` before parsing it (strings are skipped)."""
    depth = 0
    for match in _BRACKETS.finditer(data):
        token = match.group()
        if token in (b"[", b"{"):
            depth += 1
            if depth > limit:
                raise Refused(f"the JSON is nested more than {limit} deep", code="too_deep")
        elif token in (b"]", b"}"):
            depth -= 1


def _no_constant(name: str) -> object:
    raise ValueError(name)


def parse_json(data: bytes | str, where: str = "the request body") -> object:
    """Bounded, strict JSON: depth checked first; NaN, Infinity and numbers of more than 4,300
    digits are not JSON here."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    check_depth(raw)
    try:
        return json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except (ValueError, UnicodeDecodeError):
        raise Refused(f"{where} is not JSON", code="invalid_json") from None


def json_object(data: bytes | str, model: type[BaseModel], where: str = "the request body") -> Any:
    parsed = parse_json(data, where)
    if not isinstance(parsed, dict):
        raise Refused(f"{where} must be a JSON object", code="invalid_json")
    return validate(model, parsed, where)


def screen_message(text: str) -> Any:
    """One message of a joined screen (ping, hello or a command), checked."""
    parsed = parse_json(text, "the message")
    if not isinstance(parsed, dict):
        raise Refused("messages are JSON objects", code="invalid_json")
    return validate(ScreenMessage, {"message": parsed}, "the message").message


def check_charset(charset: str | None) -> None:
    if charset is not None and charset.lower().replace("_", "-") not in ("utf-8", "utf8", "us-ascii", "ascii"):
        raise Refused(f"charset {charset[:40]!r} is not accepted; send UTF-8", status=415, code="unsupported_charset")
