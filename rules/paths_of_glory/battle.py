"""The sequence of one combat after its designation (base 12.2.1 steps 8-12): fire, losses, the
winner, retreat and advance. Each step either needs a player's choice (the ruleset asks the
side named by `combat["deciding"]`) or happens at once: a side with one legal answer is never
asked (R49)."""

from __future__ import annotations

from . import advance, combat_cards, forts, losses, retreat, war
from . import combat as fire
from .state import PogState, enemy


def side_of(combat: dict, role: str) -> str:
    return combat["side"] if role == "attacker" else enemy(combat["side"])


def roll(state: PogState, combat: dict, dice) -> list[dict]:
    """The dice of this roll point: the flank die and first fire, the second fire, or both fires."""
    sequential = "pinning" in combat or combat_cards.has(combat, "fire_first", "attacker")
    if "pinning" in combat and "flank" not in combat:
        first = "attacker" if fire.roll_flank(state, combat, dice) else "defender"
        combat["fire_order"] = [first, fire.enemy_role(first)]
    elif sequential:
        combat["fire_order"] = ["attacker", "defender"]  # a card lets the attacker fire first
    order = combat.get("fire_order", ["attacker", "defender"])
    if not sequential:
        for who in order:
            fire.roll_fire(state, combat, who, dice)
        combat["losses_due"] = ["defender", "attacker"]  # base 12.2.10: the defender first
        return advance_steps(state, combat)
    _second_fire(state, combat, dice)
    return advance_steps(state, combat, dice)


def _second_fire(state: PogState, combat: dict, dice) -> None:
    """The next side of a sequential combat fires (base 12.3.3)."""
    who = next(w for w in combat["fire_order"] if f"{w}_fire" not in combat)
    fire.roll_fire(state, combat, who, dice)
    combat["losses_due"] = [fire.enemy_role(who)]


def advance_steps(state: PogState, combat: dict, dice=None) -> list[dict]:
    """Carry the combat on until a player must choose or a die must be drawn. With `dice` (still
    at the roll point of the first fire, nobody having chosen since), the second side of a
    sequential combat fires at once: only a choice made in between needs a later roll point."""
    events: list[dict] = []
    while True:
        if combat.get("losses_due"):
            role = combat["losses_due"][0]
            answers = _legal(state, combat, role)
            if len(answers) > 1:
                return _ask(combat, "losses", role, events)
            events += take_losses(state, combat, role, answers[0])
            continue
        if not all(f"{w}_fire" in combat for w in ("attacker", "defender")):
            if dice is None:
                combat["step"] = "fire"  # the second fire of a sequential combat: a later roll point
                return events
            _second_fire(state, combat, dice)
            continue
        if "winner" not in combat:
            events += _judge(state, combat)
            continue
        if combat["must_retreat"] and retreat.to_retreat(state, combat):
            events += retreat.forced_out(state, combat)
            if not retreat.may_stand(state, combat):  # 12.5.3 before 12.5.4: standing may save the trapped
                events += retreat.trapped(state, combat)
            if retreat.to_retreat(state, combat):
                return _ask(combat, "retreat", "defender", events)
            continue
        if advance.may_advance(state, combat):  # base 12.2.13: the defenders retreated or are gone
            return _ask(combat, "advance", "attacker", events)
        return events + finish(state, combat)


def _ask(combat: dict, step: str, role: str, events: list[dict]) -> list[dict]:
    combat["step"], combat["deciding"] = step, role
    return events


def _units(state: PogState, combat: dict, role: str) -> list[str]:
    return fire.firing(state, combat, role)


def _oos(combat: dict, role: str) -> list[str]:
    return combat.get("losses_first", {}).get(role, [])


def _legal(state: PogState, combat: dict, role: str) -> list[losses.Outcome]:
    number = combat[f"{fire.enemy_role(role)}_fire"]["loss_number"]
    return losses.legal(state, _units(state, combat, role), number, role, _oos(combat, role))


def take_losses(state: PogState, combat: dict, role: str, outcome: losses.Outcome) -> list[dict]:
    """Apply one side's losses (base 12.4), then the defender's earlier retreaters (12.5.6) and
    the fort (12.4.6, 15.1.7)."""
    number = combat[f"{fire.enemy_role(role)}_fire"]["loss_number"]
    events = losses.apply(state, outcome, _oos(combat, role))
    combat.setdefault("replacements", {}).update(outcome.replacements)
    combat["defenders" if role == "defender" else "attackers"] += list(outcome.replacements.values())
    if role == "attacker":  # base 12.1.6: a corps that replaced an attacking army attacks no more this action
        state.action.setdefault("attacked_units", []).extend(outcome.replacements.values())
    combat["log"].append(f"{role} losses ({number}): {losses.summary(outcome)}")
    if role == "defender":
        events += _defender_extras(state, combat, number - outcome.total)
    combat["losses_due"].pop(0)
    return events


def check_losses(state: PogState, combat: dict, steps: list) -> losses.Outcome:
    role = combat["deciding"]
    number = combat[f"{fire.enemy_role(role)}_fire"]["loss_number"]
    return losses.check(state, _units(state, combat, role), number, role, steps, _oos(combat, role))


def _defender_extras(state: PogState, combat: dict, left: int) -> list[dict]:
    events = []
    space = combat["space"]
    number = combat["attacker_fire"]["loss_number"]
    stale = [u for u in combat["defenders"] if state.units[u].space == space and u in state.retreated]
    if number >= 1:
        for unit in stale:  # base 12.5.6: eliminated, counting for nothing, never replaced
            events.append(losses.eliminate(state, unit, rule="base 12.5.6"))
    standing = [u for u in combat["defenders"] if state.units[u].space == space]
    if forts.enemy_fort(state, combat["side"], space) and losses.fort_hit(
            state, left, bool(standing), forts.fort_lf(state, space)):
        combat["fort_hit"] = True  # base 12.4.6; takes effect as 15.1.7.1 says
        combat["log"].append("the fort takes a step loss")
    return events


def _judge(state: PogState, combat: dict) -> list[dict]:
    """base 12.2.11-12.2.12, 12.5.1: the winner, and whether the defenders must retreat."""
    inflicted, suffered = combat["attacker_fire"]["loss_number"], combat["defender_fire"]["loss_number"]
    combat["winner"] = "attacker" if inflicted > suffered else "defender" if suffered > inflicted else "none"
    stand_ins = set(combat.get("replacements", {}).values())
    full = any(state.units[u].space in state.map.index and not state.units[u].reduced
               for u in combat["attackers"] if u not in stand_ins)
    combat["must_retreat"] = combat["winner"] == "attacker" and full
    combat_cards.settle(combat)
    combat["must_retreat"] = combat["must_retreat"] and bool(retreat.to_retreat(state, combat))
    combat["log"].append(f"winner: {combat['winner']}" + (f"; the defenders retreat {retreat.length(combat)} "
                                                          "space(s)" if combat["must_retreat"] else ""))
    return []


def finish(state: PogState, combat: dict) -> list[dict]:
    """The combat is over: a fort hit with besiegers surviving in its space is destroyed
    (15.1.7.1); sieges are judged again; the record joins the turn's combats."""
    events: list[dict] = []
    space = combat["space"]
    if combat.get("fort_hit") and any(state.units[u].space == space for u in combat["attackers"]):
        events += forts.destroy_fort(state, space, "15.1.7.1")
    if not any(state.units[u].space == space for u in combat.get("advanced", [])):
        for effect in combat_cards.effects(combat, "attacker"):
            if effect["kind"] == "vp_if_no_advance":  # e.g. Peace Offensive: the price of no advance
                events += war.add_vp(state, effect["value"], effect["card"], "no advance into the space")
    for where in dict.fromkeys([space, *combat["attack_spaces"]]):
        events += forts.update_siege(state, where)
    combat["step"] = "done"
    combat.pop("deciding", None)
    state.combats.append(combat)
    return events
