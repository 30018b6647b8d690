"""The strategy cards as facts (data/cards.toml): looking a card up by its id (`cp56`) or its
event id (`cp_withdrawal`), and the cards of a side's deck at a commitment level (base 4.3,
16.1.3-16.1.4)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

from pbem import datafile

from .state import COMMITMENT_LEVELS

LEVELS = COMMITMENT_LEVELS


@cache
def catalogue() -> Mapping[str, dict]:
    return datafile.load(__package__, "cards.toml")["cards"]


@cache
def _by_event() -> Mapping[str, str]:
    return {card["event"]: card_id for card_id, card in catalogue().items() if "event" in card}


def card_id(name: str) -> str | None:
    """The id of the card a player names by its id or its event id; None if there is none."""
    return name if name in catalogue() else _by_event().get(name)


def event_of(card: str) -> str | None:
    return catalogue()[card].get("event")


def label(card: str) -> str:
    """`cp56 Withdrawal`: how a view names a card."""
    return f"{card} {catalogue()[card]['name']}"


def deck(side: str, level: str, optional: bool = False) -> list[str]:
    """The cards of the side's deck brought in at `level` (not those of earlier levels), in
    number order; the optional cards (56-65) only if chosen."""
    return [card_id for card_id, card in catalogue().items()
            if card["side"] == side and card["commitment"] == level and (optional or not card.get("optional"))]
