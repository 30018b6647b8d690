"""Paths of Glory supply (SoE 14): the answers on varied positions, recorded from the plain
search over every space that `supply.compute` used before it searched over parts of the map
(graphs.components). Any change here is a change of rules, never of speed.

UNITS holds, for the 1914 start and a crowded position, every unit on the map by status: the
supplied ones grouped by the sources they reach, the special ones by the rule of their special
supply. DIGESTS holds, for those and for rule-case positions that exercise each part of tracing
(beach head, Salonika, Gallipoli, the ANA, besieged and lapsed forts, Greek units, neutral
Holland), the sha256 of the full answer: every unit's status, sources and special rule, and every
space either side can supply (14.2.5).
"""

from __future__ import annotations

import hashlib

import pytest
from pbem.rules.paths_of_glory import supply as supply_rules
from pbem.rules.paths_of_glory.data import load_setup
from pbem.rules.paths_of_glory.state import PogState, UnitState, initial_position
from pog_cases import DEFAULT_VARIANTS, load_cases, position

AT_WAR = ("it", "tu", "bu", "ro", "gr", "ho", "us")
SIEGES = {"verdun": "ge_5_army", "przemysl": "ru_3_army", "riga": "ge_8_army", "belgrade": "ah_5_army",
          "erzerum": "ru_cau_army", "basra": "tu_corps_13"}  # fort space: the besieging unit
POCKETS = {"dijon": "cp", "avignon": "cp", "tirana": "cp", "aqaba": "ap"}


def crowded() -> PogState:
    """Turn 12, every nation at war, every unit of the counter mix on the map: units entering
    later at their set-up spaces, the rest spread in turn over the spaces of their own nation
    their side holds; six forts besieged, four pockets, Aqaba's fort destroyed."""
    state = initial_position(DEFAULT_VARIANTS)
    pog = state.map
    state.turn = 12
    state.at_war |= set(AT_WAR)
    for placement in load_setup(DEFAULT_VARIANTS).on_entry:
        if placement.space in pog.index:
            state.units[placement.unit] = UnitState(placement.space, placement.reduced)
    state.control.update(POCKETS)
    state.forts["aqaba"] = "destroyed"
    for space, unit in SIEGES.items():
        state.units[unit] = UnitState(space)
        state.forts[space] = "besieged"
    usable = [s for i, s in enumerate(pog.ids)
              if s not in SIEGES and pog.nation[i] != "none" and not state.neutral(s)]
    turn = 0
    for unit, fact in sorted(state.unit_facts.items()):
        where = state.units.get(unit)
        if where is not None and where.space in pog.index and (where.space not in SIEGES or unit in SIEGES.values()):
            continue
        held = [s for s in usable if state.control[s] == fact.faction]
        home = [s for s in held if pog.nation[pog.index[s]] == fact.nation] or held
        state.units[unit] = UnitState(home[turn % len(home)], turn % 3 == 0)
        turn += 1
    return state


def grouped(state: PogState) -> dict[str, dict[str, str]]:
    """Units by status, the supplied by their sources and the special by their rule."""
    supply = supply_rules.compute(state)
    groups: dict[str, dict[str, list[str]]] = {"supplied": {}, "special": {}, "out": {}}
    for unit, status in sorted(supply.units().items()):
        key = {"supplied": " ".join(supply.sources(unit)), "special": supply.special_rule(unit),
               "out": ""}[status]
        groups[status].setdefault(key or "", []).append(unit)
    return {status: {key: " ".join(units) for key, units in by.items()} for status, by in groups.items() if by}


def digest(state: PogState) -> str:
    supply = supply_rules.compute(state)
    lines = [f"{unit} {status} {' '.join(supply.sources(unit))} {supply.special_rule(unit)}"
             for unit, status in sorted(supply.units().items())]
    for side in ("ap", "cp"):
        lines.append(side + " " + " ".join(s for s in state.map.ids if supply.space_supplied(side, s)))
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]


CASES = dict(load_cases("*.toml"))
POSITIONS = {
    "1914": lambda: initial_position(DEFAULT_VARIANTS),
    "1914 without variants": lambda: initial_position(frozenset()),
    "crowded": crowded,
    **{name: (lambda case=case: position(case)) for name, case in CASES.items() if name.split(":")[1].split(" ")[0] in (
        "mef_beach_head_port", "salonika_event_opens_greece", "constantinople_with_gallipoli",
        "ana_space_counts_as_allied", "besieged_friendly_fort_not_on_path", "greek_units_block_supply",
        "leave_fort_occupied_not_besieged_refused", "holland_besieged_amsterdam",
        "russian_line_into_a_box_that_is_no_source", "no_sea_for_romanians")},
}

UNITS: dict[str, dict[str, dict[str, str]]] = {'1914': {'special': {'14.1.5': 'mn_corps'},
          'supplied': {'belgrade': 'sb_1_army sb_2_army',
                       'essen breslau': 'ah_1_army ah_2_army ah_3_army ah_4_army ah_5_army ah_6_army ah_corps_1 '
                                        'ah_corps_2 ah_corps_3 ah_corps_4 ah_corps_5 ge_1_army ge_2_army ge_3_army '
                                        'ge_4_army ge_5_army ge_6_army ge_7_army ge_8_army ge_corps_1 ge_corps_2 '
                                        'ge_corps_3',
                       'london': 'be_1_army br_bef_army br_corps_1 br_corps_2 br_corps_3',
                       'london paris': 'fr_1_army fr_2_army fr_3_army fr_4_army fr_5_army fr_6_army fr_9_army '
                                       'fr_corps_1 fr_corps_2 fr_corps_3',
                       'petrograd moscow kharkov caucasus': 'ru_1_army ru_2_army ru_3_army ru_4_army ru_5_army '
                                                            'ru_8_army ru_corps_1 ru_corps_2 ru_corps_3 ru_corps_4 '
                                                            'ru_corps_5 ru_corps_6 ru_corps_7 ru_corps_8'}},
 'crowded': {'out': {'': 'ge_8_army us_1_army us_2_army us_corps_1 us_corps_2 us_corps_3 us_corps_4'},
             'special': {'14.1.5': 'mn_corps', '14.1.8': 'tu_corps_12'},
             'supplied': {'essen breslau': 'ah_10_army ah_11_army ah_1_army ah_2_army ah_3_army ah_4_army ah_5_army '
                                           'ah_6_army ah_7_army ah_corps_1 ah_corps_10 ah_corps_11 ah_corps_2 '
                                           'ah_corps_3 ah_corps_4 ah_corps_5 ah_corps_6 ah_corps_7 ah_corps_8 '
                                           'ah_corps_9 ge_10_army ge_11_army ge_12_army ge_14_army ge_17_army '
                                           'ge_18_army ge_1_army ge_2_army ge_3_army ge_4_army ge_5_army ge_6_army '
                                           'ge_7_army ge_9_army ge_corps_1 ge_corps_10 ge_corps_11 ge_corps_12 '
                                           'ge_corps_13 ge_corps_14 ge_corps_15 ge_corps_16 ge_corps_17 ge_corps_18 '
                                           'ge_corps_19 ge_corps_2 ge_corps_3 ge_corps_4 ge_corps_5 ge_corps_6 '
                                           'ge_corps_7 ge_corps_8 ge_corps_9 ge_pol_corps_1 ge_pol_corps_2 '
                                           'ge_pol_corps_3',
                          'london': 'be_1_army be_corps br_1_army br_2_army br_3_army br_4_army br_5_army '
                                    'br_ana_corps br_aus_corps br_bef_army br_bef_corps br_cnd_corps br_corps_1 '
                                    'br_corps_10 br_corps_2 br_corps_3 br_corps_4 br_corps_5 br_corps_6 br_corps_7 '
                                    'br_corps_8 br_corps_9 br_mef_army br_ne_army br_pt_corps gr_corps_1 gr_corps_2 '
                                    'gr_corps_3 ho_corps ho_vl_army it_1_army it_2_army it_3_army it_4_army '
                                    'it_5_army it_corps_1 it_corps_2 it_corps_3 it_corps_4 it_corps_5 it_corps_6 '
                                    'it_corps_7',
                          'london paris': 'fr_10_army fr_1_army fr_2_army fr_3_army fr_4_army fr_5_army fr_6_army '
                                          'fr_7_army fr_9_army fr_corps_1 fr_corps_10 fr_corps_2 fr_corps_3 '
                                          'fr_corps_4 fr_corps_5 fr_corps_6 fr_corps_7 fr_corps_8 fr_corps_9 '
                                          'fr_orient_army',
                          'petrograd moscow kharkov caucasus': 'ro_corps_1 ro_corps_2 ro_corps_3 ro_corps_4 '
                                                               'ro_corps_5 ro_corps_6 ru_10_army ru_11_army '
                                                               'ru_12_army ru_1_army ru_2_army ru_3_army ru_4_army '
                                                               'ru_5_army ru_6_army ru_7_army ru_8_army ru_9_army '
                                                               'ru_cau_army ru_cavalry_corps_1 ru_cavalry_corps_2 '
                                                               'ru_corps_1 ru_corps_10 ru_corps_11 ru_corps_12 '
                                                               'ru_corps_13 ru_corps_14 ru_corps_15 ru_corps_16 '
                                                               'ru_corps_17 ru_corps_18 ru_corps_2 ru_corps_3 '
                                                               'ru_corps_4 ru_corps_5 ru_corps_6 ru_corps_7 '
                                                               'ru_corps_8 ru_corps_9 ru_czech_legion',
                          'salonika': 'sb_1_army sb_2_army sb_corps_1 sb_corps_2',
                          'sofia constantinople': 'bu_corps_1 bu_corps_2 bu_corps_3 bu_corps_4 bu_corps_5 bu_corps_6 '
                                                  'sn_corps tu_aoi_army tu_corps_1 tu_corps_10 tu_corps_11 '
                                                  'tu_corps_13 tu_corps_14 tu_corps_2 tu_corps_3 tu_corps_4 '
                                                  'tu_corps_5 tu_corps_6 tu_corps_7 tu_corps_8 tu_corps_9 '
                                                  'tu_yld_army'}}}

DIGESTS: dict[str, str] = {'1914': 'ba3584bd1eb87c79',
 '1914 without variants': 'ba3584bd1eb87c79',
 'attrition_control:ana_space_counts_as_allied [14.3.6]': '09154c638e8a490d',
 'crowded': 'b10860e6f44762fd',
 'movement_forts:leave_fort_occupied_not_besieged_refused [15.2.4]': 'b736a16583843dd7',
 'supply_limits:mef_beach_head_port [9.2.7.1]': '8a3bae8465499dde',
 'supply_limits:russian_line_into_a_box_that_is_no_source [14.1.2]': '5230a9b82ad4776c',
 'supply_paths:besieged_friendly_fort_not_on_path [14.1.2]': 'c67af4489167052b',
 'supply_sea:constantinople_with_gallipoli [14.1.4.2]': '5bd340a31a90f969',
 'supply_sea:holland_besieged_amsterdam [14.1.4]': 'a43e70f6730398ba',
 'supply_sea:no_sea_for_romanians [14.2.2]': '9ef78d3a73f14644',
 'supply_sources:greek_units_block_supply [14.1.2]': '6a065208566658e8',
 'supply_sources:salonika_event_opens_greece [14.1.4.2]': 'c3a3865778c5af38'}


@pytest.mark.parametrize("name", sorted(UNITS))
def test_units_as_recorded(name):
    assert grouped(POSITIONS[name]()) == UNITS[name]


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_answers_as_recorded(name):
    assert digest(POSITIONS[name]()) == DIGESTS[name]


def test_every_position_is_recorded():
    assert len(POSITIONS) == 13 and set(DIGESTS) == set(POSITIONS)
