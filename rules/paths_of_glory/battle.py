"""The sequence of one combat after its designation (base 12.2.1 steps 4-12): the flank die, the
card steps (R87), fire, losses, the winner (with Withdrawal, 12.6), retreat and advance. Each step
either needs a player's choice (the ruleset asks the side named by `combat["deciding"]`) or
happens at once: a side with one legal answer is never asked (R49)."""

from __future__ import annotations

from pbem.errors import IllegalOrder

from . import advance, card_zones, combat_cards, forts, hands, losses, retreat, war, withdrawal
from . import combat as fire
from .state import PogState, enemy

ROLES = ("attacker", "defender")


def side_of(combat: dict, role: str) -> str:
    return combat["side"] if role == "attacker" else enemy(combat["side"])


def begin(state: PogState, combat: dict) -> list[dict]:
    """After the designation (steps 1-3): the flank die (step 4) at the next roll point, or the
    defender's card step (step 5; the attacker named his cards with the attack)."""
    if "pinning" in combat:
        if [name for name in combat_cards.usable(state, combat, "defender") if name in combat_cards.markers()]:
            combat["announce_only"] = True  # R88: Great Retreat is announced before any die
            return _ask(combat, "cards", "defender", [])
        combat["step"] = "flank"
        return []
    combat["card_steps"] = ["defender"]
    return next_card_step(state, combat)


def next_card_step(state: PogState, combat: dict, dice=None) -> list[dict]:
    """base 12.2.6 (R87): each side still to play cards, the attacker first, is asked whenever a
    card of its side could apply; then the fire dice, at once if `dice` (nobody chose since)."""
    while combat.get("card_steps"):
        role = combat["card_steps"].pop(0)
        if combat_cards.usable(state, combat, role):
            return _ask(combat, "cards", role, [])
    combat.pop("card_steps", None)
    combat["step"] = "fire"
    return roll(state, combat, dice) if dice is not None else []


def play_cards(state: PogState, combat: dict, names: list, front: list) -> list[dict]:
    """The deciding side's cards at its card step (base 12.2.6); Alberich ends the combat."""
    role = combat["deciding"]
    chosen = combat_cards.commit(state, combat, role, names, front)
    announcing = combat.pop("announce_only", False)
    if chosen:
        combat["log"].append(f"{role} plays {', '.join(chosen)}")
    if combat_cards.has(combat, "cancel_attack", "defender"):
        return _cancelled(state, combat)
    if combat_cards.has(combat, "retreat_before_combat", "defender"):
        return _retreat_before_combat(state, combat)
    if announcing:
        combat["step"] = "flank"
        return []
    return next_card_step(state, combat)


def _cancelled(state: PogState, combat: dict) -> list[dict]:
    """CP card Alberich (R87): no fire; the attacker's cards count as not played."""
    _unplay(state, combat, "the attack is cancelled")
    combat["cancelled"] = True
    combat_cards.settle(state, combat)
    return finish(state, combat)


def _retreat_before_combat(state: PogState, combat: dict) -> list[dict]:
    """AP card 27, Great Retreat (R88): no combat; the defenders retreat one space, and the
    attacker's full-strength units may advance."""
    _unplay(state, combat, "the defenders retreat before combat")
    combat.update(retreat_before_combat=True, winner="none", must_retreat=bool(retreat.to_retreat(state, combat)))
    combat_cards.settle(state, combat)
    combat.pop("card_steps", None)
    return advance_steps(state, combat)


def _unplay(state: PogState, combat: dict, what: str) -> None:
    """No fire takes place: the attacker's cards count as not played (free for another combat)."""
    unplayed = combat["cards"].pop("attacker", [])
    for name in unplayed:
        card_zones.unuse(state, name)
    hands.leave_hand(state, combat["side"], -len(combat.get("from_hand", {}).pop("attacker", [])))
    combat["log"].append(what + (f"; {', '.join(unplayed)} count as not played" if unplayed else ""))


def roll(state: PogState, combat: dict, dice) -> list[dict]:
    """The dice of this roll point: the flank die, the fire of both sides, or (sequential fire,
    base 12.3.3) the next side's fire."""
    if combat["step"] == "flank":
        first = "attacker" if fire.roll_flank(state, combat, dice) else "defender"
        combat["fire_order"] = [first, fire.enemy_role(first)]
        combat["card_steps"] = ["attacker", "defender"]
        return next_card_step(state, combat, dice)
    if not any(f"{w}_fire" in combat for w in ROLES) and combat_cards.has(combat, "fire_first", "attacker"):
        combat["fire_order"] = ["attacker", "defender"]  # the card wins over a failed flank attempt
    if "fire_order" not in combat:
        for who in ROLES:
            fire.roll_fire(state, combat, who, dice)
        combat["losses_due"] = ["defender", "attacker"]  # base 12.2.10: the defender first
        return advance_steps(state, combat)
    _next_fire(state, combat, dice)
    return advance_steps(state, combat, dice)



def _next_fire(state: PogState, combat: dict, dice) -> None:
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
            answers = legal_losses(state, combat, role)
            if len(answers) > 1:
                return _ask(combat, "losses", role, events)
            events += take_losses(state, combat, role, answers[0])
            continue
        if "winner" not in combat and not all(f"{w}_fire" in combat for w in ROLES):
            if dice is None:
                combat["step"] = "fire"  # the second fire of a sequential combat: a later roll point
                return events
            _next_fire(state, combat, dice)
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


def legal_losses(state: PogState, combat: dict, role: str) -> list[losses.Outcome]:
    number = combat[f"{fire.enemy_role(role)}_fire"]["loss_number"]
    answers = losses.legal(state, _units(state, combat, role), number, role, _oos(combat, role))
    if role == "defender" and combat_cards.has(combat, "withdrawal", "defender"):
        answers = withdrawal.through_corps(state, answers)  # base 12.6.9
    return answers


def take_losses(state: PogState, combat: dict, role: str, outcome: losses.Outcome) -> list[dict]:
    """Apply one side's losses (base 12.4), then the defender's earlier retreaters (12.5.6) and
    the fort (12.4.6, 15.1.7)."""
    number = combat[f"{fire.enemy_role(role)}_fire"]["loss_number"]
    events = losses.apply(state, outcome, _oos(combat, role))
    combat.setdefault("taken", {})[role] = {"targets": list(outcome.targets), "eliminated": list(outcome.eliminated)}
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
    outcome = losses.check(state, _units(state, combat, role), number, role, steps, _oos(combat, role))
    if outcome.key() not in {answer.key() for answer in legal_losses(state, combat, role)}:
        raise IllegalOrder("with Withdrawal the losses are taken from corps where the loss number allows",
                           rule="base 12.6.9", field="steps")
    return outcome


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
    """base 12.2.11-12.2.12, 12.5.1, 12.6: the winner, and whether the defenders must retreat."""
    inflicted, suffered = combat["attacker_fire"]["loss_number"], combat["defender_fire"]["loss_number"]
    combat["winner"] = "attacker" if inflicted > suffered else "defender" if suffered > inflicted else "none"
    stand_ins = set(combat.get("replacements", {}).values())
    full = any(state.units[u].space in state.map.index and not state.units[u].reduced
               for u in combat["attackers"] if u not in stand_ins)
    combat["must_retreat"] = combat["winner"] == "attacker" and full
    events = []
    if combat_cards.has(combat, "withdrawal", "defender"):
        events += withdrawal.negate_step(state, combat)
    _cancel_retreat(combat)
    combat_cards.settle(state, combat)
    combat["must_retreat"] = combat["must_retreat"] and bool(retreat.to_retreat(state, combat))
    combat["log"].append(f"winner: {combat['winner']}" + (f"; the defenders retreat {retreat.length(combat)} "
                                                          "space(s)" if combat["must_retreat"] else ""))
    return events


def _cancel_retreat(combat: dict) -> None:
    """They Shall Not Pass cancels the retreat for losing; Backs to the Wall and Haig any one
    retreat; none cancels the retreat Withdrawal asks (12.6.4-12.6.5)."""
    for effect in combat_cards.effects(combat, "defender"):
        if effect["kind"] == "cancel_retreat" and combat["must_retreat"] and (
                effect["which"] == "any" or combat["winner"] == "attacker") and not combat.get("withdrawal"):
            combat["must_retreat"] = False
            combat["log"].append(f"{effect['card']} cancels the retreat")


def finish(state: PogState, combat: dict) -> list[dict]:
    """The combat is over: a fort hit with besiegers surviving in its space is destroyed
    (15.1.7.1); sieges are judged again; the record joins the turn's combats."""
    events: list[dict] = []
    space = combat["space"]
    if combat.get("fort_hit") and any(state.units[u].space == space for u in combat["attackers"]):
        events += forts.destroy_fort(state, space, "15.1.7.1")
    if not combat.get("entered"):  # an advance that went on past the space still entered it
        for effect in combat_cards.effects(combat, "attacker"):
            if effect["kind"] == "vp_if_no_advance":  # e.g. Peace Offensive: the price of no advance
                events += war.add_vp(state, effect["value"], effect["card"], "no advance into the space")
    for where in dict.fromkeys([space, *combat["attack_spaces"]]):
        events += forts.update_siege(state, where)
    combat["step"] = "done"
    combat.pop("deciding", None)
    state.combats.append(combat)
    return events
