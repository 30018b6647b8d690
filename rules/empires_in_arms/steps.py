"""Who is asked what, step by step, in the land phase and the peace step, and the orders that
answer: the ruleset's pending, apply, legal and resign read these (RULINGS E9, E13-E29)."""

from __future__ import annotations

from collections.abc import Mapping

from pbem.errors import IllegalOrder
from pbem.ruleset import Chance, Decision

from . import combat, command, land, overrun, peace, planned, reactions, sequence, solitaire
from .state import EiaState

LAND_ORDERS = {"moving": ("move", "overrun", "end_land_phase"), "reacting": ("react", "decline", "no_reactions"),
               "overrun": ("overrun_losses",), "retreat": ("retreat",), "tactics": ("tactic",),
               "solitaire_choice": ("tactic",), "checks": ("tactics_check", "stand")}
LAND_HANDLERS = {
    "move": lambda state, player, order: land.move(state, order),
    "overrun": lambda state, player, order: overrun.overrun(state, order),
    "end_land_phase": lambda state, player, order: combat.open_battles(state),
    "retreat": combat.retreat,
    "tactic": lambda state, player, order: (solitaire.choose if state.battle["stage"] == "solitaire_choice"
                                            else combat.choose)(state, player, order),
    "tactics_check": solitaire.check,
    "stand": solitaire.check,
    "react": reactions.react,
    "decline": lambda state, player, order: reactions.decline(state, player, whole_phase=False),
    "no_reactions": lambda state, player, order: reactions.decline(state, player, whole_phase=True),
    "overrun_losses": overrun.choose,
}


def situation(state: EiaState) -> str:
    if state.battle:
        stage = state.battle["stage"]
        return stage if stage in ("retreat", "solitaire_choice", "checks") else "tactics"
    return "overrun" if state.overrun else "reacting" if state.movement else "moving"


def land_decision(state: EiaState) -> Decision | Chance:
    if state.plan:
        if state.plan["stage"] == "roll":
            return Chance()
        return Decision(planned.members(state), f"turn {state.turn}, {state.phasing}'s land phase (planned reactions): "
                        "the mover seals his moves and overruns, the others a policy for each leader (pbem seal)")
    now = situation(state)
    if now in ("tactics", "retreat", "solitaire_choice", "checks"):
        return battle_decision(state)
    if now == "overrun":
        owner = overrun.owners_to_choose(state)[0]
        return Decision((owner,), f"{state.phasing} overran your units in {state.overrun['area']}: "
                        "overrun_losses fate=destroyed|surrendered (12.3.9.4)")
    if now == "reacting":
        move = state.movement
        reactor = reactions.reactors(state)[0]
        return Decision((reactor,), f"{state.phasing} entered {move['area']} from {move['from']}: react leader=... "
                        "corps=... to=..., decline, or no_reactions (12.3.7.4)")
    mover = command.commander(state, state.phasing)
    return Decision((mover,) if mover else (), f"turn {state.turn}, {state.phasing}'s land phase: move units=... "
                    "path=..., overrun area=..., or end_land_phase")


def peace_order(state: EiaState, player: str, kind: str, order: Mapping) -> None:
    if kind not in ("force_peace", "no_force_peace") or peace.deciding(state) != player:
        raise IllegalOrder(f"{kind} is not open to {player} now: the peace step asks "
                           f"{peace.deciding(state)} (force_peace or no_force_peace)", rule=peace.RULE, field="kind")
    (peace.force if kind == "force_peace" else peace.decline)(state, player, order)
    if not peace.deciding(state) and not state.peace["tries"]:
        sequence.after(state, "peace")


def sealed_battle(state: EiaState) -> bool:
    return bool(state.battle) and state.battle["stage"] == "tactics" and len(combat.choosing(state)) > 1


def battle_decision(state: EiaState) -> Decision | Chance:
    battle = state.battle
    if battle["stage"] == "retreat":
        open_to = combat.refuges(state, battle["area"], battle["powers"][battle["loser"]])
        return Decision((combat.retreating_player(state),), f"the {battle['loser']} lost the battle in "
                        f"{battle['area']}: retreat to=... ({', '.join(open_to)})")
    if battle["stage"] == "solitaire_choice":
        return Decision((battle["players"]["defender"],), f"battle in {battle['area']} (18.1.1): tactic "
                        "option=withdraw, defend or random")
    if battle["stage"] == "checks":
        side = solitaire.to_check(state)
        return Decision((battle["players"][side],), f"battle in {battle['area']}: the {side}'s options stand at "
                        f"{battle['options']}; tactics_check (then=withdraw|reroll) or stand (18.1.3-18.1.5)")
    choosing = combat.choosing(state)
    if battle["stage"] == "tactics" and choosing:
        return Decision(choosing, f"battle in {battle['area']}: {battle['powers']['attacker']} attacks "
                        f"{battle['powers']['defender']}: seal your tactical option (pbem seal 'tactic option=...')")
    return Chance()


def resign_in_land_phase(state: EiaState, player: str) -> None:
    """E9 in a land phase: he reacts no more (an attempt of his waiting for its die is withdrawn),
    a side of his in battle is rolled for, his overrun units are destroyed; if his power was
    moving, its move ends where it stands and its phase ends (its battles still fought)."""
    state.waived.append(player)
    if state.reaction.get("player") == player:
        state.reaction = {}
    if state.plan.get("stage") == "sealing" and len(planned.members(state)) < 2:
        state.plan = {}  # E29: no enemy left to seal a policy, or no mover: the phase goes on without it
    if state.battle:
        combat.resigned(state, player)
    if state.step != "land" or not state.phasing:
        return
    if state.overrun:
        overrun.settle_if_chosen(state)
    if command.commander(state, state.phasing) is None:
        state.movement, state.reaction = {}, {}
    if state.movement and not state.reaction and not reactions.reactors(state):
        land.after_reactions(state)
    advance_if_orphaned(state)


def advance_if_orphaned(state: EiaState) -> None:
    """A phase whose power nobody commands any more (E9) ends once nothing is left open in it."""
    idle = not (state.movement or state.reaction or state.overrun or state.battle)
    if state.step == "land" and state.phasing and idle and command.commander(state, state.phasing) is None:
        combat.open_battles(state)
