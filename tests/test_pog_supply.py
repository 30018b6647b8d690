"""Paths of Glory supply (SoE 14): rule cases in tests/cases/paths_of_glory/{supply,oos,attrition}_*.toml.

A case may say what to do (`do`): "supply" (default: compute and look), "oos_step" (the supply
step at the end of an action, `steps` times), "attrition" (the attrition segment) or "combat"
(`attackers` against `defenders`, checked as at the start of a combat, 14.1.1.2). Expectations:

  supply = {unit: "supplied" | "special" | "out" | "none"}   status before the action
  sources = {unit: [space, ...]}                      sources reached (as a set)
  space_supplied = {side: {space: bool}}              14.2.5 trace of a space, before the action
  combat = {field: value}                             fields of supply.CombatSupply
  after = {units = {unit: space | {space, oos, reduced}}, control = {...}, forts = {...},
           trenches = {space: level (0 = none)}}      the state after the action
  events = [ {...}, ... ]                             exactly these events, in order
  events_include = [ {...}, ... ]                     at least these events
"""

from __future__ import annotations

import pytest
from pbem.rules.common import graphs
from pbem.rules.paths_of_glory import movement
from pbem.rules.paths_of_glory import supply as supply_rules
from pbem.rules.paths_of_glory.state import initial_position
from pog_cases import DEFAULT_VARIANTS, load_cases, position
from test_pog_supply_recorded_split import crowded

CASES = load_cases("supply_*.toml") + load_cases("oos_*.toml") + load_cases("attrition_*.toml")


def test_every_kind_of_case_is_present():
    kinds = {name.split(":")[0].split("_")[0] for name, _ in CASES}
    assert kinds == {"supply", "oos", "attrition"}
    assert len(CASES) >= 40


@pytest.mark.parametrize("case", [c for _, c in CASES], ids=[name for name, _ in CASES])
def test_case(case):
    state = position(case)
    expect = case["expect"]
    supply = supply_rules.compute(state)

    for unit, status in expect.get("supply", {}).items():
        assert unit in state.units, f"{unit} is not in the position"
        expected = None if status == "none" else status  # "none": no status (neutral or off the map)
        assert supply.status(unit) == expected, f"{unit}: {supply.status(unit)} (sources {supply.sources(unit)})"
    for unit, sources in expect.get("sources", {}).items():
        assert set(supply.sources(unit)) == set(sources), unit
    for side, spaces in expect.get("space_supplied", {}).items():
        for space, supplied in spaces.items():
            assert supply.space_supplied(side, space) is supplied, (side, space)

    do = case.get("do", "supply")
    events: list[dict] = []
    if do == "oos_step":
        for _ in range(case.get("steps", 1)):
            events += supply_rules.oos_step(state)
    elif do == "attrition":
        events = supply_rules.attrition(state)
    elif do == "combat":
        result = supply_rules.check_before_combat(state, case["attackers"], case["defenders"])
        for key, value in expect["combat"].items():
            got = getattr(result, key)
            if isinstance(got, tuple):
                got = list(got)
            assert got == value, f"{key}: {got!r} ({result.reasons})"
    else:
        assert do == "supply", do

    after = expect.get("after", {})
    for unit, where in after.get("units", {}).items():
        if isinstance(where, str):
            where = {"space": where}
        here = state.units[unit]
        got = {"space": here.space, "oos": here.oos, "reduced": here.reduced}
        assert {k: got[k] for k in where} == where, unit
    for space, side in after.get("control", {}).items():
        assert state.control[space] == side, space
    for space, fort in after.get("forts", {}).items():
        assert state.forts.get(space) == fort, space
    for space, level in after.get("trenches", {}).items():
        assert state.trenches.get(space, 0) == level, space
    if "removed" in after:
        assert sorted(state.removed) == sorted(after["removed"])
    if "events" in expect:
        assert events == expect["events"]
    for event in expect.get("events_include", []):
        assert event in events, f"{event} not in {events}"


# ---------------------------------------------------------------------------------- whole positions

@pytest.fixture(scope="module")
def start():
    return initial_position(DEFAULT_VARIANTS)


def test_1914_every_unit_on_the_map_is_in_supply(start):
    supply = supply_rules.compute(start)
    on_map = {u for u, s in start.units.items() if s.space in start.map.index}
    assert set(supply.units()) == on_map
    assert {u for u in on_map if supply.status(u) == "out"} == set()
    # 14.1.5: the Montenegrin corps cannot trace to London in 1914 (Italy's Taranto-Valona line is
    #   Italian only), so it relies on special supply; everyone else traces normally
    assert {u: supply.special_rule(u) for u in on_map if supply.status(u) == "special"} == {"mn_corps": "14.1.5"}
    assert all(supply.sources(u) for u in on_map if u != "mn_corps")


def test_1914_supply_step_changes_nothing(start):
    state = initial_position(DEFAULT_VARIANTS)
    assert supply_rules.oos_step(state) == []
    assert all(s.oos == 0 for s in state.units.values())


def test_1914_without_variants(start):
    state = initial_position(frozenset())
    supply = supply_rules.compute(state)
    assert {u for u in supply.units() if supply.status(u) == "out"} == set()


# ---------------------------------------------------------------------------------- the algorithm

def counting_searches(monkeypatch) -> list:
    calls: list = []
    real = graphs.reach_sources

    def counting(neighbours, sources, *args, **kwargs):
        calls.append(tuple(sources))
        return real(neighbours, sources, *args, **kwargs)

    monkeypatch.setattr(supply_rules.graphs, "reach_sources", counting)
    return calls


def test_one_search_per_class(monkeypatch):
    start = initial_position(DEFAULT_VARIANTS)  # a state compute has not seen (it remembers)
    calls = counting_searches(monkeypatch)
    supply = supply_rules.compute(start)
    assert len(calls) == len(supply.by_class)
    assert len(set(supply.by_class)) == len(supply.by_class)
    # far fewer classes than units: nations that trace alike share a search
    assert len(supply.by_class) <= 10 < len(supply.units())
    assert sum(len(units) for units in supply.by_class.values()) == len(supply.units())
    # spaces: one more search per side, made once however many spaces are asked about
    for space in start.map.ids[:50]:
        supply.space_supplied("ap", space)
        supply.space_supplied("cp", space)
    assert len(calls) == len(supply.by_class) + 2


def test_classes_group_units_that_trace_alike(start):
    supply = supply_rules.compute(start)
    classes = {u: cls for cls, units in supply.by_class.items() for u in units}
    assert classes["ge_1_army"] == classes["ah_1_army"] == classes["ge_corps_1"]
    assert classes["fr_1_army"] != classes["br_bef_army"]  # Paris (14.2.4), the BR lines
    assert classes["ru_1_army"].sea is False and classes["sb_1_army"].russian_lines


def test_sources_are_bits_of_one_search(start):
    """Each unit's sources agree with a plain search from each source alone."""
    supply = supply_rules.compute(start)
    for cls, units in supply.by_class.items():
        for _bit, source in enumerate(cls.sources):
            alone = supply_rules.SupplyClass(cls.side, (source,), cls.tokens, cls.sea, cls.beach_head,
                                             cls.russian_lines, cls.either_way)
            reach = supply_rules._search(alone, supply._c, supply._pos)
            for unit in units:
                i = start.map.index[start.units[unit].space]
                single = supply_rules._mask_at(i, reach, alone, supply._c, supply._pos)
                assert bool(single) == (source in supply.sources(unit)), (unit, source)


def test_london_amsterdam_is_one_way_for_the_ho_corps():
    """18.1.2, R07, R13: the HO corps may cross London-Amsterdam only towards Amsterdam, so it
    never traces across it; British corps trace across it either way. (No legal position puts
    an Allied unit in an Amsterdam whose port is closed, so this is checked on the class.)"""
    state = initial_position(DEFAULT_VARIANTS)
    state.at_war.add("ho")
    pog = state.map
    supply = supply_rules.compute(state)
    london, amsterdam = pog.index["london"], pog.index["amsterdam"]
    ho = supply_rules.unit_class(state, "ho_corps")
    br = supply_rules.unit_class(state, "br_corps_4")

    def may_step(cls, x, y):  # the tracer's step from x to y
        return (x, y) in supply_rules._open_steps(cls, supply._c, supply._pos.beach)

    assert (amsterdam, london) in supply._c.limited_steps and (london, amsterdam) in supply._c.limited_steps
    assert not may_step(ho, amsterdam, london)  # closed to the HO corps
    assert may_step(br, london, amsterdam) and may_step(br, amsterdam, london)
    assert "ho_corps" in ho.tokens and "br_corps" not in ho.tokens
    assert "br_corps" not in supply_rules.unit_class(state, "br_ana_corps").tokens  # R06
    assert "br_corps" not in supply_rules.unit_class(state, "br_bef_corps").tokens
    assert "br_corps" in supply_rules.unit_class(state, "br_cnd_corps").tokens
    # spaces trace across it either way (R07)
    spaces = supply_rules.space_class(state.variants, "ap")
    assert may_step(spaces, london, amsterdam) and may_step(spaces, amsterdam, london)


def test_combat_modifiers_table():
    assert supply_rules.OOS_TABLE == {0: (0, 0), 1: (-1, 0), 2: (-1, 0), 3: (-1, 1), 4: (-1, 1), 5: (-2, 1)}


def search_every_space(cls, supply) -> list[int]:
    """The search over every space and the sea, asking each step, for comparison with the search
    over parts of the map."""
    c, pos = supply._c, supply._pos
    steps = supply_rules._open_steps(cls, c, pos.opened)
    ports = set(supply_rules._ports(cls, pos)) if cls.sea else set()
    sea = c.size
    neighbours = [(*n, sea) if i in ports else n for i, n in enumerate(c.neighbours)] + [tuple(sorted(ports))]

    def cross(here, there):  # the tracer's step from there to here
        return sea in (here, there) or (there, here) not in c.limited_steps or (there, here) in steps

    sources = [c.index[s] for s in cls.sources]
    return graphs.reach_sources(neighbours, sources, [*pos.enter[cls.side], True], cross)[:sea]


ALL_POSITIONS = [(name, lambda case=case: position(case)) for name, case in load_cases("*.toml")] + [
    ("1914", lambda: initial_position(DEFAULT_VARIANTS)), ("crowded", crowded)]


@pytest.mark.parametrize("make", [make for _, make in ALL_POSITIONS], ids=[name for name, _ in ALL_POSITIONS])
def test_searching_parts_equals_searching_every_space(make):
    """A part of the map (graphs.components) is reached whole or not at all, for every class of
    unit and for the spaces of both sides, on every case position."""
    supply = supply_rules.compute(make())
    label = supply._pos.parts
    classes = [*supply.by_class, *(supply_rules.space_class(supply.state.variants, side) for side in ("ap", "cp"))]
    for cls in classes:
        parts = supply_rules._search(cls, supply._c, supply._pos)
        per_space = [parts[k] if k >= 0 else 0 for k in label[cls.side][0]]
        assert per_space == search_every_space(cls, supply), cls.label()


# ---------------------------------------------------------------------------------- remembered answers

def test_compute_remembers_an_unchanged_position(monkeypatch):
    """ruleset asks once per moving unit (R04): the same state, unchanged, is traced once."""
    state = initial_position(DEFAULT_VARIANTS)
    first = supply_rules.compute(state)
    calls = counting_searches(monkeypatch)
    assert supply_rules.compute(state) is first and supply_rules.compute(state, units=False) is first
    assert calls == []
    assert supply_rules.compute(initial_position(DEFAULT_VARIANTS)) is not first  # another state object
    assert len(calls) == len(first.by_class)


@pytest.mark.parametrize("change", [
    lambda s: setattr(s.units["fr_5_army"], "space", "metz"),
    lambda s: s.units.pop("fr_5_army"),
    lambda s: setattr(s.units["fr_5_army"], "oos", 1),
    lambda s: setattr(s.units["fr_5_army"], "reduced", True),
    lambda s: s.control.update(paris="cp"),
    lambda s: s.forts.update(verdun="besieged"),
    lambda s: s.trenches.update(paris=s.trenches.get("paris", 0) + 1),
    lambda s: s.events.add("beach_head:mef1"),
    lambda s: s.at_war.add("it"),
], ids=["unit moved", "unit removed", "OOS marker", "reduced", "control", "fort", "trench", "event", "war"])
def test_any_change_of_the_position_is_traced_afresh(change):
    state = initial_position(DEFAULT_VARIANTS)
    first = supply_rules.compute(state)
    change(state)
    assert supply_rules.compute(state) is not first


def test_the_answer_follows_the_live_position():
    """R04: a move that cuts a unit off is seen by the next question about that state."""
    state = initial_position(DEFAULT_VARIANTS)
    assert supply_rules.compute(state).status("ge_8_army") == "supplied"
    state.control.update({space: "ap" for space in state.map.ids if state.control[space] == "cp"
                          and space not in ("konigsberg", state.units["ge_8_army"].space)})
    assert supply_rules.compute(state).status("ge_8_army") == "out"


# ---------------------------------------------------------------------------------- one rule for both

@pytest.mark.parametrize("variants", [DEFAULT_VARIANTS, frozenset({"vesting_holland", "italy_19_1_2"})],
                         ids=["default", "italy_19_1_2"])
@pytest.mark.parametrize("beach", [None, "mef1"])
def test_a_unit_traces_across_the_limited_connections_it_may_move_across(variants, beach):
    """14.1.2, R15: the supply line uses only the connections the tracing unit could move across
    (base 11.1.4, R06: the SN unit Turkish, the ANA and the BEF corps not British corps); the one
    exception is RO and SB units tracing into a Russian off-map box (14.1.2 note)."""
    state = initial_position(variants)
    if beach:
        state.events.add(f"beach_head:{beach}")
    c = supply_rules._compile(state.map)
    at = c.index.get(beach) if beach else None
    for unit in state.unit_facts:
        cls = supply_rules.unit_class(state, unit)
        steps = supply_rules._open_steps(cls, c, at)
        for x, y, _ in c.limited:
            moves = movement.may_cross(state, unit, c.ids[x], c.ids[y])
            if cls.russian_lines and y in c.russian_boxes:
                assert (x, y) in steps, (unit, c.ids[x], c.ids[y])
            else:
                assert ((x, y) in steps) == moves, (unit, c.ids[x], c.ids[y])
    assert "tu" in supply_rules.unit_class(state, "sn_corps").tokens
    assert not movement.may_cross(state, "br_bef_corps", "london", "amsterdam")


def test_the_sn_unit_traces_across_the_turkish_line_as_it_moves():
    """14.1.2 with base 11.1.4: the SN unit is Turkish on dashed lines, so in Medina it traces
    across Medina-Aqaba to Constantinople as the Turks do (special supply, 14.1.5, is then not
    needed)."""
    state = position({"position": {"at_war": ["tu"], "units": {"sn_corps": "medina", "tu_corps_1": "medina"}}})
    supply = supply_rules.compute(state)
    assert supply.status("sn_corps") == supply.status("tu_corps_1") == "supplied"
    assert supply.sources("sn_corps") == supply.sources("tu_corps_1") == ("constantinople",)
