"""Where combat cards go after a combat (base 9.5.4.2-9.5.4.5, 12.2.11; R85): the public zones.

`state.cards` holds, by zone, the card ids it contains (`cp03`; a marker used once a round, by
its own id); callers name combat cards by their event ids:
  <side>_front    cards won with and kept face up in front of their side (9.5.4.2), usable again
                  in one combat per action round until lost or the turn ends
  <side>_discard  its discard pile (9.5.4.3, 9.5.4.5)
  removed         out of the game: cards marked to be removed after play (9.5.4.2)
  round_used      cards used in a combat this action round (9.5.4.4)
  turn_used       cards used once a turn, used this turn

Before hands are dealt (a rule case's position) a side may use any card of its deck that is
neither removed nor used this round; once dealt, the cards it holds or keeps in front (R92).
"""

from __future__ import annotations

from collections.abc import Mapping

from . import cards as deck_cards
from .state import PogState

USAGE = ("round_used", "turn_used")  # marks beside a card's place, not places
USED = "used:"  # in state.events, with a combat card's event id: it has been used in a combat (R110)
PLACES = ("ap_front", "cp_front", "ap_discard", "cp_discard", "removed")


def zone(state: PogState, name: str) -> list[str]:
    return state.cards.get(name, [])


def key(name: str) -> str:
    """The id a zone records for a card named by its event id (a marker keeps its own id)."""
    return deck_cards.card_id(name) or name


def in_front(state: PogState, side: str, name: str) -> bool:
    return key(name) in zone(state, f"{side}_front")


def put(state: PogState, name: str, card: str) -> None:
    for zone_name, cards in state.cards.items():
        if card in cards and zone_name not in USAGE:
            cards.remove(card)
    state.cards.setdefault(name, []).append(card)
    state.cards[name].sort()
    _drop_empty(state)


def _drop_empty(state: PogState) -> None:
    for name in [n for n, cards in state.cards.items() if not cards]:
        del state.cards[name]


def unavailable(state: PogState, name: str) -> str | None:
    """Why a card may not be used in a combat now, or None (9.5.4.2, 9.5.4.4)."""
    card = key(name)
    if card in zone(state, "removed"):
        return "it has been removed from the game"
    if card in zone(state, "turn_used"):
        return "it may be used in one combat a turn"
    if card in zone(state, "round_used"):
        return "it has been used in a combat this action round"
    return None


def use(state: PogState, name: str, once_per_turn: bool) -> None:
    """9.5.4.4: a card used in a combat is used for the action round (for the turn if so marked)."""
    for usage in USAGE if once_per_turn else USAGE[:1]:
        state.cards.setdefault(usage, []).append(key(name))
        state.cards[usage].sort()


def unuse(state: PogState, card: str) -> None:
    """A card that counts as not played (Alberich) is free again."""
    state.events.discard(USED + card)
    for name in USAGE:
        if key(card) in zone(state, name):
            state.cards[name].remove(key(card))
    _drop_empty(state)


def settle(state: PogState, combat: dict, catalogue: Mapping[str, dict]) -> None:
    """base 12.2.11, 9.5.4.2-9.5.4.3: the winner keeps his cards in front of him, the loser (both
    on a tie) discards them; cards used once a turn are discarded and starred ones removed even
    when won; They Shall Not Pass is kept unless its side loses."""
    winner = combat.get("winner")
    for role, names in combat.get("cards", {}).items():
        side = combat["side"] if role == "attacker" else _other(combat["side"])
        for name in (n for n in names if n in catalogue):  # an announced event marker stays in effect
            card = catalogue[name]
            kept = winner == role or (winner == "none" and card.get("kept_unless_lost"))
            if card.get("removed_after_play"):
                where = "removed"
            elif kept and not card.get("once_per_turn"):
                where = f"{side}_front"
            else:
                where = f"{side}_discard"
            put(state, where, key(name))
            combat.setdefault("cards_to", {})[name] = where


def _other(side: str) -> str:
    return "cp" if side == "ap" else "ap"


def end_round(state: PogState) -> None:
    """9.5.4.4: a new action round frees every card for one more combat."""
    state.cards.pop("round_used", None)


def end_turn(state: PogState, discard_front: bool = True) -> None:
    """9.5.4.5: the cards kept in front are discarded at the end of the turn (if the sequence keeps
    that step: sequence.toml [end_of_turn] front_discard, R103)."""
    for side in ("ap", "cp") if discard_front else ():
        for card in list(zone(state, f"{side}_front")):
            put(state, f"{side}_discard", card)
    state.cards.pop("turn_used", None)
    end_round(state)
