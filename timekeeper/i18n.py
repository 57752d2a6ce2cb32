"""The words timekeeper shows around the game (the page, the terminal prompter, the generator
form) in each shipped language: one gettext catalogue per language, `locales/<code>.po`, read
with Babel. A msgid is a stable dotted key (`prompter.read_now`), its msgstr the text, with
`{name}` marking a value. An entry a catalogue lacks falls back to English.

A message made before its language is known (a problem in a file the page uploaded, a log
value the form sent) is a `Said`: its key and values, said in a language later (`say`), or sent
to the page as data (`Said.as_json`) for the page to say in its own (i18n.js `say`). Its English
words are the English catalogue's, so the command line and the page say the same thing.

The announcements themselves (what the ship's computer says and the card prints) are not here:
they are the phrase tables in voices/.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import MappingProxyType

from timekeeper.errors import TimekeeperError
from timekeeper.grammar.languages import LANGUAGES, language_code

LOCALES_DIR = Path(__file__).resolve().parent / "locales"
FALLBACK = "en"
UI_LANGUAGES = LANGUAGES  # one catalogue for each shipped language
MAX_HEADER_CHARS = 2000  # of an Accept-Language header; the rest is not read
MAX_HEADER_ITEMS = 40


class UnknownLanguage(TimekeeperError):
    """A language no catalogue is shipped for."""

    def __init__(self, language: str) -> None:
        super().__init__(f"no messages in language {language[:20]!r} (expected one of {', '.join(UI_LANGUAGES)})",
                         path="messages", missing=True)


def catalogue_path(language: str) -> Path:
    return LOCALES_DIR / f"{language}.po"


@cache
def read_catalogue(language: str) -> Mapping[str, str]:
    """The entries of `locales/<language>.po` as key -> text, untranslated (empty) and fuzzy ones left out."""
    from babel.messages.pofile import PoFileError, read_po

    if language not in UI_LANGUAGES:
        raise UnknownLanguage(language)
    path = catalogue_path(language)
    try:
        with path.open("rb") as po:
            catalogue = read_po(po, abort_invalid=True)
    except OSError as error:
        raise TimekeeperError(f"cannot read the message catalogue: {error.strerror or error}", path=str(path)) from error
    except (PoFileError, UnicodeDecodeError) as error:
        raise TimekeeperError(f"the message catalogue is not a valid PO file: {error}", path=str(path)) from error
    return MappingProxyType({str(message.id): str(message.string) for message in catalogue
                             if message.id and message.string and not message.fuzzy})


@cache
def messages(language: str) -> Mapping[str, str]:
    """Every message in `language` (a shipped one, else UnknownLanguage), English where its
    catalogue lacks an entry. Read once per process."""
    english = read_catalogue(FALLBACK)
    if language == FALLBACK:
        return english
    return MappingProxyType({**english, **read_catalogue(language)})


def ui_language(language: str | None) -> str:
    """The catalogue to speak for `language`: itself when shipped, else English (a voice pack's Greek)."""
    return language if language in UI_LANGUAGES else FALLBACK


def translate(language: str | None, key: str, /, **values: object) -> str:
    """The message `key` in `language` (English for a language without catalogue) with its
    `{name}` places filled from `values`. KeyError for a key no catalogue has (a bug)."""
    return messages(ui_language(language))[key].format(**values)


@dataclass(frozen=True)
class Said:
    """Words to say in any shipped language: a catalogue key and the values of its `{name}` places.
    A value is a number, a text shown as written (a name, what a user typed, a word of the file
    format), another Said (said in the same language) or a tuple of those (a list: "a, b, c")."""

    key: str
    values: tuple[tuple[str, object], ...] = ()

    def in_language(self, language: str | None) -> str:
        return translate(language, self.key, **{name: say(value, language) for name, value in self.values})

    def __str__(self) -> str:
        return self.in_language(FALLBACK)

    def as_json(self) -> dict[str, object]:
        """{"key": ..., "values": {...}} with Saids inside as the same, lists as lists: what the page says."""
        return {"key": self.key, "values": {name: said_json(value) for name, value in self.values}}


class Rephrased:
    """A message whose English the command line keeps as it is (a parser's own words, a list of
    field names) and whose `words` a page says instead, in its language."""

    def __init__(self, english: str, words: Said) -> None:
        self.english, self.words = english, words

    def __str__(self) -> str:
        return self.english

    def in_language(self, language: str | None) -> str:
        return self.words.in_language(language)

    def as_json(self) -> dict[str, object]:
        return self.words.as_json()


def said(key: str, /, **values: object) -> Said:
    """A Said of `key` with `values` (every place of the English text must be given)."""
    return Said(key, tuple(values.items()))


def say(value: object, language: str | None) -> str:
    """`value` in `language`: words (a Said) in their language, a list joined with commas, anything
    else as written."""
    if isinstance(value, (Said, Rephrased)):
        return value.in_language(language)
    if isinstance(value, tuple):
        return ", ".join(say(item, language) for item in value)
    return str(value)


def said_json(value: object) -> object:
    """`value` as the page reads it (i18n.js `say`): a Said as its key and values, a list as a list."""
    if isinstance(value, (Said, Rephrased)):
        return value.as_json()
    if isinstance(value, tuple):
        return [said_json(item) for item in value]
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else str(value)


class WordedError(ValueError):
    """A ValueError whose message is words (`said`): the command line prints their English, a page
    says them in its language."""

    def __init__(self, key: str | Said, /, **values: object) -> None:
        self.said = key if isinstance(key, Said) else said(key, **values)
        super().__init__(str(self.said))


def words_of(error: Exception) -> Said | str:
    """What `error` says: its words when it has them (WordedError), else its English message."""
    return error.said if isinstance(error, WordedError) else str(error)


def preferred_language(accept_language: str | None) -> str:
    """The shipped language a browser's Accept-Language header prefers ("de-CH,de;q=0.9,en;q=0.8"
    -> "de"); English when it names none of them. Malformed parts are skipped."""
    wanted: list[tuple[float, int, str]] = []
    for index, item in enumerate((accept_language or "")[:MAX_HEADER_CHARS].split(",")[:MAX_HEADER_ITEMS]):
        tag, _, params = item.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        code = language_code(tag.split("-")[0].split("_")[0])
        if code is not None and 0.0 < quality <= 1.0:
            wanted.append((-quality, index, code))
    for _, _, code in sorted(wanted):
        if code in UI_LANGUAGES:
            return code
    return FALLBACK
