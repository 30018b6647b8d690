"""The optional cards 56-65 (base 2.3 note; RULINGS R119), by the option `optional_cards`:

  none      the basic game: no optional card in any deck
  all       every optional card in its deck, with eight-card hands (9.1.4)
  selected  each player secretly picks optional cards of his side and, for each, a basic card of
            the same deck, OPS and SR that leaves the game. He signs `select_cards` before the
            deal, its cards in his entry's private record: nobody else learns them before the
            audit, and the decks keep their sizes.

The public state knows the mode only (`state.hands[side]["optional"]`: 0, 1 or 2). Everyone checks
a card played against the widest deck the mode allows (hands.unseen); the player's own client,
and the audit, against his selection (`allowed`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from pbem.errors import IllegalOrder

from . import cards
from .state import PogState

MODES = {"none": 0, "all": 1, "selected": 2}
NONE, ALL, SELECTED = 0, 1, 2
RULE = "base 2.3"
FIRST = ("cp", "ap")  # who selects first: the side that deals first (base 4.3)


def mode(options: Mapping) -> int:
    return MODES[options.get("optional_cards", "none")]


def deck_size(side: str, level: str, chosen: int) -> int:
    """A deck's size: a selection swaps cards one for one, so only `all` adds any."""
    return len(cards.deck(side, level, chosen == ALL))


def waiting(state: PogState) -> str | None:
    """The next side to sign its selection, or None once both have."""
    done = state.action.get("selected", [])
    return next((side for side in FIRST if side not in done), None)


def record_public(state: PogState) -> None:
    """A side's `select_cards` is signed: nothing public but that it was; then the deal's entry."""
    side = waiting(state)
    state.action.setdefault("selected", []).append(side)
    if waiting(state) is None:
        state.action = {"kind": "offensives"}


def check(side: str, order: Mapping) -> tuple[list[str], list[str]]:
    """The selection's cards: optional cards of the side, each matched by a basic card of the same
    deck, OPS and SR, every card once. Returns (added, removed) as card ids."""
    added = _ids(order.get("add") or [], "add")
    removed = _ids(order.get("remove") or [], "remove")
    if len(added) != len(removed):
        raise IllegalOrder(f"name one basic card to remove for each optional card: {len(added)} added, "
                           f"{len(removed)} removed", rule=RULE, field="remove")
    for index, (new, old) in enumerate(zip(added, removed, strict=True)):
        _check_pair(side, new, old, index)
    return added, removed


def _ids(names: Iterable, field: str) -> list[str]:
    found = [cards.card_id(str(name)) for name in names]
    for index, card in enumerate(found):
        if card is None:
            raise IllegalOrder(f"{list(names)[index]!r} is no card", rule=RULE, field=f"{field}[{index}]")
    if len(set(found)) != len(found):
        raise IllegalOrder("name each card once", rule=RULE, field=field)
    return [str(card) for card in found]


def _check_pair(side: str, new: str, old: str, index: int) -> None:
    facts, gone = cards.catalogue()[new], cards.catalogue()[old]
    if facts["side"] != side or not facts.get("optional"):
        raise IllegalOrder(f"{cards.label(new)} is not an optional card of your side (56-65)", rule=RULE,
                           field=f"add[{index}]")
    if gone["side"] != side or gone.get("optional"):
        raise IllegalOrder(f"{cards.label(old)} is not a basic card of your side", rule=RULE, field=f"remove[{index}]")
    if (gone["commitment"], gone["ops"], gone["sr"]) != (facts["commitment"], facts["ops"], facts["sr"]):
        raise IllegalOrder(f"{cards.label(old)} does not match {cards.label(new)}: the same deck "
                           f"({facts['commitment']}), OPS {facts['ops']} and SR {facts['sr']} are needed",
                           rule=RULE, field=f"remove[{index}]")


def check_private(view: Mapping, order: Mapping, side: str) -> None:
    """His own client and the audit: the selection is sound; Guns of August is not chosen for the
    first hand once the selection took it out of the game (base 4.3.1)."""
    if order.get("kind") == "select_cards":
        check(side, order)
    elif order.get("guns_of_august"):
        from .hands import GUNS_OF_AUGUST  # here: hands reads this module

        selection = view.get("sides", {}).get("cp", {}).get("selection", {})
        if GUNS_OF_AUGUST in selection.get("remove", []):
            raise IllegalOrder("your selection took Guns of August out of the game", rule=RULE,
                               field="guns_of_august")


def record_private(view: dict, order: Mapping) -> None:
    """His own view keeps the selection, under the first of his sides still to select: it shapes
    every pile his client derives."""
    sides = view.setdefault("sides", {})
    side = next(side for side in FIRST if side in sides and "selection" not in sides[side])
    added, removed = check(side, order)
    sides[side]["selection"] = {"add": added, "remove": removed}


def allowed(mine: Mapping | None, chosen: int, card: str) -> bool:
    """Is the card in this player's decks? Under `selected`, by his own selection."""
    facts = cards.catalogue()[card]
    if chosen != SELECTED:
        return chosen == ALL or not facts.get("optional")
    selection = (mine or {}).get("selection", {"add": [], "remove": []})
    return card in selection["add"] if facts.get("optional") else card not in selection["remove"]
