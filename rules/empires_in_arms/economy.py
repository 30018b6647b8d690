"""The Economic Phase after the UMP Control Step: the New Political Combinations step, sealed like
the overtures, where Austria and Prussia may activate or deactivate their landwehr for two
political points (12.11.3, 12.11.3.1); each power's manpower grows, an Ottoman minor's halved for
any conqueror but Turkey (12.10, E28); then each power in the Instability or Fiasco zone of the
Political Status Display rolls for economic loss, one less with an active landwehr (10.5.2, E20)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from pbem.errors import IllegalOrder

from . import command, geography, powers
from .sealed_orders import collect_each, order_number
from .state import ACTIVE, INACTIVE, PLAYER, EiaState

RULE = "12.11.3"
LANDWEHR_POWERS = ("austria", "prussia")  # 12.11.3
LANDWEHR_PP = 2  # 12.11.3, 12.11.3.1


def check(state: EiaState, commanded: Sequence[str], orders: Sequence[Mapping]) -> list[dict]:
    """The landwehr decisions these sealed orders make; IllegalOrder for the first that cannot stand."""
    made: list[dict] = []
    for index, order in enumerate(orders, 1):
        with order_number(index):
            made.append(_landwehr(state, commanded, order, made))
    return made


def _landwehr(state: EiaState, commanded: Sequence[str], order: Mapping, made: list[dict]) -> dict:
    if order.get("kind") != "landwehr":
        raise IllegalOrder(f"{order.get('kind')!r} is not sealed in the New Political Combinations step: "
                           "landwehr power=... active=true|false", rule=RULE, field="kind")
    power, active = str(order["power"]), bool(order["active"])
    if power not in LANDWEHR_POWERS:
        raise IllegalOrder(f"only Austria and Prussia have a landwehr, not {power!r}", rule=RULE, field="power")
    if power not in commanded:
        raise IllegalOrder(f"you do not command {power} (yours: {', '.join(commanded) or 'none'})", rule=RULE,
                           field="power")
    if any(m["power"] == power for m in made):
        raise IllegalOrder(f"one landwehr decision for {power}", rule=RULE, field="power")
    facts = state.powers[power]
    if active == facts.landwehr:
        raise IllegalOrder(f"{power}'s landwehr is already {'active' if active else 'inactive'}",
                           rule="12.11.3.1" if not active else RULE, field="active")
    if active and facts.surrendered_in is None:
        raise IllegalOrder(f"{power} may activate its landwehr only after an unconditional surrender to another "
                           "major power", rule=RULE, field="active")
    return {"power": power, "active": active}


def members(state: EiaState) -> tuple[str, ...]:
    """Every player commanding a power; an UMP's landwehr is its controller's to decide (14.3.3.1)."""
    return tuple(p for p in state.setup.players if command.own_powers(state, p))


def collect(state: EiaState, sealed: Mapping[str, list[Mapping] | None],
            check_kind: Callable[[Mapping], object]) -> None:
    """The unsealed decisions take effect at once; one that cannot stand is voided, its rule
    recorded. Then the loss rolls wait for the roll point, if any power must roll."""
    record: dict = {"turn": state.turn, "landwehr": [], "voided": [], "losses": []}
    made: dict[str, list[dict]] = {player: [] for player in sealed}

    def take(player: str, order: Mapping) -> None:
        made[player].append(_landwehr(state, command.commanded(state, player), order, made[player]))

    collect_each(sealed, check_kind, take, record["voided"])
    for player, decisions in made.items():
        for decision in decisions:
            facts = state.powers[decision["power"]]
            facts.pp -= LANDWEHR_PP
            facts.landwehr = decision["active"]
            facts.landwehr_ever = facts.landwehr_ever or decision["active"]
            record["landwehr"].append({"player": player, **decision})
    record["manpower"] = _manpower(state)
    state.last_economic = record
    state.step = "loss_roll" if rolling(state) else state.step


def _manpower(state: EiaState) -> dict[str, int]:
    """E28: each power taking part gains its economy's manpower and its conquered minors'; an
    Ottoman minor's is halved, rounded down, unless Turkey holds it (12.10)."""
    gained: dict[str, int] = {}
    for power, facts in state.powers.items():
        if facts.status not in (PLAYER, ACTIVE, INACTIVE):
            continue
        gained[power] = int(powers.economy(power)["manpower"]) + sum(
            minor_manpower(territory, power) for territory, holder in sorted(state.control.items())
            if holder == power and territory not in state.free_states)
        facts.manpower += gained[power]
    return gained


def minor_manpower(territory: str, holder: str) -> int:
    """A conquered minor's manpower for its holder (a province yields none here: its power's
    economy counts it); 12.10: an Ottoman minor's halved for any holder but Turkey."""
    facts = geography.territories()[territory]
    value = int(facts.get("manpower", 0))
    ottoman = any(geography.areas()[area].get("ottoman") for area in geography.areas_of(territory))
    return value // 2 if ottoman and holder != "turkey" else value


def rolling(state: EiaState) -> list[str]:
    """10.5.2: the powers taking part in the Economic Phase in a zone that rolls for loss (a
    neutral UMP takes no part, 14.3.6)."""
    return [power for power, facts in state.powers.items() if facts.status in (PLAYER, ACTIVE, INACTIVE)
            and powers.economic_loss(powers.zone(facts.pp), 1) is not None]


def roll_losses(state: EiaState, dice) -> None:
    for power in rolling(state):
        facts = state.powers[power]
        zone = powers.zone(facts.pp)
        die = dice.roll(6, f"{power} economic loss", "10.5.2")
        modified = die - (1 if facts.landwehr else 0)  # 12.11.3.1
        lost = min(powers.economic_loss(zone, modified) or 0, facts.money)
        facts.money -= lost
        state.last_economic["losses"].append({"power": power, "zone": zone, "die": die, "modified": modified,
                                              "money": lost, **({"landwehr": -1} if facts.landwehr else {})})
