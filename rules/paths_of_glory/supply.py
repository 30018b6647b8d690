"""Paths of Glory supply (SoE 14): tracing, special supply, OOS markers, combat effects, attrition.

`compute(state)` works out the supply of every unit on the map. Units that trace alike form a
*class*: the same side, the same sources (14.2), the same limited connections they may cross
(14.1.2, R15), the same sea supply (14.1.4, R16). Each class costs one multi-source search
(`pbem.rules.common.graphs.reach_sources`) with a bit per source, over the map's integer arrays;
spaces (attrition, 14.2.5, R24) trace as one class per side, searched only when asked for.

Sea supply is one extra node, the sea, joined to every port: a path reaches a usable port, crosses
to the sea, and lands at another usable port (or at a source that is itself a usable port, such as
London). A path through one node crosses the sea at most once (R16). The search runs from the
sources outward, so `cross(here, there)` is asked for the unit's step from `there` to `here`.

The rulings cited (R13-R24, R36-R37) are in RULINGS.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

from ..common import graphs
from .data import PogMap, Unit, load_map, load_units
from .forts import update_siege
from .roles import ANA, BEACH_HEAD_UNITS, BEF_UNITS
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
# Base 11.1.4, R06: `br` admits British units but not the ANA; `br_corps` (18.1.2) admits British
#   corps, AUS, CND and PT included, but not the ANA or the BEF corps.
TOKEN_EXCLUDES = {"br": frozenset({ANA}), "br_corps": frozenset({ANA}) | BEF_UNITS}
# 002 9.2.7.1, R16, R36: only the MEF army and BR and AUS corps use the MEF beach head as a port.
BEACH_HEAD_CORPS_PREFIX = "br_corps_"
# 9.5.2.4 (base), R37: the Salonika event opens Greek spaces without Greek units.
LIMITED_GREEK_ENTRY = "salonika"


# ---------------------------------------------------------------------------------- the map, once

@dataclass(frozen=True, eq=False)
class _Compiled:
    """Facts of one PogMap that supply needs, as arrays; built once per map (variant set)."""

    size: int  # number of spaces; the sea node is number `size`
    neighbours: tuple[tuple[int, ...], ...]
    with_sea: tuple[tuple[int, ...], ...]  # neighbours plus the sea node, joined to every port
    ports: tuple[int, ...]
    nation: tuple[str, ...]
    fort: tuple[int, ...]
    limited: tuple[tuple[int, int, tuple[str, ...]], ...]  # (from, to, tokens) for each direction
    tokens: frozenset[str]
    russian_boxes: frozenset[int]  # Russian off-map boxes, sources or not (14.1.2 note)
    mef: frozenset[int]  # MEF beach head spaces (nation "none")
    london: int
    medina: int | None
    port_needs: tuple[tuple[int, int], ...]  # (port, space the Allies must control)


@cache
def _compile(pog: PogMap) -> _Compiled:
    size = len(pog)
    mef = frozenset(i for i in range(size) if pog.nation[i] == "none")
    # the sea touches every port and every MEF beach head space (a port while the marker is there)
    ports = tuple(i for i in range(size) if pog.port[i] or i in mef)
    with_sea = (*((*n, size) if i in ports else n for i, n in enumerate(pog.neighbours)), ports)
    limited = []
    tokens: set[str] = set()
    for a, b in pog.connections:
        for x, y in ((a, b), (b, a)):
            allowed = pog.allowed(x, y)
            if allowed is not None:
                limited.append((x, y, allowed))
                tokens.update(allowed)
    russian = frozenset(i for i in range(size) if pog.offmap[i] and pog.nation[i] == "ru")
    return _Compiled(
        size=size, neighbours=pog.neighbours, with_sea=with_sea, ports=ports, nation=pog.nation,
        fort=pog.fort, limited=tuple(limited), tokens=frozenset(tokens), russian_boxes=russian,
        mef=mef,
        london=pog.index["london"], medina=pog.index.get(MEDINA),
        port_needs=tuple((pog.index[p], pog.index[n]) for p, n in ALLIED_PORT_NEEDS.items()
                         if p in pog.index and n in pog.index),
    )


def _unit_tokens(unit: Unit, vocabulary: frozenset[str]) -> frozenset[str]:
    """The limited-connection tokens that admit this unit (data.py; R06, R15). `mef` is left out:
    it depends on where the beach head is, not on the unit."""
    admitted = set()
    for token in vocabulary:
        if unit.id in TOKEN_EXCLUDES.get(token, ()):
            continue
        if token == "ana":
            ok = unit.id == ANA
        elif token == "mef":
            ok = False
        elif token.endswith("_corps"):
            ok = unit.type == "corps" and unit.nation == token[: -len("_corps")]
        else:
            ok = unit.nation == token
        if ok:
            admitted.add(token)
    return frozenset(admitted)


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
        side=unit.faction, sources=sources, tokens=_unit_tokens(unit, _compile(pog).tokens),
        sea=bool(groups) and seas == {True}, beach_head=_beach_head_unit(unit),
        russian_lines=unit.nation in RUSSIAN_LINES_NATIONS,
    )


@cache
def space_class(variants: frozenset[str], side: str) -> SupplyClass:
    """How a side's spaces trace for attrition (14.2.5, R24): every source of the side, every
    connection open to a nation of the side in either direction, sea supply under the side's port
    limits."""
    pog = load_map(variants)
    units = [u for u in load_units(variants).values() if u.faction == side]
    groups = [g for g in pog.supply if any(g.admits(u.faction, u.nation) for u in units)]
    vocabulary = _compile(pog).tokens
    tokens = frozenset().union(*(_unit_tokens(u, vocabulary) for u in units))
    return SupplyClass(
        side=side, sources=tuple(dict.fromkeys(pog.ids[s] for g in groups for s in g.spaces)),
        tokens=tokens, sea=True, beach_head=side == "ap", either_way=True,
    )


# ---------------------------------------------------------------------------------- the position

def beach_head(state: PogState) -> str | None:
    """The space of the MEF beach head marker (base 9.5.3.5), if placed.

    PogState has no field for it yet: `state.beach_head` is read when present, else an entry
    "beach_head:<space>" in state.events (R36)."""
    where = getattr(state, "beach_head", None)
    if where:
        return where
    for event in state.events:
        if event.startswith("beach_head:"):
            return event.split(":", 1)[1]
    return None


@dataclass
class _Position:
    """Per-state inputs, compiled once per compute: which spaces each side may use."""

    enter: dict[str, list[bool]]  # side -> may a path of that side run through / end at space i
    port: dict[str, list[bool]]  # side -> a usable port (before the beach head)
    beach: int | None  # the beach head space, when the marker is on the map
    control: list[str]  # effective control (the ANA's space counts as Allied: R01)
    neutral: list[bool]  # not checked for attrition (R08, R17, R37)
    units_of: list[dict[str, list[str]]]  # units per space by faction ("ap", "cp", "neutral")
    serbia: list[bool]
    crosses: dict = field(default_factory=dict)  # class -> its cross test, built once


def _position(state: PogState, pog: PogMap, c: _Compiled) -> _Position:
    size = c.size
    neutral_nations = state.neutral_nations()
    greek_open = LIMITED_GREEK_ENTRY in state.events and "gr" in neutral_nations
    facts = state.unit_facts
    units_of: list[dict[str, list[str]]] = [{} for _ in range(size)]
    for unit, where in state.units.items():
        i = pog.index.get(where.space)
        if i is None:
            continue
        fact = facts[unit]
        side = "neutral" if fact.nation in neutral_nations else fact.faction
        units_of[i].setdefault(side, []).append(unit)
    beach = beach_head(state)
    beach_i = pog.index.get(beach) if beach else None

    control = [state.control.get(pog.ids[i], pog.control[i]) for i in range(size)]
    neutral = [False] * size
    open_to = {"ap": [True] * size, "cp": [True] * size}  # not closed by neutrality or 11.1.10
    for i in range(size):
        nation = c.nation[i]
        if nation in neutral_nations:
            if greek_open and nation == "gr" and "neutral" not in units_of[i]:
                pass  # R37: a Greek space without Greek units is an ordinary space
            else:
                neutral[i] = True
                open_to["cp"][i] = False
                # R17: Allied paths cross neutral Italy; London is a source even while Britain is
                #   neutral (14.2.4)
                open_to["ap"][i] = nation == "it" or i == c.london
                if open_to["ap"][i]:
                    control[i] = "ap"
        if i in c.mef and i != beach_i:
            neutral[i] = True  # R36: out of play without the marker
            open_to["ap"][i] = open_to["cp"][i] = False
        if control[i] == "cp" and "ap" in units_of[i] and any(u == ANA for u in units_of[i]["ap"]) \
                and state.forts.get(pog.ids[i]) != "besieged":
            control[i] = "ap"  # R01 (base 11.1.15): the ANA's CP space counts as Allied

    enter = {}
    port = {}
    for side in SIDES:
        other = enemy(side)
        can = [False] * size
        usable = [False] * size
        for i in range(size):
            if not open_to[side][i]:
                continue
            here = units_of[i]
            if "neutral" in here:
                continue  # 9.5.2.4: no supply through Greek units
            fort = state.forts.get(pog.ids[i])
            if fort == "besieged":
                # 15.2.2: a besieged enemy fort may be crossed; 14.1.2: a besieged friendly fort
                #   may be neither crossed nor used as a source
                can[i] = control[i] == other
                continue
            if fort == "intact" and enemy(control[i]) in here:
                continue  # 15.2.4, R14, R26: a lapsed siege closes the space to both sides
            if control[i] != side or other in here:
                continue  # 14.1.2-14.1.3, R14
            can[i] = True
            if pog.port[i]:
                in_cp_nations = c.nation[i] in CP_PORT_NATIONS
                usable[i] = in_cp_nations if side == "cp" else not in_cp_nations  # 14.1.4.1-2
        if side == "ap":
            for p, needed in c.port_needs:  # 14.1.4.2: Constantinople only with Gallipoli
                if control[needed] != "ap" or not open_to["ap"][needed]:
                    usable[p] = False
        enter[side] = can
        port[side] = usable
    return _Position(
        enter=enter, port=port, beach=beach_i, control=control, neutral=neutral, units_of=units_of,
        serbia=[n == SERBIA for n in c.nation],
    )


def _cross(cls: SupplyClass, c: _Compiled, pos: _Position):
    """cross(here, there) for reach_sources: may the tracer step from `there` to `here`."""
    if cls not in pos.crosses:
        pos.crosses[cls] = _make_cross(cls, c, pos)
    return pos.crosses[cls]


def _make_cross(cls: SupplyClass, c: _Compiled, pos: _Position):
    blocked: set[tuple[int, int]] = set()
    admitted = cls.tokens
    for x, y, tokens in c.limited:  # a step from x to y
        if "mef" in tokens:
            ok = pos.beach is not None and pos.beach in (x, y)  # 9.5.3.5, 11.1.10
        elif cls.either_way:
            back = _allowed_back(c, x, y)
            ok = bool(admitted.intersection(tokens)) or bool(admitted.intersection(back))
        else:
            ok = bool(admitted.intersection(tokens))
            if not ok and cls.russian_lines and "ru" in tokens and y in c.russian_boxes:
                ok = True  # 14.1.2 note, R15: only a step into a Russian off-map box
        if not ok:
            blocked.add((y, x))
    if not cls.sea:
        return (lambda here, there: (here, there) not in blocked) if blocked else None
    sea = c.size
    port = list(pos.port[cls.side])
    beach = pos.beach
    if beach is not None and cls.beach_head and pos.enter[cls.side][beach] and pos.control[beach] == cls.side:
        port[beach] = True  # 9.5.3.5, 002 9.2.7.1, R36

    def cross(here: int, there: int) -> bool:
        if there == sea:
            return port[here]
        if here == sea:
            return port[there]
        return (here, there) not in blocked

    return cross


@cache
def _back_table(c: _Compiled) -> dict[tuple[int, int], tuple[str, ...]]:
    return {(x, y): tokens for x, y, tokens in c.limited}


def _allowed_back(c: _Compiled, x: int, y: int) -> tuple[str, ...]:
    return _back_table(c).get((y, x), ())


# ---------------------------------------------------------------------------------- results

@dataclass
class Supply:
    """The supply of one position: per unit on the map, its status and the sources it reaches."""

    state: PogState
    _pog: PogMap
    _c: _Compiled
    _pos: _Position
    by_class: dict[SupplyClass, tuple[str, ...]] = field(default_factory=dict)  # class -> units
    reach: dict[SupplyClass, list[int]] = field(default_factory=dict)  # class -> mask per space
    _status: dict[str, str] = field(default_factory=dict)
    _sources: dict[str, tuple[str, ...]] = field(default_factory=dict)
    _special: dict[str, str] = field(default_factory=dict)  # unit -> rule of its special supply
    _spaces: dict[str, list[int]] = field(default_factory=dict)  # side -> mask per space

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

    def units(self) -> dict[str, str]:
        """Status of every unit on the map of a nation at war, by unit id."""
        return dict(self._status)

    def space_supplied(self, side: str, space: str) -> bool:
        """Can `side` trace supply from one of its sources to `space` (14.2.5, R24)? Unlike a unit's
        own space (R14), the space itself must be open to the side: a lapsed siege or a besieged
        friendly fort is never supplied (14.1.2, 15.2.4)."""
        i = self._pog.index[space]
        return self._pos.enter[side][i] and bool(self._space_reach(side)[i])

    def _space_reach(self, side: str) -> list[int]:
        if side not in self._spaces:
            cls = space_class(self.state.variants, side)
            self._spaces[side] = _search(cls, self._pog, self._c, self._pos)
        return self._spaces[side]


def _search(cls: SupplyClass, pog: PogMap, c: _Compiled, pos: _Position) -> list[int]:
    enter = pos.enter[cls.side]
    neighbours = c.neighbours
    if cls.sea:
        enter = [*enter, True]
        neighbours = c.with_sea
    sources = [pog.index[s] for s in cls.sources]
    return graphs.reach_sources(neighbours, sources, enter, _cross(cls, c, pos))


def _mask_at(i: int, reach: list[int], cls: SupplyClass, c: _Compiled, pos: _Position) -> int:
    """Sources reaching a unit (or space) at i. R14: the unit's own space need not be usable; the
    path then starts with a step to a usable neighbour."""
    enter = pos.enter[cls.side]
    if enter[i]:
        return reach[i]
    cross = _cross(cls, c, pos)
    mask = 0
    for w in c.neighbours[i]:
        if enter[w] and (cross is None or cross(w, i)):
            mask |= reach[w]
    return mask


def _special(state: PogState, unit: Unit, space: int, c: _Compiled) -> str | None:
    """The special supply a unit has where it stands (14.1.5, 14.1.6, 14.1.8), if any."""
    if unit.nation in ALWAYS_SUPPLIED_NATIONS or unit.id == ANA:
        return ALWAYS
    if unit.nation == SERBIA and c.nation[space] == SERBIA:
        return IN_SERBIA
    if unit.nation == MEDINA_NATION and space == c.medina:
        return IN_MEDINA
    return None


def compute(state: PogState, *, units: bool = True) -> Supply:
    """Supply of every unit on the map: one reach_sources search per class of tracing unit."""
    pog = state.map
    c = _compile(pog)
    pos = _position(state, pog, c)
    result = Supply(state=state, _pog=pog, _c=c, _pos=pos)
    if not units:
        return result
    facts = state.unit_facts
    members: dict[SupplyClass, list[str]] = {}
    placed: list[tuple[str, int]] = []
    for i, here in enumerate(pos.units_of):
        for side in SIDES:
            for unit in here.get(side, ()):
                placed.append((unit, i))
                members.setdefault(_unit_class(state.variants, unit), []).append(unit)
    for cls, unit_ids in members.items():
        result.by_class[cls] = tuple(sorted(unit_ids))
        result.reach[cls] = _search(cls, pog, c, pos)
    for unit, i in sorted(placed):
        cls = _unit_class(state.variants, unit)
        mask = _mask_at(i, result.reach[cls], cls, c, pos)
        result._sources[unit] = tuple(s for k, s in enumerate(cls.sources) if mask >> k & 1)
        if mask:
            result._status[unit] = SUPPLIED
            continue
        rule = _special(state, facts[unit], i, c)
        if rule:
            result._status[unit] = SPECIAL
            result._special[unit] = rule
        else:
            result._status[unit] = OUT
    return result


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
    events: list[dict] = []
    supply = supply if supply is not None else compute(state)
    on_map = sorted(supply.units())
    # (1) markers come off units in supply, normal or special (14.3.1, 14.3.5 step 1)
    events += _remove_markers(state, supply, on_map, "14.3.5")
    # (2) OOS5 units of both sides are eliminated together (R22)
    doomed = [u for u in on_map if state.units[u].oos >= 5 and supply.status(u) == OUT]
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
        events += update_siege(state, space)  # 15.2.4, R26, R39: the siege ends or lapses
    if doomed:
        # R21: check again; markers come off units whose line the eliminations reopened
        supply = compute(state)
        on_map = sorted(supply.units())
        events += _remove_markers(state, supply, on_map, "14.3.1")
    # (3)-(6) raise each marker one level, highest first, each unit once
    out = [u for u in on_map if supply.status(u) == OUT]
    for level in (4, 3, 2, 1):
        for unit in out:
            here = state.units[unit]
            if here.oos == level:
                events.append(_event("oos", "14.3.5", unit=unit, **{"from": level, "to": level + 1}))
                here.oos = level + 1
    # (7) OOS1 on units out of supply without a marker
    for unit in out:
        here = state.units[unit]
        if here.oos == 0:
            events.append(_event("oos", "14.3.5", unit=unit, **{"from": 0, "to": 1}))
            here.oos = 1
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
    pog, pos = supply._pog, supply._pos
    reach = {side: supply._space_reach(side) for side in SIDES}
    flips = []
    for i, space in enumerate(pog.ids):
        if pos.neutral[i] or pos.serbia[i]:
            continue  # R17, R08, R36, R37; 14.3.6 exception for Serbia
        side = pos.control[i]
        if side in pos.units_of[i]:
            continue
        if state.forts.get(space) in ("intact", "besieged"):
            continue  # 15.1.10: an intact fort keeps its space for its owner
        if pos.enter[side][i] and reach[side][i]:
            continue
        flips.append((space, side))
    events = []
    for space, side in flips:
        new = enemy(side)
        events.append(_event("control", "14.3.6", space=space, **{"from": side, "to": new}))
        state.control[space] = new
        level = state.trenches.get(space, 0)
        if level:  # base 11.2.7, R24
            events.append(_event("trench", "14.3.6", space=space, **{"from": level, "to": level - 1}))
            if level == 1:
                del state.trenches[space]
            else:
                state.trenches[space] = level - 1
    return events
