"""Paths of Glory through the engine: two players in their own directories, signed entries,
witnessed dice for the siege roll, and the CLI's views."""

from __future__ import annotations

import json
import os

import pytest
from helpers import completed, open_pog_game, run_cli

from pbem import chain, dice, keys
from pbem import ruleset as rulesets
from pbem.charter import Charter, Member
from pbem.errors import IllegalOrder
from pbem.game import join, status

SIDES = {"alice": "ap", "bob": "cp"}


@pytest.fixture
def game(tmp_path):
    signers = {name: keys.FileSigner.from_seed(bytes([i + 7]) * 32, name) for i, name in enumerate(SIDES)}
    charter = Charter.create(
        game="pog-test", ruleset="paths_of_glory", version=rulesets.load("paths_of_glory").version,
        scenario="august_1914", dice="all",
        reveal_hours=24, move_hours=72, options={}, tables={},
        players=[Member(name, (side,), signers[name].public, "player") for name, side in SIDES.items()],
    )
    (tmp_path / "game.toml").write_text(charter.text)
    games, joins = {}, []
    for name in SIDES:
        games[name], message = join(tmp_path / "game.toml", tmp_path / name, signers[name],
                                    home=tmp_path / "home" / name)
        joins.append(message)
    for one in games.values():
        one.accept(joins)
    open_pog_game(games, signers)
    return games, signers, tmp_path


def play(games, signers, player, orders):
    message, _ = games[player].move(player, orders, signers[player])
    for name, other in games.items():
        if name != player:
            other.accept([message])
    return message


def reveal(games, signers, witness):
    message, _ = games[witness].reveal(witness, lambda: signers[witness])
    for name, other in games.items():
        if name != witness:
            other.accept([message])
    return message


def test_the_central_powers_besiege_liege_and_roll_for_it(game):
    games, signers, _ = game
    alice, bob = games["alice"], games["bob"]
    assert status(alice)["step"]["waiting_for"] == ["bob"]  # 8.1.2: the CP act first
    with pytest.raises(IllegalOrder, match="out of turn"):
        alice.draft("alice", [{"kind": "pass"}], signers["alice"])
    with pytest.raises(IllegalOrder) as refused:
        bob.draft("bob", [{"kind": "move", "units": ["ge_1_army"], "path": ["liege"]}], signers["bob"])
    assert refused.value.rule == "14.1.1.1"

    play(games, signers, "bob", [{"kind": "activate", "spaces": ["aachen"]},
                                 {"kind": "move", "units": ["ge_1_army"], "path": ["liege"]},
                                 {"kind": "pass"}, {"kind": "pass"}])  # the operation, then no draw (8.1.6)
    state = alice.engine().state
    assert state.units["ge_1_army"].space == "liege"
    assert state.forts["liege"] == "besieged"  # 15.2.1: an army besieges
    assert state.control["liege"] == "ap"  # variant 11.1.4: an intact enemy fort keeps control
    assert state.active == "ap"

    play(games, signers, "alice", [{"kind": "pass"}, {"kind": "pass"}])  # a pass action, no recycle
    entry = play(games, signers, "bob", [{"kind": "economic"}])
    assert status(bob)["step"] == {**status(bob)["step"], "kind": "reveal", "waiting_for": ["alice"]}
    value = reveal(games, signers, "alice").fields["value"]
    engine, record = bob.current()
    seed = chain.roll_seed("pog-test", entry.seq, bytes.fromhex(entry.id), [bytes.fromhex(value)])
    die = dice.Stream(seed).die(6)
    assert [d.result for d in record.draws] == [die]
    assert record.draws[0].rule.startswith("15.3")
    # 15.3.2-15.3.3: destroyed if the die, -2 in August 1914, exceeds Liege's LF of 3.
    assert engine.state.forts["liege"] == ("destroyed" if die - 2 > 3 else "besieged")
    assert engine.state.action["kind"] == "draw_step"  # 8.1.6: after the sieges, the draw step
    play(games, signers, "bob", [{"kind": "pass"}])
    assert bob.engine().state.active == "ap" and bob.engine().state.round == 2


def test_views_through_the_cli(game):
    _games, _signers, tmp_path = game
    env = {**os.environ, "COLUMNS": "160"}

    def pbem(*args):
        result = completed(args, run_cli([*args, "--game", str(tmp_path / "alice")], os.getcwd(), env=env))
        return result

    space = json.loads(pbem("show", "space", "liège", "--json").stdout)
    assert space["fort"] == {"strength": 3, "state": "intact"} and space["control"] == "ap"
    near_miss = pbem("show", "space", "Verdon")
    assert near_miss.returncode == 2 and "did you mean" in near_miss.stderr and "Verdun" in near_miss.stderr
    supply = json.loads(pbem("show", "supply", "cp", "--json").stdout)
    assert supply["units"]["ge_1_army"] == {"space": "aachen", "status": "supplied", "sources": ["essen", "breslau"]}
    assert "Belgium" in pbem("show", "map").stdout


def test_turks_in_medina_may_not_be_activated_for_movement():
    """14.1.8: special supply in Medina, but no movement activation (through the ruleset itself)."""
    from pbem.rules.paths_of_glory import ruleset
    from pbem.rules.paths_of_glory.state import position_from_case

    from pbem.ruleset import Seat, Setup

    state = position_from_case({"base": "1914", "at_war": ["tu"], "units": {"tu_corps_12": "medina"},
                                "forts": {"aqaba": "destroyed"}, "control": {"aqaba": "ap"}},
                               frozenset({"vesting_holland", "italy_19_1"}))
    state.setup = Setup("august_1914", (Seat("alice", ("ap",), "player"), Seat("bob", ("cp",), "player")))
    with pytest.raises(IllegalOrder) as refused:
        ruleset.apply(state, "bob", {"kind": "activate", "spaces": ["Medina"]})
    assert refused.value.rule == "14.1.8" and "supplied only by Medina" in refused.value.message
