"""World in Flames in play, through the ruleset from scenario `demo`: tests/cases/world_in_flames/
play.toml (seed 004, 2.3.1, 2.4.1, 2.4.3, and the rulings that stand in for rule 11)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from pbem import orders
from pbem import ruleset as rulesets
from pbem.dice import FixedDice
from pbem.errors import IllegalOrder
from pbem.ruleset import Chance, Seat, Setup

RULESET = rulesets.load("world_in_flames")
CASES = tomllib.loads((Path(__file__).parent / "cases" / "world_in_flames" / "play.toml").read_text())["case"]
ROSTER = (Seat("alice", ("axis", "germany", "italy"), "player"), Seat("bob", ("allies", "commonwealth"), "player"),
          Seat("carol", ("allies", "ussr"), "player"))
COMBAT = {"rule": "11.16 (test: every attack a retreat)", "die": "1d10", "1-10": "retreat"}


def hex_id(text: str) -> str:
    from pbem.rules.world_in_flames import position

    return position.hex_id(position.worlds.load(), text)


def start(case: dict):
    from pbem.rules.world_in_flames import position

    setup = Setup("demo", ROSTER, options=case.get("options", {}), tables={"combat": COMBAT})
    state = RULESET.new_state(setup)
    for name in case.get("remove", []):
        del state.units[name]
    for unit in case.get("add", []):
        state.units[unit["id"]] = {"type": unit["type"], "country": unit["country"], "face_up": True,
                                   **({"sea": unit["sea"]} if "sea" in unit else {"hex": hex_id(unit["hex"])})}
    for name, where in case.get("place", {}).items():
        state.units[name].pop("hex", None)
        state.units[name].pop("sea", None)
        state.units[name].update({"sea": where} if where in position.worlds.load().seas
                                 else {"hex": hex_id(where)})
    for name in case.get("face_down", []):
        state.units[name]["face_up"] = False
    state.control.update({hex_id(h): power for h, power in case.get("control", {}).items()})
    state.politics["weather"].update(case.get("weather", {}))
    for player in case.get("resigned", []):
        RULESET.resign(state, player)
    return state


def play(state, step: dict) -> None:
    order = orders.parse(step["order"], RULESET.order_kinds)
    dice = FixedDice(list(step.get("dice", [])))
    RULESET.apply(state, step["player"], order)
    while isinstance(RULESET.pending(state), Chance):
        RULESET.resolve(state, dice, None)
    assert not dice.values, f"dice left over after {step}"


@pytest.mark.parametrize("case", CASES, ids=[f"{c['id']} [{c['rule']}]" for c in CASES])
def test_play_case(case):
    from pbem.rules.world_in_flames import readiness

    state = start(case)
    for step in case["steps"]:
        if "refused" not in step:
            play(state, step)
            continue
        before = RULESET.dump(state)
        trial = RULESET.copy(state, state.setup)
        with pytest.raises(IllegalOrder) as refused:
            play(trial, step)
        assert refused.value.rule == step["refused"], str(refused.value)
        assert RULESET.dump(state) == before
    for name, wanted in case.get("units", {}).items():
        assert {key: state.units[name].get(key) for key in wanted} == wanted, name
    assert all(name in state.destroyed and name not in state.units for name in case.get("destroyed", []))
    for hex_text, sides in case.get("held", {}).items():
        assert state.held[hex_text] == sides
    supplied = readiness.supplied(state, RULESET.chosen(state.setup))
    assert all(supplied[name] for name in case.get("supplied", []))
    assert not any(supplied[name] for name in case.get("unsupplied", []))


def test_each_player_retreats_his_own_units():
    """W17: a German and an Italian corps attacked together retreat each by his own commander, in
    roster order: alice, then dave; alice may not move dave's."""

    roster = (Seat("alice", ("axis", "germany"), "player"), Seat("bob", ("allies", "commonwealth"), "player"),
              Seat("carol", ("allies", "ussr"), "player"), Seat("dave", ("axis", "italy"), "player"))
    state = RULESET.new_state(Setup("demo", roster, tables={"combat": COMBAT}))
    for name in ("sov_north", "ger_5", "ger_4"):
        del state.units[name]
    state.units["ita_1"]["hex"] = hex_id("east_europe:4-1")
    for player in ("alice", "dave"):
        play(state, {"player": player, "order": "pass"})
    play(state, {"player": "bob", "order": "pass"})
    play(state, {"player": "carol", "order": "attack hex=east_europe:4-1 units=sov_south", "dice": [4]})
    assert RULESET.pending(state).players == ("alice",)
    with pytest.raises(IllegalOrder, match="not among alice's units"):
        play(RULESET.copy(state, state.setup), {"player": "alice", "order": "retreat unit=ita_1 hex=east_europe:5-0"})
    play(state, {"player": "alice", "order": "retreat unit=ger_3 hex=east_europe:5-0"})
    assert RULESET.pending(state).players == ("dave",)
    play(state, {"player": "dave", "order": "retreat unit=ita_1 hex=east_europe:5-0"})
    assert state.units["ita_1"]["hex"] == state.units["ger_3"]["hex"] == "east_europe:5-0"


def retreat_into_persia(resigned: list[str]):
    """An Indian and a Soviet corps in east_europe:7-1 attacked by a German corps beside them."""
    state = start({"weather": {"temperate": "fine"}, "resigned": resigned,
                   "remove": ["sov_north", "sov_front", "sov_odessa_1", "sov_odessa_2"],
                   "place": {"ind_1": "east_europe:7-1", "ger_2": "east_europe:6-1", "ger_5": "east_europe:3-1"},
                   "add": [{"id": "sov_east", "type": "infantry_corps", "country": "ussr", "hex": "east_europe:7-1"},
                           {"id": "ger_hq_2", "type": "hq", "country": "germany", "hex": "east_europe:6-1"}],
                   "control": {"east_europe:6-1": "germany", "east_europe:5-1": "germany"}})
    play(state, {"player": "alice", "order": "attack hex=east_europe:7-1 units=ger_2", "dice": [7]})
    return state


def test_a_retreat_settled_for_a_resigned_player_leaves_nobody_stuck():
    """W15: bob has resigned, so his corps retreats at once into the one open hex; carol's corps,
    which cannot stack with it, has nowhere left and is destroyed: alice plays on."""
    state = retreat_into_persia(["bob"])
    assert state.units["ind_1"]["hex"] == "asia:0-1" and "sov_east" in state.destroyed
    assert not state.retreat and RULESET.pending(state).players == ("alice",)


def test_a_retreat_that_fills_anothers_last_hex_destroys_the_other():
    """W17: an Indian and a Soviet corps (whose powers do not co-operate) attacked together in
    east_europe:7-1 have one hex to retreat into, Persian asia:0-1; once bob's corps is there,
    carol's cannot stack with it and, with nowhere left to go, is destroyed."""
    state = retreat_into_persia([])
    assert RULESET.pending(state).players == ("bob",)
    play(state, {"player": "bob", "order": "retreat unit=ind_1 hex=asia:0-1"})
    assert "sov_east" in state.destroyed and not state.retreat
    assert RULESET.pending(state).players == ("alice",)
