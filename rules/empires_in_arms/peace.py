"""The peace step of the Diplomacy Phase, as far as the seed's UMP rules go (RULINGS E18, E25).

First what needs nobody: an UMP bound by 14.3.6.1a surrenders unconditionally to every power it is
at war with (E18); a power at war with an UMP it now controls, or two UMPs one power controls,
conclude an informal peace (14.3.3.9). Then each player commanding a power at war with an UMP, in
roster order, may try to force it to sue for peace (14.3.3.8): `force_peace ump=...`, its die at
his entry's roll point, above the UMP's victory point number on the Political Status Display; he
is asked again while an UMP at war with him is left untried, until he signs `no_force_peace`. An
UMP forced to sue accepts a conditional peace: the war ends and an active UMP turns inactive
(14.3.4); forced by a power with no forces in its home nation it sues every power it is at war
with."""

from __future__ import annotations

from collections.abc import Mapping

from pbem.errors import IllegalOrder

from . import command, geography, powers
from .state import ACTIVE, INACTIVE, UNCONTROLLED, EiaState

RULE = "14.3.3.8"


def open_step(state: EiaState) -> None:
    informal = [pair for pair in state.wars if _same_master(state, *pair)]
    for pair in informal:
        state.wars.remove(pair)
    state.informal_peace = [list(pair) for pair in informal]
    for ump in state.must_accept_peace:
        for pair in [pair for pair in state.wars if ump in pair]:
            state.wars.remove(pair)
            surrender(state, ump, pair[0] if pair[1] == ump else pair[1])
    state.must_accept_peace = []
    state.peace = {"turn": state.turn, "done": [], "tries": [], "tried": [], "results": []}


def surrender(state: EiaState, power: str, to: str) -> None:
    """An unconditional surrender, recorded with its turn (14.3.1.1.7, 12.11.3)."""
    if [power, to] not in state.surrendered:
        state.surrendered.append([power, to])
    if state.powers[power].surrendered_in is None:
        state.powers[power].surrendered_in = state.turn


def _same_master(state: EiaState, a: str, b: str) -> bool:
    """14.3.3.9: one controls the other, or one major power controls both."""
    master = {power: state.powers[power].controller or power for power in (a, b)}
    return master[a] == master[b]


def _is_ump(state: EiaState, power: str) -> bool:
    """An UMP with forces that can fight: active, inactive, or nobody's since its player resigned (E9)."""
    return state.powers[power].status in (ACTIVE, INACTIVE, UNCONTROLLED)


def targets(state: EiaState, player: str) -> list[tuple[str, str]]:
    """(his power, UMP) for each UMP at war with a power he commands, that power's try against it
    not yet made this step."""
    tried = state.peace.get("tried", [])
    return [(mine, other) for mine in command.commanded(state, player) for other in sorted(command.enemies(state, mine))
            if _is_ump(state, other) and other not in command.commanded(state, player) and [mine, other] not in tried]


def deciding(state: EiaState) -> str | None:
    """The next player to decide (roster order), or None once nobody is left."""
    if state.step != "peace":
        return None
    if state.peace.get("tries"):  # his entry goes on: one force_peace order for each UMP he tries
        return str(state.peace["tries"][0]["player"])
    return next((p for p in state.setup.players if p not in state.peace["done"] and targets(state, p)), None)


def force(state: EiaState, player: str, order: Mapping) -> None:
    ump = str(order["ump"])
    mine_all = command.commanded(state, player)
    done = [power for power, tried in state.peace["tried"] if tried == ump and power in mine_all]
    if (done and not order.get("power")) or order.get("power") in done:
        raise IllegalOrder(f"{done[0]} has tried {ump} this peace step: one try each", rule=RULE, field="ump")
    mine = [m for m, u in targets(state, player) if u == ump]
    named = order.get("power")
    if not mine or (named is not None and named not in mine):
        raise IllegalOrder(f"none of your powers{' ' + str(named) if named else ''} is at war with an UMP {ump!r}",
                           rule=RULE, field="ump" if not mine else "power")
    power = str(named) if named is not None else mine[0]
    state.peace["tries"].append({"player": player, "power": power, "ump": ump})
    state.peace["tried"].append([power, ump])  # one try for each power against each UMP a peace step (E25)


def decline(state: EiaState, player: str, order: Mapping) -> None:
    if state.peace["tries"]:
        raise IllegalOrder("no_force_peace is an entry of its own", rule=RULE, field="kind")
    state.peace["done"].append(player)


def resolve(state: EiaState, dice) -> None:
    """Each try of the entry, in order: a die above the UMP's victory point number makes it sue."""
    tries, state.peace["tries"] = state.peace["tries"], []
    for attempt in tries:
        ump, forcer = attempt["ump"], attempt["power"]
        needed = powers.status_vp(state.powers[ump].pp)
        if not state.at_war(forcer, ump):  # an earlier try of this entry ended the war
            continue
        die = dice.roll(6, f"{forcer} forces {ump} to sue", RULE)
        result = {**attempt, "die": die, "above": needed, "sues": die > needed}
        if die > needed:
            result["peace"] = _sue(state, ump, forcer)
        state.peace["results"].append(result)


def _sue(state: EiaState, ump: str, forcer: str) -> list[list[str]]:
    """14.3.3.8: the UMP accepts a conditional peace (14.3.4: an active one turns inactive); to
    every enemy if the forcer has no forces in its home nation; with another UMP, informal."""
    home = geography.home_areas(ump)
    present = any(state.forces_in(area).get(forcer, 0) for area in home)
    enemies = [forcer] if present else sorted(command.enemies(state, ump))
    made = []
    for enemy in enemies:
        state.wars.remove(sorted([ump, enemy]))
        made.append([enemy, "conditional"])
    if state.powers[ump].status == ACTIVE:
        state.powers[ump].status = INACTIVE  # 14.3.4: accepting a conditional peace
    return made
