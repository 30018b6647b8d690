"""Land combat, overruns, retreats and overstacks. Rules 11.12 (overruns), 11.16 (land combat) and
11.16.5 (retreats) are not in the seed; RULINGS W17 says what stands in for them. What 1-2.4 say is
enforced: attackers are in supply when the attack is declared and again when it is resolved
(2.4.1, 2.4.3), out-of-supply face-down defenders count 1 (3 if white print), a retreat never
overstacks but where it must, and an overstacked hex's owner destroys units until it is within
its limits, face-up ones first (2.3.1)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from pbem.errors import IllegalOrder, UsageError

from ..common import tables
from . import charts, kinds, moves, position, readiness, stacking, supply
from . import world as worlds
from .state import WifState

RULE = "11.16"
RESULTS = ("no_effect", "retreat", "defender_destroyed", "attacker_destroyed")
MAX_FACES = 100


def check_table(table: Mapping | None) -> None:
    """The charter's combat table (11.16 is not in the seed): a die and a result for each roll."""
    if not isinstance(table, Mapping):
        raise UsageError("World in Flames needs the charter's combat table [tables.combat] (rule 11.16 is not in "
                         "the seed): die = \"1d10\" and a result for each roll", rule=RULE, field="tables.combat")
    faces = _faces(table)
    try:
        rows = tables.ranges(table)
    except tables.TableError as exc:
        raise UsageError(f"tables.combat: {exc}", rule=RULE, field="tables.combat") from None
    for roll in range(1, faces + 1):
        result = next((found for low, high, found in rows if low <= roll <= high), None)
        if result not in RESULTS:
            raise UsageError(f"tables.combat gives no result among {', '.join(RESULTS)} for a roll of {roll}",
                             rule=RULE, field="tables.combat")


def _faces(table: Mapping) -> int:
    """One die of 2 to 100 faces: "1d10"."""
    die = str(table.get("die", ""))
    found = re.fullmatch(r"1d([0-9]{1,3})", die)
    if not found or not 2 <= int(found.group(1)) <= MAX_FACES:
        raise UsageError(f"tables.combat's die is one die of 2 to {MAX_FACES} faces such as \"1d10\", not {die!r}",
                         rule=RULE, field="tables.combat")
    return int(found.group(1))


def defence(state: WifState, unit_id: str, in_supply: bool) -> int:
    """2.4.3: out of supply, a face-down unit defends with 1 (3 if white print); else its strength."""
    known = position.facts(state, unit_id)
    if not in_supply and not known["face_up"]:
        return 3 if known.get("white_print") else 1
    return int(known["strength"])


# ---------------------------------------------------------------------------------- attack

def attack(state: WifState, player: str, order: Mapping, options: Mapping[str, bool]) -> None:
    """Declare an attack; its die comes at the entry's roll point (`resolve`)."""
    world = worlds.for_options(options)
    target = position.hex_id(world, str(order["hex"]))
    situation = position.situation(state, dict(options))
    defenders = situation.enemy_land_units(world.position[target], position.team(state, player))
    if not defenders:
        raise IllegalOrder(f"{target} holds no enemy land unit", rule=RULE, field="hex")
    units = position.distinct([str(u) for u in order["units"]], RULE, "units")
    if not units:
        raise IllegalOrder("an attack needs at least one unit", rule=RULE, field="units")
    supplied = readiness.supplied(state, options)
    for name in units:
        unit = position.own_unit(state, player, name, RULE, "units")
        if position.facts(state, name)["kind"] not in kinds.LAND or "hex" not in unit:
            raise IllegalOrder(f"{name} is not a land unit on the map", rule=RULE, field="units")
        if world.position[target] not in world.neighbours[world.position[unit["hex"]]]:
            raise IllegalOrder(f"{name} in {unit['hex']} is not adjacent to {target}", rule=RULE, field="units")
        if name in state.attacked:
            raise IllegalOrder(f"{name} has already attacked this impulse", rule=RULE, field="units")
        if not supplied[name]:
            raise IllegalOrder(f"{name} is out of supply and cannot attack", rule="2.4.3", field="units")
    state.attacked += units
    state.attack = {"hex": target, "units": units, "player": player}
    state.last = {"text": f"{player} attacks {target} with {', '.join(units)}", "hex": target, "unit": units[0]}


def resolve(state: WifState, dice, options: Mapping[str, bool]) -> None:
    """2.4.1: supply is checked again at the moment of combat, both sides: attackers no longer in
    supply drop out; the rest roll on the charter's table."""
    table = state.setup.tables["combat"]
    record, state.attack = state.attack, {}
    supplied = readiness.supplied(state, options)
    attackers = [u for u in record["units"] if u in state.units and supplied[u]]
    situation = position.situation(state, dict(options))
    defenders = situation.enemy_land_units(situation.world.position[record["hex"]],
                                           position.team(state, record["player"]))
    roll = dice.roll(_faces(table), f"attack on {record['hex']}", RULE)
    if not attackers or not defenders:
        state.last = {"text": f"the attack on {record['hex']} falls through: "
                      + ("no attacker is in supply now (2.4.1)" if not attackers else "no defender is left"),
                      "hex": record["hex"], "unit": record["units"][0]}
        return
    result = tables.look_up(table, roll) or "no_effect"
    strength = sum(int(position.facts(state, u)["strength"]) for u in attackers)
    held = sum(defence(state, u, supplied[u]) for u in defenders)
    state.last = {"text": f"attack on {record['hex']}: {strength} against {held}, rolled {roll}: "
                  f"{result.replace('_', ' ')}", "hex": record["hex"], "unit": attackers[0]}
    if result == "defender_destroyed":
        _destroy(state, defenders)
    elif result == "attacker_destroyed":
        _destroy(state, attackers)
    elif result == "retreat":
        state.retreat = {"hex": record["hex"], "units": defenders}
        _destroy_the_trapped(state, options)
    settle(state, options)


def _destroy(state: WifState, names: list[str]) -> None:
    for name in names:
        state.units.pop(name, None)
        state.destroyed.append(name)


# ---------------------------------------------------------------------------------- retreat

def retreating(state: WifState) -> tuple[str, list[str]]:
    """Who retreats now: the owner first in roster order of the units that must retreat, and his
    units among them (W17: each player retreats his own)."""
    owners = {name: position.owner_of_unit(state, name) for name in state.retreat["units"]}
    order = [seat.id for seat in state.setup.roster]
    first = min(owners.values(), key=lambda p: order.index(p) if p in order else len(order))
    return first, [name for name, owner in owners.items() if owner == first]


def retreat_hexes(state: WifState, unit_id: str, options: Mapping[str, bool]) -> tuple[list[str], list[str]]:
    """Where a unit may retreat (W17): adjacent land hexes of its side, not in an enemy ZOC: (those
    within the stacking limits, those that would overstack)."""
    world = worlds.for_options(options)
    situation = position.situation(state, dict(options))
    country = state.units[unit_id]["country"]
    side = situation.side_of(country)
    zone = supply.enemy_zoc(situation, side)
    here = world.position[state.units[unit_id]["hex"]]
    fits, over = [], []
    for there in world.neighbours[here]:
        if not world.land(there) or there in zone or situation.side_of(situation.controller(there)) != side:
            continue
        try:
            moves.check_stacking(state, situation, unit_id, world.ids[there], options, "hex")
            fits.append(world.ids[there])
        except IllegalOrder as refused:
            if refused.rule == stacking.RULE and "co-operate" not in refused.message:
                over.append(world.ids[there])
    return fits, over


def _destroy_the_trapped(state: WifState, options: Mapping[str, bool]) -> None:
    """A unit with no hex to retreat into is destroyed (W17)."""
    for name in list(state.retreat["units"]):
        fits, over = retreat_hexes(state, name, options)
        if not fits and not over:
            _destroy(state, [name])
            state.retreat["units"].remove(name)
            state.last["text"] += f"; {name} has nowhere to retreat and is destroyed"
    if not state.retreat["units"]:
        state.retreat = {}


def retreat(state: WifState, player: str, order: Mapping, options: Mapping[str, bool]) -> None:
    name = str(order["unit"])
    _, mine = retreating(state)
    if name not in mine:
        raise IllegalOrder(f"{name} is not among {player}'s units that must retreat ({', '.join(mine)})",
                           rule="11.16.5", field="unit")
    into = position.hex_id(worlds.for_options(options), str(order["hex"]))
    fits, over = retreat_hexes(state, name, options)
    if into not in fits + over:
        raise IllegalOrder(f"{name} cannot retreat into {into}: it may go to {', '.join(fits + over)}",
                           rule="11.16.5", field="hex")
    if into in over and fits:
        raise IllegalOrder(f"{into} would be overstacked and {', '.join(fits)} is open: no voluntary overstack",
                           rule=stacking.RULE, field="hex")
    _retreat(state, name, into)
    if state.retreat:  # a hex this retreat filled may have been another unit's last
        _destroy_the_trapped(state, options)
    settle(state, options)


def _retreat(state: WifState, name: str, into: str) -> None:
    state.units[name]["hex"] = into
    state.retreat["units"].remove(name)
    state.last = {"text": f"{name} retreats into {into}", "hex": into, "unit": name}
    if not state.retreat["units"]:
        state.retreat = {}


# ---------------------------------------------------------------------------------- overstacks

def _find_overstack(state: WifState, options: Mapping[str, bool]) -> None:
    """2.3.1, checked after every retreat: the first overstacked hex (in id order) waits for its
    owner to destroy units; one no longer overstacked waits no more."""
    situation = position.situation(state, dict(options))
    if state.overstack and moves.overstacked(state, situation, state.overstack["hex"], options):
        return
    state.overstack = {}
    for hex_text in sorted({u["hex"] for u in state.units.values() if "hex" in u}):
        if moves.overstacked(state, situation, hex_text, options):
            owner = situation.controller(situation.world.position[hex_text])
            state.overstack = {"hex": hex_text, "player": position.commander(state, owner)}
            state.last["text"] += f"; {hex_text} is overstacked: its owner destroys units (2.3.1)"
            return


def destroy(state: WifState, player: str, order: Mapping, options: Mapping[str, bool]) -> None:
    """2.3.1: the owner of an overstacked hex destroys units of the kind over its limit, face-up
    ones before face-down ones."""
    name = str(order["unit"])
    choices = _to_destroy(state, options)
    if name not in choices:
        raise IllegalOrder(f"{name!r} is not to be destroyed now: {', '.join(choices)} first (face-up units before "
                           "face-down ones, of the kind over the limit)", rule=stacking.RULE, field="unit")
    _destroy_one(state, name, options)
    settle(state, options)


def _to_destroy(state: WifState, options: Mapping[str, bool]) -> list[str]:
    """The units the owner may destroy now: of the limit broken, face-up ones if any."""
    where = state.overstack["hex"]
    limit = moves.overstacked(state, position.situation(state, dict(options)), where, options)
    present = [u for u, facts in state.units.items() if facts.get("hex") == where
               and stacking.of_limit(position.facts(state, u)["kind"]) == limit]
    face_up = [u for u in present if state.units[u]["face_up"]]
    return face_up or present


def _destroy_one(state: WifState, name: str, options: Mapping[str, bool]) -> None:
    where = state.overstack["hex"]
    _destroy(state, [name])
    state.last = {"text": f"{name} is destroyed to bring {where} within its stacking limits", "hex": where,
                  "unit": name}
    if not moves.overstacked(state, position.situation(state, dict(options)), where, options):
        state.overstack = {}


def settle(state: WifState, options: Mapping[str, bool]) -> None:
    """W15: what waits for a player who has resigned, or for a power nobody commands, is decided
    for him: each of his units retreats into the first open hex (in id order), else the first
    overstacked one; an overstack loses its units in id order, face-up first. Then the next
    overstack is looked for."""
    active = [p for p in state.setup.players if p not in state.resigned]
    while True:
        _find_overstack(state, options)
        if state.overstack and state.overstack["player"] not in active:
            _destroy_one(state, sorted(_to_destroy(state, options))[0], options)
            continue
        if state.overstack:
            return  # its owner decides first, as `pending` asks him
        if state.retreat:
            _destroy_the_trapped(state, options)
        if state.retreat and retreating(state)[0] not in active:
            for name in retreating(state)[1]:
                fits, over = retreat_hexes(state, name, options)
                if fits or over:
                    _retreat(state, name, (sorted(fits) or sorted(over))[0])
                    continue
                _destroy(state, [name])  # nowhere left to go (W17)
                state.retreat["units"].remove(name)
                if not state.retreat["units"]:
                    state.retreat = {}
            continue
        return


# ---------------------------------------------------------------------------------- overrun

def overrun(state: WifState, player: str, order: Mapping, options: Mapping[str, bool]) -> None:
    """W17: land units of one hex, in supply, destroy the enemy land units of an adjacent hex if
    their strength is at least the overrun ratio (tables.toml, 11.12) times the defence, each
    side's supply checked now (2.4.1), and move in."""
    names = position.distinct([str(u) for u in order["units"]], "11.12", "units")
    world = worlds.for_options(options)
    target = position.hex_id(world, str(order["hex"]))
    supplied = readiness.supplied(state, options)
    where = _overrunning(state, player, names, supplied)
    if world.position[target] not in world.neighbours[world.position[where]]:
        raise IllegalOrder(f"{target} is not adjacent to {where}", rule="11.12", field="hex")
    situation = position.situation(state, dict(options))
    defenders = situation.enemy_land_units(world.position[target], situation.side_of(state.units[names[0]]["country"]))
    if not defenders:
        raise IllegalOrder(f"{target} holds no enemy land unit", rule="11.12", field="hex")
    ratio = int(charts.fact("overrun", "ratio"))
    strength = sum(int(position.facts(state, name)["strength"]) for name in names)
    held = sum(defence(state, u, supplied[u]) for u in defenders)
    if strength < ratio * held:
        raise IllegalOrder(f"a strength of {strength} is less than {ratio} times the defence of {held}",
                           rule="11.12", field="hex")
    _destroy(state, defenders)
    for name in names:
        moves.check_stacking(state, situation, name, target, options, "units")
        state.units[name]["hex"] = target
    moves.check_left(state, where, names[0], options, "units")
    moves.take_control(state, situation, world.position[target], state.units[names[0]]["country"])
    state.moved += names
    state.last = {"text": f"{', '.join(names)} overrun {target} ({strength} against {held}): "
                  f"{', '.join(defenders)} destroyed", "hex": target, "unit": names[0]}


def _overrunning(state: WifState, player: str, names: list[str], supplied: dict[str, bool]) -> str:
    """The hex of the overrunning units, each checked: a land unit of the player's, in supply and
    not moved yet, all in one hex."""
    if not names:
        raise IllegalOrder("an overrun needs at least one unit", rule="11.12", field="units")
    hexes = set()
    for name in names:
        unit = position.own_unit(state, player, name, "11.12", "units")
        if position.facts(state, name)["kind"] not in kinds.LAND or "hex" not in unit:
            raise IllegalOrder(f"{name} is not a land unit on the map", rule="11.12", field="units")
        if name in state.moved:
            raise IllegalOrder(f"{name} has already moved this impulse", rule="11.12", field="units")
        if not supplied[name]:
            raise IllegalOrder(f"{name} is out of supply: no overrun", rule="2.4.3", field="units")
        hexes.add(unit["hex"])
    if len(hexes) > 1:
        raise IllegalOrder(f"the overrunning units stand in {', '.join(sorted(hexes))}: one hex only", rule="11.12",
                           field="units")
    return hexes.pop()
