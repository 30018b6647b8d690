"""freeform's sealed rounds (rule freeform.sealed): players choose at once, none seeing another's choice.

`sealed players=alice,bob purpose="bids for Alsace"` opens a round among the players named (two or
more, none resigned), and ends the entry that gives it. Each member seals one `choose text="…"`
order (`pbem seal`), or none to abstain; once all have unsealed, the first member in roster order
collects them (protocol §5), every choice is shown in `last_sealed`, and the opener's step goes on.
A member whose sealed orders are not one readable `choose` has them voided, the rule recorded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from pbem.errors import IllegalOrder

if TYPE_CHECKING:
    from . import FreeformState

RULE = "freeform.sealed"


def open_round(state: FreeformState, player: str, order: Mapping) -> None:
    members = list(dict.fromkeys(order["players"]))
    strangers = [p for p in members if p not in state.active]
    if strangers:
        raise IllegalOrder(f"{', '.join(strangers)} cannot choose: not a player still in the game", rule=RULE,
                           field="players")
    if len(members) < 2:
        raise IllegalOrder("a sealed round needs two players or more", rule=RULE, field="players")
    if not order["purpose"].strip():
        raise IllegalOrder("say what the players choose", rule=RULE, field="purpose")
    roster = state.setup.players
    state.sealed = {"players": sorted(members, key=roster.index), "purpose": order["purpose"], "by": player}


def check_choice(state: FreeformState, player: str, orders: Sequence[Mapping]) -> None:
    """Raise the IllegalOrder for which these sealed orders would be voided."""
    if state.sealed is None or player not in state.sealed["players"]:
        raise IllegalOrder(f"{player} has no sealed choice to make now", rule=RULE, field="player")
    if len(orders) > 1:
        raise IllegalOrder("a sealed round takes one choose order (or none, to abstain)", rule=RULE,
                           field="orders")
    for order in orders:
        if order.get("kind") != "choose":
            raise IllegalOrder(f"{order.get('kind')!r} is not a sealed choice: choose text=…", rule=RULE,
                               field="orders[1].kind")
        if not isinstance(order.get("text"), str) or not order["text"].strip() or set(order) != {"kind", "text"}:
            raise IllegalOrder("choose takes text, the choice", rule=RULE, field="orders[1].text")


def apply_together(state: FreeformState, orders: Mapping[str, list[Mapping] | None]) -> FreeformState:
    """Every member's choice, or the rule his orders broke, shown to all; the opener's step goes on."""
    assert state.sealed is not None  # the engine calls this only while the round is pending
    choices: dict[str, str | None] = {}
    voided: dict[str, str] = {}
    for player, given in orders.items():
        try:
            if given is None:
                raise IllegalOrder("the unsealed text could not be read", rule="PROTOCOL §5")
            check_choice(state, player, given)
        except IllegalOrder as refused:
            voided[player] = f"{refused.rule}: {refused.message}"
            choices[player] = None
            continue
        choices[player] = given[0]["text"] if given else None
    state.last_sealed = {"purpose": state.sealed["purpose"], "by": state.sealed["by"], "choices": choices,
                         "voided": voided, "turn": state.turn}
    state.sealed = None
    return state
