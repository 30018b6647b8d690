"""The Paths of Glory position as the engine handles it: a sparse dump (PROTOCOL §8: hashed into
every entry, so only what play changes) that loads back to the same position, and a cheap copy
that shares nothing a rule may change."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from pbem.rules.paths_of_glory import ruleset
from pbem.rules.paths_of_glory import state as positions
from pbem.rules.paths_of_glory.forts import destroy_fort

from pbem.engine import canonical_json
from pbem.errors import IllegalOrder
from pbem.game import Game
from pbem.ruleset import Seat, Setup

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "paths-of-glory-1914" / "game"
SETUP = Setup("august_1914", (Seat("alice", ("ap",), "player"), Seat("bob", ("cp",), "player")))


def round_trip(state: positions.PogState, setup: Setup) -> positions.PogState:
    return ruleset.load(json.loads(canonical_json(ruleset.dump(state))), setup)


def test_the_1914_dump_holds_no_control_or_fort_it_started_with():
    state = ruleset.new_state(SETUP)
    dump = ruleset.dump(state)
    assert dump["control"] == {} and dump["forts"] == {}
    state.control["liege"] = "cp"
    state.forts["liege"] = "besieged"
    assert ruleset.dump(state)["control"] == {"liege": "cp"}
    assert ruleset.dump(state)["forts"] == {"liege": "besieged"}


def test_a_played_position_loads_back_from_its_dump():
    """The example's head: the siege of Liege rolled, Libau turned over by attrition, a corps eliminated."""
    engine = Game(EXAMPLE).replay()
    state = engine.state
    assert ruleset.dump(state)["control"]["libau"] == "cp"
    loaded = round_trip(state, engine.setup)
    assert loaded == state and ruleset.dump(loaded) == ruleset.dump(state)
    assert loaded.setup is engine.setup


def test_a_fort_gone_since_the_start_is_dumped_as_null_and_stays_gone():
    """15.4: a fort built under 15.4 and then destroyed simply goes."""
    case = {"forts": {"amiens": "intact"}, "built_forts": {"amiens": 1}}
    state = positions.position_from_case(case)
    destroy_fort(state, "amiens")
    assert "amiens" not in state.forts and ruleset.dump(state)["forts"] == {"amiens": None}
    loaded = positions.load(json.loads(canonical_json(positions.dump(state))), positions.position_from_case(case))
    assert loaded == state and "amiens" not in loaded.forts


IMMUTABLE = (frozenset, str, int, bool, type(None), Setup, positions.Start)


def test_a_copy_shares_only_what_never_changes():
    original = Game(EXAMPLE).replay().state
    copied = ruleset.copy(original, SETUP)
    assert copied == original
    for spec in dataclasses.fields(positions.PogState):
        mine, theirs = getattr(copied, spec.name), getattr(original, spec.name)
        assert mine is not theirs or isinstance(mine, IMMUTABLE), spec.name
    assert all(copied.units[u] is not original.units[u] for u in original.units)


def test_changing_a_copy_leaves_the_original_as_it_was():
    original = ruleset.new_state(SETUP)
    original.action = {"kind": "movement", "activation": {"side": "cp", "moved": []}}
    before = canonical_json(ruleset.dump(original))
    copied = ruleset.copy(original, SETUP)
    copied.control["liege"] = "cp"
    copied.forts["liege"] = "destroyed"
    copied.units["ge_1_army"].space = "liege"
    copied.units["ge_1_army"].reduced = True
    copied.action["activation"]["moved"].append("ge_1_army")
    for name in ("at_war", "events", "removed"):
        getattr(copied, name).add("it")
    for name in ("trenches", "built_forts", "war_status"):
        getattr(copied, name)["liege"] = 1
    copied.commitment["cp"] = "total_war"
    assert canonical_json(ruleset.dump(original)) == before


def test_two_clients_whose_start_differs_disagree_at_once():
    """The dump records what differs from the start, so it carries the start's digest too: a client
    whose scenario or map data differ computes another hash from the first entry on."""
    state = positions.position_from_case({})
    other = positions.position_from_case({"control": {"sedan": "cp"}})
    assert ruleset.dump(state)["control"] == ruleset.dump(other)["control"] == {}
    assert ruleset.dump(state)["start"] != ruleset.dump(other)["start"]


# ---------------------------------------------------------------------------- a movement action through the ruleset

def _verdun_position():
    position = {"base": "empty", "turn": 3, "control": {"sedan": "cp"}, "active": "cp",
                "units": {"ge_corps_1": "sedan", "ge_corps_2": "metz", "ge_corps_3": "metz"}}
    return positions.position_from_case(position)


def test_stacks_moved_by_separate_orders_besiege_together_when_the_action_ends():
    """R05, base 11.1.8: a corps from Sedan and two from Metz, one move order per stack, besiege
    Verdun; the siege test is made when the movement action ends (pass), not after each stack."""
    state = _verdun_position()
    for order in ({"kind": "activate", "spaces": ["sedan", "metz"]},
                  {"kind": "move", "units": ["ge_corps_1"], "path": ["verdun"]},
                  {"kind": "move", "units": ["ge_corps_2", "ge_corps_3"], "path": ["verdun"]},
                  {"kind": "pass"}):
        state = ruleset.apply(state, "cp", order)
    assert state.forts["verdun"] == "besieged" and state.active == "ap"


def test_moves_that_leave_a_siege_short_are_taken_back_when_the_action_ends():
    """R39, R109: while the corps in Sedan may still move, two corps alone in Verdun wait for the
    end of the action, and a plain pass is refused; the other corps may still join them. Ended
    with take_back, the two go back to Metz, as an illegal move is taken back on the board."""
    state = _verdun_position()
    for order in ({"kind": "activate", "spaces": ["sedan", "metz"]},
                  {"kind": "move", "units": ["ge_corps_2", "ge_corps_3"], "path": ["verdun"]}):
        state = ruleset.apply(state, "cp", order)
    with pytest.raises(IllegalOrder) as refused:
        ruleset.apply(positions.copy(state), "cp", {"kind": "pass"})
    assert refused.value.rule == "15.2.1" and "take_back=true" in str(refused.value)
    ended = ruleset.apply(positions.copy(state), "cp", {"kind": "pass", "take_back": True})
    assert {ended.units[u].space for u in ("ge_corps_2", "ge_corps_3")} == {"metz"}
    assert ended.forts["verdun"] == "intact" and ended.active == "ap"
    ruleset.apply(state, "cp", {"kind": "move", "units": ["ge_corps_1"], "path": ["verdun"]})
    ruleset.apply(state, "cp", {"kind": "pass"})
    assert state.forts["verdun"] == "besieged"


def test_the_last_move_that_cannot_besiege_is_refused_at_once():
    """R39: when no other unit of the action may move, nothing could make the siege later, so the
    move that leaves two corps alone in Verdun is refused itself, not the pass after it."""
    state = _verdun_position()
    state = ruleset.apply(state, "cp", {"kind": "activate", "spaces": ["metz"]})
    with pytest.raises(IllegalOrder) as refused:
        ruleset.apply(state, "cp", {"kind": "move", "units": ["ge_corps_2", "ge_corps_3"], "path": ["verdun"]})
    assert refused.value.rule == "15.2.1"


def test_one_move_order_is_one_stack():
    state = _verdun_position()
    state = ruleset.apply(state, "cp", {"kind": "activate", "spaces": ["sedan", "metz"]})
    with pytest.raises(IllegalOrder) as refused:
        ruleset.apply(state, "cp", {"kind": "move", "units": ["ge_corps_1", "ge_corps_2"], "path": ["verdun"]})
    assert (refused.value.rule, refused.value.field) == ("base 11.1.1", "units")


def test_a_dump_against_another_start_does_not_load():
    state = positions.position_from_case({})
    other = positions.position_from_case({"control": {"sedan": "cp"}})
    with pytest.raises(ValueError, match="another start"):
        positions.load(json.loads(canonical_json(positions.dump(state))), other)


def test_a_refused_reorganisation_changes_nothing():
    """R104: over the stacking limit the exchange is refused, and the army and corps stay as they were."""
    state = positions.position_from_case({"active": "ap", "units": {
        "fr_6_army": {"space": "paris", "reduced": False}, "fr_corps_6": "paris",
        "fr_corps_4": "ap_eliminated", "fr_corps_5": "ap_eliminated"}})
    state = ruleset.apply(state, "ap", {"kind": "activate", "spaces": ["paris"]})
    before = positions.dump(state)
    with pytest.raises(IllegalOrder) as refused:
        ruleset.apply(state, "ap", {"kind": "reorganize", "space": "paris", "split": "fr_6_army",
                                    "corps": ["fr_corps_4", "fr_corps_5"]})
    assert refused.value.rule == "R104"
    assert positions.dump(state) == before
