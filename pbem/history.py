"""The log as players read it: every entry with its orders and dice, and one roll point explained."""

from __future__ import annotations

from .charter import Charter
from .engine import RollRecord
from .game import Game


def log_entries(game: Game, progress=None) -> list[dict]:
    """Every chain entry with its orders summarised and the dice its roll point drew."""
    engine = game.replay(keep_rolls=True, progress=progress)
    rolls = {r.seq: r for r in engine.rolls}
    current, record = game.current()
    if record is not None:
        rolls[record.seq] = record
    rows = []
    for seq in range(1, engine.head_seq + 1):
        entry = game.dir.entry(seq)
        roll = rolls.get(seq)
        rows.append({
            "seq": seq, "id": entry.id, "player": entry.player,
            "time": entry.fields["time"].strftime("%Y-%m-%dT%H:%M:%SZ"),
            "orders": [game.ruleset.summary(o) for o in entry.orders],
            "uses": len(entry.uses),
            "dice": [d.to_dict() for d in roll.draws] if roll else [],
        })
    return rows


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
    if record.policy == "open":
        inputs = {"formula": "SHA256('pbem-open-v1\\0' || charter digest || entry id)",
                  "charter_digest": charter.digest, "entry": record.entry}
    else:
        inputs = {"formula": "SHA256('pbem-dice-v1\\0' || u16be(len g) || g || u64be(seq) || entry id || values)",
                  "game": charter.game, "seq": record.seq, "entry": record.entry}
    return {
        "seq": record.seq, "entry": record.entry, "policy": record.policy,
        "witnesses": [{"player": w, "value": v} for w, v in zip(record.witnesses, record.values)],
        "inputs": inputs, "seed": record.seed, "draws": draws,
    }
