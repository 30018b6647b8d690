"""Shared setup for the error-matrix and fuzz tests: a three-player freeform game on disk.

`setup_game(tmp_path)` gives alice, bob and carol each a key file, an app dir (PBEM_HOME: seed
caches and reveal records never mix) and a game directory, all under tmp_path, with the joins
exchanged so the game has started. `run_cli` runs `pbem` as one player inside the test process, as a
fresh process would run it; `spawn_cli` runs it in a real subprocess, for what only a process shows
(the entry point, a kill, runs side by side). `snapshot` and `changes` prove a command left a game
directory as it was.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import types
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


def setup_game(tmp_path: Path, *, dice: str = "all", game_id: str = GAME_ID, tables: dict | None = None,
               ruleset: str = "freeform", scenario: str = "default", sides: dict | None = None,
               options: dict | None = None) -> Table:
    """A started three-player game (freeform unless `ruleset` and `scenario` say otherwise, with
    each player's `sides`): keys, charter, three joins, joins exchanged."""
    root = Path(tmp_path)
    players: dict[str, Player] = {}
    for index, name in enumerate(NAMES):
        home = root / name / "home"
        key = home / "id_ed25519"
        signer = write_key(key, key_seed(index), f"{name}@test.invalid")
        players[name] = Player(name, home, root / name / "game", key, signer)
    charter = Charter.create(
        game=game_id, ruleset=ruleset, version=rulesets.load(ruleset).version, scenario=scenario,
        dice=dice, reveal_hours=24, move_hours=48, options=options or {}, tables=TABLES if tables is None else tables,
        players=[Member(name, tuple((sides or SIDES)[name]), players[name].signer.public, "player") for name in NAMES],
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


def spawn_cli(args: list[str], cwd: Path, *, home: Path | None = None, env: dict | None = None,
              stdin: bytes | None = None, timeout: float | None = 60) -> tuple[int, str, str]:
    """`python -m pbem.cli ARGS` in a subprocess in `cwd`; returns (exit code, stdout, stderr)."""
    run = subprocess.run(
        [sys.executable, "-m", "pbem.cli", *map(str, args)],
        cwd=str(cwd), env=env if env is not None else cli_env(home),
        input=stdin if stdin is not None else b"", capture_output=True, timeout=timeout,
    )
    return run.returncode, run.stdout.decode("utf-8", "replace"), run.stderr.decode("utf-8", "replace")


def run_cli(args: list[str], cwd: Path, *, home: Path | None = None, env: dict | None = None,
            stdin: bytes | None = None, timeout: float | None = 60) -> tuple[int, str, str]:
    """`pbem ARGS` run by `pbem.cli.main()` inside this process, as `spawn_cli` runs it in a child:
    the same (exit code, stdout, stderr) for the same arguments, directory, environment and stdin.

    For the call, os.environ is exactly the child's environment, the working directory is `cwd`,
    sys.argv is what `python -m pbem.cli` sees, and file descriptors 0, 1 and 2 are temporary files
    (so a program the command starts, such as $EDITOR, reads and writes where a child's would);
    everything is restored afterwards. The console and fault-plan caches that a new process would
    build from its environment are dropped before and after. An exception escaping main() is raised
    here, and a "Traceback" on stderr, or a file the command left open, fails the test: a child's
    exit would have hidden neither; nor does a command still running after `timeout` seconds.
    With PBEM_TESTS_SPAWN=1 in the environment of pytest, every run_cli is a spawn_cli: a failure that
    stays is not this runner's."""
    if os.environ.get("PBEM_TESTS_SPAWN") == "1":
        return spawn_cli(args, cwd, home=home, env=env, stdin=stdin, timeout=timeout)
    env = dict(env if env is not None else cli_env(home))
    if env.get("PBEM_FAULT_AT", "").endswith(":kill"):
        raise AssertionError("PBEM_FAULT_AT=...:kill kills the process that runs it: use spawn_cli")
    if threading.current_thread() is not threading.main_thread():
        raise AssertionError("run_cli changes the process's environment and directory: use spawn_cli in threads")
    from pbem import cli

    argv = [str(a) for a in args]
    encoding, _, errors = env.get("PYTHONIOENCODING", "").partition(":")
    if not encoding:  # as Python sets up its standard streams under a UTF-8 locale
        encoding, errors = "utf-8", errors or "surrogateescape"
    saved_env, saved_cwd, saved_argv = dict(os.environ), os.getcwd(), sys.argv
    saved_main, saved_streams = sys.modules["__main__"], (sys.stdin, sys.stdout, sys.stderr)
    for stream in saved_streams[1:]:
        stream.flush()
    files = [tempfile.TemporaryFile() for _ in range(3)]  # noqa: SIM115 (closed below)
    files[0].write(stdin or b"")
    files[0].seek(0)
    saved_fds = [os.dup(fd) for fd in (0, 1, 2)]
    escaped: BaseException | None = None
    code: object = 0
    try:
        open_before = _open_files()
        for fd, file in enumerate(files):
            os.dup2(file.fileno(), fd)
        sys.stdin = open(0, encoding=encoding, errors=errors or "strict", closefd=False)  # noqa: SIM115
        sys.stdout = open(1, "w", encoding=encoding, errors=errors or "strict", closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", encoding=encoding, errors="backslashreplace", closefd=False)  # noqa: SIM115
        os.environ.clear()
        os.environ.update(env)
        os.chdir(cwd)
        sys.argv = [cli.__file__, *argv]
        sys.modules["__main__"] = _as_main()  # so usage lines name `python -m pbem.cli`, as in a child
        _fresh_process_caches()
        previous_alarm = signal.signal(signal.SIGALRM, _time_out)
        signal.setitimer(signal.ITIMER_REAL, timeout or 0)
        try:
            cli.main()
        except SystemExit as exc:
            code = exc.code
        except BaseException as exc:
            escaped = exc
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous_alarm)
        if code is not None and not isinstance(code, int):  # sys.exit("text"), as the interpreter does
            sys.stderr.write(f"{code}\n")
            code = 1
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
    finally:
        _fresh_process_caches()
        sys.modules["__main__"], sys.argv = saved_main, saved_argv
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        for stream in (sys.stdin, sys.stdout, sys.stderr):
            if stream not in saved_streams:
                stream.close()
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        for fd, saved in enumerate(saved_fds):
            os.dup2(saved, fd)
            os.close(saved)
    out, err = (_read(file) for file in files[1:])
    for file in files:
        file.close()
    if escaped is not None:
        escaped.add_note(f"pbem {argv} in {cwd}\nstdout: {out}\nstderr: {err}")
        raise escaped
    assert "Traceback" not in err, (argv, code, out, err)
    left_open = _open_files() - open_before
    assert not left_open, (f"pbem {argv} left files open", sorted(left_open), code, out, err)
    return (code if isinstance(code, int) else 0), out, err


class CliTimeout(BaseException):
    """A command run by run_cli outlived its timeout (spawn_cli's child would have been killed). Not an
    Exception, so that main() cannot turn it into an error line."""


def _time_out(signum, frame) -> None:
    raise CliTimeout("pbem ran past run_cli's timeout")


def _fresh_process_caches() -> None:
    """Drop what pbem builds once per process from its environment and streams: the rich consoles
    (width, colour, the stream they print to) and the fault plan (PBEM_FAULT_AT, PBEM_FAULT_LOG).
    Loaded rulesets and their data stay: they are the same in every process."""
    from pbem import console, log

    # If pbem keeps these elsewhere one day, say so here rather than let one run's leak into the next.
    assert hasattr(console.stdout, "cache_clear") and hasattr(console.stderr, "cache_clear"), \
        "pbem.console no longer caches stdout() and stderr(): teach run_cli how to rebuild the consoles"
    assert hasattr(log, "_plan"), "pbem.log no longer keeps its fault plan in _plan: teach run_cli to reset it"
    console.stdout.cache_clear()
    console.stderr.cache_clear()
    log._plan = None


def _as_main() -> types.ModuleType:
    main = types.ModuleType("__main__")
    main.__package__ = "pbem"
    return main


def _open_files() -> set[str]:
    """The regular files this process has open (sockets and pipes left out; none known off Linux)."""
    found: set[str] = set()
    for fd in os.listdir("/proc/self/fd") if os.path.isdir("/proc/self/fd") else ():
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith("/") and not target.startswith(("/dev/", "/proc/")) and "(deleted)" not in target:
            found.add(target)
    return found


def _read(file) -> str:
    file.seek(0)
    return file.read().decode("utf-8", "replace")


def completed(args, result: tuple[int, str, str]) -> subprocess.CompletedProcess:
    """A run_cli result as subprocess.run(..., text=True) returns it: universal newlines."""
    code, out, err = result
    text = [part.replace("\r\n", "\n").replace("\r", "\n") for part in (out, err)]
    return subprocess.CompletedProcess(list(args), code, *text)


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


def open_pog_game(games: dict, signers: dict, first: str = "bob", witness: str = "alice") -> None:
    """A Paths of Glory game opens with the first turn's mandated offensive roll (RULINGS R81): the
    Central Powers player signs `offensives`, the other player reveals, and every directory
    accepts both."""
    message, _ = games[first].move(first, [{"kind": "offensives"}], signers[first])
    games[witness].accept([message])
    revealed, _ = games[witness].reveal(witness, lambda: signers[witness])
    games[first].accept([revealed])


POG_EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "paths-of-glory-1914" / "game"


POG_FIRST_TURN_SEQ = 21  # the example's last entry before the Allies' sixth action of August 1914


def copy_pog_example(tmp_path: Path, upto: int | None = None) -> Path:
    """A copy of the shipped Paths of Glory example's game directory, without its cache; with
    `upto`, without the entries after that seq and without the disclosures."""
    game = tmp_path / "game"
    shutil.copytree(POG_EXAMPLE, game, ignore=shutil.ignore_patterns("state.toml", ".lock"))
    if upto is not None:
        for entry in (game / "entries").iterdir():
            if int(entry.stem) > upto:
                entry.unlink()
        for disclosure in (game / "side").glob("disclose-*"):
            disclosure.unlink()
    return game


def pbem_on(game: Path, *args: str) -> tuple[int, str, str]:
    """`pbem ARGS --game GAME` in process, with a home beside the game directory."""
    return run_cli([*args, "--game", str(game)], game.parent, home=game.parent / "home")


def pog_data_text(name: str) -> str:
    """A Paths of Glory data file as the installed package holds it."""
    from importlib import resources

    return resources.files("pbem.rules.paths_of_glory").joinpath("data", name).read_text(encoding="utf-8")


def pog_data(name: str) -> dict:
    import tomllib

    return tomllib.loads(pog_data_text(name))
