"""Rule cases of Empires in Arms' land phase (seed 003, 12.3.7.4 reactions, 12.3.9 overruns; RULINGS
E13-E18): tests/cases/empires_in_arms/land.toml, each played through the ruleset with forced dice.

A case starts from the demo scenario in turn 1, in `phasing`'s land phase (default France), with
alice commanding France, bob Britain (and Austria, his active UMP, at war with France) and carol
Russia. `position` changes it: wars, powers, corps {id: {power, kind, area, factors}} added or
replaced (with `origin`), `removed` corps and leaders, `leaders` {name: area}, `reacted_with`
{corps: leader} and `options`.
`orders` are played in turn, each by its `player` (or `sealed` {player: [orders]}, checked as
`pbem seal` does, or `unchecked`, unsealed as they are), its `dice` drawn at the roll point
after it.
`expect` checks where units stand (`at`, "gone" once off the map), `stopped` corps, who is asked
next (`asked`), the phase's log (`log`: event, success, die ("none" where none was needed),
needed), `prisoners`, `attack_minus`, `powers` {power: {field: value}}, or the `error` of the
last order (its rule, field and a part of its message)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from eia_cases import RULESET, play, position
from pbem.rules.empires_in_arms import land

from pbem.errors import IllegalOrder
from pbem.ruleset import Chance

CASES = tomllib.loads((Path(__file__).parent / "cases" / "empires_in_arms" / "land.toml").read_text())["case"]


def start(case: dict):
    state = position(case, austria_active=True)
    state.turn, state.step = 1, "land"
    land.start(state, case.get("position", {}).get("phasing", "france"))
    for name, leader in case.get("position", {}).get("reacted_with", {}).items():
        state.corps[name].reacted_with = leader
    return state


@pytest.mark.parametrize("case", CASES, ids=[f"{c['id']} [{c['rule']}]" for c in CASES])
def test_case(case):
    state = start(case)
    expect = case["expect"]
    if "error" in expect:
        play(state, case["orders"][:-1])
        with pytest.raises(IllegalOrder) as raised:
            play(state, case["orders"][-1:])
        error = expect["error"]
        assert (raised.value.rule, raised.value.field) == (error["rule"], error["field"]), str(raised.value)
        assert error["message"] in raised.value.message
        return
    play(state, case["orders"])
    check(state, expect)
    dumped = RULESET.dump(state)
    assert RULESET.dump(RULESET.load(dumped, state.setup)) == dumped


def check(state, expect: dict) -> None:
    for name, area in expect.get("at", {}).items():
        unit = state.corps.get(name) or state.leaders.get(name)
        assert (unit.area if unit else "gone") == area, name
    if "stopped" in expect:
        assert sorted(n for n, u in state.corps.items() if u.stopped) == sorted(expect["stopped"])
    if "asked" in expect:
        assert RULESET.pending(state).players == (expect["asked"],), RULESET.pending(state)
    if "log" in expect:
        assert len(state.land_log) == len(expect["log"]), state.land_log
        found = [{key: event.get(key, "none") for key in wanted}
                 for event, wanted in zip(state.land_log, expect["log"], strict=True)]
        assert found == expect["log"], state.land_log
    for key in ("prisoners", "attack_minus", "wars", "surrendered", "phasing"):
        if key in expect:
            assert getattr(state, key) == expect[key], key
    for power, facts in expect.get("powers", {}).items():
        for key, value in facts.items():
            assert getattr(state.powers[power], key) == value, f"{power}.{key}"
    if "battle" in expect:
        battles = [event for event in state.land_log + state.last_phase.get("log", []) if event["event"] == "battle"]
        assert battles, "no battle was fought"
        for key, value in expect["battle"].items():
            assert battles[-1].get(key) == value, (key, battles[-1])
    if "plan_voided" in expect:
        plan = next(event for event in state.land_log + state.last_phase.get("log", []) if event["event"] == "plan")
        assert [[v["player"], v["order"], v["rule"]] for v in plan["voided"]] == expect["plan_voided"]
    for name, strength in expect.get("strength", {}).items():
        assert state.corps[name].strength == strength, name
    for name in expect.get("failed", []):
        assert state.leaders[name].failed, name


def _battle_in_munich():
    state = start({"position": {"removed": ["au_cav", "charles"], "corps": {
        "au_3": {"power": "austria", "kind": "infantry", "area": "munich", "factors": {"infantry": 3}}}}})
    play(state, [{"player": "alice", "kind": "move", "units": ["fr_1"], "path": ["munich"]},
                 {"player": "alice", "kind": "end_land_phase"}])
    return state


def test_a_player_who_resigns_mid_battle_has_his_option_rolled():
    """E9, E23: bob resigns before sealing: alice alone chooses, with no seal; Austria, now
    nobody's, rolls its option (18.1.1: a 5, defend) and, beaten, retreats into the area open to
    it nearest a friendly force (Vienna)."""
    state = _battle_in_munich()
    RULESET.resign(state, "bob")
    assert RULESET.pending(state).players == ("alice",)  # hers alone: no seal
    play(state, [{"player": "alice", "kind": "tactic", "option": "assault", "dice": [5, 4, 3]}])
    battle = state.last_phase["log"][-1]
    assert battle["options"] == {"defender": "defend", "attacker": "assault"} and battle["retreat"] == "vienna"
    assert state.corps["au_3"].area == "vienna" and state.phasing == "russia"


def test_a_player_who_resigns_before_his_retreat():
    state = _battle_in_munich()
    play(state, [{"sealed": {"alice": [{"kind": "tactic", "option": "assault"}],
                             "bob": [{"kind": "tactic", "option": "defend"}]}, "dice": [4, 3]}])
    assert RULESET.pending(state).players == ("bob",)
    RULESET.resign(state, "bob")
    assert state.corps["au_3"].area == "vienna" and state.phasing == "russia"


def test_the_mover_resigns_while_bob_is_asked():
    """E9: alice resigns while bob is asked to react to fr_1 entering Munich: the move ends where
    it stands; France, nobody's now, fights its battles (none here) and Russia's phase begins."""
    state = start({"position": {"removed": ["au_cav"]}})
    play(state, [{"player": "alice", "kind": "move", "units": ["fr_1"], "path": ["munich", "vienna"]}])
    RULESET.resign(state, "alice")
    assert state.corps["fr_1"].area == "munich" and state.phasing == "russia"
    assert RULESET.pending(state).players == ("carol",)


def test_a_player_resigns_while_his_reaction_die_is_due():
    """E9: bob's interception waits for its die when he resigns: the attempt is withdrawn, the move
    goes on into Vienna and ends beside au_1."""
    state = start({"position": {"removed": ["au_cav"]}})
    play(state, [{"player": "alice", "kind": "move", "units": ["fr_1"], "path": ["munich", "vienna"]}])
    RULESET.apply(state, "bob", {"kind": "react", "corps": ["au_1"], "to": "munich", "leader": "charles"})
    assert isinstance(RULESET.pending(state), Chance)
    RULESET.resign(state, "bob")
    assert not isinstance(RULESET.pending(state), Chance)
    assert state.corps["fr_1"].area == "vienna" and state.corps["fr_1"].stopped
    assert RULESET.pending(state).players == ("alice",)


def overrun_in_munich(strength: int):
    """France's fr_1 of `strength` moves from Paris into Munich and overruns Austria's au_3 (3)
    there, Charles and the Austrian cavalry out of the way: 15 sweeps it (5 to 1), 14 does not."""
    state = start({"position": {"removed": ["au_cav", "charles"], "corps": {
        "fr_1": {"power": "france", "kind": "infantry", "area": "paris", "factors": {"infantry": strength}},
        "au_3": {"power": "austria", "kind": "infantry", "area": "munich", "factors": {"infantry": 3}}}}})
    play(state, [{"player": "alice", "kind": "move", "units": ["fr_1"], "path": ["munich"]},
                 {"player": "alice", "kind": "overrun", "area": "munich"}])
    return state


def test_the_mover_resigns_during_an_overrun_choice():
    state = overrun_in_munich(15)
    RULESET.resign(state, "alice")
    play(state, [{"player": "bob", "kind": "overrun_losses", "fate": "surrendered"}])
    assert "au_3" not in state.corps and state.phasing == "russia"


def test_the_last_defender_resigns_before_his_retreat_with_no_phase_left():
    """E9: carol has resigned; bob resigns when asked to retreat after France's only battle: the
    retreat is made for him and the turn goes on without a fault."""
    state = _battle_in_munich()
    RULESET.resign(state, "carol")
    play(state, [{"sealed": {"alice": [{"kind": "tactic", "option": "assault"}],
                             "bob": [{"kind": "tactic", "option": "defend"}]}, "dice": [4, 3]}])
    RULESET.resign(state, "bob")
    from pbem.ruleset import Over

    assert isinstance(RULESET.pending(state), Over) and state.corps["au_3"].area == "vienna"
