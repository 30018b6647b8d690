"""Additional actions (8.2; R102): a card discarded for a die that may give a side one more action.

  8.2.1  from Fall 1914 the Allies may discard a card at the start of each turn (after its
         Mandated Offensive Phase): `initiative card=...`, or `pass`; on 1-2 they act first in
         every round of the turn
  8.2.2  from Fall 1914 a side may discard a card at the start of any of its actions (`extra
         card=...`): at the action's end, on 1-2, it takes an additional action in the round,
         which draws no card (8.2.2.1) and tries for no further one (R102)
  8.2.4  from September 1914 the side acting first in the rounds may discard a card after its
         opponent's last action of the turn (`extra card=...`, or `pass`): on 1-2 it takes one
         more, regular action before the end of the turn (8.2.4.1)
The die is drawn at the roll point of the entry that ends the action or answers the offer. The
turns and the winning faces are data (sequence.toml [additional]).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

from pbem import datafile
from pbem.errors import IllegalOrder

from . import hands
from .state import PogState

ALLIES_FIRST = "allies_first"  # in state.events for a turn the Allies act first in (8.2.1)


@cache
def _facts() -> Mapping:
    return datafile.load(__package__, "sequence.toml")["additional"]


def first_side(state: PogState, default: str) -> str:
    """8.1.2, 8.2.1: the side acting first in every round of this turn."""
    return "ap" if ALLIES_FIRST in state.events else default


def wins(die: int) -> bool:
    return die <= _facts()["success"]


def _discard(state: PogState, side: str, order: Mapping, rule: str) -> None:
    """The card given up for the die goes from the hand to the discard pile."""
    if not order.get("card"):
        raise IllegalOrder("name the card you discard: card=...", rule=rule, field="card")
    hands.play_to_discard(state, side, hands.card_from_hand(state, side, str(order["card"]), rule))


def _has_a_card(state: PogState, side: str) -> bool:
    return hands.dealt(state) and state.hands[side]["hand"] > 0


# ---------------------------------------------------------------------------------- 8.2.1

def offer_initiative(state: PogState) -> None:
    """After the Mandated Offensive Phase: the Allies' choice, if the turn allows it and they hold
    a card."""
    if state.turn >= _facts()["allies_first_from"] and _has_a_card(state, "ap"):
        state.action = {"kind": "initiative"}


def try_initiative(state: PogState, order: Mapping) -> None:
    _discard(state, "ap", order, "8.2.1")
    state.action = {"kind": "initiative_roll"}


def roll_initiative(state: PogState, dice, default_first: str) -> None:
    """8.2.1.1: 1-2, and the Allies act first in every round of the turn."""
    if _roll(dice, "ap", "acting first this turn", "8.2.1.1"):
        state.events.add(ALLIES_FIRST)
    state.active = first_side(state, default_first)
    state.action = {}


# ---------------------------------------------------------------------------------- 8.2.2

def try_extra(state: PogState, side: str, order: Mapping) -> None:
    """`extra card=...` at the start of an action (8.2.2), or after the opponent's last action of
    the turn (8.2.4)."""
    if state.action.get("kind") == "last_extra":
        _discard(state, side, order, "8.2.4")
        state.action = {"kind": "last_roll"}
        return
    if state.turn < _facts()["extra_from"]:
        raise IllegalOrder("a card is discarded for an additional action from Fall 1914 on", rule="8.2.2",
                           field="kind")
    if state.action.get("additional"):
        raise IllegalOrder("an additional action tries for no further one", rule="R102", field="kind")
    if state.action.get("extra"):
        raise IllegalOrder("one card an action is discarded for an additional action", rule="8.2.2", field="kind")
    _discard(state, side, order, "8.2.2")
    state.action["extra"] = True


def roll_extra(state: PogState, dice) -> bool:
    """8.2.2.1: at the end of the action, 1-2 gives an additional one."""
    return _roll(dice, state.active, "an additional action", "8.2.2.1")


# ---------------------------------------------------------------------------------- 8.2.4

def offer_last(state: PogState, first: str) -> bool:
    """After the last action of the turn's last round: the first side's choice, from September
    1914, if it holds a card."""
    if state.turn < _facts()["last_extra_from"] or not _has_a_card(state, first):
        return False
    state.active = first
    state.action = {"kind": "last_extra"}
    return True


def roll_last(state: PogState, dice) -> bool:
    """8.2.4.1: 1-2 gives one more action before the end of the turn."""
    return _roll(dice, state.active, "an extra action before the end of the turn", "8.2.4.1")


def _roll(dice, side: str, what: str, rule: str) -> bool:
    die = dice.roll(6, f"{side.upper()} rolls for {what}", rule)
    won = wins(die)
    dice.draws[-1].purpose += f": {die}, {'taken' if won else 'none'}"
    return won


def deciding(state: PogState) -> str | None:
    """The side a decision of this module waits for, if one is open."""
    kind = state.action.get("kind")
    if kind == "initiative":
        return "ap"
    if kind == "last_extra":
        return state.active
    return None
