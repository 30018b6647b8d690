"""Rule cases for Paths of Glory movement and forts: tests/cases/paths_of_glory/movement_*.toml
and forts_*.toml, one test per case (the test id is the case id).

Case keys, besides id, rule, title, position and variants (tests/pog_cases.py):
  side      the acting side, "ap" or "cp"
  orders    a list of steps, done in order; each is one of
              { activate = [spaces], attack = [spaces] }  a new action: movement markers
                                                          (14.1.1.1), then attack markers
              { moves = [...] }                           the move order (movement.py), or
              { units = [...], path = [...] }             its one-move shorthand
              { sieges = true }                           the Siege Phase (forts.resolve_sieges)
              { build = space, corps = unit }             15.4.1 (forts.build_fort)
              { rebuild = space, corps = unit }           15.4.2 (forts.rebuild_fort)
  dice      forced dice (pbem.dice.FixedDice); every one must be used
  oos       units out of supply throughout the case
  reopen    { unit = space }: the unit is out of supply until its side controls that space (a
            stand-in for a supply line opened by an earlier mover, RULINGS R04)
  oos_spaces  spaces that cannot trace supply as spaces (14.2.5; for building forts)
  position.built_forts  { space = strength }: forts built or partly rebuilt (15.4), which
            state.position_from_case does not read yet
  expect    { error = { rule, field?, says? } }: the first failing step raises IllegalOrder with
            that rule (field, and a piece of the message); the state is then as before that step.
            Or { after = { units, control, forts, trenches, built_forts }, events = [...] }:
            only the listed entries are checked (a unit as "space" or { space, reduced }; a
            trench 0 and a built fort 0 mean none); `events` must appear in this order among the
            events the steps returned, each matching on the keys it gives; `draws` lists the
            purpose of every die drawn, as the log and `pbem verify --roll` print it.

Supply in these cases is a stand-in, not the supply rules (supply.py is tested on its own): the
positions are chosen so every unit is plainly in supply, and `oos` / `reopen` mark the units a
case wants cut off. The stand-in reads the live state, as the real supply function must (R04).
"""

from __future__ import annotations

import pytest
from pbem.rules.paths_of_glory import forts
from pbem.rules.paths_of_glory.movement import Activation, activate_for_attack, activate_for_movement, move
from pbem.rules.paths_of_glory.state import dump, position_from_case
from pog_cases import DEFAULT_VARIANTS, load_cases, position

from pbem.dice import FixedDice
from pbem.errors import IllegalOrder

CASES = load_cases("movement_*.toml") + load_cases("forts_*.toml")


def test_case_ids_are_unique():
    ids = [case["id"] for _, case in CASES]
    assert len(ids) == len(set(ids))
    assert len(CASES) >= 30


def run(case: dict):
    """Play a case's steps; returns (state, events, error or None, state dump before the error)."""
    state = position(case)
    side = case["side"]
    oos = set(case.get("oos", []))
    reopen = case.get("reopen", {})
    oos_spaces = set(case.get("oos_spaces", []))

    def supplied(unit: str) -> bool:
        if unit in oos:
            return False
        need = reopen.get(unit)
        return need is None or state.control[need] == state.faction(unit)

    def space_supplied(space: str) -> bool:
        return space not in oos_spaces

    dice = FixedDice(case.get("dice", []))
    activation = Activation(side)
    events: list[dict] = []
    for step in case["orders"]:
        before = dump(state)
        try:
            if "activate" in step or "attack" in step:
                activation = activate_for_movement(state, side, step.get("activate", []), supplied)
                activation = activate_for_attack(state, side, step.get("attack", []), activation)
            elif "moves" in step or "path" in step:
                events += move(state, side, step, supplied, activation)
            elif "sieges" in step:
                events += forts.resolve_sieges(state, side, dice, supplied)
            elif "build" in step:
                events += forts.build_fort(state, side, step["build"], step["corps"], activation, space_supplied)
            elif "rebuild" in step:
                events += forts.rebuild_fort(state, side, step["rebuild"], step["corps"], activation,
                                             space_supplied)
            else:
                raise AssertionError(f"unknown step {step}")
        except IllegalOrder as error:
            return state, events, error, before, dice
    return state, events, None, None, dice


def _matches(expected: dict, actual: dict) -> bool:
    return all(actual.get(key) == value for key, value in expected.items())


@pytest.mark.parametrize("case", [case for _, case in CASES], ids=[case["id"] for _, case in CASES])
def test_rule_case(case):
    state, events, error, before, dice = run(case)
    expect = case["expect"]
    if "error" in expect:
        wanted = expect["error"]
        assert error is not None, f"expected an IllegalOrder under rule {wanted['rule']}; events: {events}"
        assert error.rule == wanted["rule"], str(error)
        if "field" in wanted:
            assert error.field == wanted["field"], str(error)
        if "says" in wanted:
            assert wanted["says"] in error.message, str(error)
        assert dump(state) == before, "a refused step must leave the state unchanged"
        return
    assert error is None, str(error)
    assert not dice.values, f"forced dice left unused: {dice.values}"
    after = expect.get("after", {})
    for unit, where in after.get("units", {}).items():
        if isinstance(where, str):
            where = {"space": where}
        assert unit in state.units, f"{unit} is gone"
        assert state.units[unit].space == where["space"], unit
        if "reduced" in where:
            assert state.units[unit].reduced == where["reduced"], unit
    for space, side in after.get("control", {}).items():
        assert state.control[space] == side, space
    for space, fort in after.get("forts", {}).items():
        assert state.forts.get(space, "none") == fort, space
    for space, level in after.get("trenches", {}).items():
        assert state.trenches.get(space, 0) == level, space
    for space, strength in after.get("built_forts", {}).items():
        assert state.built_forts.get(space, 0) == strength, space
    remaining = iter(events)
    for wanted in expect.get("events", []):
        assert any(_matches(wanted, event) for event in remaining), f"missing event {wanted} in {events}"
    if "draws" in expect:
        assert [draw.purpose for draw in dice.draws] == expect["draws"]


# ---------------------------------------------------------------------------- helpers the combat
# rules will call (15.1.11, 15.1.12, 15.2.3, 15.2.4, 15.2.5): not orders, so tested directly

def _state(**position):
    return position_from_case({"base": "empty", **position}, DEFAULT_VARIANTS)


def test_15_1_11_germans_may_not_attack_russian_forts_before_ober_ost():
    state = _state(turn=3, units={"ge_corps_1": "tannenberg", "ah_corps_1": "tannenberg"})
    assert forts.fort_attack_barred(state, "ge_corps_1", "lomza") == "15.1.11"
    assert forts.fort_attack_barred(state, "ah_corps_1", "lomza") is None  # AH are not restricted
    assert forts.fort_attack_barred(state, "ge_corps_1", "plock") is None  # no fort there
    state.events.add("oberost")
    assert forts.fort_attack_barred(state, "ge_corps_1", "lomza") is None
    state = _state(turn=3, war_status={"cp": 4}, units={"ge_corps_1": "tannenberg"})
    assert forts.fort_attack_barred(state, "ge_corps_1", "lomza") is None
    state = _state(turn=3, forts={"lomza": "destroyed"}, units={"ge_corps_1": "tannenberg"})
    assert forts.fort_attack_barred(state, "ge_corps_1", "lomza") is None  # no fort left


def test_15_1_12_russians_may_not_attack_german_forts_in_august_1914():
    state = _state(turn=1, units={"ru_1_army": "insterberg"}, control={"insterberg": "ap"})
    assert forts.fort_attack_barred(state, "ru_1_army", "konigsberg") == "15.1.12"
    assert forts.fort_attack_barred(state, "ru_1_army", "tannenberg") is None  # no fort
    state.turn = 2
    assert forts.fort_attack_barred(state, "ru_1_army", "konigsberg") is None


def test_15_2_3_only_units_above_the_siege_force_may_attack_out():
    state = _state(turn=3, units={"ge_1_army": "verdun", "ge_corps_1": "verdun", "ge_corps_2": "verdun"},
                   forts={"verdun": "besieged"})
    assert forts.required_to_besiege(state, "verdun") == 1
    assert forts.may_leave_siege(state, "verdun", ["ge_corps_1", "ge_corps_2"])
    assert not forts.may_leave_siege(state, "verdun", ["ge_1_army"])  # two corps are short of LF 3
    state = _state(turn=3, units={f"ge_corps_{i}": "verdun" for i in (1, 2, 3, 4)},
                   forts={"verdun": "besieged"})
    assert forts.required_to_besiege(state, "verdun") == 3
    assert forts.may_leave_siege(state, "verdun", ["ge_corps_4"])
    assert not forts.may_leave_siege(state, "verdun", ["ge_corps_3", "ge_corps_4"])


def test_15_2_4_a_siege_lapses_after_losses():
    state = _state(turn=3, units={"ge_corps_1": "verdun", "ge_corps_2": "verdun", "ge_corps_3": "verdun"},
                   forts={"verdun": "besieged"})
    assert not forts.siege_lapsed(state, "verdun")
    state.units["ge_corps_3"].space = "cp_eliminated"  # a combat loss
    assert forts.update_siege(state, "verdun") == [{"kind": "siege_lapsed", "space": "verdun", "rule": "15.2.4"}]
    assert state.forts["verdun"] == "intact" and forts.siege_lapsed(state, "verdun")
    assert state.control["verdun"] == "ap"


def test_15_2_5_desert_spaces_in_summer():
    state = _state(turn=6, at_war=["tu"])  # Summer 1915
    assert state.season == "summer"
    assert forts.desert_summer(state, "gaza")
    assert not forts.desert_summer(state, "jerusalem")
    state.turn = 5
    assert not forts.desert_summer(state, "gaza")


def _move_one(state, side: str, unit: str, path: list[str]) -> list[dict]:
    activation = activate_for_movement(state, side, [state.units[unit].space], lambda u: True)
    return move(state, side, {"unit": unit, "path": path}, lambda u: True, activation)


def test_r06_the_bef_corps_is_no_british_corps_on_london_amsterdam():
    """R06: the London-Amsterdam token admits British corps (AUS, CND, PT included) but not the
    ANA or the BEF corps; movement and supply read it alike (connections, R15)."""
    state = _state(at_war=["ho"], units={"br_bef_corps": "london", "br_cnd_corps": "london",
                                         "br_ana_corps": "london"})
    for unit in ("br_bef_corps", "br_ana_corps"):
        with pytest.raises(IllegalOrder) as refused:
            _move_one(state, "ap", unit, ["amsterdam"])
        assert refused.value.rule == "base 11.1.4", unit
    assert _move_one(state, "ap", "br_cnd_corps", ["amsterdam"])[0]["to"] == "amsterdam"


def test_base_11_1_4_the_sn_unit_is_turkish_on_dashed_lines():
    state = _state(at_war=["tu"], units={"sn_corps": "aqaba"})
    assert _move_one(state, "cp", "sn_corps", ["medina"])[0]["to"] == "medina"
