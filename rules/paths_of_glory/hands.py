"""Hidden hands (base 4.3, 9.1; R92): each side's draw pile and hand are its player's private view,
kept by his own client; the public state knows only their sizes (`state.hands`) and the public
card zones (card_zones.py).

The hands are dealt at the roll point of the Central Powers' first entry, the one that rolls the
first turn's mandated offensives (R81): each side's Mobilization deck is shuffled by a private draw
of its own player, and seven cards dealt, the Central Powers' Guns of August first if their entry
chose it (4.3.1). A player's view lists every card he was dealt or drew; the cards he holds are
those of them in no public zone and not used in the combat under way. A card he names from his hand
must be one his side could still hold: in its decks so far and in no public zone (checked by
everyone at once); that it is in his view is checked by his own client before he signs, and by
everyone at the audit (check_private). So a card cancelled back to the hand (Alberich) needs no
private change.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from pbem.errors import IllegalOrder

from . import card_zones, cards
from .state import SIDES, PogState

if TYPE_CHECKING:  # pragma: no cover
    from pbem.hidden import PrivateDraws

HAND_SIZE = 7  # base 4.3.1-4.3.2
LARGE_HAND = 8  # 9.1.4 (an option), and with all the optional cards
GUNS_OF_AUGUST = "cp01"  # base 4.3.1
RULE = "base 4.3"


def dealt(state: PogState) -> bool:
    """Are hands in play? A rule case's position has none: any card of the deck may then be named."""
    return bool(state.hands)


def side_of(state: PogState, player: str) -> str | None:
    if state.setup is None:
        return None
    return next((side for seat in state.setup.roster if seat.id == player for side in seat.sides), None)


def deal(state: PogState, private: PrivateDraws | None, guns_of_august: bool, options: Mapping,
         first: Mapping[str, list[str]] | None = None) -> None:
    """base 4.3: each side's Mobilization deck shuffled in private, seven cards dealt (eight with
    9.1.4 or the optional cards); Guns of August first if chosen, and a teaching scenario's
    `first_cards` (public, by its data)."""
    if state.setup is None or dealt(state):
        return
    optional = options.get("optional_cards") == "all"
    size = LARGE_HAND if optional or options.get("hand_8") else HAND_SIZE
    for seat in (seat for seat in state.setup.roster if seat.role == "player"):
        side = seat.sides[0]
        held = [GUNS_OF_AUGUST] if side == "cp" and guns_of_august else []
        held += [card for card in (first or {}).get(side, []) if card not in held]
        pile = [card for card in cards.deck(side, "mobilization", optional) if card not in held]
        dice = private.dice(seat.id, f"deal {side.upper()}'s first hand", RULE) if private else None
        view = private.view(seat.id) if private else None
        if dice is not None and view is not None:
            shuffled = dice.shuffle(pile, f"shuffle {side.upper()}'s Mobilization deck", RULE)
            drawn = size - len(held)
            view.update({"side": side, "hand": held + shuffled[:drawn], "pile": shuffled[drawn:]})
        state.hands[side] = {"hand": size, "pile": len(pile) + len(held) - size, "limit": size,
                             "optional": int(optional)}


def unseen(state: PogState, side: str) -> set[str]:
    """The cards the side may hold, as everyone can tell: its decks so far, less the public zones."""
    levels = cards.LEVELS[: cards.LEVELS.index(state.commitment[side]) + 1]
    optional = bool(state.hands.get(side, {}).get("optional"))
    decks = {card for level in levels for card in cards.deck(side, level, optional)}
    public = {card for zone in card_zones.PLACES for card in card_zones.zone(state, zone)}
    return decks - public


def check_from_hand(state: PogState, side: str, card: str, field: str) -> None:
    """What everyone checks at once of a card played from a hand (R92): it could still be held."""
    if dealt(state) and card not in unseen(state, side):
        raise IllegalOrder(f"{cards.label(card)} cannot be in the {side.upper()} hand: it is in a public zone or "
                           "not in its decks", rule="R92", field=field)


def leave_hand(state: PogState, side: str, count: int) -> None:
    """Cards played from the hand (a negative count: cards back in it)."""
    if dealt(state) and count:
        state.hands[side]["hand"] -= count


# ---------------------------------------------------------------------------------- private views

def played_from_hand(order: Mapping) -> list[str]:
    """The card ids an order plays from its player's hand."""
    if order.get("kind") not in ("attack", "play_cards"):
        return []
    return [card for card in (cards.card_id(str(name)) for name in order.get("cards") or []) if card]


def check_private(view: Mapping, order: Mapping) -> None:
    """His own client (and the audit) refuse a card he does not hold."""
    hand = view.get("hand")
    if hand is None:
        return
    for i, card in enumerate(played_from_hand(order)):
        if card not in hand:
            raise IllegalOrder(f"you do not hold {cards.label(card)}", rule="R92", field=f"cards[{i}]")


def holding(state: PogState, view: Mapping) -> list[str]:
    """The cards of a view still in the hand: not in a public zone nor used in the open combat."""
    public = {card for zone in card_zones.PLACES for card in card_zones.zone(state, zone)}
    combat = state.action.get("combat") or {}
    in_use = {cards.card_id(name) for names in combat.get("cards", {}).values() for name in names}
    return [card for card in view.get("hand", []) if card not in public and card not in in_use]


def hand_data(state: PogState, private: Mapping[str, dict] | None) -> dict:
    """`pbem show hand`: your cards and pile size (where your key is), both sides' counts."""
    yours = {view["side"]: {"hand": [cards.label(card) for card in holding(state, view)],
                            "pile": len(view.get("pile", []))}
             for view in (private or {}).values() if view.get("side")}
    return {"yours": yours, "counts": {side: dict(state.hands.get(side, {})) for side in SIDES}}
