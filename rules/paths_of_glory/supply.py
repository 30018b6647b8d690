"""Paths of Glory supply (SoE 14): tracing, special supply, OOS markers, combat effects, attrition.

`compute(state)` works out the supply of every unit on the map. Units that trace alike form a
*class*: the same side, the same sources (14.2), the same limited connections they may cross
(14.1.2, R15; `connections` answers who may use one, for movement too), the same sea supply
(14.1.4, R16). Each class costs one multi-source search (`pbem.rules.common.graphs.reach_sources`)
with a bit per source; spaces (attrition, 14.2.5, R24) trace as one class per side, searched only
when asked for.

The searches share the work that does not depend on the class: once per position, the spaces each
side may enter are split into *parts* joined by unlimited connections (`graphs.components`). A
part is reached whole or not at all, so a class's search runs over the parts only, joined by the
limited connections open to that class and by the sea.

Sea supply is one extra node, the sea, joined to every usable port: a path reaches a usable port,
crosses to the sea, and lands at another usable port (or at a source that is itself a usable port,
such as London). A path through one node crosses the sea at most once (R16). The search runs from
the sources outward, so a unit's step from x to y is searched from y to x.

`compute` remembers its last answer: asked again about the same state object, unchanged in
everything supply reads (and in trenches and OOS markers), it returns that answer without tracing.

The rulings cited (R13-R24, R36-R37) are in RULINGS.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from operator import attrgetter

from ..common import graphs
from . import connections, trenches
from .data import PogMap, Unit, load_map, load_units
from .forts import update_siege
from .roles import ANA, BEACH_HEAD_UNITS
from .state import SIDES, PogState, enemy

SUPPLIED, SPECIAL, OUT = "supplied", "special", "out"

# 14.1.4.1-14.1.4.2: the CP may use only ports in these nations, the Allies only ports outside them.
CP_PORT_NATIONS = frozenset({"ge", "ru"})
# 14.1.4.2: the Allies may use Constantinople as a port only while they control Gallipoli.
ALLIED_PORT_NEEDS = {"constantinople": "gallipoli"}
# 14.1.5: always in supply (special supply): the MN corps, the British ANA corps, the Turk SN corps.
ALWAYS_SUPPLIED_NATIONS = frozenset({"mn", "sn"})
# 14.1.6: Serbian units are in special supply inside Serbia (spaces of nation "sb").
SERBIA = "sb"
# 14.1.8: Turk units in Medina are in special supply.
MEDINA, MEDINA_NATION = "medina", "tu"
# The rule each kind of special supply comes from (Supply.special_rule).
ALWAYS, IN_SERBIA, IN_MEDINA = "14.1.5", "14.1.6", "14.1.8"
# 14.1.2 note, R15: RO and SB units may cross the Russian-only lines into a Russian off-map box.
RUSSIAN_LINES_NATIONS = frozenset({"ro", "sb"})
# 002 9.2.7.1, R16, R36: only the MEF army and BR and AUS corps use the MEF beach head as a port.
BEACH_HEAD_CORPS_PREFIX = "br_corps_"
# 9.5.2.4 (base), R37: the Salonika event opens Greek spaces without Greek units.
LIMITED_GREEK_ENTRY = "salonika"
NEUTRAL = "neutral"  # the "side" of units of a nation not at war


# ---------------------------------------------------------------------------------- the map, once

@dataclass(frozen=True, eq=False)
class _Compiled:
    """Facts of one PogMap that supply needs, as arrays; built once per map (variant set)."""

    pog: PogMap
    size: int
    ids: tuple[str, ...]
    index: Mapping[str, int]
    neighbours: tuple[tuple[int, ...], ...]
    plain: tuple[tuple[int, ...], ...]  # neighbours across connections open to everyone
    nation: tuple[str, ...]
    control: tuple[str, ...]  # at the start
    by_nation: Mapping[str, tuple[int, ...]]
    side_ports: Mapping[str, tuple[int, ...]]  # 14.1.4.1-14.1.4.2: the ports each side may use
    limited: tuple[tuple[int, int, tuple[str, ...]], ...]  # (from, to, tokens) for each direction
    limited_steps: frozenset[tuple[int, int]]  # (from, to) of every limited step
    tokens: frozenset[str]
    russian_boxes: frozenset[int]  # Russian off-map boxes, sources or not (14.1.2 note)
    mef: tuple[int, ...]  # MEF beach head spaces
    london: int
    medina: int | None
    serbia: tuple[bool, ...]
    port_needs: tuple[tuple[int, int], ...]  # (port, space the Allies must control)


@cache
def _compile(pog: PogMap) -> _Compiled:
    size = len(pog)
    limited = [(x, y, allowed) for a, b in pog.connections for x, y in ((a, b), (b, a))
               if (allowed := pog.allowed(x, y)) is not None]
    steps = frozenset((x, y) for x, y, _ in limited)
    by_nation: dict[str, list[int]] = {}
    for i, nation in enumerate(pog.nation):
        by_nation.setdefault(nation, []).append(i)
    return _Compiled(
        pog=pog, size=size, ids=pog.ids, index=pog.index, neighbours=pog.neighbours,
        plain=tuple(tuple(w for w in n if (i, w) not in steps) for i, n in enumerate(pog.neighbours)),
        nation=pog.nation, control=pog.control,
        by_nation={nation: tuple(spaces) for nation, spaces in by_nation.items()},
        side_ports={side: tuple(i for i in range(size) if pog.port[i]
                                and (pog.nation[i] in CP_PORT_NATIONS) == (side == "cp")) for side in SIDES},
        limited=tuple(limited), limited_steps=steps,
        tokens=frozenset(token for _, _, allowed in limited for token in allowed),
        russian_boxes=frozenset(i for i in range(size) if pog.offmap[i] and pog.nation[i] == "ru"),
        mef=tuple(i for i in range(size) if pog.nation[i] == connections.MEF_NATION),
        london=pog.index["london"], medina=pog.index.get(MEDINA),
        serbia=tuple(n == SERBIA for n in pog.nation),
        port_needs=tuple((pog.index[p], pog.index[n]) for p, n in ALLIED_PORT_NEEDS.items()
                         if p in pog.index and n in pog.index),
    )


def _beach_head_unit(unit: Unit) -> bool:
    return unit.id in BEACH_HEAD_UNITS or unit.id.startswith(BEACH_HEAD_CORPS_PREFIX)


# ---------------------------------------------------------------------------------- classes

@dataclass(frozen=True)
class SupplyClass:
    """Everything that decides how a unit traces; units with equal classes share one search."""

    side: str
    sources: tuple[str, ...]  # source space ids, bit k = sources[k]
    tokens: frozenset[str]  # limited-connection tokens the tracer satisfies
    sea: bool  # may use sea supply (14.1.4; not RU, SB, RO: 14.2.2)
    beach_head: bool = False  # may use the MEF beach head as a port (002 9.2.7.1)
    russian_lines: bool = False  # RO/SB exception of 14.1.2
    either_way: bool = False  # spaces (attrition) cross a connection open to the side either way

    def label(self) -> str:
        bits = [self.side, "+".join(self.sources)]
        if self.tokens:
            bits.append("tokens=" + ",".join(sorted(self.tokens)))
        bits.append("sea" if self.sea else "land")
        bits += [name for name, on in (("beach_head", self.beach_head), ("russian_lines", self.russian_lines),
                                       ("spaces", self.either_way)) if on]
        return " ".join(bits)


def unit_class(state: PogState, unit: str) -> SupplyClass:
    """The supply class of a unit (14.2 source groups; its tokens; its sea rules)."""
    return _unit_class(state.variants, unit)


@cache
def _unit_class(variants: frozenset[str], unit_id: str) -> SupplyClass:
    pog = load_map(variants)
    unit = load_units(variants)[unit_id]
    groups = [g for g in pog.supply if g.admits(unit.faction, unit.nation)]
    seas = {g.sea for g in groups}
    if len(seas) > 1:
        raise ValueError(f"{unit_id}: supply groups disagree on sea supply; split them in map.toml")
    sources = tuple(dict.fromkeys(pog.ids[s] for g in groups for s in g.spaces))
    return SupplyClass(
        side=unit.faction, sources=sources, tokens=connections.unit_tokens(unit, _compile(pog).tokens),
        sea=bool(groups) and seas == {True}, beach_head=_beach_head_unit(unit),
        russian_lines=unit.nation in RUSSIAN_LINES_NATIONS,
    )


@cache
def _class_table(variants: frozenset[str]) -> tuple[dict[str, int], tuple[SupplyClass, ...]]:
    """Every unit's class as a number into one tuple of distinct classes: grouping units by a
    number is much cheaper than hashing their classes on every compute."""
    numbers: dict[SupplyClass, int] = {}
    of_unit = {unit: numbers.setdefault(_unit_class(variants, unit), len(numbers)) for unit in load_units(variants)}
    return of_unit, tuple(numbers)


@cache
def space_class(variants: frozenset[str], side: str) -> SupplyClass:
    """How a side's spaces trace for attrition (14.2.5, R24): every source of the side, every
    connection open to a nation of the side in either direction, sea supply under the side's port
    limits."""
    pog = load_map(variants)
    units = [u for u in load_units(variants).values() if u.faction == side]
    groups = [g for g in pog.supply if any(g.admits(u.faction, u.nation) for u in units)]
    vocabulary = _compile(pog).tokens
    tokens = frozenset().union(*(connections.unit_tokens(u, vocabulary) for u in units))
    return SupplyClass(
        side=side, sources=tuple(dict.fromkeys(pog.ids[s] for g in groups for s in g.spaces)),
        tokens=tokens, sea=True, beach_head=side == "ap", either_way=True,
    )


@cache
def _open_steps(cls: SupplyClass, c: _Compiled, beach: int | None) -> frozenset[tuple[int, int]]:
    """The limited steps (from, to) this class may take (14.1.2, R15) with the beach head marker
    at `beach` (base 11.1.10)."""
    back = {(x, y): tokens for x, y, tokens in c.limited}
    steps = set()
    for x, y, tokens in c.limited:
        mef_open = connections.mef_link_open(c.pog, x, y, beach)
        ok = connections.link_open(tokens, cls.tokens, mef_open)
        if cls.either_way:
            ok = ok or connections.link_open(back[(y, x)], cls.tokens, mef_open)
        elif not ok and cls.russian_lines and "ru" in tokens and y in c.russian_boxes:
            ok = True  # 14.1.2 note, R15: only a step into a Russian off-map box
        if ok:
            steps.add((x, y))
    return frozenset(steps)


# ---------------------------------------------------------------------------------- the position

@dataclass
class _Position:
    """Per-state inputs, compiled once per compute: which spaces each side may use."""

    enter: dict[str, list[bool]]  # side -> may a path of that side run through / end at space i
    port: dict[str, list[int]]  # side -> its usable ports (before the beach head)
    beach: int | None  # the beach head space, when the marker is on the map (an Allied port)
    opened: int | None  # the MEF space in play: the marker's, or one whose marker was lifted
    control: list[str]  # effective control (the ANA's space counts as Allied: R01)
    neutral: list[bool]  # not checked for attrition (R08, R17, R37)
    units_of: dict[int, dict[str, list[str]]]  # units per occupied space by "ap", "cp", NEUTRAL
    placed: list[tuple[str, int]]  # (unit, space) of every unit of a nation at war on the map
    parts: dict[str, tuple[list[int], int]]  # side -> (part of each space, -1 if closed; count)


def _position(state: PogState, c: _Compiled) -> _Position:
    neutral_nations = state.neutral_nations()
    units_of, placed = _occupants(state, c, neutral_nations)
    beach, opened = connections.beach_index(state), connections.opened_index(state)
    control = list(map(state.control.get, c.ids, c.control))
    neutral = [False] * c.size
    closed = _closed(state, c, neutral_nations, units_of, opened, control, neutral)
    besieged = [i for space, fort in state.forts.items() if fort == "besieged"
                and (i := c.index.get(space)) is not None]
    _ana_control(state, c, units_of, besieged, control)
    enter = {side: _enterable(side, control, units_of, besieged, closed[side]) for side in SIDES}
    port = {side: _usable_ports(side, c, enter[side], besieged, control, closed[side]) for side in SIDES}
    return _Position(
        enter=enter, port=port, beach=beach, opened=opened, control=control, neutral=neutral, units_of=units_of,
        placed=placed, parts={side: graphs.components(c.plain, enter[side]) for side in SIDES},
    )


def _occupants(state: PogState, c: _Compiled, neutral_nations: set[str]) -> tuple[dict, list]:
    """Units on the map by space and side (neutral nations apart), and those of nations at war."""
    facts = state.unit_facts
    find = c.index.get
    units_of: dict[int, dict[str, list[str]]] = {}
    placed = []
    for unit, where in state.units.items():
        i = find(where.space)
        if i is None:
            continue
        fact = facts[unit]
        if fact.nation in neutral_nations:
            units_of.setdefault(i, {}).setdefault(NEUTRAL, []).append(unit)
            continue
        units_of.setdefault(i, {}).setdefault(fact.faction, []).append(unit)
        placed.append((unit, i))
    return units_of, placed


def _closed(state: PogState, c: _Compiled, neutral_nations: set[str], units_of: dict, opened: int | None,
            control: list[str], neutral: list[bool]) -> dict[str, set[int]]:
    """Spaces closed to each side by neutrality (R17, R37) or the missing beach head (R36)."""
    closed: dict[str, set[int]] = {"ap": set(), "cp": set()}
    greek_open = LIMITED_GREEK_ENTRY in state.events and "gr" in neutral_nations
    for nation in neutral_nations:
        for i in c.by_nation.get(nation, ()):
            if greek_open and nation == "gr" and NEUTRAL not in units_of.get(i, ()):
                continue  # R37: a Greek space without Greek units is an ordinary space
            neutral[i] = True
            closed["cp"].add(i)
            # R17: Allied paths cross neutral Italy; London is a source even while Britain is
            #   neutral (14.2.4)
            if nation == "it" or i == c.london:
                control[i] = "ap"
            else:
                closed["ap"].add(i)
    for i in c.mef:
        if not connections.mef_space_open(c.pog, i, opened):
            neutral[i] = True  # R36: out of play without the marker
            closed["ap"].add(i)
            closed["cp"].add(i)
    return closed


def _ana_control(state: PogState, c: _Compiled, units_of: dict, besieged: list[int], control: list[str]) -> None:
    """R01 (base 11.1.15): the ANA's CP space counts as Allied, unless its fort is besieged."""
    where = state.units.get(ANA)
    i = c.index.get(where.space) if where else None
    if i is not None and control[i] == "cp" and ANA in units_of[i].get("ap", ()) and i not in besieged:
        control[i] = "ap"


def _enterable(side: str, control: list[str], units_of: dict, besieged: list[int], closed: set[int]) -> list[bool]:
    """14.1.2-14.1.3, R14: the side's own spaces without enemy units; 9.5.2.4: no supply through
    Greek units; 15.2.2: a besieged enemy fort may be crossed; 14.1.2: a besieged friendly fort
    may be neither crossed nor used as a source. (A lapsed siege, 15.2.4, R26, holds enemy units,
    so it is closed to both sides.)"""
    other = enemy(side)
    can = [owner == side for owner in control]
    for i, here in units_of.items():
        if NEUTRAL in here or other in here:
            can[i] = False
    for i in besieged:
        can[i] = control[i] == other and NEUTRAL not in units_of.get(i, ())
    for i in closed:
        can[i] = False
    return can


def _usable_ports(side: str, c: _Compiled, enter: list[bool], besieged: list[int], control: list[str],
                  closed: set[int]) -> list[int]:
    """14.1.4.1-14.1.4.2, R16: friendly, unbesieged ports in the side's nations; the Allies use
    Constantinople only while they hold Gallipoli."""
    usable = [p for p in c.side_ports[side] if enter[p] and p not in besieged]
    if side == "ap":
        for p, needed in c.port_needs:
            if control[needed] != "ap" or needed in closed:
                usable = [q for q in usable if q != p]
    return usable


# ---------------------------------------------------------------------------------- searches

def _ports(cls: SupplyClass, pos: _Position) -> list[int]:
    """The ports this class may use: its side's, and the beach head for the MEF's units (9.5.3.5,
    002 9.2.7.1, R36)."""
    ports = pos.port[cls.side]
    beach = pos.beach
    if beach is not None and cls.beach_head and pos.enter[cls.side][beach] and pos.control[beach] == cls.side:
        return [*ports, beach]
    return ports


def _search(cls: SupplyClass, c: _Compiled, pos: _Position) -> list[int]:
    """One search for a class: the mask of the sources reaching each part of its side's map.
    Nodes: the parts, then the sea, then one node for every closed space (never entered, so
    its mask, the last, is 0 and a part number of -1 reads it)."""
    label, count = pos.parts[cls.side]
    sea = count
    links: list[list[int]] = [[] for _ in range(count + 2)]
    for x, y in _open_steps(cls, c, pos.opened):
        if label[x] >= 0 and label[y] >= 0 and label[x] != label[y]:
            links[label[y]].append(label[x])  # the unit's step x -> y, searched from y
    if cls.sea:
        for part in {label[p] for p in _ports(cls, pos)}:
            links[part].append(sea)
            links[sea].append(part)
    sources = [label[c.index[s]] for s in cls.sources]  # a closed source (-1) reaches nothing
    return graphs.reach_sources(links, [count + 1 if k < 0 else k for k in sources], [True] * (count + 1) + [False])


def _mask_at(i: int, masks: list[int], cls: SupplyClass, c: _Compiled, pos: _Position) -> int:
    """Sources reaching a unit (or space) at i. R14: the unit's own space need not be usable; the
    path then starts with a step to a usable neighbour."""
    label = pos.parts[cls.side][0]
    if label[i] >= 0:
        return masks[label[i]]
    steps = _open_steps(cls, c, pos.opened)
    mask = 0
    for w in c.neighbours[i]:
        if label[w] >= 0 and ((i, w) not in c.limited_steps or (i, w) in steps):
            mask |= masks[label[w]]
    return mask


# ---------------------------------------------------------------------------------- results

@dataclass
class Supply:
    """The supply of one position: per unit on the map, its status and the sources it reaches."""

    state: PogState
    _c: _Compiled
    _pos: _Position
    by_class: dict[SupplyClass, tuple[str, ...]] = field(default_factory=dict)  # class -> units
    reach: dict[SupplyClass, list[int]] = field(default_factory=dict)  # class -> mask per part (_search)
    _status: dict[str, str] = field(default_factory=dict)
    _sources: dict[str, tuple[str, ...]] = field(default_factory=dict)
    _special: dict[str, str] = field(default_factory=dict)  # unit -> rule of its special supply
    _spaces: dict[str, list[int]] = field(default_factory=dict)  # side -> mask per part

    def status(self, unit: str) -> str | None:
        """"supplied", "special" or "out"; None for a unit off the map or of a neutral nation."""
        return self._status.get(unit)

    def in_supply(self, unit: str) -> bool:
        return self._status.get(unit) in (SUPPLIED, SPECIAL)

    def sources(self, unit: str) -> tuple[str, ...]:
        """The source spaces the unit reaches by a normal trace (empty in special supply or OOS)."""
        return self._sources.get(unit, ())

    def special_rule(self, unit: str) -> str | None:
        """The rule of the special supply a unit relies on (14.1.5, 14.1.6 or 14.1.8)."""
        return self._special.get(unit)

    def medina_only(self, unit: str) -> bool:
        """14.1.8: in Medina's special supply (no movement activation, SR, replacements, cards)."""
        return self._special.get(unit) == IN_MEDINA

    def usable_port(self, side: str, space: str) -> bool:
        """Is `space` a port the side may use (14.1.4.1-14.1.4.2, base 13.1.7.1-13.1.7.2): friendly,
        open, unbesieged, in the side's nations (Constantinople for the Allies only with Gallipoli)?"""
        i = self._c.index.get(space)
        return i is not None and i in self._pos.port[side]

    def traces_to_port(self, unit: str, port: str) -> bool:
        """R85 (AP card Maude): is the unit in normal supply, and does its side's path from the
        unit's space (or, by R14, a usable neighbour) reach `port`, a port its side may use?"""
        side = self.state.faction(unit)
        p = self._c.index.get(port)
        if self._status.get(unit) != SUPPLIED or p not in self._pos.port[side]:
            return False
        label = self._pos.parts[side][0]
        i = self._c.index[self.state.units[unit].space]
        near = [i] if label[i] >= 0 else list(self._c.neighbours[i])
        return any(label[w] >= 0 and label[w] == label[p] for w in near)

    def units(self) -> dict[str, str]:
        """Status of every unit on the map of a nation at war, by unit id."""
        return dict(self._status)

    def space_supplied(self, side: str, space: str) -> bool:
        """Can `side` trace supply from one of its sources to `space` (14.2.5, R24)? Unlike a unit's
        own space (R14), the space itself must be open to the side: a lapsed siege or a besieged
        friendly fort is never supplied (14.1.2, 15.2.4)."""
        return self._space_supplied(side, self._c.index[space])

    def _space_supplied(self, side: str, i: int) -> bool:
        if side not in self._spaces:
            self._spaces[side] = _search(space_class(self.state.variants, side), self._c, self._pos)
        part = self._pos.parts[side][0][i]
        return part >= 0 and bool(self._spaces[side][part])


def _special(state: PogState, unit: Unit, space: int, c: _Compiled) -> str | None:
    """The special supply a unit has where it stands (14.1.5, 14.1.6, 14.1.8), if any."""
    if unit.nation in ALWAYS_SUPPLIED_NATIONS or unit.id == ANA:
        return ALWAYS
    if unit.nation == SERBIA and c.nation[space] == SERBIA:
        return IN_SERBIA
    if unit.nation == MEDINA_NATION and space == c.medina:
        return IN_MEDINA
    return None


# ---------------------------------------------------------------------------------- compute

def compute(state: PogState, *, units: bool = True) -> Supply:
    """Supply of every unit on the map: one reach_sources search per class of tracing unit.
    With units=False, only what the spaces' trace needs (attrition)."""
    key = _fingerprint(state)
    if _last.get("state") is state and _last.get("key") == key:
        return _last["supply"]
    result = _fresh(state, units)
    if units:
        _last.update(state=state, key=key, supply=result)
    return result


# The last full answer, for the same state object in the same position: callers ask once per unit
#   (e.g. each moving unit, R04) while nothing has changed.
_last: dict = {}
_UNIT_FIELDS = attrgetter("space", "reduced", "oos")


def _fingerprint(state: PogState) -> tuple:
    """Everything compute reads, and the rest of what a position's units and markers are."""
    return (state.variants, frozenset(state.at_war), frozenset(state.events), getattr(state, "beach_head", None),
            tuple(state.control.items()), tuple(state.forts.items()), tuple(state.trenches.items()),
            tuple(state.units), tuple(map(_UNIT_FIELDS, state.units.values())))


def _fresh(state: PogState, units: bool = True) -> Supply:
    c = _compile(state.map)
    result = Supply(state=state, _c=c, _pos=_position(state, c))
    if units:
        _trace_units(state, result)
    return result


def _trace_units(state: PogState, result: Supply) -> None:
    """One search per class present, then each unit's status (14.1, 14.1.5-14.1.8)."""
    c, pos = result._c, result._pos
    of_unit, classes = _class_table(state.variants)
    groups: dict[int, list[tuple[str, int]]] = {}
    for unit, i in pos.placed:
        groups.setdefault(of_unit[unit], []).append((unit, i))
    status: dict[str, str] = {}
    for number, members in groups.items():
        cls = classes[number]
        masks = _search(cls, c, pos)
        result.by_class[cls] = tuple(sorted(unit for unit, _ in members))
        result.reach[cls] = masks
        label = pos.parts[cls.side][0]
        named: dict[int, tuple[str, ...]] = {}
        for unit, i in members:
            mask = masks[label[i]] if label[i] >= 0 else _mask_at(i, masks, cls, c, pos)
            if mask not in named:
                named[mask] = tuple(s for k, s in enumerate(cls.sources) if mask >> k & 1)
            result._sources[unit] = named[mask]
            status[unit] = SUPPLIED if mask else _special_status(state, unit, i, c, result)
    result._status = dict(sorted(status.items()))


def _special_status(state: PogState, unit: str, i: int, c: _Compiled, result: Supply) -> str:
    rule = _special(state, state.unit_facts[unit], i, c)
    if rule is None:
        return OUT
    result._special[unit] = rule
    return SPECIAL


# ---------------------------------------------------------------------------------- OOS markers

def _event(kind: str, rule: str, **fields) -> dict:
    return {"kind": kind, **fields, "rule": rule}


def _remove_markers(state: PogState, supply: Supply, units: list[str], rule: str) -> list[dict]:
    """Take the OOS marker off every one of these units that is in supply again."""
    events = []
    for unit in units:
        here = state.units[unit]
        if here.oos and supply.in_supply(unit):
            events.append(_event("oos", rule, unit=unit, **{"from": here.oos, "to": 0}))
            here.oos = 0
    return events


def oos_step(state: PogState, supply: Supply | None = None) -> list[dict]:
    """The supply step at the end of an action (14.3.5, R21, R22), for both sides at once.

    Mutates `state` (markers, eliminated units, sieges ended or lapsed through forts.update_siege)
    and returns the events, in the order they happen: marker removals, eliminations, sieges ended
    or lapsed, marker removals after the new check, marker advances (OOS4->5 first, down to
    OOS1->2), new OOS1 markers.
    """
    supply = supply if supply is not None else compute(state)
    on_map = sorted(supply.units())
    # (1) markers come off units in supply, normal or special (14.3.1, 14.3.5 step 1)
    events = _remove_markers(state, supply, on_map, "14.3.5")
    # (2) OOS5 units of both sides are eliminated together (R22)
    doomed = [u for u in on_map if state.units[u].oos >= 5 and supply.status(u) == OUT]
    if doomed:
        events += _eliminate(state, doomed)
        # R21: check again; markers come off units whose line the eliminations reopened
        supply = compute(state)
        on_map = sorted(supply.units())
        events += _remove_markers(state, supply, on_map, "14.3.1")
    return events + _raise_markers(state, [u for u in on_map if supply.status(u) == OUT])


def _eliminate(state: PogState, doomed: list[str]) -> list[dict]:
    """14.3.5: OOS5 units out of supply are eliminated, armies and irreplaceable units for good;
    then the sieges they leave end or lapse (15.2.4, R26, R39)."""
    events = []
    spaces = set()
    for unit in doomed:
        here = state.units[unit]
        fact = state.unit_facts[unit]
        permanent = fact.type == "army" or not fact.replaceable
        box = f"{fact.faction}_eliminated"
        events.append(_event("eliminated", "14.3.5", unit=unit, **{"from": here.space, "to": box},
                             permanent=permanent))
        spaces.add(here.space)
        here.space, here.oos, here.reduced = box, 0, False
        if permanent:
            state.removed.add(unit)
    for space in sorted(spaces):
        events += update_siege(state, space)
    return events


def _raise_markers(state: PogState, out: list[str]) -> list[dict]:
    """14.3.5 (3)-(7): raise each marker one level, highest first, each unit once; then OOS1 on
    units out of supply without a marker."""
    events = []
    for level in (4, 3, 2, 1, 0):
        for unit in out:
            here = state.units[unit]
            if here.oos == level:
                events.append(_event("oos", "14.3.5", unit=unit, **{"from": level, "to": level + 1}))
                here.oos = level + 1
    return events


# ---------------------------------------------------------------------------------- combat

@dataclass(frozen=True)
class CombatSupply:
    """14.3.4: what supply does to one combat. Shifts are columns on the firing side's table
    (negative = to the left); DRMs are added to that side's die."""

    attacker_shift: int = 0
    attacker_drm: int = 0
    defender_shift: int = 0
    defender_drm: int = 0
    attacker_cards: bool = True  # may the attacker use combat cards (14.3.4, 14.3.4.1)
    defender_cards: bool = True
    attacker_losses_first: tuple[str, ...] = ()  # 14.3.4.3: OOS units take losses first
    defender_losses_first: tuple[str, ...] = ()
    oos_attackers: tuple[str, ...] = ()  # no flank bonus, advance at most 1 space (14.3.1, 14.3.4)
    reasons: tuple[str, ...] = ()
    statuses: dict[str, str | None] = field(default_factory=dict, compare=False)  # None: off the map


# 14.3.4: (attacker shift, defender DRM) by the attacker's marker; (defender shift, attacker DRM)
#   by the defender's marker; 0 = out of supply without a marker.
OOS_TABLE = {0: (0, 0), 1: (-1, 0), 2: (-1, 0), 3: (-1, 1), 4: (-1, 1), 5: (-2, 1)}


def _side_row(state: PogState, units, supply: Supply) -> tuple[int | None, tuple[str, ...], bool]:
    """(least marker among the units if all are OOS else None, the OOS units, may use cards)."""
    units = list(units)
    oos = tuple(u for u in units if supply.status(u) == OUT)
    # R18, 14.1.8: units in Medina's special supply may not use combat cards
    carded = [u for u in units if supply.in_supply(u) and not supply.medina_only(u)]
    if units and len(oos) == len(units):
        return min(state.units[u].oos for u in oos), oos, False
    return None, oos, bool(carded) or not units


def _oos_row(side: str, other: str, cancel_rule: str, level: int | None, oos: tuple, reasons: list) -> tuple[int, int]:
    """One side's 14.3.4 row: (its column shift, the other side's DRM), with the reason."""
    if oos and level is None:
        reasons.append(f"{cancel_rule}: supplied {side}s cancel the {side}'s OOS modifiers")
    if level is None:
        return 0, 0
    shift, drm = OOS_TABLE[min(level, 5)]
    reasons.append(f"14.3.4: {side} OOS{level or ' without marker'}: {side} {shift} columns, {other} DRM +{drm}")
    return shift, drm


def combat_modifiers(state: PogState, attackers, defenders, supply: Supply | None = None) -> CombatSupply:
    """The 14.3.4 modifiers for a combat of `attackers` against `defenders` (unit ids).

    R20: supply as of now; a marker on a unit now in supply is void; OOS units without a marker
    suffer no shift or DRM; among all-OOS units the least severe marker sets the row; one unit in
    supply (normal or special) on a side cancels that side's adverse modifiers (14.3.4.1-2)."""
    supply = supply if supply is not None else compute(state)
    a_level, a_oos, a_cards = _side_row(state, attackers, supply)
    d_level, d_oos, d_cards = _side_row(state, defenders, supply)
    reasons: list[str] = []
    a_shift, d_drm = _oos_row("attacker", "defender", "14.3.4.1", a_level, a_oos, reasons)
    d_shift, a_drm = _oos_row("defender", "attacker", "14.3.4.2", d_level, d_oos, reasons)
    if a_oos or d_oos:
        reasons.append("14.3.4.3: OOS units take losses first")
    return CombatSupply(
        attacker_shift=a_shift, attacker_drm=a_drm, defender_shift=d_shift, defender_drm=d_drm,
        attacker_cards=a_cards, defender_cards=d_cards,
        attacker_losses_first=a_oos, defender_losses_first=d_oos, oos_attackers=a_oos,
        reasons=tuple(reasons),
        statuses={u: supply.status(u) for u in (*attackers, *defenders)},
    )


def check_before_combat(state: PogState, attackers, defenders) -> CombatSupply:
    """14.1.1.2: supply is checked afresh at the start of each combat resolution."""
    return combat_modifiers(state, attackers, defenders, compute(state))


# ---------------------------------------------------------------------------------- attrition

def attrition(state: PogState) -> list[dict]:
    """The attrition segment of a Political Action (14.3.6, R23, R24), both sides at once.

    A space passes to the other side when its controller cannot supply it (14.2.5), it holds no
    unit of its controller and no intact fort of its controller; never a Serbian or neutral space.
    All spaces are judged on the position before any change. Trenches follow base 11.2.7 (R24).
    Mutates `state` and returns the events."""
    supply = compute(state, units=False)
    c, pos = supply._c, supply._pos
    flips = []
    for i, space in enumerate(c.ids):
        if pos.neutral[i] or c.serbia[i]:
            continue  # R17, R08, R36, R37; 14.3.6 exception for Serbia
        side = pos.control[i]
        if side in pos.units_of.get(i, ()):
            continue
        if state.forts.get(space) in ("intact", "besieged"):
            continue  # 15.1.10: an intact fort keeps its space for its owner
        if supply._space_supplied(side, i):
            continue
        flips.append((space, side))
    events = []
    for space, side in flips:
        new = enemy(side)
        events.append(_event("control", "14.3.6", space=space, **{"from": side, "to": new}))
        state.control[space] = new
        level = state.trenches.get(space, 0)
        if level:  # base 11.2.7, R24
            left = trenches.lose_level(state, space, taker=new)  # a level 2 becomes the new holder's level 1
            events.append(_event("trench", "14.3.6", space=space, **{"from": level, "to": left}))
    return events
