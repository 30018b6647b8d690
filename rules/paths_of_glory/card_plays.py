"""Cards played for what they give rather than their event (seed 8.1.4, 9.1.3): a card played as
RP, or the automatic RP 1 (base 9.4, R94). Operations are operations.py.

An RP play marks the card's RPs on the General Records Track (9.4.1; replacements.record_rps) and
is the whole action (9.4.2). A side may not play a card as RP in two action rounds of a turn in a
row (base 9.4.3); the automatic RP 1 is no card play and is never barred. The card goes to its
side's discard pile.
"""

from __future__ import annotations

from collections.abc import Mapping

from pbem.errors import IllegalOrder

from . import cards, hands, replacements
from .state import PogState

AUTOMATIC_RP = 1  # 8.1.4
INFLUENZA = "influenza"  # AP card 65: no RP action for the rest of the turn (R108)


def check_not_in_a_row(state: PogState, side: str, use: str, field: str = "card") -> None:
    """base 9.3.3, 9.4.3: no card as SR (or as RP) if the side played one so in its previous
    action round of this turn; `use` is "sr" or "rp"."""
    last = state.tracks.get(f"{use}_card_turn_{side}", 0), state.tracks.get(f"{use}_card_round_{side}", 0)
    if last == (state.turn, state.round - 1):
        rule = "base 9.3.3" if use == "sr" else "base 9.4.3"
        raise IllegalOrder(f"a card was played as {use.upper()} in your previous action round this turn", rule=rule,
                           field=field)


LATE_ENTRY = ("ap16", "ap17")  # base 9.5.2.5: Romania and Italy


def check_late_entry(state: PogState, side: str, card: str) -> None:
    """base 9.5.2.5: while the Central Powers are at Total War and the Allies not, Romania and Italy
    are played only as events (or discarded), never as OPS, SR or RP."""
    if card in LATE_ENTRY and state.commitment["cp"] == "total" and state.commitment["ap"] != "total":
        raise IllegalOrder(f"{cards.label(card)} is played only as its event while the Central Powers alone are at "
                           "Total War", rule="base 9.5.2.5", field="card")


def record_play(state: PogState, side: str, use: str) -> None:
    """A card played as SR or RP (or an event that counts as one, Salonika) in this round."""
    state.tracks[f"{use}_card_turn_{side}"], state.tracks[f"{use}_card_round_{side}"] = state.turn, state.round


def play_rp(state: PogState, side: str, order: Mapping) -> list[dict]:
    """`rp card=cp12` (the card's RPs) or `rp rp=ge` (the automatic RP 1, of the type named)."""
    if INFLUENZA in state.events:
        raise IllegalOrder("Influenza: no RP action for the rest of the turn", rule="R108", field="kind")
    if order.get("card"):
        card = hands.card_from_hand(state, side, str(order["card"]), "9.1.3")
        check_late_entry(state, side, card)
        check_not_in_a_row(state, side, "rp")
        events = replacements.record_rps(state, side, dict(cards.catalogue()[card]["rp"]))
        hands.play_to_discard(state, side, card)
        record_play(state, side, "rp")
        return events
    rp = str(order.get("rp") or "")
    if not rp:
        raise IllegalOrder("name the card played as RP (card=cp12) or, for the automatic RP 1, the RP type (rp=ge)",
                           rule="8.1.4", field="card")
    if rp in replacements.rp_types(side) and not replacements.may_record(state, rp):
        raise IllegalOrder(f"no {rp} RP may be recorded now (a neutral nation, or US RPs before Over There)",
                           rule="base 9.4.1", field="rp")
    return replacements.record_rps(state, side, {rp: AUTOMATIC_RP}, rp_card=False)

