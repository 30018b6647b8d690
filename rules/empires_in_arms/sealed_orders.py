"""What the sealed steps share: an order refused names its place among the player's sealed orders
(`orders[N].field`), so `pbem seal` says which of them to mend."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from pbem.errors import IllegalOrder


@contextmanager
def order_number(index: int) -> Iterator[None]:
    """Within it, an IllegalOrder's field is prefixed with `orders[index]`."""
    try:
        yield
    except IllegalOrder as exc:
        exc.field = f"orders[{index}]" + (f".{exc.field}" if exc.field else "")
        raise
