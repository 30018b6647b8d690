"""Typed errors. Library code raises these; only cli.py turns them into text and exit codes.

Each class carries its exit code from docs/protocol.md §9. Every error can name the message (id and
seq), the player and the field or rule at fault, and renders as one line.
"""

from __future__ import annotations

from .safetext import one_line


class PbemError(Exception):
    exit_code = 2

    def __init__(
        self,
        message: str,
        *,
        entry: str | None = None,
        seq: int | None = None,
        player: str | None = None,
        field: str | None = None,
        rule: str | None = None,
        kind: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.entry = entry
        self.seq = seq
        self.player = player
        self.field = field
        self.rule = rule
        self.kind = kind

    def where(self) -> str:
        """The 'which message, which player, which field or rule' prefix."""
        parts = []
        if self.kind or self.entry or self.seq is not None:
            what = self.kind or "message"
            if self.entry:
                what += f" {self.entry[:12]}"
            if self.seq is not None:
                what += f" (seq {self.seq})"
            parts.append(what)
        if self.player:
            parts.append(f"player {self.player}")
        if self.field:
            parts.append(f"field '{self.field}'")
        if self.rule:
            parts.append(f"rule {self.rule}")
        return ", ".join(parts)

    def __str__(self) -> str:
        where = self.where()
        text = f"{where}: {self.message}" if where else self.message
        return one_line(text)  # names taken from input may hold newlines or terminal escapes

    def locate(self, **context) -> PbemError:
        """Fill in context the raiser did not know (the caller knows the entry, say)."""
        for name, value in context.items():
            if getattr(self, name) is None and value is not None:
                setattr(self, name, value)
        return self


class UsageError(PbemError):
    """Bad command-line use, or a setting that cannot work."""

    exit_code = 2


class UnreadableInput(PbemError):
    """Input that cannot be read: malformed TOML, a wrong type, a truncated file (§3)."""

    exit_code = 2


class NoMessage(UnreadableInput):
    """A file or mail that holds no pbem message at all (in a mailbox: another mail, skipped)."""


class IllegalOrder(PbemError):
    """An order the rules forbid, or one out of turn (§9: exit 1). Names the rule it breaks."""

    exit_code = 1


class BadSignature(PbemError):
    """An incoming signature, key or reveal that does not check (§9: exit 3)."""

    exit_code = 3


class ChainBroken(PbemError):
    """Fork, equivocation, broken link, wrong state hash or replay mismatch (§9: exit 4)."""

    exit_code = 4

    def __init__(self, message: str, *, proof: tuple[str, ...] = (), **context) -> None:
        super().__init__(message, **context)
        self.proof = proof


class NotOfThisGame(ChainBroken):
    """A message of another history, such as a rematch that reuses the game id (§4): refused, exit 4,
    and it stops nothing."""


class Held(PbemError):
    """A predecessor, reveal, seal or unseal is still missing (§9: exit 5)."""

    exit_code = 5


class Locked(PbemError):
    """The game directory is locked by another pbem (§9: exit 6)."""

    exit_code = 6


class DiskError(PbemError):
    """A local file could not be read or written: full or read-only disk, permissions, I/O (exit 7).

    Not a protocol verdict: the same message may apply once the disk is fixed."""

    exit_code = 7


class NotDelivered(PbemError):
    """A signed message is stored but did not reach every recipient by mail (exit 8); it stays
    queued for 'pbem send --retry'."""

    exit_code = 8
