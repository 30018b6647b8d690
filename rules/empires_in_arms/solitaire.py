"""Solitaire combat (seed 003, 18.1, option `solitaire_combat`): tactical options come from the
seed's tables instead of sealed choices. The defender first chooses withdraw or defend, or to
roll (18.1.1); the attacker rolls (18.1.2). Then, the defender first, each side may try a tactics
check, its commander's tactical rating (reduced for the corps present) or less on a die: passed,
the defender withdraws or rolls again, the attacker rolls again; failed, that side is done. The
checks alternate until both sides have failed or stood (18.1.3-18.1.5); then the battle is
fought (combat.py). Each die comes at the roll point of the entry that asked for it."""

from __future__ import annotations

from collections.abc import Mapping

from pbem.errors import IllegalOrder

from . import combat, game_tables

RULE = "18.1.1"
OPENING = ("withdraw", "defend", "random")  # 18.1.1


def start(record: dict) -> None:
    """The battle opens under 18.1: the defender's first choice (rolled if nobody commands it)."""
    record["stage"] = "solitaire_choice" if record["players"]["defender"] else "options_roll"
    record["checks"] = {side: ("open" if record["players"][side] else "stood") for side in ("defender", "attacker")}
    record["check_log"] = []


def choose(state, player: str, order: Mapping) -> None:
    """18.1.1: withdraw, defend, or random."""
    option = str(order["option"])
    if option not in OPENING:
        raise IllegalOrder("the defender first chooses withdraw, defend or random", rule=RULE, field="option")
    record = state.battle
    if option != "random":
        record["options"]["defender"] = option
    record["stage"] = "options_roll"


def resigned(state) -> None:
    """A side nobody commands any more stands; its first choice, if still owed, is rolled."""
    record = state.battle
    for side, who in record["players"].items():
        if who is None and record["checks"][side] == "open":
            record["checks"][side] = "stood"
    if record["stage"] == "solitaire_choice" and record["players"]["defender"] is None:
        record["stage"] = "options_roll"
    elif record["stage"] == "checks" and record["players"][record["to_check"]] is None:
        _next_check(state)


def roll_options(state, dice) -> None:
    record = state.battle
    for side in ("defender", "attacker"):
        if side not in record["options"]:
            record["options"][side] = combat.random_option(dice, side)
    _next_check(state)


def to_check(state) -> str:
    return state.battle["to_check"]


def _next_check(state) -> None:
    """18.1.3-18.1.5: the defender first, then by turns, each side still open; none: the battle."""
    record = state.battle
    order = ("defender", "attacker")
    last = record.get("to_check")
    start_at = 0 if last is None else (order.index(last) + 1) % 2
    for step in range(2):
        side = order[(start_at + step) % 2]
        if record["checks"][side] == "open":
            record["to_check"], record["stage"] = side, "checks"
            return
    record["stage"] = "roll"


def check(state, player: str, order: Mapping) -> None:
    """`tactics_check` (the defender says then=withdraw or then=reroll) or `stand`."""
    record = state.battle
    side = record["to_check"]
    if order["kind"] == "stand":
        record["checks"][side] = "stood"
        record["check_log"].append({"side": side, "stood": True})
        _next_check(state)
        return
    then = str(order.get("then", "reroll"))
    if then not in ("withdraw", "reroll") or (then == "withdraw" and side == "attacker"):
        raise IllegalOrder("after a passed check the defender withdraws or rolls again, the attacker rolls again",
                           rule="18.1.3", field="then")
    record["pending_check"] = {"side": side, "then": then}
    record["stage"] = "check_roll"


def roll_check(state, dice) -> None:
    record = state.battle
    attempt = record.pop("pending_check")
    side = attempt["side"]
    rating = combat.tactical_rating(state, record, side)
    die = dice.roll(6, f"{side}'s tactics check in {record['area']}", "18.1.3" if side == "defender" else "18.1.4")
    passed = die <= rating
    entry = {"side": side, "die": die, "rating": rating, "passed": passed}
    if passed and attempt["then"] == "withdraw":
        record["options"][side] = "withdraw"
    elif passed:
        record["options"][side] = combat.random_option(dice, side)
    else:
        record["checks"][side] = "failed"
    entry["option"] = record["options"][side]
    record["check_log"].append(entry)
    _next_check(state)


def naval_option(die: int, all_british: bool, nelson: bool, limited: bool = False) -> str:
    """18.2.1: a naval force's option by die; Nelson commanding takes one off, a 0 reading as the
    lowest row. `limited`: while 12.2.6.1.1.1 holds, for a force Nelson does not command."""
    table = game_tables.table("naval_limited" if limited and not nelson else "naval")
    row = table["all_british" if all_british else "others"]
    face = max(die - (1 if nelson else 0), 1)
    return next(option for option, (low, high) in row.items() if low <= face <= high)
