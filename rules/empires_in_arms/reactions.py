"""Reaction moves (seed 003, 12.3.7.4): when a phasing corps enters an area, the non-phasing
leaders at war with it may try to intercept it from an adjacent area (12.3.7.4.1) or to withdraw
from the area it entered (12.3.7.4.2); cavalry corps alone there withdraw at will from infantry,
on a die from cavalry (12.3.7.4.2.1). Each player able to react is asked in roster order
(RULINGS E15); he signs `react` (once for each attempt) or `decline`, or `no_reactions` for the
rest of the phase. A reaction's die comes at the roll point of his entry; one certain to succeed
or to fail needs none."""

from __future__ import annotations

from collections.abc import Mapping

from pbem.errors import IllegalOrder

from . import command, geography, units
from .land import after_reactions, check_militia, crossing, enemy_corps_in, is_corps, reacts_as_cavalry
from .state import Corps, EiaState

RULE = "12.3.7.4"
CAVALRY_RATING = 4  # 12.3.7.4.2.1: cavalry entered only by cavalry withdraw on 4 or less


# ---------------------------------------------------------------------------------- who may react

def commanding(state: EiaState, power: str, area: str) -> str | None:
    """10.6.1, 12.3.7.4.5: the one leader of the power who may react from the area."""
    present = [name for name, leader in state.leaders.items() if leader.power == power and leader.area == area]
    return min(present, key=units.seniority) if present else None


def free_to_react(unit: Corps, name: str, leader: str | None) -> bool:
    """12.3.7.4.5, 12.3.7.4.7: a corps reacts again only with the leader it reacted with (or alone
    again, if it reacted alone), and never after failing a reaction of its own."""
    return not unit.spent and unit.reacted_with in ("", leader or name)


def _fresh_corps(state: EiaState, power: str, area: str, leader: str | None) -> list[str]:
    return [name for name, unit in state.corps.items() if unit.power == power and unit.area == area
            and is_corps(unit) and free_to_react(unit, name, leader)]


def _ready(state: EiaState, power: str, area: str) -> bool:
    leader = commanding(state, power, area)
    return bool(leader and not (state.leaders[leader].failed or state.leaders[leader].done)
                and _fresh_corps(state, power, area, leader))


def _cavalry_alone(state: EiaState, power: str, area: str) -> bool:
    """12.3.7.4.2.1: the power's corps there are all cavalry (the Light Infantry counts), at least one."""
    present = [u for u in state.corps.values() if u.power == power and u.area == area and is_corps(u)]
    return bool(present) and all(reacts_as_cavalry(u) for u in present)


def _alone_ready(state: EiaState, power: str, area: str) -> bool:
    """12.3.7.4.7: under option 12.3.7.1 a corps without a leader reacts by itself."""
    option = bool(state.setup.options.get("leaderless_reactions"))
    return option and commanding(state, power, area) is None and bool(_fresh_corps(state, power, area, None))


def can_react(state: EiaState, power: str) -> bool:
    """Whether the power has a reaction at the area the move just entered."""
    entered = state.movement["area"]
    if _ready(state, power, entered) or _alone_ready(state, power, entered):
        return True
    if _cavalry_alone(state, power, entered) and _fresh_corps(state, power, entered, None):
        return True
    return any((_ready(state, power, area) or _alone_ready(state, power, area))
               and not enemy_corps_in(state, area, power) for area, _ in geography.neighbours(entered))


def reactors(state: EiaState) -> list[str]:
    """The players still to answer at this stop, in roster order (E15)."""
    if not state.movement:
        return []
    foes = command.enemies(state, state.phasing)
    mover = command.commander(state, state.phasing)
    return [player for player in state.setup.players
            if player != mover and player not in state.waived and player not in state.movement["declined"]
            and any(can_react(state, power) for power in command.commanded(state, player) if power in foes)]


# ---------------------------------------------------------------------------------- an attempt

def check(state: EiaState, player: str, order: Mapping) -> dict:
    """The reaction this order attempts, with its rating; IllegalOrder naming the rule otherwise."""
    entered = state.movement["area"]
    names = [str(n) for n in order["corps"]]
    power, area = _their_power_and_area(state, player, names)
    if power not in command.enemies(state, state.phasing):
        raise IllegalOrder(f"{power} is not at war with {state.phasing}", rule=RULE, field="corps")
    to = geography.area_in_order(str(order["to"]), RULE, "to")
    leader = _leader(state, power, area, order.get("leader"))
    for name in names:
        if not free_to_react(state.corps[name], name, leader):
            raise IllegalOrder(f"{name} reacted with {state.corps[name].reacted_with} this phase: not with another",
                               rule="12.3.7.4.5", field="corps")
    company = _company(state, power, area, leader, order.get("leaders", []))
    for name in names:
        check_militia(state, name, state.corps[name], [to])
    if area != entered:
        found = _interception(state, power, area, to, leader, names)
    else:
        found = _withdrawal(state, power, to, leader, names)
    return {**found, "player": player, "power": power, "from": area, "to": to, "leader": leader,
            "leaders": company, "corps": names}


def _their_power_and_area(state: EiaState, player: str, names: list[str]) -> tuple[str, str]:
    if not names:
        raise IllegalOrder("name the corps that react: corps=...", rule=RULE, field="corps")
    for name in names:
        unit = state.corps.get(name)
        if unit is None or unit.power not in command.commanded(state, player):
            raise IllegalOrder(f"{player} commands no corps {name!r}", rule=RULE, field="corps")
        if units.kind(unit.kind).get("garrison"):
            raise IllegalOrder(f"{name} is a garrison: depot and city garrisons never react", rule="12.3.7.4.2",
                               field="corps")
        if unit.spent:
            raise IllegalOrder(f"{name} reacts no more this phase: it failed a reaction of its own, or ended one "
                               "among enemy corps", rule="12.3.7.4.7", field="corps")
    first = state.corps[names[0]]
    if any((state.corps[n].power, state.corps[n].area) != (first.power, first.area) for n in names):
        raise IllegalOrder("the corps of one reaction are one power's, in one area", rule=RULE, field="corps")
    if not any(is_corps(state.corps[n]) for n in names):
        raise IllegalOrder("freikorps and cossacks react only beside a corps", rule="12.3.7.4.3", field="corps")
    return first.power, first.area


def _leader(state: EiaState, power: str, area: str, named) -> str | None:
    if named is None:
        return None
    named = str(named)
    facts = state.leaders.get(named)
    if facts is None or facts.power != power or facts.area != area:
        raise IllegalOrder(f"{named} is not a {power} leader in {area}", rule=RULE, field="leader")
    if commanding(state, power, area) != named:
        raise IllegalOrder(f"only {commanding(state, power, area)}, commanding in {area}, may react",
                           rule="12.3.7.4.5", field="leader")
    if facts.failed or facts.done:
        why = "failed a reaction roll" if facts.failed else "reacted into an area with enemy corps"
        raise IllegalOrder(f"{named} {why} this phase", rule="12.3.7.4.4", field="leader")
    return named


def _company(state: EiaState, power: str, area: str, leader: str | None, named) -> list[str]:
    """12.3.7.4.3: other leaders may go with a reacting leader."""
    for name in named:
        facts = state.leaders.get(str(name))
        if leader is None or facts is None or facts.power != power or facts.area != area or name == leader:
            raise IllegalOrder(f"{name} is not another {power} leader going with the reacting one", rule="12.3.7.4.3",
                               field="leaders")
    return [str(n) for n in named]


def _rating(state: EiaState, power: str, area: str, leader: str | None, names: list[str]) -> int:
    """12.3.7.4.6: the leader's strategic rating less the reduction for the corps present; a corps
    alone its own (12.3.7.4.7)."""
    if leader is None:
        return int(units.kind(state.corps[names[0]].kind)["strategic"])
    facts = units.leader(leader)
    present = sum(1 for u in state.corps.values() if u.power == power and u.area == area and is_corps(u))
    return units.reduced(state.setup.tables, int(facts["strategic"]), int(facts["capacity"]), present)


def _interception(state, power, area, to, leader, names) -> dict:
    """12.3.7.4.1: into the area just entered, from an adjacent one free of enemy corps."""
    entered = state.movement["area"]
    if to != entered:
        raise IllegalOrder(f"an interception moves into {entered}, the area just entered", rule="12.3.7.4.1",
                           field="to")
    if crossing(area, entered) is None:
        raise IllegalOrder(f"{area} does not border {entered}", rule="12.3.7.4.1", field="corps")
    if enemy_corps_in(state, area, power):
        raise IllegalOrder(f"enemy corps already occupy {area}", rule="12.3.7.4.1", field="corps")
    _needs_leader(state, leader, names, "12.3.7.4.1")
    modifiers = {}
    if geography.areas()[entered]["terrain"] == "mountain" or crossing(area, entered) == "river":
        modifiers["into mountains or across a river"] = -1
    if any(u.area == entered and is_corps(u) and reacts_as_cavalry(u) and u.power in {power} | state.allies_of(power)
           for u in state.corps.values()):
        modifiers["friendly cavalry there"] = 1
    return {"kind": "interception", "rating": _rating(state, power, area, leader, names),
            "modifiers": modifiers}


def _withdrawal(state, power, to, leader, names) -> dict:
    """12.3.7.4.2, 12.3.7.4.2.1: out of the area just entered, into an adjacent one."""
    entered = state.movement["area"]
    if crossing(entered, to) is None:
        raise IllegalOrder(f"{to} does not border {entered}", rule="12.3.7.4.2", field="to")
    if enemy_corps_in(state, to, power):
        raise IllegalOrder(f"{to} holds enemy corps (7.5.2.5.2, E16)", rule="12.3.7.4.2", field="to")
    if _cavalry_alone(state, power, entered):
        return _cavalry(state, power, to, leader, names)
    _needs_leader(state, leader, names, "12.3.7.4.2")
    return {"kind": "withdrawal", "rating": _rating(state, power, entered, leader, names),
            "modifiers": _withdrawal_modifiers(state)}


def _withdrawal_modifiers(state: EiaState) -> dict[str, int]:
    """12.3.7.4.2: +1 if the enemy came from a mountain area or across a river."""
    entered, came_from = state.movement["area"], state.movement["from"]
    if geography.areas()[came_from]["terrain"] == "mountain" or crossing(came_from, entered) == "river":
        return {"the enemy came from mountains or across a river": 1}
    return {}


def _needs_leader(state: EiaState, leader: str | None, names: list[str], rule: str) -> None:
    """A reaction takes the commanding leader, or under option 12.3.7.1 one corps with no leader
    of its power beside it (12.3.7.4.7)."""
    if leader is not None:
        return
    unit = state.corps[names[0]]
    if not state.setup.options.get("leaderless_reactions"):
        raise IllegalOrder("name the commanding leader: leader=... (a corps reacts alone only under option "
                           "leaderless_reactions, 12.3.7.1)", rule=rule, field="leader")
    if len(names) > 1 or commanding(state, unit.power, unit.area) is not None:
        raise IllegalOrder("a corps reacts alone only by itself, with no leader of its power beside it",
                           rule="12.3.7.4.7", field="corps")


def _cavalry(state, power, to, leader, names) -> dict:
    """12.3.7.4.2.1: at will if infantry entered or is there, else 4 or less (or the leader's
    rating, if the owner names him); into the non-enemy area nearest a friendly force."""
    entered = state.movement["area"]
    choices = nearest_refuges(state, power, entered)
    if to not in choices:
        raise IllegalOrder(f"cavalry withdraws to the area nearest a friendly force: {', '.join(choices)}",
                           rule="12.3.7.4.2.1", field="to")
    movers = [state.corps[n] for n in state.movement["units"]]
    infantry = [u for u in movers if is_corps(u) and not reacts_as_cavalry(u)]
    infantry += [state.corps[n] for n in enemy_corps_in(state, entered, power) if not reacts_as_cavalry(state.corps[n])]
    if infantry:
        return {"kind": "cavalry withdrawal", "rating": 6, "modifiers": {}, "automatic": True}
    if leader:  # the owner's choice: the leader's rating, as for any withdrawal (E16)
        return {"kind": "cavalry withdrawal", "rating": _rating(state, power, entered, leader, names),
                "modifiers": _withdrawal_modifiers(state)}
    return {"kind": "cavalry withdrawal", "rating": CAVALRY_RATING, "modifiers": {}}


def nearest_refuges(state: EiaState, power: str, entered: str) -> list[str]:
    """The areas bordering `entered` free of enemy corps, those nearest (by borders) to an area
    with the power's or its allies' forces (E16); all of them if there is none."""
    friends = {power} | state.allies_of(power)
    held = {u.area for u in state.corps.values() if u.power in friends and u.area != entered}
    free = [a for a, _ in geography.neighbours(entered) if not enemy_corps_in(state, a, power)]
    distance = {a: _distance(a, held, entered) for a in free}
    best = min(distance.values(), default=None)
    return sorted(a for a in free if best is None or distance[a] == best)


def _distance(start: str, targets: set[str], avoid: str) -> float:
    """Borders crossed from `start` to the nearest of `targets`, not through `avoid`."""
    seen, frontier, steps = {start, avoid}, [start], 0
    while frontier:
        if any(a in targets for a in frontier):
            return steps
        following = []
        for area in frontier:
            for other, _ in geography.neighbours(area):
                if other not in seen:
                    seen.add(other)
                    following.append(other)
        frontier, steps = following, steps + 1
    return float("inf")


# ---------------------------------------------------------------------------------- carrying it out

def react(state: EiaState, player: str, order: Mapping) -> None:
    attempt = check(state, player, order)
    attempt["needed"] = attempt["rating"] + sum(attempt["modifiers"].values())
    if attempt.get("automatic") or attempt["needed"] >= 6 or attempt["needed"] <= 0:
        _settle(state, attempt, None)  # certain either way: no die
    else:
        state.reaction = attempt


def attempt_now(state: EiaState, player: str, order: Mapping, dice) -> None:
    """A reaction tried and rolled at once, at the roll point under way (planned.py)."""
    attempt = check(state, player, order)
    attempt["needed"] = attempt["rating"] + sum(attempt["modifiers"].values())
    certain = attempt.get("automatic") or attempt["needed"] >= 6 or attempt["needed"] <= 0
    who = attempt["leader"] or attempt["corps"][0]
    _settle(state, attempt, None if certain else dice.roll(6, f"{attempt['kind']} by {who}", _rule(attempt)))


def resolve(state: EiaState, dice) -> None:
    attempt = state.reaction
    who = attempt["leader"] or attempt["corps"][0]
    die = dice.roll(6, f"{attempt['kind']} by {who}", _rule(attempt))
    state.reaction = {}
    _settle(state, attempt, die)


def _rule(attempt: dict) -> str:
    return {"interception": "12.3.7.4.1", "withdrawal": "12.3.7.4.2"}.get(attempt["kind"], "12.3.7.4.2.1")


def _settle(state: EiaState, attempt: dict, die: int | None) -> None:
    success = attempt["needed"] >= die if die is not None else attempt["needed"] > 0
    for name in attempt["corps"]:
        unit = state.corps[name]
        if success:  # 12.3.7.4.5: with this leader only from now on (or alone, 12.3.7.4.7)
            unit.reacted_with, unit.area = attempt["leader"] or name, attempt["to"]
            # 12.3.7.4.4 for its integral leader (12.3.7.4.7): among enemy corps it reacts no more
            unit.spent = attempt["leader"] is None and bool(enemy_corps_in(state, unit.area, unit.power))
        elif attempt["leader"] is None or attempt["kind"] == "cavalry withdrawal":
            unit.spent = True  # 12.3.7.4.7; 12.3.7.4.2.1 and E15: one try, with either rating
    if attempt["leader"]:
        leader = state.leaders[attempt["leader"]]
        leader.failed = not success
        if success:
            for name in [attempt["leader"], *attempt["leaders"]]:
                state.leaders[name].area = attempt["to"]
            leader.done = bool(enemy_corps_in(state, attempt["to"], attempt["power"]))  # 12.3.7.4.4
    if success and attempt["kind"] == "interception":
        state.movement["intercepted"] = True
    state.land_log.append({"event": attempt["kind"], "at": state.movement["area"], **({"die": die} if die else {}),
                           "success": success, **({"automatic": True} if attempt.get("automatic") else {}),
                           **{k: attempt[k] for k in ("player", "power", "leader", "corps", "from", "to", "rating",
                                                      "modifiers", "needed")}})
    if not reactors(state):
        after_reactions(state)


def decline(state: EiaState, player: str, whole_phase: bool) -> None:
    """`decline` passes this opportunity; `no_reactions` the rest of the phase."""
    (state.waived if whole_phase else state.movement["declined"]).append(player)
    if not reactors(state):
        after_reactions(state)
