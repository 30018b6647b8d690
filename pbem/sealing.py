"""A player's side of a simultaneous decision (docs/protocol.md §5): seal, unseal, and what he owes.

A member seals his orders: 32 random bytes k and the exact text of his orders stay in his app dir
(mode 0600, beside his seed store), never in the game directory; the seal carries only their digest.
Once every member's seal is here he unseals (k and the text). The first member in roster order then
collects them all in his next entry.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, NamedTuple

from . import chain
from .errors import Held, IllegalOrder, UnreadableInput, UsageError
from .log import read_toml, write_toml
from .message import Message, check_order, sign

if TYPE_CHECKING:
    from .engine import Engine
    from .game import Game


class OpenDecision(NamedTuple):
    """The simultaneous decision pending at the head: its binding, members and collector."""

    seq: int
    entry: str
    members: list[str]
    collector: str
    prompt: str


def open_decision(engine: Engine) -> OpenDecision | None:
    """The sealed decision pending at `engine`'s head (after its roll point, if resolved), if any."""
    members = engine.sealed_members() if engine.started else []
    if not members:
        return None
    return OpenDecision(engine.head_seq, engine.head_id or "", members, engine.collector(),
                        getattr(engine.pending(), "prompt", ""))


def stored(game: Game, kind: str, decision: OpenDecision) -> dict[str, Message]:
    """The members' seals (or unseals) for this decision in the game directory, by player."""
    found = {}
    for player in decision.members:
        message = game.dir.read_message(game.dir.sealed_path(kind, player, decision.seq))
        if message is not None and message.fields["for"] == decision.entry:
            found[player] = message
    return found


def owed(game: Game, engine: Engine, player: str, *, early: bool = False) -> str | None:
    """"seal" or "unseal" if `player` owes one for the open decision now, else None (an unseal is
    owed once every member has sealed, or at once with `early`)."""
    decision = open_decision(engine)
    if decision is None or player not in decision.members:
        return None
    seals = stored(game, "seal", decision)
    if player not in seals:
        return "seal"
    all_sealed = len(seals) == len(decision.members)
    return "unseal" if player not in stored(game, "unseal", decision) and (all_sealed or early) else None


class SealRecord:
    """k and the orders text of each seal this player signed, in his app dir (0600)."""

    def __init__(self, folder) -> None:
        self.path = folder / "sealed.toml"

    def find(self, seq: int, entry: str, opens) -> dict | None:
        """The kept key and text for this decision that open the seal sent (`opens(item)`): a seal
        signed but never sent, by a run that failed after keeping its key, is passed over."""
        for item in self._items():
            if item.get("seq") == seq and item.get("entry") == entry and opens(item):
                return item
        return None

    def add(self, seq: int, entry: str, key: bytes, text: str) -> None:
        items = [*self._items(), {"seq": seq, "entry": entry, "key": key.hex(), "orders": text}]
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_toml(self.path, {"sealed": items}, 0o600)

    def _items(self) -> list[dict]:
        if not self.path.exists():
            return []
        items = read_toml(self.path, "seal record").get("sealed", [])
        if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
            raise UnreadableInput(f"{self.path} is damaged; restore it from a backup", kind="seal record")
        return items


def seal(game: Game, engine: Engine, player: str, orders: list[dict], signer) -> Message:
    """Check `player`'s orders alone against the open decision, keep k and their text, sign the seal.
    No orders (abstaining, or resigning) need no check: whether that may stand is the ruleset's call
    when the round is collected."""
    decision = _decision_of(engine, player)
    if player in stored(game, "seal", decision):
        raise UsageError(f"you have sealed for seq {decision.seq} already; mail "
                         f"{game.dir.sealed_path('seal', player, decision.seq)} again if the others lack it",
                         player=player)
    for index, order in enumerate(orders, 1):
        if not isinstance(order, Mapping):
            raise UnreadableInput("each order is a table with a kind", field=f"orders[{index}]", player=player)
        check_order(dict(order), index, {"player": player})
    try:
        if orders:
            game.ruleset.check_together(game.ruleset.copy(engine.state, engine.setup), player, orders)
    except IllegalOrder as refused:
        raise refused.locate(player=player, kind="seal") from None
    from .orders import sealed_text

    key, text = os.urandom(32), sealed_text(orders)  # the OS CSPRNG, as secrets uses
    record = SealRecord(game.seed_store(player).folder)
    record.add(decision.seq, decision.entry, key, text)
    digest = chain.sealed_digest(game.charter.game, player, bytes.fromhex(decision.entry), key, text)
    return sign({"pbem": 1, "type": "seal", "game": game.charter.game, "player": player, "for": decision.entry,
                 "seq": decision.seq, "sealed": digest.hex()}, signer)


def unseal(game: Game, engine: Engine, player: str, signer, *, early: bool = False) -> Message:
    """Open this player's seal, once every member's seal is here (§5). `early`: at once if he sealed
    no orders (a member who resigns), since opening an empty seal tells the others nothing."""
    decision = _decision_of(engine, player)
    seals = stored(game, "seal", decision)
    if player not in seals:
        raise UsageError(f"you have not sealed for seq {decision.seq}: pbem seal first", player=player)
    missing = [p for p in decision.members if p not in seals]
    def opens(item: dict) -> bool:
        try:
            key = bytes.fromhex(str(item.get("key", "")))
        except ValueError:  # a damaged record line opens nothing
            return False
        digest = chain.sealed_digest(game.charter.game, player, bytes.fromhex(decision.entry), key,
                                     str(item.get("orders", "")))
        return digest.hex() == seals[player].fields["sealed"]

    kept = SealRecord(game.seed_store(player).folder).find(decision.seq, decision.entry, opens)
    if kept is None:
        raise UsageError(f"this machine holds no key for your seal of seq {decision.seq}: unseal on the machine "
                         "that sealed", player=player)
    if missing and not (early and kept["orders"] == ""):  # an empty seal tells the others nothing
        raise Held(f"unseal only once every member has sealed: waiting for the seal of {', '.join(missing)}",
                   player=player, seq=decision.seq)
    return sign({"pbem": 1, "type": "unseal", "game": game.charter.game, "player": player,
                 "for": decision.entry, "seq": decision.seq, "key": kept["key"], "orders": kept["orders"]}, signer)


def _decision_of(engine: Engine, player: str) -> OpenDecision:
    decision = open_decision(engine)
    if decision is None or player not in decision.members:
        raise UsageError(f"no simultaneous decision of {player}'s is open", player=player)
    return decision
