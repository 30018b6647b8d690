"""The public state of an Empires in Arms game: each major power's controller, status, political
points and money, the wars, alliances and unconditional surrenders, and the UMP Control Step
(open, or its last result)."""

from __future__ import annotations

from dataclasses import dataclass, field

from pbem.ruleset import Setup

PLAYER, ACTIVE, INACTIVE, NEUTRAL = "player", "active", "inactive", "neutral"  # 14.3.2
UNCONTROLLED = "uncontrolled"  # an UMP no control step has ruled on yet


@dataclass
class Power:
    status: str  # a player's power, or an UMP's status: active, inactive, neutral
    pp: int = 0  # political points: its place on the Political Status Display
    money: int = 0
    manpower: int = 0
    vp: int = 0  # victory points so far (8.1.3.2)
    neutral_phases: int = 0  # Economic Phases spent neutral since it last was (14.3.6.1b)
    off_map: dict[str, int] = field(default_factory=dict)  # a neutral UMP's forces, by area they left (14.3.6)
    controller: str | None = None  # the major power controlling this UMP (14.3.2)
    history: list[str] = field(default_factory=list)  # every power that gained it, in order (14.3.2 ties)

    @property
    def last_controller(self) -> str | None:
        return self.history[-1] if self.history else None


@dataclass
class EiaState:
    setup: Setup
    turn: int = 0  # 0: before the game (14.3.1)
    powers: dict[str, Power] = field(default_factory=dict)
    wars: list[list[str]] = field(default_factory=list)  # sorted pairs of powers
    alliances: list[list[str]] = field(default_factory=list)
    surrendered: list[list[str]] = field(default_factory=list)  # [UMP, power it surrendered to] (14.3.1.1.7)
    must_accept_peace: list[str] = field(default_factory=list)  # UMPs to accept any terms at the next peace (14.3.6.1a)
    control: dict[str, str] = field(default_factory=dict)  # territory -> the power holding it (free minors absent)
    forces: dict[str, dict[str, int]] = field(default_factory=dict)  # area -> power -> strength points there
    bourbon: bool = False  # Napoleon removed by peace term C.6 (14.3.8)
    step: str = "ump_control"  # the step open now
    overtures: list[dict] = field(default_factory=list)  # sealed and unsealed, waiting for the roll point
    voided: list[dict] = field(default_factory=list)  # overtures voided when unsealed, with their rule
    last_control: dict = field(default_factory=dict)  # the last UMP Control Step, roll by roll
    resigned: list[str] = field(default_factory=list)  # players who left the game (RULINGS E9)

    def pair(self, table: list[list[str]], a: str, b: str) -> bool:
        return sorted((a, b)) in table

    def at_war(self, a: str, b: str) -> bool:
        return self.pair(self.wars, a, b)

    def allied(self, a: str, b: str) -> bool:
        return self.pair(self.alliances, a, b)

    def allies_of(self, power: str) -> set[str]:
        return {other for pair in self.alliances if power in pair for other in pair if other != power}
