"""The public state of an Empires in Arms game: each major power's controller, status, political
points and money, the wars, alliances and unconditional surrenders, the corps and leaders on the
map, the land phase under way (a move waiting for reactions, an overrun waiting for its owner) and
the UMP Control Step (open, or its last result)."""

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
    set_aside: dict[str, dict] = field(default_factory=dict)  # its corps while neutral, to set up again (14.3.3.5)
    controller: str | None = None  # the major power controlling this UMP (14.3.2)
    history: list[str] = field(default_factory=list)  # every power that gained it, in order (14.3.2 ties)
    surrendered_in: int | None = None  # the turn of its first unconditional surrender (12.11.3; 0: before)
    landwehr: bool = False  # its landwehr is active (12.11.3)
    landwehr_ever: bool = False  # it once was: the German Confederation penalty (12.11.3.1)

    @property
    def off_map(self) -> dict[str, int]:
        """14.3.6: a neutral UMP's strength off the map, by the area it left."""
        found: dict[str, int] = {}
        for corps in self.set_aside.values():
            found[corps["area"]] = found.get(corps["area"], 0) + sum(corps["factors"].values())
        return found

    @property
    def last_controller(self) -> str | None:
        return self.history[-1] if self.history else None


@dataclass
class Corps:
    """A corps, freikorps, cossack or garrison on the map: its kind (units.toml) and factors."""

    power: str
    kind: str
    area: str
    factors: dict[str, int]  # infantry, cavalry, militia, guard
    origin: str = ""  # the minor (free state) it was raised in, if not its power's own (12.10)
    mp: int = 0  # movement points left in its power's land phase
    reacted_with: str = ""  # the leader it reacted with this phase, or its own name alone (12.3.7.4.5, 12.3.7.4.7)
    spent: bool = False  # it may react alone no more this phase (12.3.7.4.7, 12.3.7.4.4; 12.3.7.4.2.1)
    stopped: bool = False  # it must cease movement (12.3.7.4.1, 12.3.7.4.2.2, 12.3.9.5)
    moved: bool = False  # it moved this phase (an overrun interrupts a move, 12.3.9.2)

    @property
    def strength(self) -> int:
        return sum(self.factors.values())


@dataclass
class Leader:
    power: str
    area: str | None  # None: off the map
    failed: bool = False  # failed a reaction roll this phase (12.3.7.4.4)
    done: bool = False  # reacted into an area with enemy corps this phase (12.3.7.4.4)


@dataclass
class EiaState:
    setup: Setup
    turn: int = 0  # 0: before the game (14.3.1)
    start: tuple[int, int] = (1805, 1)  # the year and month of turn 1 (E19)
    powers: dict[str, Power] = field(default_factory=dict)
    wars: list[list[str]] = field(default_factory=list)  # sorted pairs of powers
    alliances: list[list[str]] = field(default_factory=list)
    surrendered: list[list[str]] = field(default_factory=list)  # [UMP, power it surrendered to] (14.3.1.1.7)
    peace: dict = field(default_factory=dict)  # this turn's peace step: who decided, tries, results (14.3.3.8)
    informal_peace: list[list[str]] = field(default_factory=list)  # wars the last peace step ended (14.3.3.9)
    must_accept_peace: list[str] = field(default_factory=list)  # UMPs to accept any terms at the next peace (14.3.6.1a)
    control: dict[str, str] = field(default_factory=dict)  # territory -> the power holding it (free minors absent)
    corps: dict[str, Corps] = field(default_factory=dict)
    leaders: dict[str, Leader] = field(default_factory=dict)
    bourbon: bool = False  # Napoleon removed by peace term C.6 (14.3.8)
    step: str = "ump_control"  # the step open now
    overtures: list[dict] = field(default_factory=list)  # sealed and unsealed, waiting for the roll point
    voided: list[dict] = field(default_factory=list)  # overtures voided when unsealed, with their rule
    last_control: dict = field(default_factory=dict)  # the last UMP Control Step, roll by roll
    resigned: list[str] = field(default_factory=list)  # players who left the game (RULINGS E9)
    phasing: str = ""  # the power whose land phase it is
    movement: dict = field(default_factory=dict)  # a move stopped for reactions (12.3.7.4)
    reaction: dict = field(default_factory=dict)  # a reaction waiting for its die
    overrun: dict = field(default_factory=dict)  # an overrun waiting for its owners' choice (12.3.9.4)
    waived: list[str] = field(default_factory=list)  # players who waived reactions this phase
    attack_minus: list[str] = field(default_factory=list)  # areas where the phasing forces attack at -1 (12.3.9.5)
    prisoners: dict[str, dict[str, int]] = field(default_factory=dict)  # captor -> power -> strength surrendered
    land_log: list[dict] = field(default_factory=list)  # this land phase's reactions, overruns and battles
    last_phase: dict = field(default_factory=dict)  # the power and log of the land phase before this one
    battles: list[str] = field(default_factory=list)  # areas of this phase's battles still to fight
    battle: dict = field(default_factory=dict)  # the battle under way (combat.py)
    plan: dict = field(default_factory=dict)  # the phase's sealed moves and policies (planned.py)
    militia_conversion: bool = False  # a campaign game beginning in 1805 (12.11.2)
    conversions: list[dict] = field(default_factory=list)  # 12.11.2's conversions before the game
    free_states: list[str] = field(default_factory=list)  # minors held as free states (10.4.5.1)
    schedule: list[dict] = field(default_factory=list)  # leaders still to arrive or leave (14.7.6)
    ottoman_penalties: dict[str, list[int]] = field(default_factory=dict)  # power -> turns it paid 12.10
    last_economic: dict = field(default_factory=dict)  # the last Economic Phase's landwehr and loss rolls

    def pair(self, table: list[list[str]], a: str, b: str) -> bool:
        return sorted((a, b)) in table

    def at_war(self, a: str, b: str) -> bool:
        return self.pair(self.wars, a, b)

    def allied(self, a: str, b: str) -> bool:
        return self.pair(self.alliances, a, b)

    def allies_of(self, power: str) -> set[str]:
        return {other for pair in self.alliances if power in pair for other in pair if other != power}

    def surrender(self, captor: str, unit: Corps) -> None:
        """A corps or garrison taken off the map surrendered: its strength points are prisoners of
        the captor (12.3.9.4, E23)."""
        held = self.prisoners.setdefault(captor, {})
        held[unit.power] = held.get(unit.power, 0) + unit.strength

    def forces_in(self, area: str) -> dict[str, int]:
        """Each power's strength points in the area: its corps and garrisons."""
        found: dict[str, int] = {}
        for unit in self.corps.values():
            if unit.area == area:
                found[unit.power] = found.get(unit.power, 0) + unit.strength
        return dict(sorted(found.items()))
