"""Paths of Glory played to the end of turn 5 by a bot on both sides (tests/pog_bot.py): every order
is one the ruleset suggests and the state accepts, signed with the published test keys and
applied by the other player's directory. After every entry the position must hold together
(stacking, no enemies together, each card in one zone, each hand as its player's view says and
within its limit, tracks in range). At the end the whole log replays to every state hash
(`verify`), and once both players disclose, `audit` re-derives both hands and finds every card
played in them.

Three games in the normal run; fifty, to the end of the game or turn 20, with PBEM_LONG=1.
"""

from __future__ import annotations

import os

import pog_bot
import pytest

from pbem.ruleset import Over

LONG = os.environ.get("PBEM_LONG") == "1"
SEEDS = range(1, 51) if LONG else range(1, 4)
LAST_TURN = 20 if LONG else 5


@pytest.mark.parametrize("seed", SEEDS)
def test_a_bot_game_holds_together_and_audits(tmp_path, seed):
    bot = pog_bot.start(tmp_path, seed)
    end = pog_bot.play(bot, LAST_TURN, pog_bot.check_position, most_entries=8000)
    state = bot.engine().state
    assert isinstance(end, Over) or state.turn == LAST_TURN + 1, end
    kinds = {order["kind"] for _, order in bot.orders}
    assert {"activate", "move", "draw", "pass"} <= kinds, kinds
    for game in bot.games.values():
        verified = game.verify()
        assert verified.head_id == bot.engine().head_id and verified.state_hash() == bot.engine().state_hash()
    for player, game in bot.games.items():
        disclose, _ = game.disclose(player, bot.signers[player])
        for other in bot.games.values():
            if other is not game:
                other.accept([disclose])
    audited = bot.games["alice"].audit()
    for player in pog_bot.SIDES:
        assert audited[player]["view"] == bot.engine(player).views[player], player
