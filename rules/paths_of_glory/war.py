"""War status, war commitment, neutral entry, US entry and Russian capitulation (SoE 16.1-16.4, 8.1.7).

Every function here mutates the position it is given and returns the events of what happened
(dicts with a "kind" and the "rule"), or raises IllegalOrder changing nothing. The numbers are in
data/war.toml; RULINGS.md (R60 and up) answers what the seeds leave open.

The numbered tracks this ruleset keeps in `PogState.tracks` (a key not present reads as 0;
`starting_tracks()` gives the 1914 values, where only `vp` is not 0):

  vp                      the Victory Point level (base 5.1): 10
  vp_bid                  VP ceded by a bid (base 5.6, R79), added to the final level only; + favours the CP
  br_us_involvement       the BR Entry / US Involvement Status (16.2.2, 16.3.2); never below 0
  russian_turmoil         the Russian Turmoil Status (16.2.2, 16.4.4); never below 0
  cp_russian_vp           the Current CP Russian VP (16.4.2): Russian VP spaces the CP control, Baku included
  tsar_fell_russian_vp    the Tsar Fell CP Russian VP (16.4.5), set when Fall of the Tsar is played
  us_entry                the US Entry Track's box (16.3), an index in war.toml's us_entry.boxes
  russian_capitulation    the Russian Capitulation Track's box (16.4), an index in war.toml's russia.boxes
  zimmermann_turn         the turn the Zimmermann Telegram was played (16.3.4)
  fall_of_the_tsar_turn   the turn Fall of the Tsar was played (16.4.6)
  us_reinforcement_turn   the turn of the last US reinforcement card (16.3.4)
  peace_offer_turn_ap, peace_offer_turn_cp   each side's last peace offer (16.5.3.1, peace.py)
  rp_<type>               RPs recorded (9.4.1, 17.1.1) for ge, ah, tu, bu, fr, br, ru, it, us and allied
  rp_ru_spent, rp_ru_spent_turn   RU RPs spent in that turn (R76: Bolshevik Revolution, replacements.py)

The combined war status is not a track: it is both sides' war status added, or 40 once peace terms
are accepted (R61). Event markers (`PogState.events`) use the card event ids of the reference deck.
"""

from __future__ import annotations

from functools import cache

from pbem import datafile
from pbem.errors import IllegalOrder

from .data import load_setup
from .state import PogState, UnitState

ZIMMERMANN = "zimmermann_telegram"
OVER_THERE = "over_there"
FOURTEEN_POINTS = "fourteen_points"
TSAR_TAKES_COMMAND = "tsar_takes_command"
FALL_OF_THE_TSAR = "fall_of_the_tsar"
BOLSHEVIK_REVOLUTION = "bolshevik_revolution"
BREST_LITOVSK = "treaty_of_brest_litovsk"
UBOATS_UNLEASHED = "uboats_unleashed"  # CP card 36: no US reinforcements until Convoy
CONVOY = "convoy"
PEACE_ACCEPTED = "peace_accepted"  # 16.5.3.3 (peace.py): the combined war status stands at 40


@cache
def _data() -> dict:
    return datafile.load(__package__, "war.toml")


@cache
def _rounds() -> dict:
    return datafile.load(__package__, "sequence.toml")["action_rounds"]


# ---------------------------------------------------------------------------------- tracks

def track(state: PogState, key: str) -> int:
    return state.tracks.get(key, 0)


def starting_tracks() -> dict[str, int]:
    """The tracks at the start of the 1914 scenario (only those not 0)."""
    return dict(_data()["start"])


def combined_war_status(state: PogState) -> int:
    """Both sides' war status added (R61); 40 at least once peace terms are accepted (16.5.3.3)."""
    total = state.war_status["ap"] + state.war_status["cp"]
    if PEACE_ACCEPTED in state.events:
        return max(total, _data()["combined"]["armistice"])
    return total


def add_war_status(state: PogState, side: str, points: int, *, feeds_tracks: bool = True,
                   rule: str = "9.5.1.3") -> list[dict]:
    """A side's war status (and so the combined status) rises by `points` (9.5.1.3). War status from
    events also moves the side's political track (R60); a rejected peace offer's does not (16.5.3.2)."""
    if points < 0:
        raise IllegalOrder(f"war status never decreases (asked to add {points})", rule="16.1.5", field="war_status")
    state.war_status[side] += points
    events = [{"kind": "war_status", "side": side, "add": points, "to": state.war_status[side],
               "combined": combined_war_status(state), "rule": rule}]
    if feeds_tracks:
        for key, per_point in sorted(_data()["event_war_status"][side].items()):
            events += move_track(state, key, points * per_point, "R60")
    return events + update_boxes(state)


def move_track(state: PogState, key: str, points: int, rule: str) -> list[dict]:
    """Move a political track, held at 0 (16.5.2); a neutral Britain joins at BR Entry 8 (16.2.2)."""
    before = track(state, key)
    after = before + points
    if key in _data()["floors"]["tracks"]:
        after = max(after, 0)
    if after == before:
        return []
    state.tracks[key] = after
    events = [{"kind": "track", "track": key, "from": before, "to": after, "rule": rule}]
    if key == "br_us_involvement" and after >= _data()["britain"]["entry_status"]:
        events += enter_war(state, "br", "16.2.2")
    return events + update_boxes(state)


def add_vp(state: PogState, points: int, rule: str, why: str) -> list[dict]:
    """Move the VP level (base 5.1.2): + favours the Central Powers. It may pass 20 and 0 (5.1.2);
    only the War Status Phase ends the game on it (base 5.2)."""
    if not points:
        return []
    state.tracks["vp"] = track(state, "vp") + points
    return [{"kind": "vp", "add": points, "to": state.tracks["vp"], "why": why, "rule": rule}]


# ---------------------------------------------------------------------------------- entering the war

def enter_war(state: PogState, nation: str, rule: str) -> list[dict]:
    """A neutral nation joins its side: its units and trenches set up as the set-up chart lists
    them (base 4.2.2, 9.5.2.1; R63). Nothing happens to a nation already at war."""
    if nation in state.at_war:
        return []
    state.at_war.add(nation)
    placed = _place_setup(state, nation)
    for trench in load_setup(state.variants).on_entry_trenches:
        if trench.nation == nation:
            state.trenches[trench.space] = max(state.trenches.get(trench.space, 0), trench.level)
            state.trench_owner[trench.space] = trench.faction
    return [{"kind": "enters_war", "nation": nation, "units": placed, "rule": rule}]


def place_neutral(state: PogState, nation: str, rule: str) -> list[dict]:
    """base 9.5.2.4 (limited Greek entry): the nation's set-up units are placed while it stays
    neutral; nothing happens to units already placed."""
    return [{"kind": "placed_neutral", "nation": nation, "units": _place_setup(state, nation), "rule": rule}]


def _place_setup(state: PogState, nation: str) -> list[str]:
    """The nation's set-up units not yet on the map, placed as the set-up data lists them."""
    placed = []
    for placement in load_setup(state.variants).on_entry:
        if placement.nation == nation and placement.unit not in state.units:
            state.units[placement.unit] = UnitState(placement.space, placement.reduced)
            placed.append(placement.unit)
    return placed


# ---------------------------------------------------------------------------------- war commitment

def _level_rank(level: str) -> int:
    return _data()["commitment"]["levels"].index(level)


def rounds_per_turn(state: PogState) -> int:
    """R41: the rounds the higher of the two sides' levels gives."""
    return max(_rounds()[level] for level in state.commitment.values())


def check_commitment(state: PogState, side: str, scenario: str = "campaign") -> list[dict]:
    """The check at the end of each of `side`'s actions from Fall 1914 (16.1.2-16.1.4): Limited
    War at war status 4, Total War at 11, both at once if need be (R62)."""
    facts = _data()["commitment"]
    if state.turn < facts["first_turn"] or scenario in facts["frozen_in"]:
        return []
    events: list[dict] = []
    for level, rule in (("limited", "16.1.3"), ("total", "16.1.4")):
        if _level_rank(state.commitment[side]) < _level_rank(level) and state.war_status[side] >= facts[level]:
            events += _raise_commitment(state, side, level, rule)
    return events


def _raise_commitment(state: PogState, side: str, level: str, rule: str) -> list[dict]:
    rounds_before = rounds_per_turn(state)
    state.commitment[side] = level
    event: dict = {"kind": "commitment", "side": side, "to": level, "cards": level, "rule": rule}
    if rounds_per_turn(state) > rounds_before:  # R41: the first side to reach a level adds the rounds at once
        event["rounds"] = rounds_per_turn(state)
    events = [event]
    if side == "cp" and level == "limited":  # 16.1.3.1: Turkey, and a neutral Britain (and France) with it
        events += enter_war(state, "tu", "16.1.3.1")
        if "br" not in state.at_war:
            events += enter_war(state, "br", "16.1.3.1")
            events += enter_war(state, "fr", "16.1.3.1")
    return events


def britain_after_cp_action(state: PogState) -> list[dict]:
    """8.1.7: a neutral Britain joins at the end of a CP action if France is at war and VP >= 15."""
    if "br" in state.at_war or "fr" not in state.at_war or track(state, "vp") < _data()["britain"]["vp"]:
        return []
    return enter_war(state, "br", "8.1.7")


def end_of_action(state: PogState, side: str, scenario: str = "campaign") -> list[dict]:
    """The War Commitment Level Step at the end of `side`'s action (8.1.7, 16.1.2)."""
    events = check_commitment(state, side, scenario)
    if side == "cp":
        events += britain_after_cp_action(state)
    return events


# ---------------------------------------------------------------------------------- the two tracks' boxes

def russian_vp_spaces(state: PogState) -> list[str]:
    pog = state.map
    return [pog.ids[i] for i in range(len(pog)) if pog.nation[i] == "ru" and pog.vp[i]]


def _cp_russian_vp(state: PogState) -> int:
    """16.4.2: Russian VP spaces the CP control, supplied or not (R65: Baku included)."""
    return sum(1 for space in russian_vp_spaces(state) if state.control.get(space) == "cp")


def _all_seven(state: PogState) -> bool:
    """16.4.6 (2): the CP control every VP space in Russia but Baku."""
    spaces = [s for s in russian_vp_spaces(state) if s not in _data()["russia"]["not_in_all_seven"]]
    return all(state.control.get(space) == "cp" for space in spaces)


def _us_entry_box(state: PogState) -> str:
    if OVER_THERE in state.events:
        return "over_there"
    if ZIMMERMANN in state.events:
        return "zimmermann_telegram"
    if track(state, "br_us_involvement") >= _data()["us_entry"]["zimmermann_allowed"]:
        return "zimmermann_allowed"
    return "us_neutral"


def bolshevik_conditions(state: PogState) -> bool:
    """16.4.6: more CP Russian VP than when the Tsar fell, or all seven VP spaces but Baku."""
    return _cp_russian_vp(state) > track(state, "tsar_fell_russian_vp") or _all_seven(state)


def _capitulation_box(state: PogState) -> str:
    """R65: the box follows the events played and the conditions of the moment."""
    russia = _data()["russia"]
    for event in (BREST_LITOVSK, BOLSHEVIK_REVOLUTION):
        if event in state.events:
            return event
    if FALL_OF_THE_TSAR in state.events:
        return "bolshevik_revolution_allowed" if bolshevik_conditions(state) else FALL_OF_THE_TSAR
    if TSAR_TAKES_COMMAND in state.events:
        turmoil = track(state, "russian_turmoil") + _cp_russian_vp(state)
        return "fall_of_the_tsar_allowed" if turmoil >= russia["fall_of_the_tsar"] else TSAR_TAKES_COMMAND
    if _cp_russian_vp(state) >= russia["tsar_takes_command"]:
        return "tsar_takes_command_allowed"
    return "god_save_the_tsar"


def update_boxes(state: PogState) -> list[dict]:
    """Recount the CP Russian VP and move both markers to the boxes the position gives (16.3, 16.4).
    Run after every change of a track, of control of a Russian VP space, or of the events."""
    events = []
    changes = (("cp_russian_vp", _cp_russian_vp(state), "16.4.2"),
               ("us_entry", _data()["us_entry"]["boxes"].index(_us_entry_box(state)), "16.3"),
               ("russian_capitulation", _data()["russia"]["boxes"].index(_capitulation_box(state)), "16.4"))
    for key, value, rule in changes:  # the CP Russian VP first: the Russian box reads it
        if track(state, key) != value:
            events.append({"kind": "track", "track": key, "from": track(state, key), "to": value, "rule": rule})
            state.tracks[key] = value
            if key == "cp_russian_vp":
                return events + update_boxes(state)
    return events


def box(state: PogState, key: str) -> str:
    """The name of the box a marker stands in: key "us_entry" or "russian_capitulation"."""
    boxes = _data()["us_entry" if key == "us_entry" else "russia"]["boxes"]
    return boxes[track(state, key)]


# ---------------------------------------------------------------------------------- the events of the tracks

def check_event(state: PogState, event: str) -> None:
    """Refuse one of the US entry or Russian capitulation events the track does not yet allow."""
    why = _event_barred(state, event)
    if why:
        raise IllegalOrder(f"{event} may not be played: {why[1]}", rule=why[0], field="event")


def _event_barred(state: PogState, event: str) -> tuple[str, str] | None:
    us, russia = _us_entry_box(state), _capitulation_box(state)  # the position's, whatever the markers show
    if event in state.events:
        return "9.5.1.2", "it has been played already"
    bars = {
        ZIMMERMANN: ("16.3.2", "US Involvement is under 30", us != "zimmermann_allowed"),
        OVER_THERE: ("16.3.4", "not before the turn after the Zimmermann Telegram",
                     ZIMMERMANN not in state.events or state.turn <= track(state, "zimmermann_turn")),
        FOURTEEN_POINTS: ("16.3.5", "not before the Zimmermann Telegram", ZIMMERMANN not in state.events),
        TSAR_TAKES_COMMAND: ("16.4.3", "the CP hold fewer than 3 Russian VP spaces",
                             russia != "tsar_takes_command_allowed"),
        FALL_OF_THE_TSAR: ("16.4.4", "it needs Tsar Takes Command and Turmoil + CP Russian VP of 33",
                           russia != "fall_of_the_tsar_allowed"),
        BOLSHEVIK_REVOLUTION: ("16.4.6", "it needs a turn after the Fall of the Tsar and one of the two conditions",
                               russia != "bolshevik_revolution_allowed"
                               or state.turn <= track(state, "fall_of_the_tsar_turn")),
        BREST_LITOVSK: ("16.4.8", "not before the Bolshevik Revolution", BOLSHEVIK_REVOLUTION not in state.events),
    }
    if event not in bars:
        raise ValueError(f"{event!r} is not an event of the US entry or Russian capitulation tracks")
    rule, why, barred = bars[event]
    return (rule, why) if barred else None


def record_event(state: PogState, event: str) -> list[dict]:
    """One of the tracks' events is played: its marker, its box, and what the seeds make it do."""
    check_event(state, event)
    state.events.add(event)
    events = [{"kind": "event", "event": event, "rule": _EVENT_RULES[event]}]
    if event == ZIMMERMANN:
        state.tracks["zimmermann_turn"] = state.turn
        events += enter_war(state, "us", "16.3.3")
    elif event == FALL_OF_THE_TSAR:
        state.tracks["fall_of_the_tsar_turn"] = state.turn
        state.tracks["tsar_fell_russian_vp"] = _cp_russian_vp(state)
    elif event == BREST_LITOVSK:
        events += _brest_litovsk(state)
    return events + update_boxes(state)


_EVENT_RULES = {ZIMMERMANN: "16.3.3", OVER_THERE: "16.3.4", FOURTEEN_POINTS: "16.3.5", TSAR_TAKES_COMMAND: "16.4.3",
                FALL_OF_THE_TSAR: "16.4.5", BOLSHEVIK_REVOLUTION: "16.4.7", BREST_LITOVSK: "16.4.8"}


def record_us_reinforcement(state: PogState) -> list[dict]:
    """16.3.4: US reinforcement cards after Over There, one a turn (R64): records the play."""
    check_us_reinforcement(state)
    state.tracks["us_reinforcement_turn"] = state.turn
    return [{"kind": "us_reinforcement", "turn": state.turn, "rule": "16.3.4"}]


def check_us_reinforcement(state: PogState) -> None:
    """16.3.4, R64: may a US reinforcement card be played now?"""
    if OVER_THERE not in state.events:
        raise IllegalOrder("no US reinforcement card before Over There", rule="16.3.4", field="card")
    if UBOATS_UNLEASHED in state.events and CONVOY not in state.events:
        raise IllegalOrder("U-Boats Unleashed bars US reinforcements until Convoy", rule="R64", field="card")
    if track(state, "us_reinforcement_turn") == state.turn:
        raise IllegalOrder("one US reinforcement card a turn", rule="16.3.4", field="card")


# ---------------------------------------------------------------------------------- Brest-Litovsk

def _russian_area(state: PogState, space: str) -> bool:
    pog = state.map
    return pog.nation[pog.index[space]] in _data()["russia"]["brest_litovsk_nations"]


def _allied_non_russians(state: PogState, space: str) -> bool:
    return any(state.faction(u) == "ap" and state.nation(u) != "ru" for u in state.units_in(space))


def _brest_litovsk(state: PogState) -> list[dict]:
    """16.4.9 (R66): Russian units outside Russia, Germany, Turkey, Austria-Hungary and Romania
    are eliminated; those stacked with other Allied units are interned (eliminated)."""
    events: list[dict] = []
    spaces = set()
    for unit in sorted(state.units):
        here = state.units[unit]
        if state.nation(unit) != "ru" or here.space not in state.map.index:
            continue
        if not _russian_area(state, here.space):
            kind = "eliminated"
        elif _allied_non_russians(state, here.space):
            kind = "interned"
        else:
            continue
        permanent = not state.unit_facts[unit].replaceable
        events.append({"kind": kind, "unit": unit, "from": here.space, "to": "ap_eliminated",
                       "permanent": permanent, "rule": "16.4.9"})
        spaces.add(here.space)
        state.units[unit] = UnitState("ap_eliminated")
        if permanent:
            state.removed.add(unit)
    from .forts import update_siege  # here, not at the top: the status line reads this module

    for space in sorted(spaces):
        events += update_siege(state, space)
    return events


def brest_litovsk_bars_entry(state: PogState, unit: str, space: str) -> str | None:
    """16.4.9: after the treaty no Russian unit goes outside its five nations, and Russian and other
    Allied units never enter or cross each other's spaces. The rule barring it, or None."""
    if BREST_LITOVSK not in state.events or state.faction(unit) != "ap" or space not in state.map.index:
        return None
    if state.nation(unit) == "ru":
        if not _russian_area(state, space) or _allied_non_russians(state, space):
            return "16.4.9"
        return None
    if any(state.nation(u) == "ru" for u in state.units_in(space)):
        return "16.4.9"
    return None


def brest_litovsk_bars_attack(state: PogState, attackers: list[str], defenders: list[str],
                              defending_space: str) -> str | None:
    """16.4.10: after the treaty Russian units never attack, and only Turkish units on the Near
    East map may attack Russian units. The rule barring the attack, or None."""
    if BREST_LITOVSK not in state.events:
        return None
    if any(state.nation(u) == "ru" for u in attackers):
        return "16.4.10"
    if any(state.nation(u) == "ru" for u in defenders):
        near_east = state.map.map[state.map.index[defending_space]] == "neareast"
        if not (near_east and all(state.nation(u) == "tu" for u in attackers)):
            return "16.4.10"
    return None
