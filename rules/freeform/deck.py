"""freeform's hidden hands (rule freeform.deck): each player holds his own copy of the charter's deck.

`[tables.deck] cards = ["…", …]` in the charter gives the deck. `deal count=N` (the player whose
step it is) shuffles every active player's copy in private and deals him N cards: the shuffle is a
private draw of the entry's roll point (protocol §7), so nobody, the owner included, can bias it and
only the owner knows his cards. `draw count=N` takes the next N cards of one's own pile; `play
card=X` shows a card from one's hand. The public state holds only each player's pile and hand
counts and the cards played; each client keeps its own player's pile order and hand beside it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from pbem.errors import IllegalOrder, UsageError

if TYPE_CHECKING:
    from pbem.hidden import PrivateDraws

    from . import FreeformState

RULE = "freeform.deck"
MAX_CARDS = 1000


def cards_of(table: Mapping) -> list[str]:
    """The deck a charter's `[tables.deck]` lists; UsageError at `pbem new` if it cannot be dealt."""
    cards = table.get("cards")
    if not isinstance(cards, list) or not cards or len(cards) > MAX_CARDS or \
            not all(isinstance(card, str) and card.strip() for card in cards) or set(table) - {"cards", "rule"}:
        raise UsageError(f"the deck is `cards = [\"…\", …]`: 1 to {MAX_CARDS} card names", rule=RULE,
                         field="tables.deck")
    return list(cards)


def deck(state: FreeformState) -> list[str]:
    if "deck" not in state.setup.tables:
        raise IllegalOrder("this charter has no deck: [tables.deck] cards = [\"…\"]", rule=RULE, field="kind")
    return cards_of(state.setup.tables["deck"])


def deal(state: FreeformState, order: Mapping) -> None:
    """Every active player's copy is shuffled and dealt at this entry's roll point."""
    count = order["count"]
    if not 1 <= count <= len(deck(state)):
        raise IllegalOrder(f"deal 1 to {len(deck(state))} cards", rule=RULE, field="count")
    state.dealing = count


def resolve_deal(state: FreeformState, private: PrivateDraws) -> None:
    """The private shuffles, in roster order; the public state learns only the counts."""
    cards, count = deck(state), state.dealing or 0
    for player in state.active:
        dice = private.dice(player, f"deal {count} to {player}", RULE)
        view = private.view(player)
        if dice is not None and view is not None:
            pile = dice.shuffle(list(cards), f"shuffle {player}'s deck", RULE)
            view.update({"hand": pile[:count], "pile": pile[count:]})
        state.cards[player] = {"hand": count, "pile": len(cards) - count}
    state.dealing = None


def draw(state: FreeformState, player: str, order: Mapping) -> None:
    count, held = order["count"], state.cards.get(player)
    if held is None or not 1 <= count <= held["pile"]:
        raise IllegalOrder(f"draw 1 to {held['pile'] if held else 0} cards: your pile holds no more", rule=RULE,
                           field="count")
    state.cards[player] = {"hand": held["hand"] + count, "pile": held["pile"] - count}


def play(state: FreeformState, player: str, order: Mapping) -> None:
    """A card shown from the hand: one of the deck's, and the hand not empty (what is public)."""
    held = state.cards.get(player)
    if order["card"] not in deck(state):
        raise IllegalOrder(f"{order['card']!r} is no card of this deck", rule=RULE, field="card")
    shown = sum(1 for p in state.played if p["player"] == player and p["card"] == order["card"])
    if shown >= deck(state).count(order["card"]):  # public: his copy of it is already on the table
        raise IllegalOrder(f"you have shown every copy of {order['card']!r} already", rule=RULE, field="card")
    if held is None or held["hand"] < 1:
        raise IllegalOrder("your hand is empty", rule=RULE, field="card")
    state.cards[player] = {"hand": held["hand"] - 1, "pile": held["pile"]}
    state.played.append({"player": player, "card": order["card"], "turn": state.turn})


def keep(state: FreeformState, player: str, order: Mapping) -> None:
    """Look at the next `count` cards of one's pile, keep one (a private choice), the others go to
    the bottom: the public state learns that the hand grew by one and the pile shrank by one."""
    count, held = order["count"], state.cards.get(player)
    if held is None or not 1 <= count <= held["pile"]:
        raise IllegalOrder(f"look at 1 to {held['pile'] if held else 0} cards: your pile holds no more", rule=RULE,
                           field="count")
    state.cards[player] = {"hand": held["hand"] + 1, "pile": held["pile"] - 1}


def discard(state: FreeformState, player: str, order: Mapping) -> None:
    """A card put away face down: the public state learns only that the hand is one smaller."""
    held = state.cards.get(player)
    if held is None or held["hand"] < 1:
        raise IllegalOrder("your hand is empty", rule=RULE, field="kind")
    state.cards[player] = {"hand": held["hand"] - 1, "pile": held["pile"]}


def apply_private(view: dict, order: Mapping) -> None:
    if order.get("kind") == "draw":
        view["hand"] = view.get("hand", []) + view.get("pile", [])[:order["count"]]
        view["pile"] = view.get("pile", [])[order["count"]:]
    elif order.get("kind") in ("play", "discard") and order.get("card") in view.get("hand", []):
        view["hand"].remove(order["card"])
    elif order.get("kind") == "keep" and order.get("card") in view.get("pile", [])[:order["count"]]:
        looked = view["pile"][:order["count"]]
        looked.remove(order["card"])
        view["hand"] = [*view.get("hand", []), order["card"]]
        view["pile"] = view["pile"][order["count"]:] + looked


def check_private(view: dict, order: Mapping) -> None:
    if order.get("kind") in ("play", "discard") and order.get("card") not in view.get("hand", []):
        raise IllegalOrder(f"you do not hold {order.get('card')!r}", rule=RULE, field="card")
    if order.get("kind") == "keep" and order.get("card") not in view.get("pile", [])[:order.get("count", 0)]:
        raise IllegalOrder(f"{order.get('card')!r} is not among the next {order.get('count')} cards of your pile",
                           rule=RULE, field="card")


def hand_data(state: FreeformState, private: Mapping[str, dict] | None) -> dict:
    """`pbem show hand`: your cards and pile (where your key is), everyone's counts, the cards played."""
    mine = {player: {"hand": list(view.get("hand", [])), "pile": len(view.get("pile", []))}
            for player, view in (private or {}).items()}
    return {"yours": mine, "counts": dict(state.cards), "played": list(state.played[-20:])}
