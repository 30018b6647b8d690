"""What the sealed steps share: an order refused names its place among the player's sealed orders
(`orders[N].field`), so `pbem seal` says which of them to mend; and once unsealed, each order
that cannot stand is voided with its rule, recorded for all to see (protocol §5: nobody may amend
another's sealed orders), an unreadable seal too."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from pbem.errors import IllegalOrder


@contextmanager
def order_number(index: int) -> Iterator[None]:
    """Within it, an IllegalOrder's field is prefixed with `orders[index]`."""
    try:
        yield
    except IllegalOrder as exc:
        exc.field = f"orders[{index}]" + (f".{exc.field}" if exc.field else "")
        raise


def voided(player: str, order: int, rule: str | None, why: str) -> dict:
    return {"player": player, "order": order, "rule": rule, "why": why}


def collect_each(sealed: Mapping[str, list[Mapping] | None], check_kind: Callable[[Mapping], object],
                 take: Callable[[str, Mapping], Any], void: list[dict]) -> None:
    """For each member's unsealed orders in turn: `check_kind` (the declared fields), then `take`
    (what the order does, or IllegalOrder); each refused order is voided into `void`, and a seal
    whose text could not be read (None) as order 0."""
    for player, given in sealed.items():
        if given is None:
            void.append(voided(player, 0, "PROTOCOL §5", "the unsealed text could not be read"))
        for index, order in enumerate(given or [], 1):
            try:
                check_kind(order)
                take(player, order)
            except IllegalOrder as exc:
                void.append(voided(player, index, exc.rule, exc.message))
