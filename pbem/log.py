"""The game directory on disk: atomic writes, the lock, and where each kind of message lives.

    game.toml            the charter, byte for byte as received
    me.toml              who this player is here and which key signs (local, never mailed)
    entries/NNNNNN.toml  chain entries, one file per seq: the log
    side/                side messages by slot: join-P, reveal-P-NNNNNN, resign-P
    held/ID.toml         messages waiting for a predecessor, retried on every apply
    forks/ID.toml        proof of equivocation: both versions, kept for the players to settle
    outbox/              what this player signed, ready to mail
    state.toml           the replay cached at the head (trusted only if it matches the log)
    addresses.toml       mail addresses (local)
"""

from __future__ import annotations

import errno
import fcntl
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

from .errors import Locked, UnreadableInput, UsageError
from .message import Message, parse


def atomic_write(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Temp file in the same directory, fsync, rename, fsync the directory."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


class GameDir:
    CHARTER = "game.toml"

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._lock_depth = 0

    @property
    def charter_path(self) -> Path:
        return self.root / self.CHARTER

    def exists(self) -> bool:
        return self.charter_path.exists()

    def require(self) -> None:
        if not self.exists():
            raise UsageError(
                f"{self.root} is not a game directory (no game.toml): run 'pbem join game.toml' first, "
                "or pass --game DIR"
            )

    @contextmanager
    def lock(self):
        """Exclusive lock for the whole of a command that writes (exit 6 if another pbem holds it).

        Re-entrant within one GameDir, so a step that locks may call another that locks."""
        if self._lock_depth:
            self._lock_depth += 1
            try:
                yield self
            finally:
                self._lock_depth -= 1
            return
        self.root.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.root / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                    raise Locked(f"{self.root} is locked by another pbem; try again when it is done") from None
                raise
            self._lock_depth = 1
            try:
                yield self
            finally:
                self._lock_depth = 0
        finally:
            os.close(fd)

    # ----------------------------------------------------------------- paths

    def entry_path(self, seq: int) -> Path:
        return self.root / "entries" / f"{seq:06d}.toml"

    def side_path(self, message: Message) -> Path:
        kind = message.type
        if kind == "join":
            name = f"join-{message.player}"
        elif kind == "reveal":
            name = f"reveal-{message.player}-{message.fields['seq']:06d}"
        elif kind == "resign":
            name = f"resign-{message.player}"
        else:
            name = f"{kind}-{message.player}-{message.fields.get('seq', 0):06d}"
        return self.root / "side" / f"{name}.toml"

    def reveal_path(self, player: str, seq: int) -> Path:
        return self.root / "side" / f"reveal-{player}-{seq:06d}.toml"

    def held_path(self, message: Message) -> Path:
        return self.root / "held" / f"{message.id}.toml"

    def fork_path(self, message: Message) -> Path:
        return self.root / "forks" / f"{message.type}-{message.player}-{message.id[:16]}.toml"

    def outbox_path(self, message: Message) -> Path:
        seq = message.fields.get("seq")
        tag = f"{seq:06d}-" if seq is not None else ""
        return self.root / "outbox" / f"{tag}{message.type}-{message.player}.toml"

    # ----------------------------------------------------------------- reading

    def read_message(self, path: Path) -> Message | None:
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        try:
            return parse(data)
        except UnreadableInput as exc:
            raise exc.locate(kind=f"stored {path.relative_to(self.root)}")

    def entry(self, seq: int) -> Message | None:
        return self.read_message(self.entry_path(seq))

    def last_seq(self) -> int:
        """The highest seq on disk (a directory listing: only for replays, not for every apply)."""
        folder = self.root / "entries"
        if not folder.exists():
            return 0
        numbers = [int(p.stem) for p in folder.glob("[0-9]*.toml") if p.stem.isdigit()]
        return max(numbers, default=0)

    def side_messages(self, prefix: str) -> list[Message]:
        folder = self.root / "side"
        if not folder.exists():
            return []
        return [self.read_message(p) for p in sorted(folder.glob(f"{prefix}*.toml"))]

    def held(self) -> list[tuple[Path, Message]]:
        folder = self.root / "held"
        if not folder.exists():
            return []
        found = []
        for path in sorted(folder.glob("*.toml")):
            try:
                found.append((path, parse(path.read_bytes())))
            except Exception:  # a held file we cannot read any more is left for the player to see
                continue
        return found

    def forks(self) -> list[Path]:
        folder = self.root / "forks"
        return sorted(folder.glob("*.toml")) if folder.exists() else []
