"""Taking losses (base 12.4, 12.5.6, 14.3.4.3; 15.1.7-15.1.8): which step losses a side may take.

A side's answer to a loss number is a list of steps, one unit id per step, in order: a full unit
is reduced, a reduced one eliminated. A reduced army that is eliminated is replaced at once by a
corps of its nation from the Reserve Box (12.4.4, R48 says which); naming the army again puts
the next step on that corps. Every answer the rules allow is enumerated (the units in one combat
are few), so a side with one legal answer is never asked, and a player's answer is checked
against the list.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from pbem.errors import IllegalOrder

from .roles import BRITISH_ALLIED_CORPS
from .state import PogState

BEF_ARMY, BEF_CORPS = "br_bef_army", "br_bef_corps"
NEVER_REPLACING = BRITISH_ALLIED_CORPS  # base 12.4.4.3
# base 12.4.5: who takes an attacking side's first loss, group by group (a choice within a group)
FIRST_LOSS = (("br_bef_army",), ("br_bef_corps",), ("br_mef_army", "ru_cau_army"), ("br_aus_corps", "br_cnd_corps"))


@dataclass
class Outcome:
    """What a list of steps does: loss factors taken, and each unit's fate."""

    steps: tuple[str, ...]
    total: int = 0
    reduced: set[str] = field(default_factory=set)
    eliminated: list[str] = field(default_factory=list)
    permanent: set[str] = field(default_factory=set)
    replacements: dict[str, str] = field(default_factory=dict)  # army -> the corps that replaced it
    taken: dict[str, int] = field(default_factory=dict)  # unit -> steps it lost (its replacement's too)
    targets: list[str] = field(default_factory=list)  # the unit each step fell on, in order

    def key(self) -> tuple:
        return tuple(sorted(self.taken.items()))


def simulate(state: PogState, units: list[str], steps: Iterable[str], oos: Iterable[str] = ()) -> Outcome:
    """The outcome of taking `steps` from `units`, without changing the position. ValueError if a
    step names a unit outside the combat or one with no step left."""
    oos = set(oos)
    facts = state.unit_facts
    outcome = Outcome(tuple(steps))
    reduced = {u: state.units[u].reduced for u in units}
    gone: set[str] = set()
    reserve = _reserve(state, units)
    for unit in outcome.steps:
        target = outcome.replacements.get(unit, unit)
        if unit not in reduced or target in gone:
            raise ValueError(unit)
        lf = facts[target].rlf if reduced[target] else facts[target].lf
        outcome.total += lf
        outcome.taken[unit] = outcome.taken.get(unit, 0) + 1
        outcome.targets.append(target)
        if not reduced[target]:
            reduced[target] = True
            continue
        gone.add(target)
        outcome.eliminated.append(target)
        if target == unit and facts[unit].type == "army":
            corps = _replacement(state, unit, reserve)
            if corps is None or unit in oos or not facts[unit].replaceable:
                outcome.permanent.add(unit)  # base 12.4.7 (3)-(5), 12.4.4.1
            if corps is not None:
                reserve.remove(corps)
                outcome.replacements[unit] = corps
                reduced[corps] = state.units[corps].reduced
    outcome.reduced = {u for u, r in reduced.items() if r and u not in gone and not
                       (u in state.units and state.units[u].reduced)}
    return outcome


def _reserve(state: PogState, units: list[str]) -> list[str]:
    """The corps in the side's Reserve Box, full strength first, then in unit order (R48)."""
    if not units:
        return []
    box = f"{state.faction(units[0])}_reserve"
    found = [u for u, here in state.units.items() if here.space == box and state.unit_facts[u].type == "corps"]
    return sorted(found, key=lambda u: (state.units[u].reduced, list(state.unit_facts).index(u)))


def _replacement(state: PogState, army: str, reserve: list[str]) -> str | None:
    """base 12.4.4, 12.4.4.3: the corps that replaces an eliminated army, if any."""
    nation = state.nation(army)
    for corps in reserve:
        if state.nation(corps) != nation or corps in NEVER_REPLACING:
            continue
        if (army == BEF_ARMY) != (corps == BEF_CORPS):
            continue
        return corps
    return None


def outcomes(state: PogState, units: list[str], loss: int, oos: Iterable[str] = ()) -> list[Outcome]:
    """Every answer within the loss number (base 12.4.3: never more), in a fixed order."""
    found: dict[tuple, Outcome] = {}

    def extend(steps: list[str], index: int) -> None:
        if index == len(units):
            outcome = simulate(state, units, steps, oos)
            found.setdefault(outcome.key(), outcome)
            return
        unit, more = units[index], list(steps)
        extend(more, index + 1)
        for _ in range(4):  # a full army, then its full replacement corps: at most four steps
            more = [*more, unit]
            try:
                if simulate(state, units, more, oos).total > loss:
                    return
            except ValueError:
                return
            extend(more, index + 1)

    extend([], 0)
    return list(found.values())


def legal(state: PogState, units: list[str], loss: int, role: str, oos: Iterable[str] = ()) -> list[Outcome]:
    """The answers the rules allow: as close to the loss number as possible (base 12.4.3), the
    first-loss priorities (12.4.5), OOS units first (14.3.4.3), and one army before another when
    the loss cannot be met (12.4.4.2)."""
    return legal_with_rule(state, units, loss, role, oos)[0]


def legal_with_rule(state: PogState, units: list[str], loss: int, role: str,
                    oos: Iterable[str] = ()) -> tuple[list[Outcome], str]:
    """`legal`, and the last rule that narrowed the answers (the one a wrong answer breaks).

    The first-loss priority (12.4.5) and OOS units first (14.3.4.3) take precedence over taking
    as much of the loss number as possible (12.4.3): they choose among the answers within the
    loss number, and the greatest total is taken among those."""
    oos = list(oos)
    chosen, rule = outcomes(state, units, loss, oos), "base 12.4.3"
    if role == "attacker":
        chosen, rule = _narrow(chosen, rule, _first_loss(chosen, units), "base 12.4.5")
    chosen, rule = _narrow(chosen, rule, _prefer(chosen, lambda o: _oos_first(o, oos)), "14.3.4.3")
    best = max(o.total for o in chosen)
    chosen = [o for o in chosen if o.total == best]
    if best < loss:  # 12.4.4.2: concentrate, so that an army goes rather than several reduced
        fewest = min(_damaged_survivors(o) for o in chosen)
        chosen, rule = _narrow(chosen, rule, [o for o in chosen if _damaged_survivors(o) == fewest], "base 12.4.4.2")
    return chosen, rule


def _narrow(chosen: list[Outcome], rule: str, narrowed: list[Outcome],
            narrowing_rule: str) -> tuple[list[Outcome], str]:
    return (narrowed, narrowing_rule) if len(narrowed) < len(chosen) else (chosen, rule)


def _prefer(candidates: list[Outcome], good) -> list[Outcome]:
    preferred = [o for o in candidates if good(o)]
    return preferred or candidates


def _first_loss(candidates: list[Outcome], units: list[str]) -> list[Outcome]:
    for group in FIRST_LOSS:
        present = [u for u in group if u in units]
        hit = [o for o in candidates if any(o.taken.get(u, 0) for u in present)]
        if hit:
            return hit
    return candidates


def _oos_first(outcome: Outcome, oos: list[str]) -> bool:
    """14.3.4.3: a supplied unit loses a step only once every OOS unit is eliminated."""
    if not oos:
        return True
    all_gone = all(u in outcome.eliminated for u in oos)
    return all_gone or not any(n for u, n in outcome.taken.items() if u not in oos)


def _damaged_survivors(outcome: Outcome) -> int:
    return sum(1 for u in outcome.taken if u not in outcome.eliminated and u not in outcome.replacements)


def check(state: PogState, units: list[str], loss: int, role: str, steps: list, oos: Iterable[str] = ()) -> Outcome:
    """The player's answer if the rules allow it; else IllegalOrder naming one they allow."""
    allowed, rule = legal_with_rule(state, units, loss, role, oos)
    try:
        answer = simulate(state, units, [str(s) for s in steps], oos)
    except ValueError as exc:
        raise IllegalOrder(f"{exc.args[0]} has no step to lose in this combat", rule="base 12.4.2",
                           field="steps") from None
    keys = {o.key(): o for o in allowed}
    if answer.key() not in keys:
        example = ",".join(allowed[0].steps) or "(none)"
        broken = "base 12.4.3" if answer.total > loss or answer.total < allowed[0].total else rule
        raise IllegalOrder(f"these steps take {answer.total} of the loss number {loss}; the rules ask for "
                           f"{allowed[0].total} taken as they allow, e.g. steps={example}", rule=broken,
                           field="steps")
    return answer


def apply(state: PogState, outcome: Outcome, oos: Iterable[str] = ()) -> list[dict]:
    """Put the outcome on the map: reductions, replacements (in the army's space) and eliminations."""
    events: list[dict] = []
    for army, corps in outcome.replacements.items():
        state.units[corps].space = state.units[army].space
        events.append({"kind": "replaced", "unit": army, "by": corps, "rule": "base 12.4.4"})
    for unit in sorted(outcome.reduced):
        state.units[unit].reduced = True
        events.append({"kind": "reduced", "unit": unit, "rule": "base 12.4.2"})
    for unit in outcome.eliminated:
        events.append(eliminate(state, unit, permanent=unit in outcome.permanent))
    return events


def eliminate(state: PogState, unit: str, permanent: bool = False, rule: str = "base 12.4.2") -> dict:
    """Off the map: to the eliminated box, or out of the game for good (base 12.4.7)."""
    here = state.units[unit]
    box = f"{state.faction(unit)}_eliminated"
    event = {"kind": "eliminated", "unit": unit, "from": here.space, "permanent": permanent, "rule": rule}
    here.space, here.reduced, here.oos = box, False, 0
    if permanent:
        state.removed.add(unit)
    return event


def fort_hit(state: PogState, remaining: int, defenders_left: bool, fort_lf: int) -> bool:
    """base 12.4.6, 15.1.7-15.1.8: does the loss number left over reach the fort?"""
    return not defenders_left and fort_lf > 0 and remaining >= fort_lf


def summary(outcome: Outcome) -> str:
    words = [f"{u} reduced" for u in sorted(outcome.reduced)]
    words += [f"{u} eliminated{' for good' if u in outcome.permanent else ''}" for u in outcome.eliminated]
    words += [f"{a} replaced by {c}" for a, c in outcome.replacements.items()]
    return ", ".join(words) or "no loss"
