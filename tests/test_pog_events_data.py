"""Paths of Glory events as data (rules/paths_of_glory/data/events.toml): every table is a
non-combat, non-reinforcement card of cards.toml, its ids and turns are known, and every such card
is either a table or named in the header's left-out list. When ../shared/reference/paths_of_glory
exists beside the repository, the set of cards is also compared with cards.csv.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest
from helpers import pog_data, pog_data_text

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT.parent / "shared" / "reference" / "paths_of_glory"
needs_reference = pytest.mark.skipif(not REFERENCE.is_dir(), reason="no ../shared/reference folder")

KEYS = {"rule", "marker", "lasts", "after", "after_until", "before", "first_turn", "last_turn", "ends", "vp",
        "requires", "note", "operations", "shows_hand", "enters", "level_below", "combined_at_least",
        "trench", "vp_while_neutral", "after_used", "vp_on_lapse", "limited_entry", "redeploy_to", "counts_as",
        "control_needed", "to_reserve", "place_with_army", "remove_eliminated", "reduce_units", "flip_reduced",
        "void_after_used", "last_round", "move_units", "destroy_fort", "attack_with", "enemy_choice",
        "peace_terms_line"}
LASTS = {"round", "turn", "enemy_action"}
CARD_ID = re.compile(r"(ap|cp)\d{2}")
LEFT_OUT_LINE = re.compile(r"# ((?:ap|cp)\d{2}) (\S.*)")


@pytest.fixture(scope="module")
def events() -> dict[str, dict]:
    return pog_data("events.toml")["events"]


@pytest.fixture(scope="module")
def cards() -> dict[str, dict]:
    return pog_data("cards.toml")["cards"]


def known_event_ids() -> set[str]:
    """The event ids of cards.toml and the event markers of combat_cards.toml."""
    card_events = {card["event"] for card in pog_data("cards.toml")["cards"].values() if "event" in card}
    return card_events | set(pog_data("combat_cards.toml")["markers"])


def track_events() -> set[str]:
    """The US entry and Russian capitulation events, whose conditions war.py checks."""
    war = pog_data("war.toml")
    return set(war["us_entry"]["boxes"]) | set(war["russia"]["boxes"])


def plain_cards(cards: dict[str, dict]) -> set[str]:
    """The cards this file covers: neither combat cards (but Kerensky Offensive, played for
    operations: R90) nor reinforcements."""
    return {cid for cid, card in cards.items()
            if (not card.get("combat_card") or card.get("ops_event")) and "reinforcements" not in card}


def left_out(text: str) -> dict[str, str]:
    """The header's left-out list: `# <card id> <name>: <why>` lines after the `# Left out` line,
    up to the first bare `#`."""
    header = text.split("\nformat_version")[0].splitlines()
    start = next(i for i, line in enumerate(header) if line.startswith("# Left out"))
    listed: dict[str, str] = {}
    for line in header[start + 1:]:
        if line.strip() == "#":
            break
        match = LEFT_OUT_LINE.fullmatch(line)
        if match:
            assert match.group(1) not in listed, f"{match.group(1)} is listed twice"
            listed[match.group(1)] = match.group(2)
    return listed


# --- the file ---------------------------------------------------------------------------------

def test_file_opens_with_its_documentation():
    text = pog_data_text("events.toml")
    assert text.startswith("# ")
    assert "\nformat_version = 1\n" in text
    header = text.split("\nformat_version")[0]
    for key in sorted(KEYS):
        assert re.search(rf"^#\s+{key}\s", header, re.M), f"the header does not document `{key}`"


def test_tables_use_only_documented_keys(events):
    assert events
    for cid, entry in events.items():
        assert set(entry) <= KEYS, f"{cid}: unknown keys {sorted(set(entry) - KEYS)}"
        assert isinstance(entry.get("rule"), str) and entry["rule"], f"{cid} names no rule"


# --- the card ids -----------------------------------------------------------------------------

def test_every_table_is_a_plain_card(events, cards):
    for cid in events:
        assert CARD_ID.fullmatch(cid), f"{cid!r} is not a card id"
        assert cid in cards, f"{cid} is not in cards.toml"
        played_in_combat = cards[cid].get("combat_card") and not cards[cid].get("ops_event")  # R90
        assert not played_in_combat, f"{cid} is a combat card (combat_cards.toml)"
        assert "reinforcements" not in cards[cid], f"{cid} is a reinforcement card"


def test_rule_names_the_card(events, cards):
    for cid, entry in events.items():
        card = cards[cid]
        assert entry["rule"].startswith(f"{card['side'].upper()} card {card['number']}"), cid


def test_marker_is_the_cards_event(events, cards):
    for cid, entry in events.items():
        if "marker" in entry:
            assert entry["marker"] == cards[cid].get("event"), f"{cid}: marker {entry['marker']!r}"


def test_every_plain_card_is_a_table_or_left_out(events, cards):
    listed = left_out(pog_data_text("events.toml"))
    plain = plain_cards(cards)
    assert not set(listed) & set(events), f"both a table and left out: {sorted(set(listed) & set(events))}"
    missing = plain - set(events) - set(listed)
    assert not missing, f"neither a table nor left out: {sorted(missing)}"
    for cid, why in listed.items():
        assert cid in cards and not cards[cid].get("combat_card"), f"left out {cid} is not a non-combat card"
        assert ":" in why, f"left out {cid}: say the name, then why"


# --- the conditions ---------------------------------------------------------------------------

def test_event_ids_are_known(events):
    known = known_event_ids()
    for cid, entry in events.items():
        for key in ("after", "before", "ends"):
            ids = entry.get(key, [])
            assert isinstance(ids, list) and (ids or key not in entry), f"{cid}: `{key}` is given but empty"
            unknown = [event for event in ids if event not in known]
            assert not unknown, f"{cid}: unknown event ids in `{key}`: {unknown}"
            assert entry.get("marker") not in ids, f"{cid}: its own marker in `{key}`"
        assert not set(entry.get("after", [])) & set(entry.get("before", [])), f"{cid}: after and before overlap"


def test_turn_windows(events):
    turns = len(pog_data("calendar.toml")["turns"])
    for cid, entry in events.items():
        first, last = entry.get("first_turn", 1), entry.get("last_turn", turns)
        assert isinstance(first, int) and isinstance(last, int), cid
        assert 1 <= first <= last <= turns, f"{cid}: turns {first}-{last} outside 1-{turns} or reversed"


def test_lasts_and_vp(events):
    for cid, entry in events.items():
        if "lasts" in entry:
            assert entry["lasts"] in LASTS, f"{cid}: lasts {entry['lasts']!r}"
            assert "marker" in entry, f"{cid}: lasts without a marker"
        if "vp" in entry:
            assert isinstance(entry["vp"], int) and not isinstance(entry["vp"], bool) and entry["vp"], cid


def test_requires_is_checked_by_war_py(events):
    tracks = track_events()
    for cid, entry in events.items():
        if "requires" in entry:
            assert entry.get("marker") in tracks, f"{cid}: `requires` is checked by no code"


def test_each_card_does_something(events):
    for cid, entry in events.items():
        assert set(entry) & {"marker", "ends", "vp", "note"}, f"{cid} does nothing"


def test_combat_markers_last_as_long(events):
    """An event whose marker acts in combats (combat_cards.toml [markers]) lasts as long here."""
    markers = pog_data("combat_cards.toml")["markers"]
    for cid, entry in events.items():
        for name, marker in markers.items():
            if marker.get("event", name) == entry.get("marker"):
                assert entry.get("lasts", "game") == marker["lasts"], f"{cid}: lasts differs from [markers.{name}]"


# --- against the reference --------------------------------------------------------------------

@needs_reference
def test_covers_the_reference_plain_cards(events):
    """Every cards.csv row with no combat card mark and no reinforcements is a table or left out."""
    with (REFERENCE / "cards.csv").open(newline="", encoding="utf-8") as handle:
        rows = [{k: (v or "").strip() for k, v in row.items()} for row in csv.DictReader(handle)]
    plain = {f"{row['faction']}{int(row['num']):02d}" for row in rows if not row["cc"] and not row["reinf"]}
    covered = set(events) - {"ap45"} | set(left_out(pog_data_text("events.toml")))  # ap45: marked cc (R90)
    assert plain - covered == set(), f"not covered: {sorted(plain - covered)}"
    assert covered - plain == set(), f"not plain cards in cards.csv: {sorted(covered - plain)}"


def test_event_procedures_name_real_units_spaces_and_lines(events):
    """The keys read by unit_events.py and peace.py name units, spaces and lines that exist."""
    units, spaces = pog_data("units.toml")["units"], pog_data("map.toml")["spaces"]
    lines = {line["from"] for line in pog_data("peace.toml")["lines"]}
    for cid, entry in events.items():
        for unit, space in entry.get("move_units", {}).items():
            assert unit in units and space in spaces, cid
        if "destroy_fort" in entry:
            assert spaces[entry["destroy_fort"]].get("fort"), cid
        assert all(unit in units for unit in entry.get("attack_with", [])), cid
        assert entry.get("peace_terms_line", 0) in lines, cid
        if "enemy_choice" in entry:
            assert set(entry["enemy_choice"]) == {"nation", "vp"}, cid
        assert isinstance(entry.get("last_round", 1), int), cid
