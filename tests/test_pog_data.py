"""Paths of Glory data files (rules/paths_of_glory/data/*.toml) and their loader.

The facts below are hard-coded from the reference CSVs, so the suite also runs from a bare clone;
when ../shared/reference/paths_of_glory exists beside the repository, every space, connection,
unit and set-up row is also compared with it, and the data files with a fresh conversion.
"""

from __future__ import annotations

import csv
import importlib.util
import re
from importlib import resources
from pathlib import Path

import pytest
from pbem.rules.paths_of_glory import data
from pbem.rules.paths_of_glory.data import (
    UnknownSpace,
    find_space,
    load_map,
    load_setup,
    load_units,
    slug,
)

REFERENCE = Path(__file__).resolve().parents[1].parent / "shared" / "reference" / "paths_of_glory"
needs_reference = pytest.mark.skipif(not REFERENCE.is_dir(), reason="no ../shared/reference folder")

HOLLAND = frozenset({"vesting_holland"})
ITALY = frozenset({"italy_19_1"})


@pytest.fixture(scope="module")
def pog():
    return load_map()


@pytest.fixture(scope="module")
def units():
    return load_units()


@pytest.fixture(scope="module")
def setup():
    return load_setup()


def link(pog, a: str, b: str) -> frozenset[int]:
    return frozenset((pog.index[a], pog.index[b]))


def factors(unit) -> tuple[int, ...]:
    return (unit.cf, unit.lf, unit.mf, unit.rcf, unit.rlf, unit.rmf)


# --- counts and files ------------------------------------------------------------------------

def test_files_load_through_package_resources():
    folder = resources.files("pbem.rules.paths_of_glory").joinpath("data")
    for name in ("map.toml", "units.toml", "setup_1914.toml"):
        text = folder.joinpath(name).read_text(encoding="utf-8")
        assert "\nformat_version = 1\n" in text
        assert text.startswith("# ")  # each file opens with its field documentation


def test_counts(pog, units, setup):
    assert len(pog) == len(pog.ids) == 281
    assert len(pog.boxes) == 4
    assert len(pog.connections) == 476
    assert len(units) == 191
    # 112 pieces and 24 trenches in the reference set-up; neutral nations' apart
    assert len(setup.units) == 83
    assert len(setup.on_entry) == 32  # the reference's 29 and the set-up chart's three Greek corps
    assert len(setup.units) + len(setup.on_entry) == 115
    assert len(setup.trenches) == 17
    assert len(setup.on_entry_trenches) == 7


def test_loaded_once():
    assert load_map() is load_map(frozenset())
    assert load_units() is load_units()
    assert load_setup() is load_setup()
    with pytest.raises(TypeError):
        load_map().index["nowhere"] = 0  # read-only mapping


# --- sample facts --------------------------------------------------------------------------

def test_space_facts(pog):
    london = pog.index["london"]
    assert pog.names[london] == "London" and pog.refs[london] == 1
    assert pog.source[london] and pog.capital[london] and pog.port[london] == "ap"
    assert pog.nation[london] == "br" and pog.control[london] == "ap" and pog.map[london] == "europe"

    liege = pog.index["liege"]
    assert pog.fort[liege] == 3 and pog.vp[liege] == 0 and pog.nation[liege] == "be"

    verdun = pog.index["verdun"]
    assert (pog.fort[verdun], pog.vp[verdun], pog.control[verdun]) == (3, 1, "ap")

    konigsberg = pog.index["konigsberg"]
    assert (pog.fort[konigsberg], pog.port[konigsberg], pog.control[konigsberg]) == (3, "cp", "cp")

    assert pog.terrain[pog.index["pinsk"]] == "swamp"
    assert pog.terrain[pog.index["trent"]] == "mountain"
    assert pog.terrain[pog.index["medina"]] == "desert"
    assert pog.terrain[pog.index["paris"]] == "clear"
    assert pog.map[pog.index["baghdad"]] == "neareast"
    assert pog.nation[pog.index["mef1"]] == "none"
    assert pog.port[pog.index["verdun"]] is None
    assert not pog.source[pog.index["paris"]] and pog.capital[pog.index["paris"]]
    assert pog.ids.index("st_amand") == pog.index["st_amand"] == 13
    assert pog.boxes["ap_reserve"].side == "ap" and pog.boxes["cp_eliminated"].name == "CP Eliminated Box"


def test_space_totals(pog):
    assert sum(pog.source) == 10
    assert sum(pog.capital) == 12
    assert sum(pog.vp) == 62
    assert sum(1 for f in pog.fort if f) == 34
    assert sum(1 for p in pog.port if p == "ap") == 19
    assert sum(1 for p in pog.port if p == "cp") == 10
    assert pog.map.count("europe") == 218 and pog.map.count("neareast") == 63


def test_limited_connections(pog):
    assert pog.limits[link(pog, "riga", "reval")] == ("ru",)
    assert pog.allowed(pog.index["reval"], pog.index["riga"]) == ("ru",)
    assert pog.limits[link(pog, "london", "calais")] == ("br",)
    assert pog.limits[link(pog, "taranto", "valona")] == ("it",)
    assert pog.limits[link(pog, "gallipoli", "mef1")] == ("mef",)
    assert pog.limits[link(pog, "medina", "aqaba")] == ("ana", "tu")
    assert pog.limits[link(pog, "arabia", "amman")] == ("ana",)
    assert pog.allowed(pog.index["paris"], pog.index["melun"]) is None
    counts: dict[tuple[str, ...], int] = {}
    for tokens in pog.limits.values():
        counts[tokens] = counts.get(tokens, 0) + 1
    assert counts == {("ru",): 11, ("mef",): 4, ("ana",): 4, ("br",): 3, ("it",): 1, ("ana", "tu"): 1}


def test_unit_facts(units):
    ge1 = units["ge_1_army"]
    assert (ge1.name, ge1.faction, ge1.nation, ge1.type, ge1.rp) == ("1 Army", "cp", "ge", "army", "ge")
    assert factors(ge1) == (5, 3, 3, 3, 3, 3)
    assert ge1.replaceable and not ge1.near_east
    assert factors(units["ah_corps_1"]) == (1, 1, 3, 0, 1, 3)
    assert factors(units["br_bef_army"]) == (5, 3, 3, 4, 3, 3)
    mef = units["br_mef_army"]
    assert not mef.replaceable and mef.near_east and mef.rp is None
    assert units["ru_cau_army"].near_east
    assert units["mn_corps"].mf == 0 and units["mn_corps"].rp == "allied"
    assert units["ge_pol_corps_3"].nation == "ge"
    assert units["ru_czech_legion"].type == "corps"
    assert "ge_corps_19" in units and "ge_corps_20" not in units
    assert "ge_14_army" in units and "ge_13_army" not in units
    assert sum(1 for u in units.values() if u.type == "army") == 67
    assert sum(1 for u in units.values() if not u.replaceable) == 9


def test_unit_ids(units):
    for key, unit in units.items():
        assert re.fullmatch(r"[a-z0-9]+(_[a-z0-9]+)*", key)
        assert key.startswith(unit.nation + "_")
        assert unit.faction in ("ap", "cp") and unit.type in ("army", "corps")
        if unit.type == "army":
            assert key.endswith("_army")


def test_setup_facts(setup):
    placed = {p.unit: p for p in setup.units}
    assert placed["ge_1_army"].space == "aachen" and not placed["ge_1_army"].reduced
    assert placed["ge_7_army"].space == "mulhouse" and placed["ge_7_army"].reduced
    assert placed["ge_corps_1"].space == "bremen" and placed["ge_corps_1"].reduced
    assert placed["br_bef_army"].space == "brussels"
    assert placed["br_bef_corps"].space == "ap_reserve"
    assert placed["mn_corps"].space == "cetinje"
    assert placed["ru_8_army"].space == "kamenets_podolski"
    assert sum(1 for p in setup.units if p.space == "cp_reserve") == 12
    entry = {p.unit: p for p in setup.on_entry}
    assert entry["it_1_army"].space == "verona" and entry["it_1_army"].reduced
    assert entry["it_1_army"].nation == "it"
    assert entry["tu_corps_1"].space == "constantinople"
    assert {p.nation for p in setup.on_entry} == {"it", "tu", "bu", "ro", "gr"}
    greek = {p.unit: p.space for p in setup.on_entry if p.nation == "gr"}
    assert greek == {"gr_corps_1": "florina", "gr_corps_2": "larisa", "gr_corps_3": "athens"}  # set-up chart
    free = {f.nation: (f.units, f.not_in) for f in setup.on_entry_free}
    assert free == {"bu": (("bu_corps_3", "bu_corps_4", "bu_corps_5", "bu_corps_6"), ("sofia",)),
                    "ro": (("ro_corps_3", "ro_corps_4", "ro_corps_5", "ro_corps_6"), ("bucharest",))}
    assert set(setup.neutral_nations) == {"bu", "gr", "it", "ro", "tu", "us"}
    trenches = {(t.space, t.level, t.faction) for t in setup.trenches}
    assert {("metz", 1, "cp"), ("konigsberg", 1, "cp"), ("paris", 1, "ap"), ("basra", 1, "ap")} <= trenches
    later = {(t.nation, t.space) for t in setup.on_entry_trenches}
    assert later == {("tu", "giresun"), ("tu", "gaza"), ("tu", "baghdad"), ("it", "verona"),
                     ("it", "asiago"), ("it", "maggiore"), ("it", "udine")}


# --- integrity -----------------------------------------------------------------------------

def test_space_ids(pog):
    assert len(set(pog.ids)) == len(pog.ids)
    for i, key in enumerate(pog.ids):
        assert key == slug(pog.names[i])
        assert re.fullmatch(r"[a-z0-9]+(_[a-z0-9]+)*", key)
        assert pog.index[key] == i
        assert pog.terrain[i] in ("clear", "mountain", "forest", "desert", "swamp")
        assert pog.control[i] in ("ap", "cp") and pog.map[i] in ("europe", "neareast")
    assert not set(pog.ids) & set(pog.boxes)


def test_graph(pog):
    size = len(pog)
    pairs = set()
    for a, b in pog.connections:
        assert 0 <= a < size and 0 <= b < size and a != b
        assert frozenset((a, b)) not in pairs
        pairs.add(frozenset((a, b)))
    for a, around in enumerate(pog.neighbours):
        assert around, f"{pog.ids[a]} has no connection"
        assert list(around) == sorted(set(around))
        for b in around:
            assert a in pog.neighbours[b]
            assert frozenset((a, b)) in pairs
    assert sum(len(n) for n in pog.neighbours) == 2 * len(pairs)
    for key in pog.limits:
        assert frozenset(key) in pairs


def test_russian_offmap_boxes(pog):
    """14.1.2 note, R15: the off-map boxes at the Russian edge, Reval (no source) among them; every
    connection into them is Russian-only."""
    boxes = {pog.ids[i] for i, flag in enumerate(pog.offmap) if flag}
    assert boxes == {"reval", "petrograd", "moscow", "kharkov", "caucasus"}
    assert not pog.source[pog.index["reval"]]
    for box in boxes:
        i = pog.index[box]
        assert all(pog.allowed(n, i) == ("ru",) for n in pog.neighbours[i]), box


def test_supply_groups(pog):
    grouped = {pog.ids[s] for group in pog.supply for s in group.spaces}
    sources = {pog.ids[i] for i, flag in enumerate(pog.source) if flag}
    assert sources == grouped - {"paris", "salonika"}  # 14.2.3 and 14.2.4 add those two
    groups = {g.id: g for g in pog.supply}
    assert groups["london"].admits("ap", "br") and not groups["london"].admits("ap", "ru")
    assert groups["east"].admits("ap", "sb") and not groups["east"].sea
    assert groups["paris"].admits("ap", "fr") and not groups["paris"].admits("ap", "br")
    assert groups["central_powers"].admits("cp", "tu")


def test_setup_integrity(pog, units, setup):
    seen: set[str] = set()
    for placed in setup.units + setup.on_entry:
        assert placed.unit in units
        assert placed.unit not in seen, f"{placed.unit} placed twice"
        seen.add(placed.unit)
        assert placed.space in pog.index or placed.space in pog.boxes
        if placed.space in pog.boxes:
            assert pog.boxes[placed.space].side == units[placed.unit].faction
    for placed in setup.on_entry:
        assert placed.nation in setup.neutral_nations and units[placed.unit].nation == placed.nation
    for placed in setup.units:
        assert units[placed.unit].nation not in setup.neutral_nations
    for trench in setup.trenches + setup.on_entry_trenches:
        assert trench.space in pog.index and trench.level == 1 and trench.faction in ("ap", "cp")
    for trench in setup.on_entry_trenches:
        assert pog.nation[pog.index[trench.space]] == trench.nation


# --- find_space ----------------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("Verdun", "verdun"),
    ("VERDUN", "verdun"),
    ("  verdun ", "verdun"),
    ("St. Amand", "st_amand"),
    ("st amand", "st_amand"),
    ("Kamenets-Podolski", "kamenets_podolski"),
    ("chateauthierry", "chateau_thierry"),
    ("Königsberg", "konigsberg"),
    ("konigsberg", "konigsberg"),
    ("Koenigsberg", "konigsberg"),
    ("Bagdhad", "baghdad"),
    ("Brünn", "brun"),
    ("AP Reserve Box", "ap_reserve"),
    ("cp_eliminated", "cp_eliminated"),
])
def test_find_space(text, expected):
    assert find_space(text) == expected


def test_find_space_near_miss():
    with pytest.raises(UnknownSpace) as caught:
        find_space("Verdn")
    assert isinstance(caught.value, ValueError)
    assert caught.value.suggestions[0] == "verdun"
    assert "Verdun" in str(caught.value) and "'Verdn'" in str(caught.value)
    with pytest.raises(ValueError, match="did you mean Sarajevo"):
        find_space("Sarajewo")
    with pytest.raises(ValueError) as caught:
        find_space("Xyzzy")
    assert caught.value.suggestions == () and "did you mean" not in str(caught.value)


def test_find_space_variant_spaces():
    with pytest.raises(ValueError):
        find_space("Amsterdam")
    assert find_space("amsterdam", HOLLAND) == "amsterdam"


# --- variants ------------------------------------------------------------------------------

def test_holland(pog):
    holland = load_map(HOLLAND)
    assert len(holland) == 283 and holland.ids[:281] == pog.ids
    assert holland.ids[281:] == ("amsterdam", "nijmegen")
    amsterdam, nijmegen = holland.index["amsterdam"], holland.index["nijmegen"]
    assert holland.fort[amsterdam] == 1 and holland.port[amsterdam] == "ap" and holland.vp[amsterdam] == 0
    assert holland.nation[amsterdam] == holland.nation[nijmegen] == "ho"
    assert holland.fort[nijmegen] == 0 and holland.port[nijmegen] is None
    name = holland.index
    assert set(holland.neighbours[amsterdam]) == {name["nijmegen"], name["antwerp"], name["london"]}
    assert set(holland.neighbours[nijmegen]) == {name["essen"], name["aachen"], name["antwerp"], amsterdam}
    assert len(holland.connections) == 476 + 6
    london = name["london"]
    assert holland.allowed(london, amsterdam) == ("br_corps", "ho_corps")  # 18.1.2
    assert holland.allowed(amsterdam, london) == ("br_corps",)
    assert holland.neighbours[name["verdun"]] == pog.neighbours[pog.index["verdun"]]

    with_units = load_units(HOLLAND)
    assert len(with_units) == 193 and "ho_vl_army" not in load_units()
    assert factors(with_units["ho_vl_army"]) == (2, 3, 3, 1, 3, 3)
    assert factors(with_units["ho_corps"]) == (1, 1, 3, 0, 1, 3)
    assert with_units["ho_corps"].rule == "18.2" and with_units["ho_corps"].faction == "ap"


def test_italy_19_1(pog):
    italy = load_map(ITALY)
    trent, verona = italy.index["trent"], italy.index["verona"]
    assert verona not in italy.neighbours[trent] and trent not in italy.neighbours[verona]
    assert pog.index["verona"] in pog.neighbours[pog.index["trent"]]
    assert len(italy.connections) == 475
    moved = {p.unit: p for p in load_setup(ITALY).on_entry}["it_1_army"]
    assert moved.space == "venice" and moved.reduced


def test_optional_italian_variants():
    both = load_map(frozenset({"italy_19_1_2", "italy_19_1_3"}))
    assert both.limits[link(both, "taranto", "valona")] == ("it_corps",)
    assert both.index["venice"] in both.neighbours[both.index["maggiore"]]
    assert len(both.connections) == 477


def test_unknown_variant():
    with pytest.raises(ValueError, match="unknown variant"):
        load_map(frozenset({"no_such_rule"}))
    assert set(data.variant_names()) >= {"vesting_holland", "italy_19_1"}


# --- against the reference -------------------------------------------------------------------

def read_csv(name: str) -> list[dict[str, str]]:
    with (REFERENCE / name).open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def flag(text: str) -> bool:
    return text.strip().upper() == "TRUE"


@needs_reference
def test_every_space_matches_reference(pog):
    rows = read_csv("spaces.csv")
    by_ref = {}
    for row in rows:
        if not row["map"]:
            box = next(b for b in pog.boxes.values() if b.ref == int(row["id"]))
            assert (box.name, box.side) == (row["name"], row["faction"])
            by_ref[row["id"]] = box.id
            continue
        i = pog.index[slug(row["name"])]
        by_ref[row["id"]] = pog.ids[i]
        assert pog.refs[i] == int(row["id"]) and pog.names[i] == row["name"]
        assert pog.map[i] == row["map"] and pog.nation[i] == row["nation"]
        assert pog.control[i] == row["faction"]
        assert pog.terrain[i] == (row["terrain"] or "clear")
        assert pog.source[i] == flag(row["supply"])
        assert pog.vp[i] == int(row["vp"] or 0) and pog.fort[i] == int(row["fort"] or 0)
        assert pog.port[i] == ("ap" if flag(row["apport"]) else "cp" if flag(row["cpport"]) else None)
        assert pog.capital[i] == flag(row["capital"])
    assert len(by_ref) == len(pog) + len(pog.boxes)

    edges = read_csv("edges.csv")
    assert len(edges) == len(pog.connections)
    for edge, (a, b) in zip(edges, pog.connections, strict=True):
        assert (pog.refs[a], pog.refs[b]) == (int(edge["a"]), int(edge["b"]))
        tokens = tuple(t for t in edge["nations"].split("|") if t)
        assert pog.limits.get(frozenset((a, b)), ()) == tokens


@needs_reference
def test_every_unit_matches_reference(units):
    rows = read_csv("pieces.csv")
    assert len(rows) == len(units)
    for row, unit in zip(rows, units.values(), strict=True):
        assert (unit.faction, unit.nation, unit.name, unit.type) == (
            row["faction"], row["nation"], row["name"], row["type"])
        assert factors(unit) == tuple(int(row[k]) for k in ("cf", "lf", "mf", "rcf", "rlf", "rmf"))
        assert unit.replaceable == (not flag(row["notreplaceable"]))
        assert unit.near_east == flag(row["neareast"])
        assert unit.rp == (row["rptype"] or None)


@needs_reference
def test_every_setup_row_matches_reference(pog, units, setup):
    rows = read_csv("setup-1914.csv")
    names = {key: pog.name_of(key) for key in list(pog.ids) + list(pog.boxes)}
    left = list(setup.units + setup.on_entry)
    for row in (r for r in rows if r["kind"] == "piece"):
        # "GE 1" is the 1 Army, "BR BEF" the BEF Army, "BR BEFc" the BEF Corps, "GEc" a plain corps
        _label, _, rest = row["unit"].partition(" ")
        corps = row["unit"].endswith("c")
        rest = rest[:-1] if corps and rest else rest
        if corps and not rest:
            wanted = re.compile(rf"{row['nation']}_corps(_\d+)?")
        else:
            wanted = re.compile(rf"{row['nation']}_{slug(rest)}_{'corps' if corps else 'army'}")
        match = next(
            p for p in left
            if wanted.fullmatch(p.unit)
            and names[p.space] == row["space"]
            and p.reduced == (row["reduced"] == "yes")
        )
        left.remove(match)
        assert units[match.unit].nation == row["nation"]
    assert {p.unit for p in left} == {"gr_corps_1", "gr_corps_2", "gr_corps_3"}  # the set-up chart's, not the list's
    trench_rows = {(r["space"], int(r["reduced"].split()[-1]), r["faction"]) for r in rows if r["kind"] == "trench"}
    ours = {(names[t.space], t.level, t.faction) for t in setup.trenches + setup.on_entry_trenches}
    assert ours == trench_rows and len(trench_rows) == 24


def load_converter():
    """tools/paths_of_glory_convert.py is a script of the source tree, loaded from its file."""
    path = Path(__file__).resolve().parents[1] / "tools" / "paths_of_glory_convert.py"
    spec = importlib.util.spec_from_file_location("paths_of_glory_convert", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@needs_reference
def test_data_files_are_a_fresh_conversion():
    convert = load_converter()
    folder = resources.files("pbem.rules.paths_of_glory").joinpath("data")
    for name, text in convert.build(REFERENCE).items():
        assert folder.joinpath(name).read_text(encoding="utf-8") == text, f"{name} is stale: rerun convert"
