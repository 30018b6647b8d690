"""The log as players read it: the entries with their orders and dice, and one roll point explained."""

from __future__ import annotations

import datetime as dt
from collections import deque
from dataclasses import dataclass

from .charter import Charter
from .engine import Engine, RollPoint, RollRecord
from .errors import Held, UsageError
from .game import Game
from .message import Message


@dataclass
class RollPoints:
    """The roll points of a replay: every one resolved, by the seq of the entry that opened it, and
    the head's when it still waits for reveals."""

    resolved: dict[int, RollRecord]
    waiting: RollPoint | None = None
    missing: tuple[str, ...] = ()  # the witnesses the waiting roll point has no reveal from

    def count(self) -> int:
        return len(self.resolved) + (self.waiting is not None)


def roll_points(game: Game, engine: Engine) -> RollPoints:
    """Every roll point of a replay. The head's is resolved from this replay and the stored reveals,
    never from the cache, once every witness has revealed; until then it is waiting."""
    resolved = {r.seq: r for r in engine.rolls}
    reveals = game.reveals_at(engine)
    head = engine.clone().resolve_with(reveals)
    if head is not None:
        resolved[head.seq] = head
        return RollPoints(resolved)
    if engine.roll is None:
        return RollPoints(resolved)
    return RollPoints(resolved, engine.roll, tuple(w for w in engine.roll.witnesses if w not in reveals))


def resolved_roll(points: RollPoints, engine: Engine, seq: int) -> RollRecord:
    """The roll point entry `seq` opened, once resolved: `verify --roll`."""
    waiting = points.waiting
    if waiting is not None and waiting.seq == seq:
        raise Held(f"its roll point is waiting for reveals from {', '.join(points.missing)}: no dice yet",
                   kind="move", entry=waiting.entry, seq=seq, player=waiting.author, field="--roll")
    if seq not in points.resolved:
        where = f"entry {seq} opened no roll point" if 1 <= seq <= engine.head_seq else \
            f"there is no entry {seq}: the log ends at seq {engine.head_seq}"
        raise UsageError(where, field="--roll")
    return points.resolved[seq]


def log_entries(game: Game, progress=None, *, last: int | None = None, since: int = 1) -> list[dict]:
    """The chain entries from seq `since` on, or the `last` N, each with its orders summarised and the
    dice its roll point drew. The whole log is replayed and checked whatever is shown, as every die
    depends on all that came before; what a row needs is taken from the replay as it goes, so no
    entry is read twice."""
    shown: deque[_Shown] = deque(maxlen=last)  # with --last, only the newest are kept

    def keep(entry: Message) -> None:
        if entry.fields["seq"] >= since:
            shown.append(_Shown(entry.fields["seq"], entry.id, entry.player, entry.fields["time"], entry.orders,
                                len(entry.uses)))

    engine = game.replay(keep_rolls=True, progress=progress, each=keep)
    points = roll_points(game, engine)
    return [item.row(game, points) for item in shown]


@dataclass
class _Shown:
    """What a log row needs of an entry, without the rest of the message."""

    seq: int
    id: str
    player: str
    time: dt.datetime
    orders: list[dict]
    uses: int

    def row(self, game: Game, points: RollPoints) -> dict:
        roll = points.resolved.get(self.seq)
        waiting = points.waiting is not None and points.waiting.seq == self.seq
        return {
            "seq": self.seq, "id": self.id, "player": self.player, "time": self.time.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "orders": [game.ruleset.summary(o) for o in self.orders],
            "uses": self.uses,
            "unsealed": unsealed_orders(game, self.seq - 1) if self.uses else {},
            "dice": [d.to_dict() for d in roll.draws] if roll else [],
            "waiting_for": list(points.missing) if waiting else [],
        }


def unsealed_orders(game: Game, seq: int) -> dict[str, list[str] | None]:
    """What the members of the decision bound to seq unsealed, summarised (None: unreadable text),
    as the entry after it collected them (§5)."""
    from .errors import UnreadableInput
    from .orders import from_sealed_text

    found: dict[str, list[str] | None] = {}
    for member in game.charter.participants:
        unseal = game.dir.read_message(game.dir.sealed_path("unseal", member.id, seq))
        if unseal is None:
            continue
        try:
            found[member.id] = [game.ruleset.summary(o) for o in from_sealed_text(unseal.fields["orders"])]
        except UnreadableInput:
            found[member.id] = None
    return found


def explain_roll(record: RollRecord, charter: Charter) -> dict:
    """§6 step by step: the seed's inputs, each witness's value, each word and rejection, each result."""
    draws = []
    for index, draw in enumerate(record.draws, 1):
        item = draw.to_dict()
        item["index"] = index
        if draw.kind in ("die", "uniform"):
            limit = 2**32 - (2**32 % draw.size)
            item["limit"] = limit
            item["rejected"] = [w for w in draw.words if w >= limit]
        draws.append(item)
    inputs: dict[str, str | int]
    if record.policy == "open":
        inputs = {"formula": "SHA256('pbem-open-v1\\0' || charter digest || entry id)",
                  "charter_digest": charter.digest, "entry": record.entry}
    else:
        inputs = {"formula": "SHA256('pbem-dice-v1\\0' || u16be(len g) || g || u64be(seq) || entry id || values)",
                  "game": charter.game, "seq": record.seq, "entry": record.entry}
    return {
        "seq": record.seq, "entry": record.entry, "policy": record.policy,
        "witnesses": [{"player": w, "value": v} for w, v in zip(record.witnesses, record.values, strict=True)],
        "inputs": inputs, "seed": record.seed, "draws": draws,
        # §7: whose private draws this roll point also seeded, never what they drew
        "private": [{**request, "shown": f"{request['purpose']} ({request['rule']}): hidden until "
                                         f"{request['player']} discloses"} for request in record.private],
    }
