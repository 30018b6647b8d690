"""The game directory on disk: atomic writes, the lock, and where each kind of message lives.

    game.toml            the charter, byte for byte as received
    me.toml              who this player is here and which key signs (local, never mailed)
    entries/NNNNNN.toml  chain entries, one file per seq: the log
    side/                side messages by slot: join-P, reveal-P-NNNNNN, resign-P
    held/ID.toml         messages waiting for a predecessor, retried on every apply
    forks/ID.toml        proof of equivocation: both versions, kept for the players to settle
    strays/              refused reveals naming another entry at a seq this log holds (evidence only)
    outbox/              what this player signed, ready to mail
    journal/ID.toml      own messages signed but not yet in both the log and outbox/: finished by the
                         next command that writes, so a crash loses nothing
    state.toml           the replay cached at the head (trusted only if it matches the log)
    addresses.toml       mail addresses (local)
"""

from __future__ import annotations

import errno
import fcntl
import os
import signal
import tomllib
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from .errors import DiskError, Locked, UnreadableInput, UsageError
from .message import Message, parse

TEMP_PREFIX = ".tmp-"
IDENTITY = "me.toml"


# ------------------------------------------------------------------ the fault-injection seam
# Every write, fsync, rename and removal of pbem passes through _fault_point, so a test can kill the
# process or fail the call at any one of them: PBEM_FAULT_AT="N:ACTION" acts at the N-th point, and
# "N+:ACTION" at it and every later one (ACTION: kill, or an errno name such as ENOSPC, EIO, EROFS,
# EACCES: a full or read-only disk); PBEM_FAULT_LOG=FILE appends
# each point's name to FILE. Unset, it costs one comparison.

@dataclass(eq=False, repr=False)  # internal: no comparison or display, and cheaper to define
class _FaultPlan:
    at: int = 0  # the point to act at; 0: never
    action: str = ""
    sticky: bool = False  # act at every point from `at` on
    log: str = ""
    seen: int = 0


_plan: _FaultPlan | None = None


def _fault_plan() -> _FaultPlan:
    global _plan
    if _plan is None:
        point, _, action = os.environ.get("PBEM_FAULT_AT", "").partition(":")
        _plan = _FaultPlan(int(point.rstrip("+") or 0), action, point.endswith("+"),
                           os.environ.get("PBEM_FAULT_LOG", ""))
    return _plan


def _fault_point(op: str, path) -> None:
    plan = _fault_plan()
    if not plan.at and not plan.log:
        return
    plan.seen += 1
    if plan.log:
        with open(plan.log, "a") as record:
            record.write(f"{op} {path}\n")
    if plan.at and (plan.seen == plan.at or (plan.seen > plan.at and plan.sticky)):
        if plan.action == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        code = getattr(errno, plan.action)
        raise OSError(code, os.strerror(code), str(path))


def disk_error(exc: OSError, doing: str, path) -> DiskError:
    """One line naming the file and the cause (exit 7)."""
    name = errno.errorcode.get(exc.errno or 0, "")
    cause = f"{exc.strerror or exc}" + (f" ({name})" if name else "")
    return DiskError(f"cannot {doing} {path}: {cause}", kind="disk")


def write_toml(path: Path, table: dict, mode: int = 0o644) -> None:
    """`table` as a TOML file, written as atomic_write writes."""
    import tomli_w  # here: commands that only read never load it

    atomic_write(path, tomli_w.dumps(table).encode(), mode)


def atomic_write(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Temp file in the same directory, fsync, rename, fsync the directory. A failure leaves the old
    file (or none) in place, and raises DiskError."""
    import tempfile  # here: commands that only read never load it

    temp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=TEMP_PREFIX, dir=path.parent)
        with os.fdopen(fd, "wb") as handle:
            _fault_point("write", path)
            handle.write(data)
            handle.flush()
            _fault_point("fsync", path)
            os.fsync(handle.fileno())
        os.chmod(temp, mode)
        _fault_point("rename", path)
        os.replace(temp, path)
        temp = None
        directory = os.open(path.parent, os.O_RDONLY)
        try:
            _fault_point("fsync-dir", path.parent)
            os.fsync(directory)
        finally:
            os.close(directory)
    except OSError as exc:
        raise disk_error(exc, "write", path) from None
    finally:
        if temp is not None and os.path.exists(temp):
            os.unlink(temp)


def read_text(path: Path, what: str) -> str:
    """A local text file as UTF-8 (a byte order mark dropped); anything else one line (exit 2 or 7)."""
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise UnreadableInput(f"{path} is not UTF-8 text", kind=what) from None
    except OSError as exc:
        raise disk_error(exc, "read", path) from None


def read_toml(path: Path, what: str) -> dict:
    """A local TOML file this tool wrote (me.toml, the reveal record, inbox.toml …): a damaged one is
    one line naming it, never a traceback."""
    try:
        return tomllib.loads(read_text(path, what))
    except (tomllib.TOMLDecodeError, RecursionError, ValueError) as exc:  # ValueError: a 5,000-digit number
        raise UnreadableInput(f"{path} is damaged ({exc}); restore it from a backup or remove it",
                              kind=what) from None


def remove(path: Path) -> None:
    """Delete a file if it is there; a failure raises DiskError."""
    try:
        _fault_point("unlink", path)
        path.unlink(missing_ok=True)
    except OSError as exc:
        raise disk_error(exc, "remove", path) from None


def sweep_temp_files(folder: Path) -> None:
    """Temporary files a killed pbem left in a folder; call it under the folder's lock, where no live
    writer owns one."""
    with os.scandir(folder) as names:
        for item in names:
            if item.name.startswith(TEMP_PREFIX):
                remove(Path(item.path))


def nearest_game_dirs(start: Path) -> list[Path]:
    """Game directories (a charter and a me.toml) below `start` (two levels) or above it, nearest first."""
    start = start.resolve()
    below = [p.parent for pattern in ("*/me.toml", "*/*/me.toml") for p in sorted(start.glob(pattern))]
    above = [d for d in start.parents if (d / IDENTITY).exists()]
    return [d for d in below + above if (d / GameDir.CHARTER).exists()]


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

    def require(self, *, player: bool = False) -> None:
        """A game directory holds game.toml and me.toml (`pbem join` makes both); for reading, a copy of
        a game's log (game.toml and side/, as in examples/) will do too. Anything else is refused,
        naming the nearest game directory, before a file is written there."""
        has_charter = self.exists()
        if has_charter and (self.root / IDENTITY).exists():
            return
        if has_charter and not player and (self.root / "side").is_dir():
            return
        what = "holds game.toml but no me.toml" if has_charter else "has no game.toml"
        near = nearest_game_dirs(self.root)
        hint = f"; the nearest game directory is {near[0]} (cd there or pass --game)" if near else \
            "; 'pbem join game.toml --dir DIR' makes one, then cd into it or pass --game DIR"
        raise UsageError(f"{self.root.resolve()} is not a game directory: it {what}{hint}", field="--game")

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
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            _fault_point("open", self.root / ".lock")
            fd = os.open(self.root / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise disk_error(exc, "lock", self.root) from None
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                    raise Locked(f"{self.root} is locked by another pbem; try again when it is done") from None
                raise
            self._lock_depth = 1
            self._sweep_temp_files()
            try:
                yield self
            finally:
                self._lock_depth = 0
        finally:
            os.close(fd)

    OWN_FILES = ("game.toml", "me.toml", "state.toml", "addresses.toml", "inbox.toml", ".lock")
    OWN_FOLDERS = ("entries", "side", "held", "forks", "strays", "journal", "outbox", "mailq")

    def owns(self, path: Path) -> bool:
        """Is this one of the files pbem keeps in the game directory (never to be overwritten by hand)?"""
        try:
            inside = path.resolve().relative_to(self.root.resolve())
        except ValueError:
            return False
        parts = inside.parts
        return bool(parts) and (parts[0] in self.OWN_FOLDERS or (len(parts) == 1 and parts[0] in self.OWN_FILES))

    @property
    def outermost_lock(self) -> bool:
        """Inside the lock, and not in a nested use of it."""
        return self._lock_depth == 1

    def _sweep_temp_files(self) -> None:
        for folder in [self.root] + [d for d in self.root.iterdir() if d.is_dir()]:
            sweep_temp_files(folder)

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
        elif kind == "disclose":  # one slot per seq disclosed up to (§7)
            name = f"disclose-{message.player}-{message.fields['upto']:06d}"
        else:
            name = f"{kind}-{message.player}-{message.fields.get('seq', 0):06d}"
        return self.root / "side" / f"{name}.toml"

    def sealed_path(self, kind: str, player: str, seq: int) -> Path:
        """Where a seal or unseal of `player`'s for the decision bound to seq is kept (its slot)."""
        return self.root / "side" / f"{kind}-{player}-{seq:06d}.toml"

    def reveal_path(self, player: str, seq: int) -> Path:
        return self.root / "side" / f"reveal-{player}-{seq:06d}.toml"

    def held_path(self, message: Message) -> Path:
        return self.root / "held" / f"{message.id}.toml"

    def fork_path(self, message: Message) -> Path:
        return self.root / "forks" / f"{message.type}-{message.player}-{message.id[:16]}.toml"

    def stray_path(self, message: Message) -> Path:
        return self.root / "strays" / f"reveal-{message.player}-{message.fields['seq']:06d}-{message.id[:16]}.toml"

    def strays(self, player: str, seq: int) -> list[Message]:
        """Refused reveals that named another entry at a seq this log holds: evidence, should a second
        reveal by the same witness for that seq arrive (§6)."""
        folder = self.root / "strays"
        if not folder.exists():
            return []
        return self._read_all(sorted(folder.glob(f"reveal-{player}-{seq:06d}-*.toml")))

    def journal_path(self, message: Message) -> Path:
        return self.root / "journal" / f"{message.id}.toml"

    def journal(self) -> list[tuple[Path, Message]]:
        """Own messages signed and not yet both in the log and in outbox/ (an interrupted command)."""
        folder = self.root / "journal"
        if not folder.exists():
            return []
        return [(message_path, message) for message_path in sorted(folder.glob("*.toml"))
                if (message := self.read_message(message_path)) is not None]

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
        except OSError as exc:
            raise disk_error(exc, "read", path) from None
        try:
            return parse(data)
        except UnreadableInput as exc:
            raise exc.locate(kind=f"stored {path.relative_to(self.root)}") from None

    def _read_all(self, paths: list[Path]) -> list[Message]:
        """The messages in files just listed (one removed meanwhile is skipped)."""
        return [message for path in paths if (message := self.read_message(path)) is not None]

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
        return self._read_all(sorted(folder.glob(f"{prefix}*.toml")))

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
