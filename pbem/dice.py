"""The pbem-dice-v1 stream (docs/protocol.md §6) and the record of every draw a ruleset makes."""

from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass, field

TWO_32 = 1 << 32


class Stream:
    """block_i = SHA256(seed || u64be(i)), read as consecutive big-endian 32-bit words."""

    def __init__(self, seed: bytes) -> None:
        self.seed = seed
        self.words_used = 0
        self._block_index = 0
        self._words: list[int] = []

    def word(self) -> int:
        if not self._words:
            block = hashlib.sha256(self.seed + struct.pack(">Q", self._block_index)).digest()
            self._block_index += 1
            self._words = list(struct.unpack(">8I", block))[::-1]
        self.words_used += 1
        return self._words.pop()

    def uniform_with_words(self, n: int) -> tuple[int, list[int]]:
        """uniform(n) and every word it read (the last accepted, the others rejected)."""
        if not 1 <= n <= TWO_32:
            raise ValueError(f"uniform({n}) needs 1 <= n <= 2^32")
        limit = TWO_32 - (TWO_32 % n)
        words = []
        while True:
            w = self.word()
            words.append(w)
            if w < limit:
                return w % n, words

    def uniform(self, n: int) -> int:
        return self.uniform_with_words(n)[0]

    def die(self, faces: int) -> int:
        return 1 + self.uniform(faces)

    def shuffle(self, items: list) -> list:
        for i in range(len(items) - 1, 0, -1):
            j = self.uniform(i + 1)
            items[i], items[j] = items[j], items[i]
        return items


@dataclass
class Draw:
    """One recorded draw: what it was for, under which rule, and the words behind it."""

    kind: str  # "die" or "uniform" or "shuffle"
    size: int  # faces, n, or the length shuffled
    result: int | list
    purpose: str
    rule: str
    words: list[int] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "size": self.size,
            "result": self.result,
            "purpose": self.purpose,
            "rule": self.rule,
            "words": list(self.words),
        }


class Dice:
    """What a ruleset draws from: one stream per roll point, every draw recorded."""

    def __init__(self, stream: Stream) -> None:
        self.stream = stream
        self.draws: list[Draw] = []

    def roll(self, faces: int, purpose: str, rule: str) -> int:
        value, words = self.stream.uniform_with_words(faces)
        self.draws.append(Draw("die", faces, value + 1, purpose, rule, words))
        return value + 1

    def uniform(self, n: int, purpose: str, rule: str) -> int:
        value, words = self.stream.uniform_with_words(n)
        self.draws.append(Draw("uniform", n, value, purpose, rule, words))
        return value

    def shuffle(self, items: list, purpose: str, rule: str) -> list:
        words: list[int] = []
        for i in range(len(items) - 1, 0, -1):
            j, used = self.stream.uniform_with_words(i + 1)
            words.extend(used)
            items[i], items[j] = items[j], items[i]
        self.draws.append(Draw("shuffle", len(items), list(items), purpose, rule, words))
        return items


class FixedDice(Dice):
    """Forced results for rule cases: each roll takes the next value given."""

    def __init__(self, values: list[int]) -> None:
        self.values = list(values)
        self.draws = []

    def _next(self, low: int, high: int, purpose: str) -> int:
        if not self.values:
            raise AssertionError(f"no forced die left for {purpose!r}")
        value = self.values.pop(0)
        if not low <= value <= high:
            raise AssertionError(f"forced value {value} outside {low}..{high} for {purpose!r}")
        return value

    def roll(self, faces: int, purpose: str, rule: str) -> int:
        value = self._next(1, faces, purpose)
        self.draws.append(Draw("die", faces, value, purpose, rule))
        return value

    def uniform(self, n: int, purpose: str, rule: str) -> int:
        value = self._next(0, n - 1, purpose)
        self.draws.append(Draw("uniform", n, value, purpose, rule))
        return value

    def shuffle(self, items: list, purpose: str, rule: str) -> list:
        self.draws.append(Draw("shuffle", len(items), list(items), purpose, rule))
        return items
