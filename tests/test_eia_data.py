"""Empires in Arms' data files hold together: the sample map's areas, territories and borders;
the powers' tables name real powers and territories; the demo scenario sets every power."""

from __future__ import annotations

from pbem.rules.empires_in_arms import geography, powers

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
    assert set(scenario["forces"]) <= set(geography.areas())


def test_the_bourbon_table_is_the_seeds_by_bidder_and_ump():
    """14.3.8, pinned: rows the bidding powers, columns the UMPs (Russia bidding for Turkey: -3;
    Turkey bidding for Russia: -3; Britain for Austria +1, Austria for Britain -1)."""
    rows = [("russia", "turkey", -3), ("turkey", "russia", -3), ("britain", "austria", 1), ("austria", "britain", -1),
            ("spain", "france", 1), ("france", "spain", 0), ("turkey", "austria", -3), ("austria", "turkey", -2)]
    for power, ump, value in rows:
        assert powers.natural_alliance({}, True, power, ump) == value, (power, ump)
