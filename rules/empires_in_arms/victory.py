"""Who may announce victory (seed 003, 14.3.9; base 8.1.3.2): a player with his own major power at
or over its victory level, or with an UMP he controls through one of his powers, if the UMP is
active, at or over its (parenthesised) level, and its victory points above that level, added to
his power's, reach his power's level. The Victory Step itself comes with the base rules; this is
what `pbem show victory` tells each player now."""

from __future__ import annotations

from . import powers
from .state import ACTIVE, PLAYER, EiaState


def claims(state: EiaState, commands: dict[str, list[str]]) -> list[dict]:
    """Every victory a player may announce now, with its arithmetic."""
    found = []
    for player, mine in commands.items():
        for power in mine:
            own, level = state.powers[power].vp, powers.victory_level(power, parenthesised=False)
            if own >= level:
                found.append({"player": player, "power": power, "vp": own, "level": level})
            for ump in state.powers:
                claim = _with_ump(state, power, ump, own, level)
                if claim:
                    found.append({"player": player, **claim})
    return found


def _with_ump(state: EiaState, power: str, ump: str, own: int, level: int) -> dict | None:
    facts = state.powers[ump]
    if facts.status == PLAYER or facts.controller != power or facts.status != ACTIVE:
        return None
    ump_level = powers.victory_level(ump, parenthesised=True)  # 14.3.9: UMPs never manipulate
    excess = facts.vp - ump_level
    if excess < 0 or own + excess < level:
        return None
    return {"power": power, "ump": ump, "ump_vp": facts.vp, "ump_level": ump_level, "vp": own + excess,
            "level": level}
