"""Empires in Arms' data files hold together: the sample map's areas, territories and borders;
the powers' tables name real powers and territories; the demo scenario sets every power."""

from __future__ import annotations

import pytest
from pbem.rules.empires_in_arms import geography, powers, units

from pbem import ruleset as rulesets

RULESET = rulesets.load("empires_in_arms")


def test_every_area_lies_in_a_territory_and_every_territory_has_an_area():
    territories = geography.territories()
    assert {facts["territory"] for facts in geography.areas().values()} == set(territories)
    for territory, facts in territories.items():
        assert facts["kind"] in ("province", "minor"), territory
        assert facts.get("home", "austria") in powers.order(), territory
    for power in powers.order():
        assert geography.home_areas(power), power


def test_borders_join_known_areas_once():
    seen = set()
    for area in geography.areas():
        for other, crossing in geography.neighbours(area):
            assert other in geography.areas() and crossing in ("", "river", "mountain"), (area, other)
            seen.add(frozenset((area, other)))
    assert all(geography.neighbours(area) for area in geography.areas())


def test_the_tables_name_powers_and_territories():
    for ump in powers.order():
        chart = powers.objectives(ump)
        assert set(chart["crucial"]) | set(chart["cession"]) <= set(geography.territories()), ump
        assert powers.victory_level(ump, parenthesised=True) <= powers.victory_level(ump, parenthesised=False)
    scenario = RULESET.data("scenarios.toml")["demo"]
    assert set(scenario["powers"]) == set(powers.order())
    assert set(scenario["control"]) <= set(geography.territories())
    assert {corps["area"] for corps in scenario["corps"].values()} <= set(geography.areas())
    assert {corps["kind"] for corps in scenario["corps"].values()} <= set(units.kinds())
    assert set(scenario["leaders"]) <= set(units.leaders())
    assert set(scenario["leaders"].values()) <= set(geography.areas())


def test_the_bourbon_table_is_the_seeds_by_bidder_and_ump():
    """14.3.8, pinned: rows the bidding powers, columns the UMPs (Russia bidding for Turkey: -3;
    Turkey bidding for Russia: -3; Britain for Austria +1, Austria for Britain -1)."""
    rows = [("russia", "turkey", -3), ("turkey", "russia", -3), ("britain", "austria", 1), ("austria", "britain", -1),
            ("spain", "france", 1), ("france", "spain", 0), ("turkey", "austria", -3), ("austria", "turkey", -2)]
    for power, ump, value in rows:
        assert powers.natural_alliance({}, True, power, ump) == value, (power, ump)


def test_cavalry_costs_and_the_imperial_cavalry():
    """12.3.3.3: $6 a cavalry factor raised in Syria or Egypt, $15 elsewhere; 12.3.3.4: the
    Turkish Imperial Cavalry holds up to 16 cavalry factors (the 1805 scenario's has 16)."""
    assert (units.cavalry_cost("egypt"), units.cavalry_cost("syria"), units.cavalry_cost("bavaria")) == (6, 6, 15)
    assert units.check_factors("tu_1", "imperial_cavalry", {"cavalry": 16}) is None
    assert units.check_factors("tu_1", "imperial_cavalry", {"cavalry": 17}).startswith("12.3.3.4")
    assert RULESET.data("scenarios.toml")["campaign_1805"]["corps"]["tu_1"]["factors"] == {"cavalry": 16}


def test_militia_morale_with_a_landwehr():
    """12.11.3: 2.5 (25 tenths) for militia in a regular corps once the landwehr is active; not in
    garrisons or the Insurrection corps."""
    assert units.militia_morale("infantry", landwehr=True) == 25
    assert units.militia_morale("infantry", landwehr=False) == units.militia_morale("city_garrison", landwehr=True)
    assert units.militia_morale("insurrection", landwehr=True) == units.militia_morale("infantry", landwehr=False)


def test_a_scenario_with_too_much_imperial_cavalry_is_refused(monkeypatch):
    import re

    from pbem.errors import UsageError
    from pbem.ruleset import Seat, Setup

    scenario = RULESET.data("scenarios.toml")["campaign_1805"]
    monkeypatch.setitem(scenario["corps"], "tu_1", {**scenario["corps"]["tu_1"], "factors": {"cavalry": 17}})
    roster = (Seat("alice", ("france",), "player"), Seat("bob", ("britain",), "player"))
    with pytest.raises(UsageError, match=re.escape("12.3.3.4: tu_1 may hold up to 16 cavalry factors, not 17")):
        RULESET.new_state(Setup("campaign_1805", roster))


def test_the_solitaire_naval_table():
    """18.2.1 as the seed gives it: all-British 1-2 melee, 3-4 linear attack, 5-6 linear defence;
    others 1 melee, 2-3 linear attack, 4-6 linear defence; Nelson -1, a 0 reading as the lowest
    row; while 12.2.6.1.1.1 holds, forces without Nelson use the two-column table."""
    from pbem.rules.empires_in_arms.solitaire import naval_option

    assert [naval_option(d, True, False) for d in range(1, 7)] == ["melee"] * 2 + ["linear_attack"] * 2 + \
        ["linear_defence"] * 2
    assert [naval_option(d, False, False) for d in range(1, 7)] == ["melee"] + ["linear_attack"] * 2 + \
        ["linear_defence"] * 3
    assert naval_option(1, True, nelson=True) == "melee" and naval_option(3, True, nelson=True) == "melee"
    assert naval_option(3, True, False, limited=True) == "linear_attack"
    assert naval_option(3, False, False, limited=True) == "linear_defence"
    assert naval_option(4, True, nelson=True, limited=True) == "linear_attack"  # Nelson: the full table


def test_the_solitaire_land_tables_are_the_seeds():
    """18.1.1 and 18.1.2, pinned: 6 rolls again."""
    from pbem.rules.empires_in_arms.game_tables import table

    defender = {"1": "outflank", "2": "counter_attack", "3": "escalated_counter_attack", "4": "cordon", "5": "defend"}
    assert table("solitaire")["defender"] == defender
    assert table("solitaire")["attacker"] == {"1": "outflank", "2": "assault", "3": "escalated_assault",
                                              "4": "echelon", "5": "probe"}


@pytest.mark.parametrize(("tables", "message", "rule"), [
    ({"movement_cost": {"clear": 1}}, "tables.movement_cost needs a whole number for forest", "7.3"),
    ({"rating_reduction": {}}, "tables.rating_reduction needs a whole number for per_corps", "10.6.1.2.1"),
    ({"combat_losses": {"1": 0}}, "tables.combat_losses needs a whole number for 2", "7.5"),
    ({"combat_matrix": {"probe": {}}}, "needs [attacker, defender] modifiers for outflank against outflank", "7.5"),
])
def test_a_charter_table_with_a_hole_is_refused_when_the_charter_is_read(tables, message, rule):
    from pbem.errors import UsageError
    from pbem.ruleset import Seat, Setup

    roster = (Seat("alice", ("france",), "player"), Seat("bob", ("britain",), "player"))
    with pytest.raises(UsageError) as refused:
        RULESET.check_setup(Setup("demo", roster, tables=tables))
    assert message in refused.value.message and refused.value.rule == rule
