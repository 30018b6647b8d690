"""Rule cases of Empires in Arms' peace step, Economic Phase after the UMP Control Step, calendar
and set-up (seed 003: 12.10 and 12.11 militia, landwehr and manpower, 10.5.2 economic loss,
14.3.3.8-9 peace with an UMP, 14.1.5.1 and 14.7.6 set-up patches; RULINGS E18-E28):
tests/cases/empires_in_arms/economy.toml, each played through the ruleset.

A case starts from a scenario (`scenario`, default demo) with alice commanding France, bob
Britain and carol Russia; `position` sets start ("YYYY-MM" of turn 1), turn, step, powers {power:
{field: value}} (Austria is bob's active UMP unless it says otherwise), wars, corps added,
must_accept_peace and `players` {player: sides} changed; a case's `control` {territory: power}
too. `play` is a list of steps: {sealed = {player: [orders]}} for the sealed step open (every
member not named seals nothing), an order with its `player`, or `orders` (one entry of several)
with its `player`; `dice` on any are drawn at
the roll point after it. `refused` instead checks `pbem seal`'s refusal of one player's orders
(its rule and field), `expect.error` the refusal of the last step. `expect` checks the date
(`month` "YYYY-MM"), `step`, powers' fields, `losses` (power, die, money), `manpower` gained by
power, `peace` (power, UMP, die, sues, [enemy, kind of peace]), `wars`, `informal_peace`, corps,
control, free states and where leaders stand (`leaders`, "gone" when not in the game, "off" when
off the map)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from eia_cases import PLAYERS, RULESET, assert_refused_at_sealing, play, position
from pbem.rules.empires_in_arms import schedule, sequence

from pbem.errors import IllegalOrder

CASES = tomllib.loads((Path(__file__).parent / "cases" / "empires_in_arms" / "economy.toml").read_text())["case"]


def start(case: dict):
    facts = case.get("position", {})
    state = position(case, players={**PLAYERS, **facts.get("players", {})}, scenario=case.get("scenario", "demo"),
                     austria_active=True)
    state.start = schedule.when(facts.get("start", "1805-03"))
    state.turn = facts.get("turn", 1)
    state.must_accept_peace = facts.get("must_accept_peace", [])
    state.control.update(case.get("control", {}))
    schedule.arrive(state, sequence.month(state))  # as the turn opens
    sequence.open_step(state, facts.get("step", "political_combinations"))
    return state


@pytest.mark.parametrize("case", CASES, ids=[f"{c['id']} [{c['rule']}]" for c in CASES])
def test_case(case):
    state = start(case)
    expect = case["expect"]
    if "refused" in case:
        play(state, case.get("play", []))
        assert_refused_at_sealing(state, case)
        return
    if "error" in expect:
        play(state, case["play"][:-1])
        with pytest.raises(IllegalOrder) as raised:
            play(state, case["play"][-1:])
        assert (raised.value.rule, raised.value.field) == (expect["error"]["rule"], expect["error"]["field"])
        return
    play(state, case.get("play", []))
    if "month" in expect:
        year, month = sequence.month(state)
        assert f"{year}-{month:02d}" == expect["month"]
    if "step" in expect:
        assert state.step == expect["step"]
    for power, facts in expect.get("powers", {}).items():
        for key, value in facts.items():
            assert getattr(state.powers[power], key) == (None if value == "none" else value), f"{power}.{key}"
    if "peace" in expect:
        assert [[r["power"], r["ump"], r["die"], r["sues"], r.get("peace", [])] for r in state.peace["results"]] == \
            expect["peace"]
    for key in ("wars", "informal_peace"):
        if key in expect:
            assert getattr(state, key) == expect[key], key
    if "manpower" in expect:
        assert {p: state.last_economic["manpower"][p] for p in expect["manpower"]} == expect["manpower"]
    if "losses" in expect:
        found = [[loss["power"], loss["die"], loss["money"]] for loss in state.last_economic["losses"]]
        assert found == expect["losses"]
    for name, area in expect.get("leaders", {}).items():
        leader = state.leaders.get(name)
        assert ("gone" if leader is None else leader.area or "off") == area, name
    for territory, power in expect.get("control", {}).items():
        assert state.control.get(territory) == power, territory
    if "free_states" in expect:
        assert state.free_states == expect["free_states"]
    for name, facts in expect.get("corps", {}).items():
        unit = state.corps[name]
        assert {"power": unit.power, "area": unit.area, "factors": unit.factors, "origin": unit.origin} == facts, name
    dumped = RULESET.dump(state)
    assert RULESET.dump(RULESET.load(dumped, state.setup)) == dumped


def test_every_rule_of_the_economic_phase_has_a_case():
    cited = {case["rule"] for case in CASES}
    assert {"12.11.2", "12.11.3", "12.11.3.1", "10.5.2", "14.1.5.1.1", "14.1.5.1.2", "14.7.6", "14.3.3.8",
            "14.3.3.9", "12.10", "E18", "E19"} <= cited


def test_pbem_show_powers_tells_the_landwehr_and_the_1805_militia():
    """12.11.2-12.11.3.1: the conversions made before the game, and each landwehr active or once
    active, are public."""
    from rich.console import Console

    state = start({"scenario": "campaign_1805", "position": {"start": "1805-01", "turn": 0, "step": "ump_control"}})
    play(state, [{"sealed": {"alice": [{"kind": "convert_militia", "corps": "fr_1", "infantry": 2, "city": "paris"}]}}])
    state.powers["austria"].landwehr_ever = True
    view = RULESET.views(state)["powers"]
    data = view.data()
    assert (data["powers"]["austria"]["landwehr"], data["powers"]["prussia"]["landwehr"]) == ("once", "")
    console = Console(width=160, record=True)
    console.print(view.render(data))
    assert "before the game (12.11.2): france: 2 infantry of fr_1 into 6 militia in paris" in console.export_text()
