"""Activation for movement and attack, and movement (base 10-11, SoE 14.1.1.1, 14.3.1, 15.1-15.2).

Activation
  `activate_for_movement(state, side, spaces, supplied, activation=None) -> Activation`
  `activate_for_attack(state, side, spaces, activation=None) -> Activation`
  A space may be activated only if it holds units of the side (9.2.6). For movement it must hold
  at least one unit in supply when the marker is placed (14.1.1.1, RULINGS R04); a space holding
  only units out of supply may be activated for attack only (14.3.1). The Activation records the
  spaces, the units that stood in movement-activated spaces (only they may move this action), the
  units that have moved, and the spaces that had a fort step (15.4). Activation costs (9.2.3) are
  the card rules' business, not this module's.

The move order (one per action: all the movement of that action, in the order it happens)
  moves = [
    { units = ["ge_2_army", "ge_3_army"], path = ["liege", "brussels"] },  # a stack, same path
    { unit = "ge_1_army", path = ["aachen", "liege"] },                    # one unit
  ]
  A single move may also be given as the order itself: { units = [...], path = [...] } (other
  keys of the order, such as an engine's `kind`, are ignored).
  `path` lists the spaces entered, in order; it may begin with the start space (then it must be
  the unit's space). Space names may be ids, names or aliases. A `units` entry moves its units one
  after the other along the same path (base 11.1.1: one unit completes its move before the next
  begins). Moves happen in the order listed, which matters (R04, R05).

`move(state, side, order, supplied, activation) -> list[event]` checks, unit by unit:
  the unit is the side's, stood in a movement-activated space and has not moved (base 11.1.1); it
  has an MF (base 11.1.1) and spends 1 MP per space entered, at most its full or reduced MF (base
  11.1.2, 11.1.5); it is in supply when it starts to move (14.1.1.1, 14.3.1, R04: judged against
  the position left by the earlier moves, so a path opened earlier in the action lets it move);
  each step uses a connection (base 11.1.3) open to the unit (base 11.1.4, R06, as
  `connections` answers for supply too: AUS, CND, PT are British, the ANA is not, the SN is
  Turkish; `mef` and MEF spaces only with the beach head there, base 11.1.10); no neutral
  nation's space (base 11.1.11);
  never a space with enemy units (base 11.1.7, 10.1.5); the BEF stays in Britain, France, Belgium
  and Germany (base 11.1.17); on the Near East map only the listed armies (base 11.3.1); no
  Russian entry into a German fort space in August 1914 (15.1.12); an unbesieged enemy fort space
  ends the unit's move (15.1.1), a besieged one may be crossed (15.2.2); no end of move under an
  Attack marker (base 11.1.6) nor, for the CP before Race to the Sea, in Amiens, Calais or Ostend
  (base 11.1.9); with the option 19.2, no German, British or French unit beyond its side's limits
  enters Italy, even in passing (`italy_ops`, R35). When the unit stops, its side takes control of
  that space unless an intact enemy fort is there (variant 11.1.4, R01; the ANA never converts,
  base 11.1.15), an enemy trench there loses a level (base 11.2.5-11.2.6, R03), and a fort whose
  space now holds enough of the side's units counts as besieged at once (15.2.1, R05); a besieged
  fort its last besieger left is unbesieged again, and one left short of 15.2.1 counts as lapsed
  from then on (R39).
When the whole order has moved: stacking at most 3 units (base 10.1.1-10.1.2); every enemy fort
  space entered is besieged (15.1.1, 15.2.1); no besieged fort is left occupied but not besieged
  (15.2.4). A failing order raises IllegalOrder naming the rule and leaves state and activation as
  they were.

`supplied` is a callable unit id -> bool. Moves are applied to `state` itself as they happen (and
rolled back if the order fails), so `supplied` must read the live `state` it was built for and not
cache results across calls: the later units' supply is judged after the earlier moves (R04). It
is asked once per moving unit, e.g. `lambda u: supply.compute(state).status(u) != "out"`.

An action spans several entries in a game, so its Activation must outlive one call: keep
`activation.dump()` in the public state and `Activation.load` it for the next order.

Events are dicts with an "kind" key: move, control and trench as each unit stops; then, once per
fort whose state the order changed, besieged or siege_ended.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import NoReturn

from pbem.errors import IllegalOrder

from . import connections, forts, italy_ops, near_east, trenches
from .data import UnknownSpace
from .roles import ANA, BEF_UNITS
from .state import PogState, UnitState

STACKING_LIMIT = 3  # base 10.1.1: three combat units per space (forts do not count)
BEF_NATIONS = frozenset({"br", "fr", "be", "ge"})  # base 11.1.17: where the BEF may move
CHANNEL_PORTS = frozenset({"amiens", "calais", "ostend"})  # base 11.1.9
RACE_TO_THE_SEA = "race_to_the_sea"  # base 11.1.9: card #8's event id (cards.csv)
RACE_TO_THE_SEA_WAR_STATUS = 4  # base 11.1.9: or CP War Status 4 or more


@dataclass
class Activation:
    """One action's activation markers and what has happened under them."""

    side: str
    move: set[str] = field(default_factory=set)  # spaces activated for movement
    attack: set[str] = field(default_factory=set)  # spaces activated for attack (Attack markers)
    units: set[str] = field(default_factory=set)  # units in movement-activated spaces when marked
    moved: set[str] = field(default_factory=set)  # units that have moved this action
    fort_steps: set[str] = field(default_factory=set)  # spaces with a fort built/rebuilt (15.4)

    def copy(self) -> Activation:
        return copy.deepcopy(self)

    def dump(self) -> dict:
        """Plain sorted lists, for keeping an open action in the public state between entries."""
        return {"side": self.side, "move": sorted(self.move), "attack": sorted(self.attack),
                "units": sorted(self.units), "moved": sorted(self.moved),
                "fort_steps": sorted(self.fort_steps)}

    @classmethod
    def load(cls, data: Mapping) -> Activation:
        return cls(data["side"], *(set(data.get(key, ())) for key in
                                   ("move", "attack", "units", "moved", "fort_steps")))


# ---------------------------------------------------------------------------------- activation

def space_named(state: PogState, text: str, field_name: str, rule: str) -> str:
    """The map space a player named; `rule` is the one a box (reserve, eliminated) breaks there."""
    if not isinstance(text, str):
        raise IllegalOrder(f"a space name must be text, not {text!r}", rule=rule, field=field_name)
    if text in state.map.index:
        return text
    try:
        found = state.map.find(text)
    except UnknownSpace as exc:  # an order naming no space of the map breaks the rule it invokes
        raise IllegalOrder(str(exc), rule=rule, field=field_name) from None
    if found not in state.map.index:
        raise IllegalOrder(f"{state.map.name_of(found)} is a box, not a map space", rule=rule, field=field_name)
    return found


def _own_units(state: PogState, side: str, space: str) -> list[str]:
    return [u for u in state.units_in(space) if state.faction(u) == side]


def _start(activation: Activation | None, side: str) -> Activation:
    if activation is None:
        return Activation(side)
    if activation.side != side:
        raise IllegalOrder("the activation belongs to the other side", rule="8.1.4")  # the active side's action
    return activation.copy()


def activate_for_movement(state: PogState, side: str, spaces: Iterable[str],
                          supplied: Callable[[str], bool],
                          activation: Activation | None = None) -> Activation:
    """Mark spaces for movement: each needs a unit of the side in supply now (14.1.1.1, R04).
    Returns a new Activation (the given one, extended); raises IllegalOrder, changing nothing."""
    result = _start(activation, side)
    for i, text in enumerate(spaces):
        where = f"spaces[{i}]"
        space = space_named(state, text, where, "9.2.6")  # only occupied spaces: no card gives 9.2.6's exception (R120)
        name = state.map.name_of(space)
        own = _own_units(state, side, space)
        if not own:
            raise IllegalOrder(f"{name} holds no units of this side to activate", rule="9.2.6", field=where)
        if space in result.move:
            raise IllegalOrder(f"{name} is already activated for movement", rule="9.2.5", field=where)
        if not any(supplied(u) for u in own):
            raise IllegalOrder(
                f"{name} holds no unit in supply, so it may be activated for attack only (14.3.1)",
                rule="14.1.1.1", field=where)
        result.move.add(space)
        result.units.update(own)
    return result


def activate_for_attack(state: PogState, side: str, spaces: Iterable[str],
                        activation: Activation | None = None) -> Activation:
    """Mark spaces for attack: units of the side, in supply or not (14.3.1); never a desert space
    in a Summer turn (15.2.5, R27)."""
    result = _start(activation, side)
    for i, text in enumerate(spaces):
        where = f"attack[{i}]"
        space = space_named(state, text, where, "9.2.6")  # only occupied spaces: no card gives 9.2.6's exception (R120)
        name = state.map.name_of(space)
        if not _own_units(state, side, space):
            raise IllegalOrder(f"{name} holds no units of this side to activate", rule="9.2.6", field=where)
        if space in result.attack:
            raise IllegalOrder(f"{name} is already activated for attack", rule="9.2.5", field=where)
        if forts.desert_summer(state, space):
            raise IllegalOrder(f"{name} is a desert space: no combat out of it in Summer",
                               rule="15.2.5", field=where)
        result.attack.add(space)
    return result


# ---------------------------------------------------------------------------------- the order

@dataclass(frozen=True)
class _Step:
    unit: str
    path: tuple[str, ...]
    field: str  # "moves[i]", or "" for the one-move shorthand


def _sub(where: str, name: str) -> str:
    """The field name of part of a move: moves[i].path[j], or path[j] in the shorthand."""
    return f"{where}.{name}" if where else name


def _parse(state: PogState, order: Mapping) -> list[_Step]:
    items, single = _items(order)
    steps: list[_Step] = []
    for i, item in enumerate(items):
        steps += _parse_move(state, item, "" if single else f"moves[{i}]")
    return steps


def _items(order: Mapping) -> tuple[list, bool]:
    """The order's moves, and whether it is the one-move shorthand."""
    if not isinstance(order, Mapping):
        raise IllegalOrder("a move order is a table", rule="base 11", field="moves")
    if "moves" in order:
        items = order["moves"]
        if not isinstance(items, list) or not items:
            raise IllegalOrder("`moves` is a non-empty list of moves", rule="base 11", field="moves")
        return items, False
    if "path" in order:  # the one-move shorthand: unit or units, and path, in the order itself
        return [{k: order[k] for k in ("unit", "units", "path") if k in order}], True
    raise IllegalOrder("a move order has `moves = [...]`, or `units` and `path`", rule="base 11", field="moves")


def _parse_move(state: PogState, item: object, where: str) -> list[_Step]:
    """One move: its units, each to go the same path (base 11.1.1)."""
    if not isinstance(item, Mapping) or ("unit" in item) == ("units" in item):
        raise IllegalOrder("each move names `unit` or `units`, and a `path`", rule="base 11", field=where or None)
    extra = set(item) - {"unit", "units", "path"}
    if extra:
        raise IllegalOrder(f"unknown key(s) {', '.join(sorted(extra))}", rule="base 11", field=where or None)
    units = [item["unit"]] if "unit" in item else item["units"]
    if not isinstance(units, list) or not units or not all(isinstance(u, str) for u in units):
        raise IllegalOrder("`units` is a non-empty list of unit ids", rule="base 11", field=_sub(where, "units"))
    path = item.get("path")
    if not isinstance(path, list) or not path:
        raise IllegalOrder("`path` is a non-empty list of spaces", rule="base 11", field=_sub(where, "path"))
    spaces = tuple(space_named(state, text, _sub(where, f"path[{j}]"), "base 11.1.3")  # along connections
                   for j, text in enumerate(path))
    for unit in units:
        if unit not in state.unit_facts:
            raise IllegalOrder(f"unknown unit {unit!r}", rule="base 11", field=_sub(where, "units"))
    starts = sorted({state.units[unit].space for unit in units if unit in state.units})
    if len(starts) > 1:  # a stack moves from one space; one stack's move ends before another's begins
        raise IllegalOrder(f"the units of one move stand in {', '.join(starts)}: give each stack its own move",
                           rule="base 11.1.1", field=_sub(where, "units"))
    return [_Step(unit, spaces, where) for unit in units]


def may_cross(state: PogState, unit: str, a: str, b: str) -> bool:
    """base 11.1.4, 11.1.10: may this unit use the connection a -> b (tokens and direction)?"""
    pog = state.map
    x, y = pog.index[a], pog.index[b]
    tokens = pog.allowed(x, y)
    if tokens is None:
        return True
    admitted = connections.unit_tokens(state.unit_facts[unit], frozenset(tokens))
    mef_open = connections.mef_link_open(pog, x, y, connections.opened_index(state))
    return connections.link_open(tokens, admitted, mef_open)


def _snapshot(state: PogState) -> dict:
    return {
        "control": dict(state.control),
        "units": {u: copy.copy(s) for u, s in state.units.items()},
        "forts": dict(state.forts),
        "trenches": dict(state.trenches),
        "trench_owner": dict(state.trench_owner),
    }


def _restore(state: PogState, snap: dict) -> None:
    state.control.clear()
    state.control.update(snap["control"])
    state.units.clear()
    state.units.update(snap["units"])
    state.forts.clear()
    state.forts.update(snap["forts"])
    state.trenches.clear()
    state.trenches.update(snap["trenches"])
    state.trench_owner.clear()
    state.trench_owner.update(snap["trench_owner"])


def move(state: PogState, side: str, order: Mapping, supplied: Callable[[str], bool],
         activation: Activation, pending: dict | None = None, italy_19_2: bool = False) -> list[dict]:
    """Carry out one move order: one stack, or (in rule cases) several; returns the events.

    With `pending` (the action's record, kept between orders) the end-of-movement tests, stacking
    and sieges (base 10.1.2, 11.1.8, R05, R39), wait for `judge_action` when the movement action
    ends, as several stacks may together make a siege. `italy_19_2` is the option limiting the
    units that operate in Italy (R35). On IllegalOrder nothing is changed.
    """
    if activation.side != side:
        raise IllegalOrder("the activation belongs to the other side", rule="8.1.4")  # the active side's action
    steps = _parse(state, order)
    origins = {step.unit: state.units[step.unit].space for step in steps if step.unit in state.units}
    snap = _snapshot(state)
    try:
        progress = _move(state, side, steps, supplied, activation, judge=pending is None, italy_19_2=italy_19_2)
    except BaseException:
        _restore(state, snap)
        raise
    activation.moved |= progress.moved
    if pending is not None:
        _remember(pending, progress)
        kept = pending.setdefault("origins", {})
        kept.update({unit: space for unit, space in origins.items() if unit in progress.moved and unit not in kept})
    return progress.events


def take_back(state: PogState, side: str, pending: dict) -> list[dict]:
    """R109: the `pass take_back=true` that ends a movement action takes back the moves that leave
    a siege short, as on the board: units that entered an unbesieged enemy fort space without besieging it return
    where they came from; besiegers that left a fort space that was besieged, leaving too few,
    return to it. So the end of an action never waits on moves nobody can make."""
    events, origins = [], pending.get("origins", {})
    for space in pending.get("fort_spaces", []):
        present = forts.besiegers(state, space)
        if not present or forts.meets_siege(state, space, present):
            continue
        entered = [u for u in pending.get("entered_unbesieged", {}).get(space, []) if state.units[u].space == space]
        left = [u for u, start in origins.items() if start == space and state.units[u].space != space]
        back = {u: origins[u] for u in entered if u in origins} if entered else {u: space for u in left}
        for unit, where in back.items():
            state.units[unit].space = where
        if back:
            state.forts[space] = pending["forts_at_start"].get(space, state.forts.get(space))
            pending["touched"] = sorted(set(pending.get("touched", [])) | set(back.values()))
            events.append({"kind": "taken_back", "space": space, "units": sorted(back), "rule": "R109"})
    return events


def judge_action(state: PogState, side: str, pending: Mapping) -> list[dict]:
    """The movement action ends: stacking, then the sieges its moves made or left, then their events."""
    if not pending:
        return []
    progress = _Progress(dict(pending["forts_at_start"]), [], set(),
                         {space: list(units) for space, units in pending["entered_unbesieged"].items()},
                         set(pending["touched"]), set(pending["fort_spaces"]))
    _judge(state, side, progress)
    return progress.events


def check_can_end(state: PogState, side: str, activation: Activation, pending: Mapping) -> None:
    """R39: a move must leave the action able to end. A space over the stacking limit must keep
    enough units that may still move out of it; once no unit may move, the end-of-movement tests
    are made at once, since the `pass` that makes them could not be passed later."""
    movable = {unit for unit in activation.units - activation.moved
               if unit in state.units and state.units[unit].space in activation.move}
    for space in pending.get("touched", []):
        units = state.units_in(space)
        staying = [unit for unit in units if unit not in movable]
        if len(staying) > STACKING_LIMIT:
            raise IllegalOrder(f"{state.map.name_of(space)} would hold {len(units)} units, and only "
                               f"{len(units) - len(staying)} of them may still move out; the limit is "
                               f"{STACKING_LIMIT}", rule="base 10.1.2", field="path")
    if not movable:
        judge_action(state, side, pending)


def _remember(pending: dict, progress: _Progress) -> None:
    """What the end of the action must judge, as JSON in the action's record (part of the state)."""
    pending.setdefault("forts_at_start", dict(sorted(progress.forts_at_start.items())))
    entered = pending.setdefault("entered_unbesieged", {})
    for space, units in progress.entered_unbesieged.items():
        entered[space] = [*entered.get(space, []), *units]
    pending["entered_unbesieged"] = dict(sorted(entered.items()))
    pending["touched"] = sorted(set(pending.get("touched", [])) | progress.touched)
    pending["fort_spaces"] = sorted(set(pending.get("fort_spaces", [])) | progress.fort_spaces)


@dataclass
class _Progress:
    """What one move order has done so far; judged as a whole once every unit has moved."""

    forts_at_start: dict[str, str]
    events: list[dict] = field(default_factory=list)
    moved: set[str] = field(default_factory=set)
    entered_unbesieged: dict[str, list[str]] = field(default_factory=dict)  # enemy fort space -> units
    touched: set[str] = field(default_factory=set)  # spaces units ended in or left
    fort_spaces: set[str] = field(default_factory=set)  # enemy fort spaces units ended in or left


def _move(state: PogState, side: str, steps: list[_Step], supplied: Callable[[str], bool],
          activation: Activation, judge: bool = True, italy_19_2: bool = False) -> _Progress:
    progress = _Progress(dict(state.forts))
    for step in steps:
        here, path = _mover(state, side, step, supplied, activation, progress.moved)
        start = here.space
        end = _walk(state, side, step, start, path, progress, italy_19_2)
        _check_end(state, side, step, end, activation)
        _arrive(state, side, step.unit, start, end, path, progress)
    if judge:
        _judge(state, side, progress)
    return progress


def _refuse(state: PogState, step: _Step, message: str, rule: str, at: str | None = None) -> NoReturn:
    """Refuse one unit's move; the field at fault is the move's own unless `at` names a part."""
    name = state.unit_facts[step.unit].name
    raise IllegalOrder(f"{step.unit} ({name}): {message}", rule=rule, field=at or step.field or "units")


def _mover(state: PogState, side: str, step: _Step, supplied: Callable[[str], bool], activation: Activation,
           moved: set[str]) -> tuple[UnitState, list[str]]:
    """base 11.1.1: may this unit move now? Returns where it stands and the spaces it enters."""
    unit, pog = step.unit, state.map
    here = state.units.get(unit)
    if state.unit_facts[unit].faction != side:
        _refuse(state, step, "not a unit of the moving side", "base 11.1.1")
    if here is None or here.space not in pog.index:
        _refuse(state, step, "not on the map", "base 11.1.1")
    if unit in moved or unit in activation.moved:
        _refuse(state, step, "has already moved this action", "base 11.1.1")
    if unit not in activation.units:
        _refuse(state, step, f"its space {pog.name_of(here.space)} was not activated for movement", "base 11.1.1")
    path = list(step.path)
    if path[0] == here.space:
        path = path[1:]
        if not path:  # a move goes from space to space (base 11.1.3): staying put is no move
            _refuse(state, step, "the path enters no space", "base 11.1.3", _sub(step.field, "path"))
    _check_mf(state, step, here, path)
    if not supplied(unit):
        _refuse(state, step, "is out of supply as it starts to move; OOS units may be activated for attack only",
                "14.1.1.1")
    return here, path


def _check_mf(state: PogState, step: _Step, here: UnitState, path: list[str]) -> None:
    """base 11.1.1, 11.1.2, 11.1.5: 1 MP per space entered, within the full or reduced MF."""
    facts = state.unit_facts[step.unit]
    mf = facts.rmf if here.reduced else facts.mf
    if mf < 1:
        _refuse(state, step, "has no movement factor", "base 11.1.1")
    if len(path) > mf:
        _refuse(state, step, f"the path costs {len(path)} MP but its MF is {mf}", "base 11.1.5",
                _sub(step.field, "path"))


def _walk(state: PogState, side: str, step: _Step, start: str, path: list[str], progress: _Progress,
          italy_19_2: bool = False) -> str:
    """Check each space entered, in order; returns the space the unit stops in."""
    current = start
    for j, nxt in enumerate(path):
        at = _sub(step.field, f"path[{j}]")
        _check_step(state, side, step, current, nxt, at)
        if italy_19_2:  # the earlier units of the order stand where they stopped, so they count (R35)
            _check_italy(state, side, step, nxt, at)
        near_east.record_crossing(state, current, nxt)
        if forts.stops_movement(state, side, nxt):
            if j != len(path) - 1:
                _refuse(state, step, f"entering the unbesieged enemy fort space {state.map.name_of(nxt)} ends "
                        "its move", "15.1.1", at)
            progress.entered_unbesieged.setdefault(nxt, []).append(step.unit)
        current = nxt
    return current


def _check_step(state: PogState, side: str, step: _Step, current: str, nxt: str, at: str) -> None:
    """May the unit go from `current` into `nxt` (see the module docstring for each rule)?"""
    _check_link(state, step, current, nxt, at)
    _check_entry(state, side, step, nxt, at)


def _check_link(state: PogState, step: _Step, current: str, nxt: str, at: str) -> None:
    """base 11.1.3, 11.1.10, 11.1.4: a connection, into a space in play, open to this unit."""
    pog = state.map
    target = pog.name_of(nxt)
    if pog.index[nxt] not in pog.neighbours[pog.index[current]]:
        _refuse(state, step, f"{pog.name_of(current)} and {target} are not connected", "base 11.1.3", at)
    if not connections.mef_space_open(pog, pog.index[nxt], connections.opened_index(state)):
        _refuse(state, step, f"{target} holds no MEF Beach Head", "base 11.1.10", at)
    if not may_cross(state, step.unit, current, nxt):
        _refuse(state, step, f"may not use the limited connection {pog.name_of(current)}-{target}", "base 11.1.4", at)
    crossing = near_east.caucasus_refusal(state, step.unit, current, nxt)
    if crossing:
        _refuse(state, step, crossing, "base 11.3.2", at)


def _check_entry(state: PogState, side: str, step: _Step, nxt: str, at: str) -> None:
    """base 11.1.11, 11.1.7, 11.1.17, 11.3.1, 15.1.12: spaces this unit may not enter."""
    pog, unit = state.map, step.unit
    target = pog.name_of(nxt)
    if state.neutral(nxt):
        _refuse(state, step, f"{target} is in a neutral nation", "base 11.1.11", at)
    occupant = state.occupant(nxt)
    if occupant is not None and occupant != side:
        _refuse(state, step, f"{target} holds enemy units", "base 11.1.7", at)
    if unit in BEF_UNITS and pog.nation[pog.index[nxt]] not in BEF_NATIONS:
        _refuse(state, step, f"the BEF may not enter {target}", "base 11.1.17", at)
    barred = near_east.army_barred(state, unit, nxt)
    if barred:
        _refuse(state, step, f"this army may not enter {barred[0]} ({target})", barred[1], at)
    if forts.russian_barred(state, unit, nxt):
        _refuse(state, step, f"Russian units may not enter the German fort space {target} in August 1914",
                "15.1.12", at)


def _check_italy(state: PogState, side: str, step: _Step, nxt: str, at: str) -> None:
    """19.2 (an option, R35): entering Italy, even in passing, is operating there."""
    reason = italy_ops.entry_refusal(state, side, step.unit, nxt)
    if reason:
        _refuse(state, step, reason, italy_ops.RULES[side], at)


def _check_end(state: PogState, side: str, step: _Step, end: str, activation: Activation) -> None:
    """base 11.1.6, 11.1.9: spaces where a move may not end."""
    end_name = state.map.name_of(end)
    at = _sub(step.field, "path")
    if end in activation.attack:
        _refuse(state, step, f"may not end its move under the Attack marker in {end_name}", "base 11.1.6", at)
    if (side == "cp" and end in CHANNEL_PORTS and RACE_TO_THE_SEA not in state.events
            and state.war_status.get("cp", 0) < RACE_TO_THE_SEA_WAR_STATUS):
        _refuse(state, step, f"the CP may not end a move in {end_name} before Race to the Sea", "base 11.1.9", at)


def _arrive(state: PogState, side: str, unit: str, start: str, end: str, path: list[str],
            progress: _Progress) -> None:
    """The unit stops: its arrival applies at once (variant 11.1.4, R01, R03, R05)."""
    before = state.control.get(end)
    first = not any(state.faction(u) == side for u in state.units_in(end))
    state.units[unit].space = end
    progress.moved.add(unit)
    progress.touched.update((start, end))
    progress.events.append({"kind": "move", "unit": unit, "from": start, "to": end, "path": path})
    for space in (start, end):
        if forts.fort_owner(state, space) not in (None, side):
            progress.fort_spaces.add(space)
            forts.update_siege(state, space)  # R05, R39; its events are given once, by _judge
    if before != side:
        take_space(state, side, unit, end, first, progress.events)


def take_space(state: PogState, side: str, unit: str, end: str, first: bool, events: list[dict]) -> None:
    """A unit stops in a space its side did not control: enemy trench and control."""
    if first and trenches.owner(state, end) not in (None, side):  # base 11.2.5-11.2.6, R03: the first
        # of the side's units to stop there takes a level off the enemy trench (level 2 becomes its own level 1)
        left = trenches.lose_level(state, end, taker=side)
        events.append({"kind": "trench", "space": end, "level": left, "rule": "base 11.2.5"})
    if not forts.enemy_fort(state, side, end) and unit != ANA:
        state.control[end] = side
        events.append({"kind": "control", "space": end, "side": side, "rule": "11.1.4"})


def _judge(state: PogState, side: str, progress: _Progress) -> None:
    """The whole order has moved: stacking, then the sieges it made or left, then their events."""
    pog = state.map
    for space in sorted(progress.touched):
        count = len(state.units_in(space))
        if count > STACKING_LIMIT:
            raise IllegalOrder(f"{pog.name_of(space)} would hold {count} units; the limit is "
                               f"{STACKING_LIMIT}", rule="base 10.1.1", field="moves")
    for space in sorted(progress.fort_spaces):
        _check_siege(state, space, progress)
    for space in sorted(progress.fort_spaces, key=pog.index.__getitem__):
        status = state.forts.get(space)
        if status == progress.forts_at_start.get(space):
            continue
        if status == "besieged":
            progress.events.append({"kind": "besieged", "space": space, "side": side, "rule": "15.2.1"})
        else:
            progress.events.append({"kind": "siege_ended", "space": space, "rule": "15.2.4"})


def _check_siege(state: PogState, space: str, progress: _Progress) -> None:
    """15.2.1, 15.2.4: units left in an enemy fort space must besiege it."""
    present = forts.besiegers(state, space)
    if not present or forts.meets_siege(state, space, present):
        return
    name = state.map.name_of(space)
    lf = forts.fort_lf(state, space)
    if progress.entered_unbesieged.get(space):
        raise IllegalOrder(
            f"the units entering {name} cannot besiege its fort: that takes an army or {lf} "
            f"corps entering in one action ({', '.join(present)} would be there); move more in, or end "
            "with pass take_back=true (R109)", rule="15.2.1", field="moves")
    if progress.forts_at_start.get(space) == "besieged":
        raise IllegalOrder(
            f"{name} would be occupied but no longer besieged ({', '.join(present)} left there; "
            f"a siege needs an army or {lf} corps); end with pass take_back=true to take the moves back "
            "(R109)", rule="15.2.4", field="moves")
