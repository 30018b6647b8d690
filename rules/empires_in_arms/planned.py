"""Planned reactions, a house rule (option `planned_reactions`; RULINGS E29): instead of asking the
enemy at every area a move enters, each land phase opens with one sealed round. The phasing
player seals his moves and overruns, in order; every player at war with his power seals a policy
for each leader (or corps) that may react: intercept, withdraw, or both. At the roll point of the
collector's entry the moves are carried out; wherever a reaction is open, the policies of the
players able to react, in roster order, are tried (an interception into the area entered; a
withdrawal with every corps there into the free area nearest a friendly force); each try's die is
drawn then. An order that no longer stands when its turn comes is voided with its rule. Then the
phase's battles are fought."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import pairwise

from pbem.errors import IllegalOrder

from . import command, geography, land, overrun, reactions
from .sealed_orders import collect_each, order_number, voided
from .state import EiaState

RULE = "12.3.7.4"
MOVER_KINDS = ("move", "overrun")


def members(state: EiaState) -> tuple[str, ...]:
    """The mover and every player commanding a power at war with his, in roster order."""
    foes = command.enemies(state, state.phasing)
    mover = command.commander(state, state.phasing)
    if mover is None:
        return ()
    return tuple(p for p in state.setup.players
                 if p == mover or (p not in state.resigned and foes & set(command.commanded(state, p))))


def open_round(state: EiaState) -> None:
    if state.setup.options.get("planned_reactions") and len(members(state)) > 1:
        state.plan = {"stage": "sealing"}


def check(state: EiaState, player: str, orders: Sequence[Mapping]) -> None:
    """What `pbem seal` refuses: the mover seals moves and overruns; the others policies."""
    mover = player == command.commander(state, state.phasing)
    for index, order in enumerate(orders, 1):
        with order_number(index):
            if mover and order.get("kind") not in MOVER_KINDS:
                raise IllegalOrder("the phasing player seals moves and overruns (planned_reactions)", rule=RULE,
                                   field="kind")
            if mover:
                _names(state, order)
            else:
                _policy(state, player, order)


def _names(state: EiaState, order: Mapping) -> None:
    """What a sealed move or overrun must name rightly whatever happens before it: known areas, a
    path of bordering areas, the mover's own units."""
    if order["kind"] == "overrun":
        geography.area_in_order(str(order["area"]), overrun.RULE, "area")
        return
    path = [geography.area_in_order(str(a), land.MOVE_RULE, "path") for a in order["path"]]
    for here, there in pairwise(path):
        if land.crossing(here, there) is None:
            raise IllegalOrder(f"{there} does not border {here}", rule=land.MOVE_RULE, field="path")
    for name in order["units"]:
        unit = state.corps.get(str(name)) or state.leaders.get(str(name))
        if unit is None or unit.power != state.phasing:
            raise IllegalOrder(f"no {state.phasing} corps or leader {name!r}", rule=land.MOVE_RULE, field="units")


def _policy(state: EiaState, player: str, order: Mapping) -> dict:
    if order.get("kind") != "policy":
        raise IllegalOrder("a player at war with the mover seals policies: policy leader=... intercept=true",
                           rule=RULE, field="kind")
    leader, corps = str(order.get("leader", "")), str(order.get("corps", ""))
    foes = command.enemies(state, state.phasing)
    mine = [p for p in command.commanded(state, player) if p in foes]
    owner = (state.leaders[leader].power if leader in state.leaders else
             state.corps[corps].power if corps in state.corps else None)
    if bool(leader) == bool(corps) or owner not in mine:
        raise IllegalOrder("name one leader or one corps of yours at war with the mover", rule=RULE,
                           field="leader" if leader else "corps")
    if not (order.get("intercept") or order.get("withdraw")):
        raise IllegalOrder("a policy intercepts, withdraws, or both", rule=RULE, field="intercept")
    if str(order.get("fate", "destroyed")) not in ("destroyed", "surrendered"):
        raise IllegalOrder("fate is destroyed or surrendered", rule="12.3.9.4", field="fate")
    return {"leader": leader, "corps": corps, "intercept": bool(order.get("intercept")),
            "withdraw": bool(order.get("withdraw")), "fate": str(order.get("fate", "destroyed"))}


def collect(state: EiaState, sealed: Mapping[str, list[Mapping] | None], check_kind) -> None:
    mover = command.commander(state, state.phasing)
    plan: dict = {"stage": "roll", "moves": [], "policies": {}, "voided": []}

    def take(player: str, order: Mapping) -> None:
        if player == mover:
            check(state, player, [order])
            plan["moves"].append(dict(order))
        else:
            plan["policies"].setdefault(player, []).append(_policy(state, player, order))

    collect_each(sealed, check_kind, take, plan["voided"])
    state.plan = plan


def run(state: EiaState, dice) -> None:
    """The moves in order, each reaction by policy; then the battles (combat.py)."""
    from . import combat

    plan = state.plan
    for index, order in enumerate(plan["moves"], 1):
        try:
            (land.move if order["kind"] == "move" else overrun.overrun)(state, order)
        except IllegalOrder as exc:
            plan["voided"].append(voided(command.commander(state, state.phasing) or "", index, exc.rule, exc.message))
            continue
        _react_by_policy(state, dice)
        _choose_fates(state)
    state.land_log.append({"event": "plan", "voided": plan["voided"]})
    state.plan = {}
    combat.open_battles(state)


def _react_by_policy(state: EiaState, dice) -> None:
    tried: set[tuple[str, str]] = set()
    stop = ""
    while state.movement:
        if state.movement["area"] != stop:
            stop, tried = state.movement["area"], set()
        player = reactions.reactors(state)[0]
        for policy in state.plan["policies"].get(player, []):
            key = (stop, policy["leader"] or policy["corps"])
            order = None if key in tried else _order_for(state, policy)
            if order is not None:
                tried.add(key)
                try:
                    reactions.attempt_now(state, player, order, dice)
                    break
                except IllegalOrder:
                    continue
        else:
            reactions.decline(state, player, whole_phase=False)


def _order_for(state: EiaState, policy: dict) -> dict | None:
    """The react order a policy gives at this stop, or None."""
    entered = state.movement["area"]
    unit = state.leaders.get(policy["leader"]) or state.corps.get(policy["corps"])
    if unit is None or unit.area is None:
        return None
    power, area = unit.power, unit.area
    corps = ([n for n, u in sorted(state.corps.items()) if u.power == power and u.area == area and land.is_corps(u)]
             if policy["leader"] else [policy["corps"]])
    base = {"kind": "react", "corps": corps, **({"leader": policy["leader"]} if policy["leader"] else {})}
    if area == entered and policy["withdraw"]:
        refuges = reactions.nearest_refuges(state, power, entered)
        return {**base, "to": refuges[0]} if refuges else None
    if area != entered and policy["intercept"] and any(a == entered for a, _ in geography.neighbours(area)):
        return {**base, "to": entered}
    return None


def _choose_fates(state: EiaState) -> None:
    """12.3.9.4: each owner's policy says destroyed or surrendered (destroyed unless it says)."""
    while state.overrun:
        player = overrun.owners_to_choose(state)[0]
        fates = [p["fate"] for p in state.plan["policies"].get(player, [])]
        overrun.choose(state, player, {"fate": fates[0] if fates else "destroyed"})
