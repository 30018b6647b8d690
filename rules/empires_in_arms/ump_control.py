"""The UMP Control Step (seed 003, 14.3.1-14.3.2, 14.3.7, 14.3.8): each player's powers seal their
overtures to the uncontrolled major powers; once all are unsealed the collector's entry opens a
roll point, where the political points pass to the UMPs and every overture is rolled.

An overture that cannot stand is voided when unsealed, its rule recorded for all to see; `pbem
seal` refuses it before it is signed (`check`). Rolls: the UMPs in data order, the bidders in
roster order (their powers in data order); two dice each, with the modifiers of 14.3.1.1.8 (before
the game only the Natural Alliance Table and political points, 14.3.1). The highest total wins;
a tie goes to the power that controlled the UMP last, else to a roll-off. A winning total of 10 or
more makes the UMP active (Turkey: 12, 14.3.7), less inactive; an UMP nobody bid for is neutral
(14.3.6), with what that brings (14.3.6.1a, 14.3.6.1b, 14.3.6.2).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from pbem.errors import IllegalOrder

from . import geography, militia, powers
from .sealed_orders import collect_each, order_number
from .state import ACTIVE, INACTIVE, NEUTRAL, PLAYER, Corps, EiaState

RULE = "14.3.1.1.1"
MOST_PP = 2  # 14.3.1.1.3: political points a power may use on one UMP
SUBSIDY_STEP = 20  # 14.3.1.1.6: +1 for every $20
MOST_CRUCIAL = 3  # 14.3.1.1.8: crucial territories "-0-3", however many (E11)
NEUTRAL_PP = 2  # 14.3.6.2: a neutral UMP's status adjustment, as the highest economic manipulation


# ---------------------------------------------------------------------------------- sealing

def check(state: EiaState, commands: Sequence[str], orders: Sequence[Mapping]) -> list[dict]:
    """The overtures these sealed orders make, each with its power; IllegalOrder for the first one
    that cannot stand (what `pbem seal` refuses, and what unsealing voids)."""
    made: list[dict] = []
    converted: list[dict] = []
    for index, order in enumerate(orders, 1):
        with order_number(index):
            if order.get("kind") == "convert_militia":  # 12.11.2, sealed with the overtures before the game
                converted.append(militia.conversion(state, commands, order, converted))
            else:
                made.append(_overture(state, commands, order, made))
    return made


def _overture(state: EiaState, commands: Sequence[str], order: Mapping, made: list[dict]) -> dict:
    if order.get("kind") != "overture":
        raise IllegalOrder(f"{order.get('kind')!r} is not sealed in the UMP Control Step: overture ump=...", rule=RULE,
                           field="kind")
    power = _power(commands, order)
    ump = str(order["ump"])
    if ump not in state.powers or state.powers[ump].status == PLAYER:
        raise IllegalOrder(f"{ump!r} is not an uncontrolled major power (they are: {', '.join(umps(state))})",
                           rule=RULE, field="ump")
    if any(o["power"] == power and o["ump"] == ump for o in made):
        raise IllegalOrder(f"{power} makes one overture to {ump}", rule=RULE, field="ump")
    _check_occupation(state, power, ump)
    pp, against, subsidy = (int(order.get(key, 0)) for key in ("pp", "pp_against", "subsidy"))
    _check_pp(state, power, pp, against, made)
    _check_subsidy(state, power, ump, subsidy, made)
    cede = str(order.get("cede", ""))
    _check_cession(state, power, ump, cede, made)
    return {"power": power, "ump": ump, "pp": pp, "pp_against": against, "subsidy": subsidy, "cede": cede}


def _check_occupation(state: EiaState, power: str, ump: str) -> None:
    """14.3.1.1.1: no overture to an UMP at war with the power while the power's forces stand in
    the part of the UMP's home nation the UMP controls."""
    held = [area for area in geography.home_areas(ump) if state.forces_in(area).get(power, 0) > 0
            and state.control.get(geography.areas()[area]["territory"]) == ump]
    if held and state.at_war(power, ump):
        raise IllegalOrder(f"{power} is at war with {ump} and occupies {', '.join(held)} of its home nation: no "
                           "overture", rule=RULE, field="ump")


def _check_cession(state: EiaState, power: str, ump: str, cede: str, made: list[dict]) -> None:
    """14.3.1, 14.3.1.1.4: not before the game; only to an UMP at war with the power; a territory
    the power holds, offered once, in which no force of a power at war with it stands but the UMP's."""
    if not cede:
        return
    rule = "14.3.1.1.4"
    if state.turn == 0:
        raise IllegalOrder("before the game only the Natural Alliance Table and political points modify an "
                           "overture", rule="14.3.1", field="cede")
    if not state.at_war(power, ump):
        raise IllegalOrder(f"{power} cedes only to an UMP it is at war with, not {ump}", rule=rule, field="cede")
    if state.control.get(cede) != power:
        raise IllegalOrder(f"{cede!r} is no province or minor {power} holds", rule=rule, field="cede")
    if any(o["cede"] == cede for o in made):
        raise IllegalOrder(f"{cede} is offered once", rule=rule, field="cede")
    present = [(other, strength) for area in geography.areas_of(cede) for other, strength in
               state.forces_in(area).items()]
    enemies = sorted({other for other, strength in present if strength > 0 and other != ump
                      and state.at_war(power, other)})
    if enemies:
        raise IllegalOrder(f"{cede} holds forces of {', '.join(enemies)}, at war with {power}", rule=rule,
                           field="cede")


def _power(commands: Sequence[str], order: Mapping) -> str:
    named = order.get("power")
    if named is None and len(commands) == 1:
        return commands[0]
    if named is None:
        raise IllegalOrder(f"name your power making the overture: power={' or power='.join(commands)}", rule=RULE,
                           field="power")
    if named not in commands:
        raise IllegalOrder(f"{named!r} is not a power you command (yours: {', '.join(commands)})", rule=RULE,
                           field="power")
    return str(named)


def _check_pp(state: EiaState, power: str, pp: int, against: int, made: list[dict]) -> None:
    """14.3.1.1.3: at most two political points on one UMP, never more than the power has (E4)."""
    if pp < 0 or against < 0:
        raise IllegalOrder("political points are 0 or more", rule="14.3.1.1.3", field="pp")
    if pp + against > MOST_PP:
        raise IllegalOrder(f"up to {MOST_PP} political points an UMP, pp and pp_against together", rule="14.3.1.1.3",
                           field="pp")
    spent = sum(o["pp"] + o["pp_against"] for o in made if o["power"] == power) + pp + against
    if spent > max(state.powers[power].pp, 0):
        raise IllegalOrder(f"{power} has {state.powers[power].pp} political points, not {spent}", rule="14.3.1.1.3",
                           field="pp")


def _check_subsidy(state: EiaState, power: str, ump: str, subsidy: int, made: list[dict]) -> None:
    """14.3.1, 14.3.1.1.6: no subsidy before the game nor to an UMP at war with the power; never
    more money than the power has (E4)."""
    if not subsidy:
        return
    if subsidy < 0:
        raise IllegalOrder("a subsidy is an amount of money", rule="14.3.1.1.6", field="subsidy")
    if state.turn == 0:
        raise IllegalOrder("before the game only the Natural Alliance Table and political points modify an "
                           "overture", rule="14.3.1", field="subsidy")
    if state.at_war(power, ump):
        raise IllegalOrder(f"{power} is at war with {ump}: no subsidy", rule="14.3.1.1.6", field="subsidy")
    offered = sum(o["subsidy"] for o in made if o["power"] == power) + subsidy
    if offered > state.powers[power].money:
        raise IllegalOrder(f"{power} has ${state.powers[power].money}, not ${offered}", rule="14.3.1.1.6",
                           field="subsidy")


def umps(state: EiaState) -> list[str]:
    return [power for power in powers.order() if state.powers[power].status != PLAYER]


def collect(state: EiaState, sealed: Mapping[str, list[Mapping] | None], commands: Mapping[str, list[str]],
            check_kind: Callable[[Mapping], object]) -> None:
    """Every member's unsealed overtures: those that stand wait for the roll point; the others are
    voided, the rule recorded (protocol §5: nobody may amend another's sealed orders). `check_kind`
    is the ruleset's check of an order's declared fields."""
    state.overtures, state.voided = [], []
    made: dict[str, list[dict]] = {player: [] for player in sealed}
    converted: dict[str, list[dict]] = {player: [] for player in sealed}

    def take(player: str, order: Mapping) -> None:
        if order.get("kind") == "convert_militia":  # 12.11.2, sealed with the overtures before the game
            converted[player].append(militia.conversion(state, commands[player], order, converted[player]))
        else:
            made[player].append(_overture(state, commands[player], order, made[player]))

    collect_each(sealed, check_kind, take, state.voided)
    for player in sealed:
        militia.convert(state, converted[player])
        state.conversions += converted[player]
        state.overtures += sorted(made[player], key=lambda o: powers.order().index(o["power"]))  # E2: data order
    state.step = "ump_roll"


# ---------------------------------------------------------------------------------- the roll point

def resolve(state: EiaState, dice, tables: Mapping[str, Mapping]) -> None:
    """14.3.1.1.3: the political points pass first; then each UMP's overtures are rolled (14.3.2)."""
    for overture in state.overtures:
        spent = overture["pp"] + overture["pp_against"]
        state.powers[overture["power"]].pp -= spent
        state.powers[overture["ump"]].pp += spent
    record: dict = {"turn": state.turn, "umps": {}}
    for ump in umps(state):
        bids = [o for o in state.overtures if o["ump"] == ump]
        record["umps"][ump] = _roll_for(state, ump, bids, dice, tables) if bids else _neutral(state, ump)
    state.last_control = record
    state.overtures = []


def _neutral(state: EiaState, ump: str) -> dict:
    """14.3.6: no overture, no controller; its forces leave the map, recorded by the area they
    left (they come back with the set-up rules, 14.3.3.5: RULINGS E6, E31). 14.3.6.1a: at war, it
    surrenders to all its enemies and accepts any terms at the next peace step. In an Economic
    Phase (not before the game) the phase counts for 14.3.6.1b, and its status adjustment adds 2
    PP (14.3.6.2)."""
    facts = state.powers[ump]
    facts.status, facts.controller = NEUTRAL, None
    for name, unit in list(state.corps.items()):  # 14.3.6: off the map, their strengths recorded
        if unit.power == ump:
            facts.set_aside[name] = {"kind": unit.kind, "area": unit.area, "factors": dict(unit.factors),
                                     "origin": unit.origin}
            del state.corps[name]
    for leader in state.leaders.values():
        if leader.power == ump:
            leader.area = None
    if any(ump in pair for pair in state.wars) and ump not in state.must_accept_peace:
        state.must_accept_peace.append(ump)
    if state.turn > 0:
        facts.neutral_phases += 1
        facts.pp += NEUTRAL_PP
    return {"status": NEUTRAL, "rolls": []}


def _back_from_neutral(ump: str, facts) -> dict:
    """14.3.6.1b: half its money and manpower values for each Economic Phase it was neutral."""
    economy, phases = powers.economy(ump), facts.neutral_phases
    gained = {"money": phases * economy["money"] // 2, "manpower": phases * economy["manpower"] // 2}
    facts.money += gained["money"]
    facts.manpower += gained["manpower"]
    facts.neutral_phases = 0
    return {"neutral_phases": phases, **gained} if phases else {}


def _set_up_again(state: EiaState, ump: str) -> dict[str, str]:
    """14.3.3.5 (E31): its corps come back where they stood, or to its capital where enemy corps
    stand now; its leaders off the map come to its capital."""
    facts = state.powers[ump]
    placed = {}
    for name, record in facts.set_aside.items():
        area = record["area"]
        if any(state.at_war(ump, unit.power) for unit in state.corps.values() if unit.area == area):
            area = powers.capital(ump)
        state.corps[name] = Corps(ump, record["kind"], area, dict(record["factors"]), record["origin"])
        placed[name] = area
    for name, leader in state.leaders.items():
        if leader.power == ump and leader.area is None:
            leader.area = placed[name] = powers.capital(ump)
    facts.set_aside = {}
    return placed


def _roll_for(state: EiaState, ump: str, bids: list[dict], dice, tables: Mapping[str, Mapping]) -> dict:
    rolls = []
    for bid in bids:
        faces = [dice.roll(6, f"{bid['power']} overture to {ump}", RULE) for _ in range(2)]
        modifiers = modifiers_of(state, bid, bids, tables)
        rolls.append({"power": bid["power"], "dice": faces, "modifiers": modifiers,
                      "total": sum(faces) + sum(modifiers.values())})
    best = max(roll["total"] for roll in rolls)
    tied = [roll["power"] for roll in rolls if roll["total"] == best]
    winner, rolloff = _settle(state, ump, tied, dice)
    status = ACTIVE if best >= powers.active_at(ump) else INACTIVE
    facts = state.powers[ump]
    back = _back_from_neutral(ump, facts) if facts.status == NEUTRAL else {}
    if back or facts.set_aside:
        back["set_up"] = _set_up_again(state, ump)
    facts.status, facts.controller = status, winner
    facts.history.append(winner)
    won = next(b for b in bids if b["power"] == winner)
    state.powers[winner].money -= won["subsidy"]  # 14.3.1.1.6: only the winner pays
    facts.money += won["subsidy"]
    if won["cede"]:  # 14.3.1.1.4: the territory changes hands at once; a loser's cession is cancelled
        state.control[won["cede"]] = ump
    return {"status": status, "winner": winner, "rolls": rolls, **({"rolloff": rolloff} if rolloff else {}),
            **({"back_from_neutral": back} if back else {})}


def _settle(state: EiaState, ump: str, tied: list[str], dice) -> tuple[str, list]:
    """14.3.2: a tie goes to the one of them that controlled the UMP most recently, else to a
    roll-off, rolled again among those still level."""
    if len(tied) == 1:
        return tied[0], []
    recent = [power for power in reversed(state.powers[ump].history) if power in tied]
    if recent:
        return recent[0], []
    rounds = []
    while len(tied) > 1:
        faces = {power: dice.roll(6, f"roll-off for {ump}: {power}", "14.3.2") for power in tied}
        rounds.append(faces)
        top = max(faces.values())
        tied = [power for power in tied if faces[power] == top]
    return tied[0], rounds


def _crucial(state: EiaState, power: str, ump: str, ceded: str) -> int:
    """14.3.1.1.5: the modifiers of the UMP's crucial territories the power or its allies hold (the
    UMP itself, allied or not, loses nothing by holding its own), all of them, but the one the
    power cedes now."""
    holders = ({power} | state.allies_of(power)) - {ump}
    total = sum(modifier for territory, modifier in powers.objectives(ump)["crucial"].items()
                if state.control.get(territory) in holders and territory != ceded)
    return min(total, MOST_CRUCIAL)


def modifiers_of(state: EiaState, bid: dict, bids: list[dict], tables: Mapping[str, Mapping]) -> dict[str, int]:
    """14.3.1.1.8, by name; before the game only the table and political points (14.3.1)."""
    power, ump = bid["power"], bid["ump"]
    rivals = sum(other["pp_against"] for other in bids if other["power"] != power)
    found = {"natural alliance": powers.natural_alliance(tables, state.bourbon, power, ump),
             "political points": bid["pp"] - rivals}
    if state.turn > 0:
        found |= {"allied": 2 * state.allied(power, ump), "at war": -2 * state.at_war(power, ump),
                  "surrendered to it": -2 * ([ump, power] in state.surrendered),
                  "subsidy": bid["subsidy"] // SUBSIDY_STEP,
                  "cession": powers.objectives(ump)["cession"].get(bid["cede"], 0) if bid["cede"] else 0,
                  "crucial territories": -_crucial(state, power, ump, bid["cede"]),
                  "status of the power": powers.status_modifier(state.powers[power].pp),
                  "status of the UMP": powers.status_modifier(state.powers[ump].pp)}
    return {name: value for name, value in found.items() if value}
