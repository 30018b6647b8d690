"""Dice notation such as '2d6+1' or 'd10-1d4+2': parsed once, rolled through the engine's Dice."""

from __future__ import annotations

import re
from dataclasses import dataclass

TERM = re.compile(r"([+-]?)\s*(?:(\d*)d(\d+)|(\d+))")
MAX_DICE = 100
MAX_FACES = 1_000_000
MAX_CONSTANT = 1_000_000  # keeps every total far inside a state dump's 64-bit integers (protocol §3.3)


@dataclass(frozen=True)
class DiceTerm:
    sign: int
    count: int
    faces: int  # 0 for a constant, whose value is `count`


class NotationError(ValueError):
    pass


def parse(text: str) -> tuple[DiceTerm, ...]:
    compact = text.replace(" ", "").lower()
    if not compact:
        raise NotationError("empty dice expression")
    terms: list[DiceTerm] = []
    position = 0
    while position < len(compact):
        match = TERM.match(compact, position)
        if not match or match.end() == position or (terms and not match.group(1)):
            raise NotationError(f"cannot read {text!r} as dice such as 2d6+1")
        sign = -1 if match.group(1) == "-" else 1
        if match.group(4) is not None:
            constant = _number(match.group(4))
            if constant > MAX_CONSTANT:
                raise NotationError(f"a constant is at most {MAX_CONSTANT}, not {match.group(4)[:12]}")
            terms.append(DiceTerm(sign, constant, 0))
        else:
            count = _number(match.group(2) or "1")
            faces = _number(match.group(3))
            if not 1 <= count <= MAX_DICE:
                raise NotationError(f"{count} dice: between 1 and {MAX_DICE} at a time")
            if not 2 <= faces <= MAX_FACES:
                raise NotationError(f"a die has 2 to {MAX_FACES} faces, not {faces}")
            terms.append(DiceTerm(sign, count, faces))
        position = match.end()
    if len(terms) > MAX_DICE:
        raise NotationError(f"at most {MAX_DICE} terms in one expression")
    if not any(term.faces for term in terms):
        raise NotationError(f"{text!r} rolls no dice")
    return tuple(terms)


def _number(digits: str) -> int:
    """Digits as a number; a run too long to be any sensible count reads as out of range."""
    return int(digits) if len(digits) <= 12 else 10**12


def roll(terms: tuple[DiceTerm, ...], dice, purpose: str, rule: str) -> tuple[list[int], int]:
    """Each die in order, left to right, then the total with constants."""
    faces_rolled = []
    total = 0
    for term in terms:
        if not term.faces:
            total += term.sign * term.count
            continue
        for _ in range(term.count):
            value = dice.roll(term.faces, purpose, rule)
            faces_rolled.append(value)
            total += term.sign * value
    return faces_rolled, total
