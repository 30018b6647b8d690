"""Hidden information (docs/protocol.md §7): private draws at a roll point, and private views.

A player's hidden chain h_0 … h_L starts from his hidden seed (derived from his key at join; h_L is
the `hcommit` his join signs). The private draws of the roll point bound to seq s come from his own
stream, seeded by h_{L-s} and the public seed: he cannot bias them (the public seed comes after his
entry) and nobody else can compute them. The public state keeps only counts and public zones, so
every client hashes the same state; the owner's client keeps his private view beside it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from . import chain
from .dice import Dice, Stream


class HiddenChain:
    """h_{L-s} for any seq s, from the hidden seed: the whole chain is computed once, when first
    needed (65,536 hashes), as walking it for every roll point would cost that each time."""

    def __init__(self, seed: bytes) -> None:
        self.seed = seed
        self._values: list[bytes] | None = None

    def value(self, seq: int) -> bytes:
        if self._values is None:
            values = [self.seed]
            for _ in range(chain.CHAIN_LENGTH):
                values.append(chain.sha256(values[-1]))
            self._values = values
        return self._values[chain.CHAIN_LENGTH - seq]

    def commitment(self) -> bytes:
        """h_L, the join's hcommit."""
        return self.value(0)


class DisclosedChain(HiddenChain):
    """A player's hidden chain as his `disclose` of h_{L-upto} opens it: every value up to seq upto
    (hashing forward), nothing after (§7)."""

    def __init__(self, value: bytes, upto: int) -> None:
        super().__init__(value)
        self.upto = upto

    def value(self, seq: int) -> bytes:
        if seq > self.upto:
            raise ValueError(f"seq {seq} is after the disclosure (up to {self.upto})")
        return chain.hash_forward(self.seed, self.upto - seq)

    def commitment(self) -> bytes:
        return chain.hash_forward(self.seed, chain.CHAIN_LENGTH - self.upto)

    def covers(self, seq: int) -> bool:
        return seq <= self.upto


@dataclass
class PrivateRequest:
    """That a player drew privately at a roll point, as everyone may know it (not what he drew)."""

    player: str
    purpose: str
    rule: str

    def to_dict(self) -> dict:
        return {"player": self.player, "purpose": self.purpose, "rule": self.rule}


@dataclass
class PrivateDraws:
    """What a ruleset's `resolve` draws privately at one roll point (seq, public seed).

    `dice(player, purpose, rule)` records the draw and returns the player's private Dice when this
    client holds his hidden chain, else None; `view(player)` is his private view to update, or None.
    A ruleset changes the public state the same way whether or not it got the dice."""

    seq: int
    public_seed: bytes
    chains: Mapping[str, HiddenChain] = field(default_factory=dict)
    views: dict[str, dict] = field(default_factory=dict)
    requests: list[PrivateRequest] = field(default_factory=list)
    _dice: dict[str, Dice] = field(default_factory=dict)

    def dice(self, player: str, purpose: str, rule: str) -> Dice | None:
        self.requests.append(PrivateRequest(player, purpose, rule))
        hidden = self.chains.get(player)
        if hidden is None or (isinstance(hidden, DisclosedChain) and not hidden.covers(self.seq)):
            return None
        if player not in self._dice:  # one stream per player per roll point, in the ruleset's draw order
            self._dice[player] = Dice(Stream(chain.hidden_stream_seed(hidden.value(self.seq), self.public_seed)))
        return self._dice[player]

    def view(self, player: str) -> dict | None:
        return self.views.get(player)


def seal_record(hidden: HiddenChain, seq: int, salt_hex: str, prev_hex: str, fields: dict[int, dict]) -> str:
    """The entry's `private` (§7.3): each order's private fields, by order number, as a TOML record
    encrypted with the author's hidden value for seq."""
    import tomli_w

    record = _padded(tomli_w.dumps({"orders": {str(index): values for index, values in fields.items()}}))
    return chain.seal_private(hidden.value(seq), seq, bytes.fromhex(salt_hex), bytes.fromhex(prev_hex),
                              record).hex()


RECORD_BLOCK = 1024  # a private record's size is a multiple of this: records up to it all look alike


def _padded(record: str) -> bytes:
    """The record with a `pad` string (ignored on opening) that brings it to a whole block."""
    bare = len(f'pad = ""\n{record}'.encode())
    return f'pad = "{"." * (-bare % RECORD_BLOCK)}"\n{record}'.encode()


def open_record(hidden: HiddenChain, seq: int, salt_hex: str, prev_hex: str, private_hex: str) -> dict[int, dict]:
    """The private fields an entry's `private` holds, by order number; ValueError if it does not open
    with this hidden value (tampered, or not the author's)."""
    import tomllib

    from cryptography.exceptions import InvalidTag

    try:
        record = chain.open_private(hidden.value(seq), seq, bytes.fromhex(salt_hex), bytes.fromhex(prev_hex),
                                    bytes.fromhex(private_hex))
        orders = tomllib.loads(record.decode()).get("orders", {})
        return {int(index): dict(values) for index, values in orders.items()}
    except (InvalidTag, UnicodeDecodeError, TypeError, AttributeError) as exc:
        raise ValueError(f"the private record does not open: {type(exc).__name__}") from None
