"""The draw step (8.1.6; R99-R101, R103) and the draw bought with a VP (8.1.3).

Once hands are dealt, each action's activity is followed by its draw step: the active side
recycles one card (`recycle`, 8.1.6.1), asks to draw (`draw`, 8.1.6.2), or does neither (`pass`).
What the activity allows is recorded when it opens, as `state.action["draw"]`:
  "die"  a card played as OPS or SR: a die less the spaces activated must come to 0 or more
  "yes"  OPS 1, SR 1, RP 1, a card played as RP or as an event, a voluntary economic or
         political action; a pass action at the levels the charter's `pass_draws` names (R101)
  "no"   an additional action (8.2.2.1), a pass below those levels
  "mandated"  a mandated action: neither a draw nor a recycle (8.1.6.1, 8.1.6.2)

A card is drawn privately, at the roll point of the entry that asks for it: the side's player
draws it from his own stream, uniformly among the cards of his draw pile, so nobody, himself
included, knows it before (R99). His draw pile is what his side could hold (hands.unseen) less what
his view says he holds, so it needs no record of its own. At Limited War he looks at two cards and
at Total War at three, and keeps one with `keep`, whose card is a private field; the others go back
to the pile (8.1.6, R100). The pile that runs out takes the discard pile in at once (8.1.6.2, R100).
No card of the reference decks draws as part of its event, so there are no event draws (R120); a
selection of optional cards shapes the pile (optional_cards.py, R119).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from pbem.errors import IllegalOrder

from . import card_zones, cards, hands, optional_cards, war
from .state import PogState, next_step

if TYPE_CHECKING:  # pragma: no cover
    from pbem.dice import Dice
    from pbem.hidden import PrivateDraws

DRAW_RULE = "8.1.6.2"
RECYCLE_RULE = "8.1.6.1"
LOOK = {"mobilization": 1, "limited": 2, "total": 3}  # 8.1.6, Drawing Abilities and War Status
UNREMOVABLE = ("ap16", "ap17")  # 8.1.6.1: Romania and Italy are only discarded when recycled
PASS_LEVELS = {"mobilization": ("mobilization", "limited", "total"), "limited": ("limited", "total"),
               "total": ("total",), "never": ()}  # option pass_draws: from which level a pass draws (R101)


def entitlement(kind: str, card: bool, level: str = "mobilization", pass_draws: str = "limited") -> str:
    """What an activity lets the side draw (8.1.6.2): "die", "yes" or "no"."""
    if kind in ("activate", "sr"):
        return "die" if card else "yes"
    if kind == "pass":
        return "yes" if level in PASS_LEVELS[pass_draws] else "no"
    return "yes"  # rp, event, voluntary economic and political actions


def open_step(state: PogState) -> bool:
    """After the activity and the supply step: ask the side for its draw step if it has a choice
    to make; False if there is none (no hands, or neither a draw nor a recycle is possible)."""
    if not hands.dealt(state):
        return False
    side, action = state.active, state.action
    may = action.get("draw", "no")
    recycle = may != "mandated" and _recyclable(state, side)
    drawable = may in ("yes", "die") and hands.can_draw(state, side)
    if not (recycle or drawable):
        return False
    next_step(state, kind="draw_step", draw=may, drawable=drawable, spaces=_spaces(action), recycle=recycle)
    return True


def _spaces(action: Mapping) -> int:
    """The spaces activated in the action, each once whatever its markers (8.1.6.2)."""
    activation = action.get("activation") or {}
    return len(set(activation.get("move", [])) | set(activation.get("attack", [])))


def _recyclable(state: PogState, side: str) -> bool:
    return state.hands[side]["hand"] > 0 or bool(card_zones.zone(state, f"{side}_front"))


def ask(state: PogState, side: str) -> None:
    """`draw` in the draw step: the draw (with its die after OPS or SR) at this entry's roll point."""
    step = state.action
    if step["draw"] not in ("yes", "die"):
        raise IllegalOrder("this action earns no draw: recycle a card or pass", rule=DRAW_RULE, field="kind")
    if not step["drawable"]:
        raise IllegalOrder(_no_draw_reason(state, side), rule=DRAW_RULE, field="kind")
    next_step(state, kind="draw_roll", die=step["draw"] == "die", spaces=step["spaces"], then="end")


def buy(state: PogState, side: str) -> None:
    """8.1.3: 1 VP for a draw, at this entry's roll point."""
    if not hands.can_buy(state, side):
        raise IllegalOrder(_no_draw_reason(state, side), rule="8.1.3", field="kind")
    war.add_vp(state, -1 if side == "cp" else 1, "8.1.3", f"{side.upper()} pays 1 VP to draw")
    next_step(state, kind="draw_roll", die=False, spaces=0, then="action")


def _no_draw_reason(state: PogState, side: str) -> str:
    counts = state.hands[side]
    if counts["hand"] >= counts["limit"]:
        return f"your hand is at its limit of {counts['limit']} cards"
    return "your draw pile and discard pile are empty"


def recycle(state: PogState, side: str, order: Mapping) -> None:
    """8.1.6.1: one card from the hand (`card`) or kept in front (`front`) to the discard pile, or
    removed from the game (`remove=true`) if unique or expiring; then a draw, with no die."""
    if not state.action["recycle"]:
        raise IllegalOrder("you have no card in your hand or in front of you to recycle", rule=RECYCLE_RULE,
                           field="kind")
    card, field = _recycled(state, side, order)
    place = f"{side}_discard"
    if order.get("remove"):
        _check_removable(card, field)
        place = "removed"
    if field == "card":
        hands.play_to_discard(state, side, card, place)
    else:
        card_zones.put(state, place, card)
    if hands.can_draw(state, side):
        next_step(state, kind="draw_roll", die=False, spaces=0, then="end")
    else:
        next_step(state, kind="draw_done")


def _recycled(state: PogState, side: str, order: Mapping) -> tuple[str, str]:
    if bool(order.get("card")) == bool(order.get("front")):
        raise IllegalOrder("recycle one card: card=... from your hand or front=... kept in front",
                           rule=RECYCLE_RULE, field="card")
    if order.get("card"):
        if not state.hands[side]["hand"]:
            raise IllegalOrder("your hand is empty", rule=RECYCLE_RULE, field="card")
        return hands.card_from_hand(state, side, str(order["card"]), RECYCLE_RULE), "card"
    card = cards.card_id(str(order["front"]))
    if card is None or card not in card_zones.zone(state, f"{side}_front"):
        raise IllegalOrder(f"{order['front']!r} is not a combat card kept in front of you", rule=RECYCLE_RULE,
                           field="front")
    return card, "front"


def _check_removable(card: str, field: str) -> None:
    """Only a starred or expiring card recycled from the hand leaves the game (8.1.6.1)."""
    facts = cards.catalogue()[card]
    if field != "card":
        raise IllegalOrder("only a card recycled from the hand is removed from the game", rule=RECYCLE_RULE,
                           field="remove")
    if card in UNREMOVABLE:
        raise IllegalOrder(f"{cards.label(card)} is discarded, never removed, when recycled", rule=RECYCLE_RULE,
                           field="remove")
    if not (facts.get("removed_after_play") or "expires" in facts):
        raise IllegalOrder(f"{cards.label(card)} is neither unique (starred) nor expiring: it is discarded",
                           rule=RECYCLE_RULE, field="remove")


# ---------------------------------------------------------------------------------- the roll point

def roll(state: PogState, dice: Dice, private: PrivateDraws | None, player: str) -> None:
    """The draw asked for: the die after OPS or SR (8.1.6.2), then the private draw; a look-ahead
    leaves a `keep` to choose."""
    side, step = state.active, state.action
    if step["die"]:
        die = dice.roll(6, f"{side.upper()} draw: a die less {step['spaces']} spaces activated", DRAW_RULE)
        if die - step["spaces"] < 0:
            next_step(state, kind="draw_done")
            return
    looked = draw(state, side, LOOK[state.commitment[side]], private, player)
    if looked > 1:
        next_step(state, kind="keep", looking=looked, then=step["then"])
        return
    _after(state, step["then"])


def _after(state: PogState, then: str) -> None:
    if then == "end":
        next_step(state, kind="draw_done")
    else:
        next_step(state, bought=True)


def draw(state: PogState, side: str, count: int, private: PrivateDraws | None, player: str) -> int:
    """Take up to `count` cards from the side's pile, privately; the discards form a new pile as
    soon as it runs out (8.1.6.2). One card goes to the hand; more are looked at (R100). Returns
    how many were taken."""
    dice = private.dice(player, f"draw {side.upper()} cards", DRAW_RULE) if private else None
    view = private.view(player) if private else None
    mine = view.get("sides", {}).get(side) if dice is not None and view is not None else None
    counts, taken = state.hands[side], list[str]()
    if counts["pile"] == 0:  # emptied by an earlier draw while the discards were empty
        reshuffle(state, side, mine)
    while len(taken) < count and counts["pile"] > 0:
        if mine is not None and dice is not None:
            pile = pile_of(state, side, mine, taken)
            taken.append(pile[dice.uniform(len(pile), f"draw from {side.upper()}'s pile", DRAW_RULE)])
        else:
            taken.append("")  # another player's draw: only its count is known here
        counts["pile"] -= 1
        if counts["pile"] == 0:
            reshuffle(state, side, mine)
    if len(taken) == 1:
        counts["hand"] += 1
    if mine is not None and len(taken) == 1:
        mine["hand"].append(taken[0])
    elif mine is not None:
        mine["looking"] = taken
    return len(taken)


def pile_of(state: PogState, side: str, mine: Mapping, taken: list[str]) -> list[str]:
    """The side's draw pile as its player's view tells it: what the side could hold, less the cards
    of his hand (a combat card in play among them), those he is looking at and those just taken;
    by number."""
    out = set(mine["hand"]) | set(mine.get("looking", [])) | set(taken)
    order = list(cards.catalogue())
    chosen = state.hands[side]["optional"]
    return sorted((card for card in hands.unseen(state, side) - out if optional_cards.allowed(mine, chosen, card)),
                  key=order.index)


def reshuffle(state: PogState, side: str, mine: dict | None) -> None:
    """The side's discard pile becomes its draw pile (8.1.6.2, 16.1.3-16.1.4). His view first
    forgets the cards it holds that are public now, so they are not taken for held once back in
    the pile."""
    if mine is not None:
        public = {card for zone in card_zones.PLACES for card in card_zones.zone(state, zone)}
        mine["hand"] = [card for card in mine["hand"] if card not in public]
    discards = state.cards.pop(f"{side}_discard", [])
    state.hands[side]["pile"] += len(discards)


def shuffle_in(state: PogState, side: str, private: PrivateDraws | None, player: str) -> None:
    """16.1.3-16.1.4: the cards of the side's new level(s) and its discards join its draw pile."""
    view = private.view(player) if private else None
    mine = view.get("sides", {}).get(side) if view is not None else None
    counts = state.hands[side]
    level = cards.LEVELS.index(state.commitment[side]) + 1
    for new in cards.LEVELS[counts["decks"]:level]:
        counts["pile"] += optional_cards.deck_size(side, new, counts["optional"])
    counts["decks"] = level
    reshuffle(state, side, mine)


def keep(state: PogState, side: str) -> None:
    """`keep`: one looked-at card to the hand, the rest back to the pile (public counts only)."""
    counts, looked = state.hands[side], state.action["looking"]
    counts["hand"] += 1
    counts["pile"] += looked - 1
    _after(state, state.action["then"])


def keep_private(view: dict, order: Mapping) -> None:
    """His own view of `keep`: the card to his hand, the others forgotten (back in the pile)."""
    for mine in view.get("sides", {}).values():
        if mine.get("looking"):
            mine["hand"].append(cards.card_id(str(order.get("card", ""))) or "")
            mine["looking"] = []


def check_keep(view: Mapping, order: Mapping) -> None:
    """A kept card must be one he is looking at (his client; the audit)."""
    for mine in view.get("sides", {}).values():
        looking = mine.get("looking") or []
        if looking and cards.card_id(str(order.get("card", ""))) not in looking:
            shown = ", ".join(cards.label(card) for card in looking)
            raise IllegalOrder(f"keep one of the cards you are looking at: {shown}", rule="8.1.6", field="card")
