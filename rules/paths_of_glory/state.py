"""The Paths of Glory position: everything the rules read and change, and nothing else.

Rule cases set a position directly (`position_from_case`); a game starts from the 1914 set-up
(`initial_position`). The dump is the public state PROTOCOL §8 hashes: plain, sorted, integers only,
and sparse: control and forts only where they differ from the position the game started from.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple

from pbem import datafile

from ..common.plain import plain_copy
from .data import NO_VARIANTS, PogMap, Unit, load_map, load_setup, load_units, space_facts

if TYPE_CHECKING:  # pragma: no cover
    from pbem.ruleset import Setup

SIDES = ("ap", "cp")
COMMITMENT_LEVELS = ("mobilization", "limited", "total")  # 16.1
FORT_STATES = ("intact", "besieged", "destroyed")


@lru_cache(maxsize=1)
def calendar() -> tuple[dict, ...]:
    return tuple(datafile.load(__package__, "calendar.toml")["turns"])


RESULT = "result:"  # the event that records the game's result line (turn.py)


def result(state: PogState) -> str | None:
    """The result line once the game is over."""
    return next((event[len(RESULT):] for event in sorted(state.events) if event.startswith(RESULT)), None)


# What an action remembers from its start to its end, whatever its steps (8.1.3, 8.2, R103): a draw
# bought, a card discarded for an additional action, whether it is an additional action, whether
# it is the extra action that closes the turn (8.2.4), whether it is a mandated one.
ACTION_MARKS = ("bought", "extra", "additional", "closing", "mandated")


def next_step(state: PogState, **fields) -> None:
    """The open action moves on to its next step: `fields` replace the last step's, the marks of its
    start stay."""
    state.action = {**{key: state.action[key] for key in ACTION_MARKS if key in state.action}, **fields}


def enemy(side: str) -> str:
    return "cp" if side == "ap" else "ap"


class Start(NamedTuple):
    """Control and fort states where the game started (its scenario's position, or a rule case's):
    the dump records only what differs from them. Read-only, shared by every copy and load."""

    control: Mapping[str, str]
    forts: Mapping[str, str]
    digest: str = ""  # of control and forts: in every dump, so clients whose start differs disagree at once

    @classmethod
    def of(cls, state: PogState) -> Start:
        control, forts = dict(sorted(state.control.items())), dict(sorted(state.forts.items()))
        text = json.dumps({"control": control, "forts": forts}, sort_keys=True, separators=(",", ":"))
        return cls(MappingProxyType(control), MappingProxyType(forts), hashlib.sha256(text.encode()).hexdigest())


NO_START = Start(MappingProxyType({}), MappingProxyType({}))  # a bare PogState: its dump is complete


@dataclass
class UnitState:
    space: str  # a space or box id
    reduced: bool = False
    oos: int = 0  # 14.3.5: OOS1..OOS5 marker, 0 for none


@dataclass
class PogState:
    variants: frozenset[str] = NO_VARIANTS
    turn: int = 1
    at_war: set[str] = field(default_factory=set)
    control: dict[str, str] = field(default_factory=dict)  # every map space: "ap" or "cp"
    units: dict[str, UnitState] = field(default_factory=dict)  # units on the map or in a box
    forts: dict[str, str] = field(default_factory=dict)  # every fort space: intact, besieged, destroyed
    trenches: dict[str, int] = field(default_factory=dict)
    trench_owner: dict[str, str] = field(default_factory=dict)  # R03: each trench's side (trenches.owner)
    war_status: dict[str, int] = field(default_factory=lambda: {"ap": 0, "cp": 0})
    commitment: dict[str, str] = field(default_factory=lambda: {"ap": "mobilization", "cp": "mobilization"})
    # Numbered tracks beyond war status (VP, BR Entry / US Involvement, Russian Turmoil, RPs...):
    # their keys and starting values are the scenario's (war.py); a key not present reads as 0.
    tracks: dict[str, int] = field(default_factory=dict)
    mo: dict[str, str] = field(default_factory=dict)  # 7.1: each side's mandated offensive this turn
    combats: list[dict] = field(default_factory=list)  # this turn's resolved combats, step by step
    retreated: set[str] = field(default_factory=set)  # base 12.1.2, 12.5.6: units that retreated this round
    events: set[str] = field(default_factory=set)
    built_forts: dict[str, int] = field(default_factory=dict)  # 15.4.1: new forts, by space
    removed: set[str] = field(default_factory=set)  # out of the game for good (14.3.5: OOS armies)
    cards: dict[str, list[str]] = field(default_factory=dict)  # public card zones (card_zones.py)
    hands: dict[str, dict[str, int]] = field(default_factory=dict)  # per side: hand and pile sizes (hands.py)
    chart: dict[str, list[str]] = field(default_factory=dict)  # 8.1.8: each side's actions this turn, in order
    # The sequence of play (8.1): whose action, which round, the action under way.
    active: str = "cp"  # 8.1.2: the Central Powers act first in each action round
    round: int = 1
    action: dict = field(default_factory=dict)  # the open action: kind, activated spaces, moved units
    # Who commands each side, from the charter: not part of the position, so neither dumped nor compared.
    setup: Setup | None = field(default=None, compare=False, repr=False)
    # Where the game started, which the dump is sparse against: a fact of the game, not of the position.
    start: Start = field(default=NO_START, compare=False, repr=False)

    # ------------------------------------------------------------------ facts of the map and units

    @property
    def map(self) -> PogMap:
        return load_map(self.variants)

    @property
    def unit_facts(self) -> Mapping[str, Unit]:
        return load_units(self.variants)

    @property
    def season(self) -> str:
        return calendar()[self.turn - 1]["season"]

    @property
    def turn_label(self) -> str:
        return calendar()[self.turn - 1]["label"]

    def faction(self, unit: str) -> str:
        return self.unit_facts[unit].faction

    def nation(self, unit: str) -> str:
        return self.unit_facts[unit].nation

    def units_in(self, space: str) -> list[str]:
        return sorted(u for u, s in self.units.items() if s.space == space)

    def occupant(self, space: str) -> str | None:
        """The side with units in a space (stacking with the enemy is never allowed)."""
        here = self.units_in(space)
        return self.faction(here[0]) if here else None

    def fort_strength(self, space: str) -> int:
        """The fort's strength now: 0 when destroyed, a built or rebuilt fort's own (15.4)."""
        if self.forts.get(space) == "destroyed":
            return 0
        if space in self.built_forts:
            return self.built_forts[space]
        return self.map.fort[self.map.index[space]]

    def fort_state(self, space: str) -> str | None:
        return self.forts.get(space)

    def neutral(self, space: str) -> bool:
        """A space of a nation not (yet) at war: no unit may enter it."""
        nation = self.map.nation[self.map.index[space]]
        if nation not in self.neutral_nations():
            return False
        if nation == "gr" and "salonika" in self.events:
            # R37 (base 9.5.2.4): after the Salonika event only spaces holding Greek units stay closed
            return any(self.nation(unit) == "gr" for unit in self.units_in(space))
        return True

    def neutral_nations(self) -> set[str]:
        base = set(load_setup(self.variants).neutral_nations)
        if "vesting_holland" in self.variants:
            base.add("ho")  # RULINGS R08: Holland is neutral until the Invasion Holland event
        return base - self.at_war


def initial_position(variants: frozenset[str] = NO_VARIANTS) -> PogState:
    """The 1914 set-up: control, units, forts and trenches of the nations at war."""
    state = _set_up(variants)
    state.start = Start.of(state)
    return state


def _set_up(variants: frozenset[str]) -> PogState:
    """The 1914 set-up, its start not yet recorded (position_from_case records its own)."""
    spaces = space_facts(variants)
    setup = load_setup(variants)
    state = PogState(variants=variants)
    state.control = {space: facts["control"] for space, facts in spaces.items()}
    nations = {facts["nation"] for facts in spaces.values()}
    state.at_war = {n for n in nations if n not in setup.neutral_nations and n != "none"}
    if "vesting_holland" in variants:
        state.at_war.discard("ho")
    for placement in setup.units:
        state.units[placement.unit] = UnitState(placement.space, placement.reduced)
    for trench in setup.trenches:
        state.trenches[trench.space] = trench.level
        state.trench_owner[trench.space] = trench.faction
    state.forts = {space: "intact" for space, facts in spaces.items() if facts.get("fort", 0)}
    return state


def position_from_case(position: dict, variants: frozenset[str] = NO_VARIANTS) -> PogState:
    """A rule case's compact position: a base ("1914" or "empty") and what differs from it.

    Keys: base, turn, at_war (added nations), control {space: side}, units {unit: space or
    {space, reduced, oos}} (with base "1914" these move or add units; `remove` lists units to take
    off), forts {space: state}, trenches {space: level}, war_status, commitment, tracks, mo, events,
    active, round, action, cards {zone: [card ids]}, hands {side: {hand, pile}} (hands dealt:
    their cards are private, so a case knows only the sizes; the decks in the pile are those of
    the side's commitment level unless `decks` says otherwise).
    """
    base = position.get("base", "1914")
    state = _set_up(variants)
    if base == "empty":
        state.units = {}
        state.trenches = {}
        state.trench_owner = {}
    elif base != "1914":
        raise ValueError(f"unknown base position {base!r}")
    state.turn = position.get("turn", state.turn)
    state.at_war |= set(position.get("at_war", []))
    state.at_war -= set(position.get("neutral", []))
    for space, side in position.get("control", {}).items():
        state.control[_space(state, space)] = side
    for unit in position.get("remove", []):
        state.units.pop(unit)
    facts = state.unit_facts
    for unit, where in position.get("units", {}).items():
        if unit not in facts:
            raise ValueError(f"unknown unit {unit!r}")
        if isinstance(where, str):
            where = {"space": where}
        state.units[unit] = UnitState(_space(state, where["space"]), where.get("reduced", False), where.get("oos", 0))
    for space, fort in position.get("forts", {}).items():
        if fort not in FORT_STATES:
            raise ValueError(f"fort state {fort!r} is not one of {FORT_STATES}")
        state.forts[_space(state, space)] = fort
    for space, strength in position.get("built_forts", {}).items():
        state.built_forts[_space(state, space)] = strength
    for space, level in position.get("trenches", {}).items():
        where = _space(state, space)
        state.trenches[where] = level
        state.trench_owner[where] = position.get("trench_owner", {}).get(space, state.control[where])
    state.war_status.update(position.get("war_status", {}))
    state.commitment.update(position.get("commitment", {}))
    state.tracks.update(position.get("tracks", {}))
    state.mo.update(position.get("mo", {}))
    state.events |= set(position.get("events", []))
    state.active = position.get("active", state.active)
    state.round = position.get("round", state.round)
    state.action = dict(position.get("action", {}))
    state.cards = _zones(position.get("cards", {}))
    state.chart = {side: list(names) for side, names in position.get("chart", {}).items()}
    state.hands = {side: {"limit": 7, "optional": 0, "decks": COMMITMENT_LEVELS.index(state.commitment[side]) + 1,
                          **sizes} for side, sizes in position.get("hands", {}).items()}
    state.start = Start.of(state)
    return state


def _zones(zones: Mapping[str, list[str]]) -> dict[str, list[str]]:
    """A case's card zones, cards named by card or event id."""
    if not zones:
        return {}
    from .cards import card_id  # only a case with cards needs the card data

    return {zone: sorted(card_id(card) or card for card in cards) for zone, cards in zones.items() if cards}


def _space(state: PogState, text: str) -> str:
    if text in space_facts(state.variants):  # a space id: known without building the map's graph
        return text
    return state.map.find(text)  # a box, a name or an alias


def dump(state: PogState) -> dict:
    """The public position: control and forts as changes from `state.start` (a fort no longer there
    is null), everything else in full. The map and every other fixed fact stay out."""
    return {
        "start": state.start.digest,
        "variants": sorted(state.variants),
        "turn": state.turn,
        "at_war": sorted(state.at_war),
        "control": _changes(state.control, state.start.control),
        "units": {u: [s.space, int(s.reduced), s.oos] for u, s in sorted(state.units.items())},
        "forts": _changes(state.forts, state.start.forts),
        "trenches": dict(sorted(state.trenches.items())),
        "war_status": dict(sorted(state.war_status.items())),
        "commitment": dict(sorted(state.commitment.items())),
        "events": sorted(state.events),
        "built_forts": dict(sorted(state.built_forts.items())),
        "removed": sorted(state.removed),
        "active": state.active,
        "round": state.round,
        "action": state.action,
        **_unless_empty(trench_owner=_owners_apart(state),
                        tracks=dict(sorted(state.tracks.items())), mo=dict(sorted(state.mo.items())),
                        combats=state.combats, retreated=sorted(state.retreated), cards=state.cards,
                        hands=state.hands, chart=state.chart),
    }


def _owners_apart(state: PogState) -> dict[str, str]:
    """The trench owners that differ from the space's controller: the dump stays as before for
    every trench that belongs to the side holding its space."""
    return {space: side for space, side in sorted(state.trench_owner.items())
            if space in state.trenches and side != state.control.get(space)}


def _unless_empty(**parts) -> dict:
    """The parts that hold something: a game that never used them dumps as it did before they existed."""
    return {key: value for key, value in parts.items() if value}


def _changes(now: Mapping[str, str], start: Mapping[str, str]) -> dict[str, str | None]:
    """What `now` holds that `start` does not, sorted; None for a key `now` no longer has."""
    changed: dict[str, str | None] = {key: value for key, value in now.items() if start.get(key) != value}
    changed.update((key, None) for key in start if key not in now)
    return dict(sorted(changed.items()))


def _apply_changes(start: Mapping[str, str], changes: Mapping[str, str | None]) -> dict[str, str]:
    result = dict(start)
    for key, value in changes.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = value
    return result


def load(data: dict, started: PogState) -> PogState:
    """The position `data` describes, in the game that began at `started` (its setup and start).
    ValueError if `data` was dumped against another start (other scenario or map data)."""
    if data.get("start", started.start.digest) != started.start.digest:
        raise ValueError("this position was dumped against another start position")
    control = _apply_changes(started.start.control, data["control"])
    apart = data.get("trench_owner", {})
    return PogState(
        variants=frozenset(data["variants"]), turn=data["turn"], at_war=set(data["at_war"]), control=control,
        units={u: UnitState(space, bool(reduced), oos) for u, (space, reduced, oos) in data["units"].items()},
        forts=_apply_changes(started.start.forts, data["forts"]), trenches=dict(data["trenches"]),
        trench_owner={space: apart.get(space, control[space]) for space in data["trenches"]},
        war_status=dict(data["war_status"]), commitment=dict(data["commitment"]), events=set(data["events"]),
        built_forts=dict(data["built_forts"]), removed=set(data["removed"]), active=data["active"],
        round=data["round"], action=plain_copy(data["action"]), setup=started.setup, start=started.start,
        tracks=dict(data.get("tracks", {})), mo=dict(data.get("mo", {})), combats=plain_copy(data.get("combats", [])),
        retreated=set(data.get("retreated", [])), cards=plain_copy(data.get("cards", {})),
        hands=plain_copy(data.get("hands", {})), chart=plain_copy(data.get("chart", {})),
    )


def copy(state: PogState) -> PogState:
    """An independent position: its own containers and unit states; the variants, setup and start
    (never changed) are shared, and the map is not in the state at all."""
    return replace(
        state, at_war=set(state.at_war), control=dict(state.control),
        units={u: UnitState(s.space, s.reduced, s.oos) for u, s in state.units.items()},
        forts=dict(state.forts), trenches=dict(state.trenches), trench_owner=dict(state.trench_owner),
        war_status=dict(state.war_status),
        commitment=dict(state.commitment), events=set(state.events), built_forts=dict(state.built_forts),
        removed=set(state.removed), action=plain_copy(state.action), tracks=dict(state.tracks), mo=dict(state.mo),
        combats=plain_copy(state.combats), retreated=set(state.retreated), cards=plain_copy(state.cards),
        hands=plain_copy(state.hands), chart=plain_copy(state.chart),
    )


