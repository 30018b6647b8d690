"""Machine play of Paths of Glory: two players, each in his own game directory with the published
test keys, sign one order an entry, each picked at random among the orders the ruleset suggests
(Ruleset.suggest: concrete orders the state accepts), until the game ends or a turn limit passes.
With `dice = "all"` each witness reveals after the entry that opened a roll point and the author
applies the reveal, as `pbem apply --reveal` would. After every entry the position may be checked
(`check`).

Used by tests/test_pog_bot.py and bench/pog_game.py.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pbem.rules.paths_of_glory import card_zones, draws, hands

from pbem import keys
from pbem import ruleset as rulesets
from pbem.charter import Charter, Member
from pbem.game import Game, join
from pbem.ruleset import Decision, Over

KEYS = Path(__file__).resolve().parents[1] / "examples" / "paths-of-glory-1914" / "test-only-keys"
SIDES = {"alice": "ap", "bob": "cp"}
RESERVES = ("ap_reserve", "cp_reserve", "ap_eliminated", "cp_eliminated")


@dataclass
class BotGame:
    games: dict[str, Game]
    signers: dict
    rng: random.Random
    entries: int = 0
    orders: list[tuple[str, dict]] = field(default_factory=list)
    accept_seconds: list[float] = field(default_factory=list)  # the other player's Game.accept, by entry

    def engine(self, player: str = "alice"):
        current, _ = self.games[player].current()
        return current

    def step(self) -> tuple[str | None, object]:
        pending = self.engine().pending()
        if isinstance(pending, Decision):
            return pending.players[0], pending
        return None, pending

    def play_one(self) -> None:
        """The player on move signs one order picked among the suggestions; the other applies it."""
        player, _ = self.step()
        assert player is not None
        mine = self.engine(player)
        offered = mine.ruleset.suggest(mine.state, player, mine.views.get(player))
        assert offered, f"no order suggested for {player} at {mine.state.action} (turn {mine.state.turn})"
        order = self.rng.choice(_favoured(offered, self.rng))
        message, _ = self.games[player].move(player, [order], self.signers[player])
        started = time.perf_counter()
        self._deliver(player, message)
        self.accept_seconds.append(time.perf_counter() - started)
        self.entries += 1
        self.orders.append((player, order))
        for witness, game in self.games.items():
            if game.owed_reveal(witness):
                revealed, _ = game.reveal(witness, lambda name=witness: self.signers[name])
                self._deliver(witness, revealed)

    def _deliver(self, sender: str, message) -> None:
        for name, game in self.games.items():
            if name != sender:
                game.accept([message])


def _favoured(offered: list[dict], rng: random.Random) -> list[dict]:
    """Half the time an event, if one may be played: events move the war statuses, and with them
    the commitment levels and their decks, which a uniform pick among many moves would rarely do."""
    events = [order for order in offered if order["kind"] == "event"]
    return events if events and rng.random() < 0.5 else offered


def start(root: Path, seed: int, options: dict | None = None, dice: str = "open") -> BotGame:
    signers = {name: keys.FileSigner.load(KEYS / name) for name in SIDES}
    charter = Charter.create(
        game=f"pog-bot-{seed}", ruleset="paths_of_glory", version=rulesets.load("paths_of_glory").version,
        scenario="august_1914", dice=dice, reveal_hours=24, move_hours=72, options=options or {}, tables={},
        players=[Member(name, (side,), signers[name].public, "player") for name, side in SIDES.items()])
    (root / "game.toml").write_text(charter.text)
    games, joins = {}, []
    for name in SIDES:
        games[name], message = join(root / "game.toml", root / name, signers[name], home=root / "home" / name,
                                    key_path=str(KEYS / name))
        joins.append(message)
    for game in games.values():
        game.accept(joins)
    return BotGame(games, signers, random.Random(seed))


def play(bot: BotGame, last_turn: int, check: Callable[[BotGame], None] | None = None,
         most_entries: int = 5000) -> object:
    """Play until the game is over or `last_turn` has ended; returns the last pending step."""
    while bot.entries < most_entries:
        _, pending = bot.step()
        if isinstance(pending, Over) or bot.engine().state.turn > last_turn:
            return pending
        bot.play_one()
        if check:
            check(bot)
    raise AssertionError(f"{most_entries} entries without reaching the end of turn {last_turn}")


# ---------------------------------------------------------------------------------- what must hold

def check_position(bot: BotGame) -> None:
    """Each space holds one side's units, at most three on the map; each card in one public zone;
    each hand as its player's view says, within its limit once the draw step is over; tracks in
    range."""
    engine = bot.engine()
    state = engine.state
    _check_units(state)
    _check_zones(state)
    for player, side in SIDES.items():
        _check_hand(state, side, bot.engine(player).views[player]["sides"][side])
    assert all(value >= 0 for key, value in state.tracks.items() if key.startswith("rp_")), state.tracks
    assert all(value >= 0 for value in state.war_status.values()), state.war_status
    assert -20 <= state.tracks.get("vp", 0) <= 40, state.tracks


def _check_units(state) -> None:
    """No space holds both sides' units; none more than three once no movement or combat is open
    (stacking is judged at their end, base 10.1)."""
    spaces: dict[str, list[str]] = {}
    for unit, where in state.units.items():
        spaces.setdefault(where.space, []).append(unit)
    settled = state.action.get("kind") != "movement" and not state.action.get("combat")
    for space, units in spaces.items():
        if space in RESERVES or space not in state.map.index:
            continue
        assert len({state.faction(u) for u in units}) == 1, (space, units)
        assert len(units) <= 3 or not settled, (space, units)


def _check_zones(state) -> None:
    placed = [card for zone in card_zones.PLACES for card in card_zones.zone(state, zone)]
    assert len(placed) == len(set(placed)), state.cards


def _check_hand(state, side: str, mine: dict) -> None:
    counts = state.hands[side]
    held = hands.holding(state, mine)
    if not state.action.get("combat"):
        assert len(held) == counts["hand"], (side, held, counts)
    assert len(draws.pile_of(state, side, mine, [])) == counts["pile"], (side, counts)
    if state.action.get("kind") not in ("draw_step", "draw_roll", "keep"):
        assert counts["hand"] <= counts["limit"], (side, counts)
