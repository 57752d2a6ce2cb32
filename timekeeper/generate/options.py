"""What a user may ask the generator for, checked up front so that generation itself cannot fail."""

from __future__ import annotations

from dataclasses import dataclass

from timekeeper.errors import ScenarioError
from timekeeper.generate.figures import PROFILES
from timekeeper.model import MAX_TURN, TrackKind

GENERATOR_VERSION = "1"  # bump when the same seed and options would give a different mission
KINDS = ("mission", "simulation", "double-action")
TRACK_KINDS = {"mission": TrackKind.MISSION, "simulation": TrackKind.SIMULATION, "double-action": TrackKind.DOUBLE_ACTION}
PLAYERS = (4, 5)
MAX_SEED = 2**63 - 1


@dataclass(frozen=True)
class GenerateOptions:
    """`threat_level` is the confirmed threat points (normal 1, serious 2); None: the official figure."""

    kind: str = "mission"
    players: int = 5
    threat_level: int | None = None

    @property
    def profile(self) -> dict:
        return PROFILES[self.kind]

    @property
    def default_level(self) -> int:
        return self.profile["confirmed_points"][1]

    @property
    def level(self) -> int:
        return self.default_level if self.threat_level is None else self.threat_level

    @property
    def max_doubles(self) -> int:
        return self.profile["double_turns"][1]

    @property
    def max_unconfirmed(self) -> int:
        return self.profile["unconfirmed"][1] if self.players == 5 else 0

    @property
    def threat_slots(self) -> int:
        """How many threats a track of this kind can carry: one per turn, plus the double turns."""
        return MAX_TURN + self.max_doubles

    @property
    def max_level(self) -> int:
        """The most confirmed points that fit: every confirmed slot a serious threat."""
        return 2 * (self.threat_slots - self.max_unconfirmed)

    @property
    def is_default(self) -> bool:
        return self.level == self.default_level

    def pairs(self) -> tuple[tuple[str, str], ...]:
        """The options as written into the scenario's `generator:` mapping."""
        return (
            ("version", GENERATOR_VERSION),
            ("kind", self.kind),
            ("players", str(self.players)),
            ("threat_level", str(self.level)),
        )


def check_options(options: GenerateOptions) -> GenerateOptions:
    """`options` if the generator can honour them, else ScenarioError saying what is possible."""
    if options.kind not in KINDS:
        raise ScenarioError(f"generate: unknown kind {options.kind!r} (expected one of {', '.join(KINDS)})")
    if options.players not in PLAYERS:
        raise ScenarioError(f"generate: {options.players} players; missions are generated for 4 or 5 players")
    if not 1 <= options.level <= options.max_level:
        raise ScenarioError(
            f"generate: threat level {options.level} is impossible for a {options.kind} with {options.players} players: "
            f"its {options.threat_slots} threat slots carry 1 to {options.max_level} confirmed points "
            f"(the official {options.kind}s carry {options.default_level})"
        )
    return options


def check_seed(seed: int) -> int:
    if not 0 <= seed <= MAX_SEED:
        raise ScenarioError(f"generate: seed {seed} is out of range (expected 0 to {MAX_SEED})")
    return seed
