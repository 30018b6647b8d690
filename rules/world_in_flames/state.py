"""The public state of a World in Flames game: the units and where they stand, who controls which
hex and who held it this turn, the powers' relations and weather, the impulse under way, and what
it waits for (an attack's die, a retreat, a hex's owner to resolve an overstack)."""

from __future__ import annotations

from dataclasses import dataclass, field

from pbem.ruleset import Setup

from ..common.plain import plain_copy
from . import scenario

SIDES = ("axis", "allies")


@dataclass
class WifState:
    setup: Setup
    impulses: int  # the impulses the game lasts (the scenario's)
    politics: dict  # sides, controllers, at_war, cooperation, consent, conquered, open_neutrals, weather
    units: dict[str, dict]  # id -> type, country, hex (an id) or sea, face_up
    control: dict[str, str] = field(default_factory=dict)  # hex id -> power, where not its country's owner
    held: dict[str, list[str]] = field(default_factory=dict)  # hex id -> sides that held it this turn
    impulse: int = 1
    side: str = "axis"  # the side whose impulse it is
    passed: list[str] = field(default_factory=list)  # its players who have passed this impulse
    moved: list[str] = field(default_factory=list)  # units that moved or overran this impulse
    attacked: list[str] = field(default_factory=list)  # units that attacked this impulse
    emergency: dict = field(default_factory=dict)  # option 13 this impulse: hq, units
    attack: dict = field(default_factory=dict)  # a declared attack waiting for its die: hex, units, player
    retreat: dict = field(default_factory=dict)  # units that must retreat: player, hex, units
    overstack: dict = field(default_factory=dict)  # an overstacked hex: hex, player
    destroyed: list[str] = field(default_factory=list)  # units destroyed, in order
    last: dict = field(default_factory=dict)  # the last action: text, hex, unit
    resigned: list[str] = field(default_factory=list)

    def dump(self) -> dict:
        """The position: the units (each with its type and nationality, since units enter and
        leave play), the powers' relations (wars are declared in play, rule 9), control and the
        impulse with what it waits for; not the scenario's length, nor any fact of the world or
        of units.toml."""
        return {"politics": self.politics, "units": self.units, "control": dict(sorted(self.control.items())),
                "held": dict(sorted(self.held.items())),
                "impulse": self.impulse, "side": self.side, "passed": self.passed, "moved": self.moved,
                "attacked": self.attacked, "emergency": self.emergency,
                "attack": self.attack, "retreat": self.retreat, "overstack": self.overstack,
                "destroyed": self.destroyed, "last": self.last, "resigned": self.resigned}

    @classmethod
    def load(cls, data: dict, setup: Setup) -> WifState:
        """The units in id order, as every replay and every cached dump has them, so that what the
        rules list in unit order comes out the same either way."""
        facts = plain_copy(data)
        facts["units"] = dict(sorted(facts["units"].items()))
        return cls(setup=setup, impulses=scenario.fixed(setup.scenario)["impulses"], **facts)

    @classmethod
    def start(cls, setup: Setup) -> WifState:
        """The state the scenario sets up."""
        start = scenario.fixed(setup.scenario)
        return cls(setup=setup, impulses=start["impulses"], politics=plain_copy(start["politics"]),
                   units=plain_copy(start["units"]), control=dict(start["control"]))

    def copy(self) -> WifState:
        return WifState.load(self.dump(), self.setup)
