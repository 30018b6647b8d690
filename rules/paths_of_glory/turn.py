"""The turn around the actions (base 6; 7.1, 8.1.5-8.1.7, 16.1.2): what happens at the end of each
action and of each turn, and the game's result.

An action's activity is followed by the supply step (8.1.5, 14.3.5), the draw step once hands are
dealt (8.1.6, draws.py) and the War Commitment Level step (16.1.2, 8.1.7); a level that brings in
new cards shuffles them in at the roll point of the entry that raised it (16.1.3-16.1.4, R99).
Each action closes with the die of an additional action if a card was discarded for one (8.2.2,
additional.py); the last round with the first side's chance of one more (8.2.4). After the last
action of a turn come the RP events of R76, the mandated actions (R103, mandated.py), the War
Status Phase (base 6 E: VP table, MO penalty, automatic victory, armistice, the last turn;
victory.py); the next turn's Mandated Offensive Phase (7.1.1) is rolled at the roll point of the
entry that ends the turn, and the Allies may then discard to act first (8.2.1).
The first turn's is rolled at the roll point of an `offensives` entry of the first player, since
no earlier entry exists to carry it (R81).

VP for control (5.1.2, R80) follow the position: after every order the VP spaces held against
their starting owner are counted again and the VP level moves by the difference.
"""

from __future__ import annotations

from collections.abc import Mapping

from . import additional, card_zones, draws, events, hands, mandated, offensives, supply, victory, war
from .state import RESULT, PogState, enemy, next_step, result


def _record(state: PogState, happened: list[dict]) -> None:
    line = victory.game_result(happened)
    if line and result(state) is None:
        state.events.add(RESULT + line)


def sync_control_vp(state: PogState) -> None:
    """5.1.2 (R80): the VP level follows the VP spaces each side holds against the start; the CP
    Russian VP and the boxes follow too (16.3, 16.4)."""
    pog = state.map
    held = 0
    for space, owner in state.start.control.items():
        now = state.control.get(space, owner)
        value = pog.vp[pog.index[space]] if space in pog.index else 0
        if value and now != owner:
            held += value if now == "cp" else -value
    moved = held - war.track(state, "vp_control")
    if moved:
        state.tracks["vp"] = war.track(state, "vp") + moved
        state.tracks["vp_control"] = held
    war.update_boxes(state)


def after_activity(state: PogState, default_first: str) -> None:
    """8.1.5 the supply step, then 8.1.6 the draw step if the side has one to take."""
    supply.oos_step(state)
    if not draws.open_step(state):
        end_action(state, default_first)


def end_action(state: PogState, default_first: str) -> None:
    """8.1.7, 16.1.2: the War Commitment Level step; new decks wait for the roll point that
    shuffles them in (16.1.3-16.1.4); then the action closes."""
    sync_control_vp(state)  # the action's changes of control count for 8.1.7 and the end checks
    war.end_of_action(state, state.active, victory.scenario_kind(state))
    if hands.decks_due(state):
        next_step(state, kind="reshuffle")
        return
    close_action(state, default_first)


def shuffle_in_decks(state: PogState, private, owners: dict[str, str], default_first: str) -> None:
    """16.1.3-16.1.4 at the roll point: each new deck into its side's pile with the discards."""
    for side in hands.decks_due(state):
        draws.shuffle_in(state, side, private, owners.get(side, side))
    close_action(state, default_first)


def close_action(state: PogState, default_first: str) -> None:
    """base 5.4.1; the die for an additional action (8.2.2.1), at the roll point of this entry;
    then 8.2.3."""
    events.lapse_after_action(state, state.active)
    sync_control_vp(state)
    _record(state, victory.end_after_action(state, victory.scenario_kind(state)))
    closing = {"closing": True} if state.action.get("closing") else {}
    extra, mandated = state.action.get("extra"), state.action.get("mandated")
    state.action = {}
    if result(state) is not None:
        return  # base 5.4.1: the game ended with this action
    if mandated:
        _mandated_actions(state, default_first, done=state.active)
    elif extra:
        state.action = {"kind": "extra_roll", **closing}
    else:
        next_action(state, default_first, bool(closing))


def roll_extra(state: PogState, dice, default_first: str) -> None:
    """8.2.2.1: on 1-2 the side takes an additional action in the round."""
    closing = {"closing": True} if state.action.get("closing") else {}
    state.action = {}
    if additional.roll_extra(state, dice):
        state.action = {"additional": True, **closing}
        return
    next_action(state, default_first, bool(closing))


def roll_last(state: PogState, dice, default_first: str) -> None:
    """8.2.4.1: on 1-2 the first side takes one more, regular action; then the turn ends."""
    state.action = {}
    if additional.roll_last(state, dice):
        state.action = {"closing": True}
        return
    _end_round(state, default_first, last=True)


def chart_action(state: PogState, kind: str, order: Mapping) -> None:
    """8.1.8: the action the active side takes goes on its Action Chart (public): a card played as
    OPS, SR or RP or for its event; the automatic OPS 1, SR 1 or RP 1; an economic, political or
    pass action; a mandated economic action."""
    card = "" if order.get("card") else " 1"
    name = {"activate": f"OPS{card}", "sr": f"SR{card}", "rp": f"RP{card}"}.get(kind, kind.replace("_", " "))
    state.chart.setdefault(state.active, []).append(name)


def next_action(state: PogState, default_first: str, closing: bool = False) -> None:
    """8.2.3: the other side acts, or the round ends (after the last one, with the first side's
    chance of 8.2.4), or, after the extra action of 8.2.4, the turn."""
    first = additional.first_side(state, default_first)
    if closing:
        _end_round(state, default_first, last=True)
    elif state.active == first:
        state.active = enemy(first)
    elif state.round < war.rounds_per_turn(state) or not additional.offer_last(state, first):
        _end_round(state, default_first)


def pass_last(state: PogState, default_first: str) -> None:
    """8.2.4: the first side declines the extra action."""
    state.action = {}
    _end_round(state, default_first, last=True)


def _end_round(state: PogState, default_first: str, last: bool = False) -> None:
    """The round ends; after the last one (or the extra action of 8.2.4, `last`, even if a level
    raised at its end added a round, R102) the turn's end: the RP events of R76, the Mandated
    Political Action with its supply step, then the mandated economic actions (R103)."""
    from . import replacements

    state.active = additional.first_side(state, default_first)
    state.round += 1
    state.retreated = set()  # base 12.1.2, 12.5.6 count retreats within a round
    card_zones.end_round(state)
    events.expire(state, "round")
    if last or state.round > war.rounds_per_turn(state):  # R41
        state.round -= 1  # the turn's end belongs to its last round
        replacements.turn_end(state)
        mandated.political(state)
        supply.oos_step(state)
        sync_control_vp(state)
        _mandated_actions(state, default_first, done=None)


def _mandated_actions(state: PogState, default_first: str, done: str | None) -> None:
    """R103: after the last round each side, the first side first, takes its Mandated Economic
    Action when it has RPs to spend or forts to roll for; then the War Status Phase."""
    first = additional.first_side(state, default_first)
    sides = [first, enemy(first)]
    for side in sides[sides.index(done) + 1:] if done else sides:
        if mandated.economic_due(state, side):
            state.active = side
            mandated.open_economic(state, side)
            return
    _end_turn(state, default_first)


def _end_turn(state: PogState, default_first: str) -> None:
    """base 6 E, R78; then the next turn opens with its Mandated Offensive Phase (7.1.1)."""
    sync_control_vp(state)
    scenario = victory.scenario_kind(state)
    _record(state, victory.war_status_phase(state, None, scenario))
    if result(state) is not None:
        return  # base 6 H: the turn marker stays where the war ended
    card_zones.end_turn(state, mandated.front_discard())
    events.expire(state, "turn")
    state.events.discard(additional.ALLIES_FIRST)
    state.active = default_first
    state.round = 1
    state.turn += 1
    state.combats = []  # the record kept is the turn's
    state.chart = {}  # 8.1.8: the Action Chart is the turn's too
    state.mo = {}
    if result(state) is None:
        state.action = {"kind": "offensive_roll"}


def roll_offensives(state: PogState, dice) -> None:
    """7.1.1: both sides' MO, at the roll point of the entry that opened the turn's phase; then the
    Allies' chance to act first (8.2.1)."""
    offensives.roll_offensives(state, dice)
    state.action = {}
    additional.offer_initiative(state)
