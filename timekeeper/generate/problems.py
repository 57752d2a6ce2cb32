"""What is wrong with the generator's settings, said two ways from one description: on the
command line with its flags ("--max-serious 0 is too few for threat level 9: ..."), and in the
page with its field labels, in the page's language ("„Höchstens ernsthafte Bedrohungen“ 0 ist zu
wenig für Bedrohungsstufe 9: ..."). The words are the catalogues' `generate.problem.*` entries; the
command line reads the English ones.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from timekeeper.errors import ScenarioError
from timekeeper.i18n import FALLBACK, translate

LENGTHS = (("length_option", "length", None), ("phase_lengths_option", "phase_lengths", None))  # where longer phases help


class Word(str):
    """A value of a message that is itself a word of the catalogues (`generate.<word>`), said in the
    message's language."""


class ValueProblem(ValueError):
    """What the text of one setting should have been (`generate.problem.<key>` with `values`);
    `cli` keeps a message that comes from elsewhere (times.py's) on the command line."""

    def __init__(self, key: str, *, cli: str | None = None, **values: object) -> None:
        self.key, self.values = key, values
        super().__init__(cli or translate(FALLBACK, f"generate.problem.{key}", **values))

    def text(self, ui: str) -> str:
        return translate(ui, f"generate.problem.{self.key}", **self.values)


class SettingProblem(ScenarioError):
    """Settings the generator cannot honour together. `settings` are the settings the message names,
    as (placeholder, option key, the value as written (OptionSpec.shown) or None for the setting alone)."""

    def __init__(self, key: str, settings: Iterable[tuple[str, str, Any]] = (), *, field: str | None = None,
                 **values: object) -> None:
        self.key, self.settings, self.values, self.field = key, tuple(settings), values, field
        super().__init__(self.text(None), path="generate")

    @property
    def option(self) -> str | None:
        """The option to look at (the page's field): the one given, else the first one named."""
        return self.field or (self.settings[0][1] if self.settings else None)

    def text(self, ui: str | None) -> str:
        """As the command line says it (ui None) or as the page does (in `ui`)."""
        language = ui or FALLBACK
        named = {name: setting_text(key, value, ui) for name, key, value in self.settings}
        values = {name: translate(language, f"generate.{value}") if isinstance(value, Word) else value
                  for name, value in self.values.items()}
        return translate(language, f"generate.problem.{self.key}", **values, **named)


def flag(key: str) -> str:
    """The command-line option of setting `key`: `phase_lengths` -> `--phase-lengths`."""
    return "--" + key.replace("_", "-")


def label(key: str, ui: str) -> str:
    """The page's name of setting `key` in `ui` ("Communication outages"), without its unit."""
    return translate(ui, f"generate.label.{key}")


def setting_text(key: str, written: str | None, ui: str | None) -> str:
    """A setting (with its value as written, unless None) as a message names it: `--outages 6` on
    the command line, “Communication outages” 6 in the page."""
    if ui is None:
        return f"{flag(key)} {written or ''}".rstrip()
    return translate(ui, "generate.setting", label=label(key, ui), value=written or "").rstrip()


class BadValue(SettingProblem):
    """The text of one setting cannot be read: the option's key, the text, and what was expected."""

    def __init__(self, key: str, text: str, problem: ValueError) -> None:
        self.key, self.raw, self.problem = key, str(text).strip(), problem
        self.settings, self.values, self.field = ((key, key, None),), {}, key
        ScenarioError.__init__(self, f"{flag(key)} {self.raw!r}: {problem}", path="generate")

    def text(self, ui: str | None) -> str:
        if ui is None:
            return self.detail
        setting = translate(ui, "generate.setting", label=label(self.key, ui), value=repr(self.raw))
        reason = self.problem.text(ui) if isinstance(self.problem, ValueProblem) else str(self.problem)
        return translate(ui, "generate.problem.value", setting=setting, reason=reason)
