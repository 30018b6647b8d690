"""Hidden hands (base 4.3, 9.1; R92): each side's draw pile and hand are its player's private view,
kept by his own client; the public state knows only their sizes (`state.hands`) and the public
card zones (card_zones.py).

The hands are dealt at the roll point of the Central Powers' first entry, the one that rolls the
first turn's mandated offensives (R81): each side's Mobilization deck is shuffled by a private draw
of its own player, and seven cards dealt, the Central Powers' Guns of August first if their entry
chose it (4.3.1). A player's view lists the cards he was dealt or drew since his discards last went
back into his pile (draws.py), and those he is looking at before keeping one; the cards he holds
are those of his list in no public zone and not used in the combat under way. His draw pile is
what his side could hold less those: the view needs no record of it. A card he names from his hand
must be one his side could still hold: in its decks so far and in no public zone (checked by
everyone at once); that it is in his view is checked by his own client before he signs, and by
everyone at the audit (check_private). So a card cancelled back to the hand (Alberich) needs no
private change.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from pbem.errors import IllegalOrder

from . import card_zones, cards, optional_cards
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


def empty_view(sides) -> dict:
    """A player's private view before the deal: per side he commands, the cards he was dealt or
    drew."""
    return {"sides": {side: {"hand": []} for side in sides}}


def deal(state: PogState, private: PrivateDraws | None, guns_of_august: bool, options: Mapping,
         owners: Mapping[str, str], first: Mapping[str, list[str]] | None = None) -> None:
    """base 4.3: each side's Mobilization deck shuffled in private, seven cards dealt (eight with
    9.1.4 or the optional cards); Guns of August first if chosen, and a teaching scenario's
    `first_cards` (public, by its data)."""
    if state.setup is None or dealt(state):
        return
    chosen = optional_cards.mode(options)
    size = LARGE_HAND if chosen == optional_cards.ALL or options.get("hand_8") else HAND_SIZE
    for side, player in sorted(owners.items()):
        held = [GUNS_OF_AUGUST] if side == "cp" and guns_of_august else []
        held += [card for card in (first or {}).get(side, []) if card not in held]
        dice = private.dice(player, f"deal {side.upper()}'s first hand", RULE) if private else None
        view = private.view(player) if private else None
        if dice is not None and view is not None:
            mine = view.setdefault("sides", {}).setdefault(side, {"hand": []})
            pile = [card for card in cards.deck(side, "mobilization", chosen != optional_cards.NONE)
                    if card not in held and optional_cards.allowed(mine, chosen, card)]
            shuffled = dice.shuffle(pile, f"shuffle {side.upper()}'s Mobilization deck", RULE)
            mine["hand"] = held + shuffled[:size - len(held)]
        state.hands[side] = {"hand": size, "pile": optional_cards.deck_size(side, "mobilization", chosen) - size,
                             "limit": size, "optional": chosen, "decks": 1}


def decks_due(state: PogState) -> list[str]:
    """The sides whose commitment level has brought in a deck not yet in their pile (16.1.3-16.1.4)."""
    return [side for side, counts in sorted(state.hands.items())
            if cards.LEVELS.index(state.commitment[side]) + 1 > counts["decks"]]


def can_draw(state: PogState, side: str) -> bool:
    """8.1.6.2: below the hand limit, with a card in the pile or the discards to draw."""
    counts = state.hands[side]
    return counts["hand"] < counts["limit"] and counts["pile"] + len(card_zones.zone(state, f"{side}_discard")) > 0


def can_buy(state: PogState, side: str) -> bool:
    """8.1.3: may the side, at the start of its action, pay 1 VP for a draw (once an action; not at
    the hand limit)?"""
    return dealt(state) and not state.action.get("bought") and can_draw(state, side)


def unseen(state: PogState, side: str) -> set[str]:
    """The cards the side may hold, as everyone can tell: its decks so far, less the public zones."""
    levels = cards.LEVELS[: state.hands.get(side, {}).get("decks", 1)]  # the decks shuffled in so far
    optional = bool(state.hands.get(side, {}).get("optional"))
    decks = {card for level in levels for card in cards.deck(side, level, optional)}
    public = {card for zone in card_zones.PLACES for card in card_zones.zone(state, zone)}
    return decks - public


def card_from_hand(state: PogState, side: str, name: str, rule: str) -> str:
    """The card an order plays from the side's hand (field `card`), by card or event id: one of the
    side's deck that it could still hold (R92). Raises IllegalOrder under `rule` otherwise."""
    card = cards.card_id(name)
    if card is None or cards.catalogue()[card]["side"] != side:
        raise IllegalOrder(f"{name!r} is not a card of your deck", rule=rule, field="card")
    check_from_hand(state, side, card, "card")
    return card


def check_from_hand(state: PogState, side: str, card: str, field: str) -> None:
    """What everyone checks at once of a card played from a hand (R92): the hand holds a card, and
    this one could still be held."""
    if dealt(state) and state.hands[side]["hand"] <= 0:
        raise IllegalOrder("your hand is empty", rule="R92", field=field)
    if not dealt(state) or card in unseen(state, side):
        return
    if card in card_zones.zone(state, f"{side}_front"):
        raise IllegalOrder(f"{cards.label(card)} is kept in front of you: name it in front=, not cards=",
                           rule="base 9.5.4.2", field=field)
    raise IllegalOrder(f"{cards.label(card)} cannot be in the {side.upper()} hand: it is in a public zone or not "
                       "in the decks shuffled in so far", rule="R92", field=field)


def play_to_discard(state: PogState, side: str, card: str, place: str = "discard") -> None:
    """A card played from the hand goes to its side's discard pile (or `removed`)."""
    leave_hand(state, side, 1)
    card_zones.put(state, f"{side}_discard" if place == "discard" else place, card)


def leave_hand(state: PogState, side: str, count: int) -> None:
    """Cards played from the hand (a negative count: cards back in it)."""
    if dealt(state) and count:
        state.hands[side]["hand"] -= count


def show(state: PogState, side: str, order: Mapping) -> list[str]:
    """Mata Hari, Cloak and Dagger (R106): the side's hand listed in the clear. Everyone checks at
    once that it has the hand's size and cards the side could hold; the audit, that they are the
    cards held. Returns the card ids."""
    named = [cards.card_id(str(name)) for name in order.get("cards") or []]
    if any(card is None for card in named) or len(set(named)) != len(named):
        raise IllegalOrder("list each card of your hand once, by card or event id", rule="R106", field="cards")
    if dealt(state) and len(named) != state.hands[side]["hand"]:
        raise IllegalOrder(f"your hand holds {state.hands[side]['hand']} cards; you listed {len(named)}",
                           rule="R106", field="cards")
    for index, card in enumerate(named):
        check_from_hand(state, side, str(card), f"cards[{index}]")
    return [str(card) for card in named]


def check_shown(state: PogState, view: Mapping, order: Mapping) -> None:
    """His own client and the audit: the cards shown are exactly those he holds."""
    for mine in view.get("sides", {}).values():
        held = set(holding(state, mine))
        shown = {cards.card_id(str(name)) for name in order.get("cards") or []}
        if shown != held:
            missing = ", ".join(cards.label(card) for card in sorted(held - shown)) or "none"
            raise IllegalOrder(f"the hand shown is not the hand held (left out: {missing})", rule="R106",
                               field="cards")


# ---------------------------------------------------------------------------------- private views

def played_from_hand(order: Mapping) -> list[tuple[str, str]]:
    """(field, card id) of each card an order plays from its player's hand."""
    if order.get("kind") in ("activate", "sr", "rp", "event", "recycle", "extra", "initiative") and order.get("card"):
        card = cards.card_id(str(order["card"]))
        return [("card", card)] if card else []
    if order.get("kind") not in ("attack", "play_cards"):
        return []
    named = [(f"cards[{i}]", cards.card_id(str(name))) for i, name in enumerate(order.get("cards") or [])]
    # an event announced at a card step (Great Retreat) is named like a card but not played from the hand
    return [(field, card) for field, card in named if card and cards.catalogue()[card].get("combat_card")]


def check_private(view: Mapping, order: Mapping) -> None:
    """His own client (and the audit) refuse a card he does not hold (of the side whose card it is;
    a card of a side he does not command the public check refuses)."""
    for field, card in played_from_hand(order):
        mine = view.get("sides", {}).get(cards.catalogue()[card]["side"])
        if mine is not None and card not in mine["hand"]:
            raise IllegalOrder(f"you do not hold {cards.label(card)}", rule="R92", field=field)


def holding(state: PogState, mine: Mapping) -> list[str]:
    """The cards of a side's view still in the hand: not in a public zone nor used in the open
    combat; by number."""
    public = {card for zone in card_zones.PLACES for card in card_zones.zone(state, zone)}
    combat = state.action.get("combat") or {}
    in_use = {cards.card_id(name) for names in combat.get("cards", {}).values() for name in names}
    held = [card for card in mine.get("hand", []) if card not in public and card not in in_use]
    return sorted(held, key=list(cards.catalogue()).index)


def hand_data(state: PogState, private: Mapping[str, dict] | None) -> dict:
    """`pbem show hand`: your cards and those you are looking at (where your key is), both sides'
    hand and pile sizes."""
    yours = {side: {"hand": [_shown(card) for card in holding(state, mine)],
                    "looking": [_shown(card) for card in mine.get("looking", [])],
                    **({"selection": {key: [cards.label(c) for c in names] for key, names in mine["selection"].items()}}
                       if "selection" in mine else {})}
             for view in (private or {}).values() for side, mine in view.get("sides", {}).items()}
    return {"dealt": dealt(state), "yours": yours,
            "counts": {side: dict(state.hands.get(side, {})) for side in SIDES}}


def _shown(card: str) -> str:
    return cards.label(card) + (" (combat card)" if cards.catalogue()[card].get("combat_card") else "")
