"""Paths of Glory strategy cards (rules/paths_of_glory/data/cards.toml): the facts of both decks.

The counts, ids and the agreement with units.toml, setup_1914.toml, replacements.toml and
combat_cards.toml are checked from a bare clone; when ../shared/reference/paths_of_glory exists
beside the repository, every card is also compared with cards.csv and the converter is run.
"""

from __future__ import annotations

import csv
import re
import shutil
import subprocess
import sys
from collections import Counter
from importlib import resources
from pathlib import Path

import pytest
from helpers import pog_data, pog_data_text

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT.parent / "shared" / "reference" / "paths_of_glory"
CONVERTER = ROOT / "tools" / "paths_of_glory_convert.py"
needs_reference = pytest.mark.skipif(not REFERENCE.is_dir(), reason="no ../shared/reference folder")

FIELDS = {"side", "number", "name", "event", "commitment", "ops", "sr", "rp", "war_status", "combat_card",
          "ops_event", "removed_after_play", "optional", "reinforcements", "expires"}
FLAGS = ("combat_card", "ops_event", "removed_after_play", "optional")
PLACED_KEYS = {"where", "at_war", "after", "before", "beach_head", "home_entry"}  # R116, R117
PLACED_AS_DIRECTED = {"ap29", "ap31", "ap41", "ap50", "ap53", "cp24"}  # base 9.5.3.2-9.5.3.3
GENERIC_CORPS = re.compile(r"([a-z]+)_corps_\d+")


@pytest.fixture(scope="module")
def cards() -> dict[str, dict]:
    return pog_data("cards.toml")["cards"]


@pytest.fixture(scope="module")
def units() -> dict[str, dict]:
    return pog_data("units.toml")["units"]


def reference_rows() -> list[dict[str, str]]:
    with (REFERENCE / "cards.csv").open(newline="", encoding="utf-8") as handle:
        return [{k: (v or "").strip() for k, v in row.items()} for row in csv.DictReader(handle)]


def set_up_pieces() -> set[str]:
    setup = pog_data("setup_1914.toml")
    return {p["unit"] for p in setup["units"]} | {p["unit"] for p in setup["on_entry"]}


def corps_brought(cards: dict[str, dict], optional: bool) -> Counter[str]:
    """Identical corps brought in by the cards, by nation; the optional cards only when asked."""
    brought: Counter[str] = Counter()
    for card in cards.values():
        if "reinforcements" in card and (optional or not card.get("optional")):
            brought[card["reinforcements"]["nation"]] += card["reinforcements"].get("corps", 0)
    return brought


def generic_corps(keys) -> Counter[str]:
    return Counter(m.group(1) for key in keys if (m := GENERIC_CORPS.fullmatch(key)))


# --- the file and its ids ---------------------------------------------------------------------

def test_file_opens_with_its_documentation():
    text = pog_data_text("cards.toml")
    assert text.startswith("# ")
    assert "\nformat_version = 1\n" in text
    header = text.split("\nformat_version")[0]
    assert all(re.search(rf"\b{field}\b", header) for field in FIELDS)


def test_each_deck_has_65_cards_keyed_by_side_and_number(cards):
    headers = re.findall(r"^\[cards\.(\w+)\]$", pog_data_text("cards.toml"), flags=re.MULTILINE)
    assert len(headers) == len(set(headers)) == 130
    for side in ("ap", "cp"):
        assert sorted(c["number"] for c in cards.values() if c["side"] == side) == list(range(1, 66))
    for key, card in cards.items():
        assert key == f"{card['side']}{card['number']:02d}"


def test_fields_are_of_the_documented_kinds(cards):
    rp_types = pog_data("replacements.toml")["rp_types"]
    for key, card in cards.items():
        assert set(card) <= FIELDS, key
        assert card["commitment"] in ("mobilization", "limited", "total"), key
        assert isinstance(card["ops"], int) and isinstance(card["sr"], int), key
        assert set(card["rp"]) <= set(rp_types[card["side"]]), key
        assert all(isinstance(n, int) and n > 0 for n in card["rp"].values()), key
        assert all(card.get(flag, True) is True for flag in FLAGS), key  # present only when true


def test_expiring_cards_are_the_three_with_a_date(cards):
    """8.1.6.1: Putnik (1914-1915), Moltke (Aug-Sep 1914) and Guns of August (Aug 1914) expire."""
    assert {k: c["expires"] for k, c in cards.items() if "expires" in c} == {"ap05": 7, "ap09": 2, "cp01": 1}


def test_optional_cards_are_56_to_65_of_each_deck(cards):
    assert {k for k, c in cards.items() if c.get("optional")} == {
        f"{side}{n}" for side in ("ap", "cp") for n in range(56, 66)}


def test_event_ids_are_unique(cards):
    events = [c["event"] for c in cards.values() if "event" in c]
    assert len(events) == len(set(events))


# --- reinforcements ---------------------------------------------------------------------------

def test_reinforcement_pieces_exist_on_the_cards_side(cards, units):
    corps = generic_corps(k for k, u in units.items() if u["type"] == "corps")
    for key, card in cards.items():
        if "reinforcements" not in card:
            continue
        brings = card["reinforcements"]
        assert set(brings) <= {"nation", "units", "corps", *PLACED_KEYS}, key
        assert "units" in brings or "corps" in brings, key
        for unit in brings.get("units", []):
            assert units[unit]["faction"] == card["side"], (key, unit)
        if "corps" in brings:
            assert 0 < brings["corps"] <= corps[brings["nation"]], key
            assert units[f"{brings['nation']}_corps_1"]["faction"] == card["side"], key


def test_every_army_enters_once(cards, units):
    """Each army is in the 1914 set-up or brought in by one card: a wrong piece would show here."""
    brought = [u for c in cards.values() for u in c.get("reinforcements", {}).get("units", [])]
    entering = brought + sorted(set_up_pieces())
    assert len(entering) == len(set(entering))
    assert {k for k, u in units.items() if u["type"] == "army"} <= set(entering)


def test_identical_corps_fit_the_counter_mix_in_the_basic_game(cards, units):
    pieces = generic_corps(units)
    at_start = generic_corps(set_up_pieces())
    basic = corps_brought(cards, optional=False)
    assert all(at_start[n] + basic[n] <= pieces[n] for n in pieces | basic), (pieces, at_start, basic)


def test_with_the_optional_cards_only_the_us_corps_run_short_by_two(cards, units):
    """R91: US cards 38, 43 and 47 bring 4 US corps, card 64 two more; there are 4 pieces."""
    pieces, at_start = generic_corps(units), generic_corps(set_up_pieces())
    everything = corps_brought(cards, optional=True)
    short = {n: at_start[n] + everything[n] - pieces[n] for n in pieces | everything}
    assert {n: s for n, s in short.items() if s > 0} == {"us": 2}
    assert (everything["us"], corps_brought(cards, optional=False)["us"], pieces["us"]) == (6, 4, 4)


def test_cards_placing_their_units_name_real_spaces_events_and_nations(cards, units):
    """R116, R117: the six cards that place their units where they say, and nothing else."""
    spaces = pog_data("map.toml")["spaces"]
    events = {c["event"] for c in cards.values() if "event" in c}
    placed = {k: c["reinforcements"] for k, c in cards.items() if "where" in c.get("reinforcements", {})}
    assert set(placed) == PLACED_AS_DIRECTED
    for key, brings in placed.items():
        assert "corps" not in brings, key
        assert brings["where"] == "near_east" or set(brings["where"]) <= set(spaces), key
        assert set(brings.get("after", []) + brings.get("before", [])) <= events, key
        assert set(brings.get("at_war", [])) <= {s["nation"] for s in spaces.values()}, key
        armies = {u for u in brings["units"] if units[u]["type"] == "army"}
        assert ("home_entry" in brings) == bool(armies) == all(units[u].get("near_east") for u in brings["units"])
    assert {k for k, c in cards.items() if c.get("reinforcements", {}).keys() & PLACED_KEYS} == PLACED_AS_DIRECTED
    assert [k for k, b in placed.items() if b.get("beach_head")] == ["ap31"]


def test_the_mef_entered_at_home_is_recorded_as_operations_reads_it(cards):
    """R105, R117: the record of the MEF entered at home is the one 9.2.7.1's price looks for."""
    from pbem.rules.paths_of_glory import operations

    assert cards["ap31"]["reinforcements"]["home_entry"] == operations.MEF_AS_REINFORCEMENT
    text = pog_data_text("cards.toml")
    assert len(re.findall(r"# R116: [^\n]*\nreinforcements = \{", text)) == len(PLACED_AS_DIRECTED)


def test_rulings_r89_and_r90(cards):
    assert cards["ap47"]["reinforcements"] == {"nation": "us", "units": ["us_2_army"], "corps": 1}
    assert cards["ap45"]["combat_card"] is True and cards["ap45"]["ops_event"] is True
    text = pog_data_text("cards.toml")
    assert re.search(r"# R89: [^\n]*\nreinforcements = \{ nation = \"us\"", text)
    assert re.search(r"# R90: [^\n]*\nops_event = true", text)


# --- combat cards -----------------------------------------------------------------------------

def test_combat_cards_are_the_cards_marked_so(cards):
    by_event = {c["event"]: c for c in cards.values() if "event" in c}
    catalogue = pog_data("combat_cards.toml")["cards"]
    for event, facts in catalogue.items():
        card = by_event[event]
        assert card.get("combat_card") is True, event
        assert (card["side"], card["number"]) == (facts["side"], facts["number"]), event
    # R90: a combat card played for operations (Kerensky Offensive) acts through a marker instead
    played_in_combat = {c["event"] for c in cards.values() if c.get("combat_card") and not c.get("ops_event")}
    assert played_in_combat == set(catalogue)


# --- the reference ----------------------------------------------------------------------------

def reference_facts(row: dict[str, str]) -> dict:
    rp = {("allied" if k == "rp_a" else k.removeprefix("rp_")): int(v)
          for k, v in row.items() if k.startswith("rp_") and v and int(v)}
    return {"side": row["faction"], "number": int(row["num"]), "name": row["name"],
            "event": row["event"] or None, "commitment": row["commitment"], "ops": int(row["ops"]),
            "sr": int(row["sr"]), "rp": rp, "war_status": int(row["ws"]) if row["ws"] else None,
            "combat_card": row["cc"].upper() == "TRUE", "removed_after_play": row["remove"].upper() == "TRUE"}


def our_facts(card: dict) -> dict:
    facts = {k: card.get(k) for k in ("side", "number", "name", "event", "commitment", "ops", "sr", "rp",
                                      "war_status")}
    return facts | {"combat_card": card.get("combat_card", False),
                    "removed_after_play": card.get("removed_after_play", False)}


@needs_reference
def test_every_reference_card_is_here_with_equal_facts(cards):
    rows = reference_rows()
    assert len(rows) == len(cards) == 130
    for row in rows:
        key = f"{row['faction']}{int(row['num']):02d}"
        assert our_facts(cards[key]) == reference_facts(row), key


@needs_reference
def test_reinforcements_count_every_reference_entry(cards):
    for row in reference_rows():
        key = f"{row['faction']}{int(row['num']):02d}"
        if key == "ap47":
            continue  # R89: the reference lists none
        entries = [e for e in row["reinf"].split("|") if e.strip()]
        brings = cards[key].get("reinforcements", {})
        assert brings.get("nation", "") == row["reinf_nation"], key
        assert len(brings.get("units", [])) + brings.get("corps", 0) == len(entries), key


@needs_reference
def test_converter_check_passes():
    done = subprocess.run([sys.executable, str(CONVERTER), str(REFERENCE), "--check"],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


@needs_reference
def test_converter_check_notices_a_changed_card(tmp_path):
    folder = resources.files("pbem.rules.paths_of_glory").joinpath("data")
    for name in ("map.toml", "units.toml", "setup_1914.toml", "cards.toml"):
        with resources.as_file(folder.joinpath(name)) as path:
            shutil.copy(path, tmp_path / name)
    changed = tmp_path / "cards.toml"
    changed.write_text(changed.read_text(encoding="utf-8").replace("ops = 4", "ops = 5", 1), encoding="utf-8")
    done = subprocess.run([sys.executable, str(CONVERTER), str(REFERENCE), "--out", str(tmp_path), "--check"],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 1
    assert done.stdout.strip() == f"differs: {changed}"
