"""Shared setup for the error-matrix and fuzz tests: a three-player freeform game on disk.

`setup_game(tmp_path)` gives alice, bob and carol each a key file, an app dir (PBEM_HOME: seed
caches and reveal records never mix) and a game directory, all under tmp_path, with the joins
exchanged so the game has started. `run_cli` runs the real `pbem` in a subprocess as one player;
`snapshot` and `changes` prove a command left a game directory as it was.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from pbem import keys
from pbem import ruleset as rulesets
from pbem.charter import Charter, Member
from pbem.game import Game, join, read_messages
from pbem.message import Message, sign

NAMES = ("alice", "bob", "carol")
SIDES = {"alice": ("allies",), "bob": ("central",), "carol": ("neutrals",)}
TABLES = {"morale": {"rule": "house 4.2: morale check", "2-6": "the line breaks", "7-12": "the line holds"}}
GAME_ID = "err-game"


def key_seed(index: int) -> bytes:
    """The test-only private key seed of the index-th player (0: alice)."""
    return bytes([index + 1]) * 32


def write_key(path: Path, seed: bytes, comment: str) -> keys.FileSigner:
    """An unencrypted OpenSSH Ed25519 key file (mode 0600) and its .pub, as the CLI's --key reads."""
    private = Ed25519PrivateKey.from_private_bytes(seed)
    data = private.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH, serialization.NoEncryption()
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    os.chmod(path, 0o600)
    signer = keys.FileSigner.from_seed(seed, comment)
    Path(str(path) + ".pub").write_text(signer.public.line() + "\n")
    return signer


@dataclass
class Player:
    name: str
    home: Path  # his PBEM_HOME: seed cache and reveal record
    dir: Path  # his game directory
    key: Path  # his private key file
    signer: keys.FileSigner

    def game(self) -> Game:
        return Game(self.dir, home=self.home)

    def env(self) -> dict[str, str]:
        return cli_env(self.home)

    def cli(self, *args: str, cwd: Path | None = None) -> tuple[int, str, str]:
        """`pbem ARGS` run in his game directory with his PBEM_HOME."""
        return run_cli(list(args), cwd or self.dir, home=self.home)

    def outbox(self, message: Message) -> Path:
        return self.game().dir.outbox_path(message)


@dataclass
class Table:
    """The three players of one game, and ways to pass messages between them in-process."""

    root: Path
    charter_path: Path
    charter: Charter
    players: dict[str, Player]

    def __getitem__(self, name: str) -> Player:
        return self.players[name]

    def others(self, name: str) -> list[str]:
        return [n for n in NAMES if n != name]

    def deliver(self, path: Path, to) -> None:
        """Apply a message file in the named players' directories (library, not CLI)."""
        messages = read_messages(Path(path).read_text(), str(path))
        for name in to:
            self.players[name].game().accept(messages)

    def move(self, name: str, orders: list[dict], to=None) -> tuple[Message, Path]:
        """`name` signs his next entry in his own directory; it is delivered to `to` (default: all others)."""
        player = self.players[name]
        message, _ = player.game().move(name, orders, player.signer)
        path = player.outbox(message)
        self.deliver(path, self.others(name) if to is None else to)
        return message, path

    def reveal(self, name: str, to=None) -> tuple[Message, Path]:
        """`name` reveals for the open roll point in his own directory; delivered to `to` (default: all others)."""
        player = self.players[name]
        message, _ = player.game().reveal(name, lambda: player.signer)
        path = player.outbox(message)
        self.deliver(path, self.others(name) if to is None else to)
        return message, path

    def reveal_all(self) -> list[Path]:
        """Every witness who owes a reveal in his own directory sends it to everyone."""
        paths = []
        for name in NAMES:
            if self.players[name].game().owed_reveal(name) is not None:
                paths.append(self.reveal(name)[1])
        return paths

    def draft(self, author: str, orders: list[dict], *, in_dir: str | None = None) -> Message:
        """A signed entry by `author` from the head of `in_dir`'s directory (default: his own); writes nothing."""
        player = self.players[author]
        where = self.players[in_dir or author]
        return where.game().draft(author, orders, player.signer)


def setup_game(tmp_path: Path, *, dice: str = "all", game_id: str = GAME_ID) -> Table:
    """A started three-player freeform game: keys, charter, three joins, joins exchanged."""
    root = Path(tmp_path)
    players: dict[str, Player] = {}
    for index, name in enumerate(NAMES):
        home = root / name / "home"
        key = home / "id_ed25519"
        signer = write_key(key, key_seed(index), f"{name}@test.invalid")
        players[name] = Player(name, home, root / name / "game", key, signer)
    charter = Charter.create(
        game=game_id, ruleset="freeform", version=rulesets.load("freeform").version, scenario="default",
        dice=dice, reveal_hours=24, move_hours=48, options={}, tables=TABLES,
        players=[Member(name, SIDES[name], players[name].signer.public, "player") for name in NAMES],
    )
    charter_path = root / "game.toml"
    charter_path.write_text(charter.text)
    join_paths = []
    for name in NAMES:
        player = players[name]
        game, message = join(charter_path, player.dir, player.signer, key_path=str(player.key), home=player.home)
        join_paths.append(game.dir.outbox_path(message))
    table = Table(root, charter_path, charter, players)
    for path in join_paths:
        table.deliver(path, NAMES)
    return table


def copy_game(template: Table, tmp_path: Path) -> Table:
    """A private copy of a set-up game under tmp_path (cheaper than a new setup); me.toml is
    pointed at the copied key files so nothing refers back to the template."""
    from pbem.game import Identity
    from pbem.log import GameDir

    root = Path(tmp_path)
    shutil.copy2(template.charter_path, root / "game.toml")
    players = {}
    for name, old in template.players.items():
        shutil.copytree(template.root / name, root / name, symlinks=True)
        home = root / name / "home"
        player = Player(name, home, root / name / "game", home / old.key.name, old.signer)
        Identity(name, str(player.key)).save(GameDir(player.dir))
        lock = player.dir / ".lock"
        if lock.exists():
            lock.unlink()
        players[name] = player
    return Table(root, root / "game.toml", template.charter, players)


# ------------------------------------------------------------------------------ the real CLI

def cli_env(home: Path | None) -> dict[str, str]:
    env = dict(os.environ)
    for name in ("PBEM_PASSPHRASE", "SSH_CONNECTION", "FORCE_COLOR", "CLICOLOR_FORCE"):
        env.pop(name, None)
    env.update({"NO_COLOR": "1", "TERM": "dumb", "COLUMNS": "200", "PYTHONIOENCODING": "utf-8"})
    if home is not None:
        env["PBEM_HOME"] = str(home)
    return env


def run_cli(args: list[str], cwd: Path, *, home: Path | None = None, env: dict | None = None,
            stdin: bytes | None = None, timeout: float = 60) -> tuple[int, str, str]:
    """`python -m pbem.cli ARGS` in `cwd`; returns (exit code, stdout, stderr)."""
    run = subprocess.run(
        [sys.executable, "-m", "pbem.cli", *map(str, args)],
        cwd=str(cwd), env=env if env is not None else cli_env(home),
        input=stdin if stdin is not None else b"", capture_output=True, timeout=timeout,
    )
    return run.returncode, run.stdout.decode("utf-8", "replace"), run.stderr.decode("utf-8", "replace")


# ------------------------------------------------------------------------------ directories

def snapshot(directory: Path) -> dict[str, bytes]:
    """{relative path: bytes} of every file under a game directory, except the lock file."""
    directory = Path(directory)
    return {
        path.relative_to(directory).as_posix(): path.read_bytes()
        for path in sorted(directory.rglob("*"))
        if path.is_file() and path.name != ".lock"
    }


def changes(before: dict[str, bytes], after: dict[str, bytes]) -> dict[str, list[str]]:
    """What differs between two snapshots: added, removed and changed paths."""
    return {
        "added": sorted(set(after) - set(before)),
        "removed": sorted(set(before) - set(after)),
        "changed": sorted(p for p in set(before) & set(after) if before[p] != after[p]),
    }


# ------------------------------------------------------------------------------ forging messages

def stored(body: bytes, signer) -> bytes:
    """Any body bytes (checked or not) followed by signer's SSHSIG armor as '# ' lines."""
    return Message(body, signer.sign(body, "pbem-v1"), {}).stored()


def resign_edit(message: Message, old: bytes, new: bytes, signer, count: int = 1) -> bytes:
    """A message's body with `old` replaced by `new`, signed afresh by `signer` (so only the edit is wrong)."""
    assert old in message.body, (old, message.body)
    return stored(message.body.replace(old, new, count), signer)


def forge(fields: dict, changes_: dict, signer) -> Message:
    """A copy of parsed fields with some values changed, emitted and signed like a real message."""
    data = {k: v for k, v in fields.items()}
    for key, value in changes_.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    return sign(data, signer)


def write(path: Path, data: bytes | Message) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.stored() if isinstance(data, Message) else data)
    return path
