"""Signing through a real ssh-agent (PROTOCOL.md §2, §6).

A throw-away ssh-agent is started for these tests (its socket under the test's temp dir, killed by
its pid when the tests are done) and holds bob's key, made by `ssh-keygen -t ed25519 -N ''`. The
`--agent` public key file lives in a directory of its own, without the private key beside it, so
`ssh-keygen -Y sign` can only sign through the agent (it falls back to a private key file named like
the .pub without its suffix).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import TABLES, changes, cli_env, key_seed, run_cli, snapshot, spawn_cli, write_key

from pbem import chain, keys, sshsig
from pbem import ruleset as rulesets
from pbem.charter import Charter, Member
from pbem.game import Game, join, read_messages
from pbem.message import parse

pytestmark = pytest.mark.skipif(
    not all(shutil.which(tool) for tool in ("ssh-agent", "ssh-add", "ssh-keygen")),
    reason="needs OpenSSH's ssh-agent, ssh-add and ssh-keygen",
)

NAMESPACES = ("pbem-v1", "pbem-chain-v1", "pbem-hidden-v1")
GAME_ID = "agent-game"


@dataclass
class Agent:
    sock: str
    pid: int

    def env(self, **extra: str) -> dict[str, str]:
        env = dict(os.environ)
        env.pop("SSH_CONNECTION", None)
        env.update({"SSH_AUTH_SOCK": self.sock, "SSH_AGENT_PID": str(self.pid)}, **extra)
        return env

    def add(self, *args: str) -> None:
        run = subprocess.run(["ssh-add", *args], env=self.env(), capture_output=True, text=True,
                             stdin=subprocess.DEVNULL, timeout=20)
        assert run.returncode == 0, run.stderr

    def keys(self) -> str:
        run = subprocess.run(["ssh-add", "-L"], env=self.env(), capture_output=True, text=True,
                             stdin=subprocess.DEVNULL, timeout=20)
        return run.stdout


def start_agent(directory: Path, request) -> Agent:
    """`ssh-agent -s -a SOCKET`; the socket path must stay short (sun_path is ~108 bytes)."""
    sock = Path(directory) / "agent.sock"
    if len(str(sock)) > 90:
        short = Path(tempfile.mkdtemp(prefix="pbem-agent-", dir="/tmp"))
        request.addfinalizer(lambda: shutil.rmtree(short, ignore_errors=True))
        sock = short / "agent.sock"
    run = subprocess.run(["ssh-agent", "-s", "-a", str(sock)], capture_output=True, text=True,
                         stdin=subprocess.DEVNULL, timeout=20)
    assert run.returncode == 0, run.stderr
    found = {}
    for statement in run.stdout.replace("\n", ";").split(";"):
        name, sep, value = statement.strip().partition("=")
        if sep and name in ("SSH_AUTH_SOCK", "SSH_AGENT_PID"):
            found[name] = value
    agent = Agent(found["SSH_AUTH_SOCK"], int(found["SSH_AGENT_PID"]))

    def stop() -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(agent.pid, signal.SIGTERM)

    request.addfinalizer(stop)
    assert agent.sock == str(sock)
    return agent


@dataclass
class BobKey:
    private: Path  # made by ssh-keygen; only the FileSigner comparison and ssh-add read it
    agent_pub: Path  # the --agent file, alone in its directory


def make_bob_key(directory: Path) -> BobKey:
    (directory / "keys").mkdir(parents=True)
    private = directory / "keys" / "bob"
    run = subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "bob@test.invalid", "-f",
                          str(private)], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=20)
    assert run.returncode == 0, run.stderr
    (directory / "agent-pub").mkdir()
    agent_pub = directory / "agent-pub" / "bob.pub"
    shutil.copy(str(private) + ".pub", agent_pub)
    return BobKey(private, agent_pub)


@pytest.fixture(scope="module")
def bob_key(tmp_path_factory) -> BobKey:
    return make_bob_key(tmp_path_factory.mktemp("bob-key"))


@pytest.fixture(scope="module")
def agent(tmp_path_factory, request, bob_key) -> Agent:
    agent = start_agent(tmp_path_factory.mktemp("agent"), request)
    agent.add(str(bob_key.private))
    assert "bob@test.invalid" in agent.keys()  # noqa: SIM118 (the agent's key list, not a dict)
    return agent


@pytest.fixture
def agent_env(agent, monkeypatch) -> Agent:
    """This process talks to the test agent (AgentSigner runs ssh-keygen with our environment)."""
    monkeypatch.setenv("SSH_AUTH_SOCK", agent.sock)
    monkeypatch.delenv("SSH_CONNECTION", raising=False)
    return agent


@dataclass
class Setup:
    root: Path
    charter_path: Path
    charter: Charter
    file_signers: dict  # alice and carol: file keys
    key_paths: dict
    homes: dict
    dirs: dict


def make_charter(root: Path, bob_key: BobKey) -> Setup:
    """A three-player freeform charter: alice and carol sign with key files, bob through the agent."""
    signers, key_paths, homes, dirs = {}, {}, {}, {}
    for index, name in enumerate(("alice", "bob", "carol")):
        homes[name] = root / name / "home"
        homes[name].mkdir(parents=True)
        dirs[name] = root / name / "game"
        if name != "bob":
            key_paths[name] = homes[name] / "id_ed25519"
            signers[name] = write_key(key_paths[name], key_seed(index), f"{name}@test.invalid")
    bob_public = keys.PublicKey.parse(bob_key.agent_pub.read_text())
    charter = Charter.create(
        game=GAME_ID, ruleset="freeform", version=rulesets.load("freeform").version, scenario="default",
        dice="all", reveal_hours=24, move_hours=48, options={}, tables=TABLES,
        players=[Member("alice", (), signers["alice"].public, "player"), Member("bob", (), bob_public, "player"),
                 Member("carol", (), signers["carol"].public, "player")],
    )
    charter_path = root / "game.toml"
    charter_path.write_text(charter.text)
    return Setup(root, charter_path, charter, signers, key_paths, homes, dirs)


def cli(args: list, cwd: Path, home: Path, agent: Agent | None = None, **extra_env: str) -> tuple[int, str, str]:
    env = cli_env(home)
    if agent is not None:
        env.update({"SSH_AUTH_SOCK": agent.sock, "SSH_AGENT_PID": str(agent.pid)})
    env.update(extra_env)
    # Commands run side by side (side_by_side's threads) are processes of their own; one at a time, in-process.
    alone = threading.current_thread() is threading.main_thread()
    return (run_cli if alone else spawn_cli)([str(a) for a in args], cwd, env=env)


def side_by_side(*calls) -> list[tuple[int, str, str]]:
    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        return list(pool.map(lambda call: call(), calls))


def one_line_error(err: str) -> None:
    assert err.startswith("error: ") and err.endswith("\n") and err.count("\n") == 1, err


def derived(signer, charter: Charter, kind: str) -> bytes:
    """c_0 (or h_0) as §6 and SeedStore derive it: SHA-256 of the SSHSIG blob over the seed text."""
    return chain.sha256(signer.sign(chain.seed_text(kind, charter.digest), chain.SEED_NAMESPACES[kind]))


# ------------------------------------------------------------------------------ tests

def test_agent_signs_exactly_what_the_key_file_signs(agent_env, bob_key):
    via_agent = keys.AgentSigner(bob_key.agent_pub)
    from_file = keys.FileSigner.load(bob_key.private)
    assert via_agent.public.raw == from_file.public.raw
    assert not (bob_key.agent_pub.parent / "bob").exists()  # ssh-keygen has no file to fall back on
    digest = "ab" * 32
    samples = [b"", chain.seed_text("chain", digest), chain.seed_text("hidden", digest),
               b'pbem = 1\ntype = "resign"\ngame = "g"\nplayer = "bob"\nat = "' + b"0" * 64 + b'"\n']
    for namespace in NAMESPACES:
        for data in samples:
            blob = via_agent.sign(data, namespace)
            assert blob == from_file.sign(data, namespace), (namespace, data)
            sshsig.verify(blob, data, namespace, from_file.public.raw)
            assert sshsig.parse(blob)["public"] == from_file.public.raw
    # and the armor ssh-keygen wrote is what pbem writes (70 columns)
    assert sshsig.armor(via_agent.sign(b"x", "pbem-v1")).splitlines()[1] == \
        sshsig.armor(from_file.sign(b"x", "pbem-v1")).splitlines()[1]


def test_a_player_joins_reveals_and_moves_through_the_agent(tmp_path, agent, bob_key):
    game = make_charter(tmp_path, bob_key)
    file_bob = keys.FileSigner.load(bob_key.private)
    alice_dir, bob_dir, carol_dir = game.dirs["alice"], game.dirs["bob"], game.dirs["carol"]
    homes = game.homes

    # bob joins through the agent; alice and carol with their key files
    code, out, err = cli(["join", game.charter_path, "--dir", bob_dir, "--agent", bob_key.agent_pub],
                         tmp_path, homes["bob"], agent)
    assert code == 0, (out, err)
    outbox = {}
    for name in ("alice", "carol"):
        _, message = join(game.charter_path, game.dirs[name], game.file_signers[name],
                          key_path=str(game.key_paths[name]), home=homes[name])
        outbox[name] = Game(game.dirs[name]).dir.outbox_path(message)
    for name, other in (("alice", "carol"), ("carol", "alice")):  # the file-key players swap joins
        Game(game.dirs[name], home=homes[name]).accept(read_messages(outbox[other].read_text(), other))
    bob_join_path = next((bob_dir / "outbox").glob("join-bob*.toml"))
    bob_join = parse(bob_join_path.read_bytes())
    assert bob_join.fields["anchor"] == chain.anchor(derived(file_bob, game.charter, "chain")).hex()
    assert bob_join.fields["hcommit"] == chain.anchor(derived(file_bob, game.charter, "hidden")).hex()
    bob_join.verify(file_bob.public.raw)
    me = (bob_dir / "me.toml").read_text()
    assert "agent" in me and str(bob_key.agent_pub.resolve()) in me and "key =" not in me

    results = side_by_side(
        lambda: cli(["apply", bob_join_path, "--json"], alice_dir, homes["alice"]),
        lambda: cli(["apply", bob_join_path, "--json"], carol_dir, homes["carol"]),
        lambda: cli(["apply", outbox["alice"], outbox["carol"], "--json"], bob_dir, homes["bob"], agent),
    )
    for code, out, err in results:
        assert code == 0, (out, err)
        assert {o["status"] for o in json.loads(out)["outcomes"]} == {"applied"}

    # alice rolls; bob witnesses, and his reveal is derived and signed through the agent
    alice = Game(alice_dir, home=homes["alice"])
    move1, _ = alice.move("alice", [{"kind": "roll", "dice": "2d6", "purpose": "morale check", "table": "morale"}],
                          game.file_signers["alice"])
    move1_path = alice.dir.outbox_path(move1)
    carol = Game(carol_dir, home=homes["carol"])
    carol.accept(read_messages(move1_path.read_text(), "move1"))
    seeds = next((homes["bob"] / "games").glob("*/seeds.toml"))
    seeds.unlink()  # the reveal must derive bob's chain again, through the agent
    code, out, err = cli(["apply", move1_path, "--reveal", "--agent", bob_key.agent_pub, "--json"],
                         bob_dir, homes["bob"], agent)
    assert code == 0, (out, err)
    reveal_path = bob_dir / json.loads(out)["reveal"]  # relative to the game directory
    bob_reveal = parse(reveal_path.read_bytes())
    assert bob_reveal.fields["for"] == move1.id and bob_reveal.fields["seq"] == 1
    assert bob_reveal.fields["value"] == chain.chain_value(derived(file_bob, game.charter, "chain"), 1).hex()
    assert seeds.exists()

    carol_reveal, _ = carol.reveal("carol", lambda: game.file_signers["carol"])
    carol_reveal_path = carol.dir.outbox_path(carol_reveal)
    results = side_by_side(
        lambda: cli(["apply", reveal_path, carol_reveal_path, "--json"], alice_dir, homes["alice"]),
        lambda: cli(["apply", reveal_path, "--json"], carol_dir, homes["carol"]),
        lambda: cli(["apply", carol_reveal_path, "--json"], bob_dir, homes["bob"], agent),
    )
    for (code, out, err), expected in zip(results, (2, 1, 1), strict=True):
        assert code == 0, (out, err)
        outcomes = json.loads(out)["outcomes"]
        assert len(outcomes) == expected and {o["status"] for o in outcomes} == {"applied"}, outcomes

    # the forwarded-agent guard also holds for the agent named in me.toml (no --agent flag)
    before = snapshot(bob_dir)
    code, out, err = cli(["move", "pass"], bob_dir, homes["bob"], agent, SSH_CONNECTION="10.0.0.1 50000 10.0.0.2 22")
    assert code == 2, (out, err)
    one_line_error(err)
    assert "SSH_CONNECTION" in err
    assert changes(before, snapshot(bob_dir)) == {"added": [], "removed": [], "changed": []}

    # bob's move, signed through the agent, applies at alice and carol
    code, out, err = cli(["move", "note text='Bob holds the ridge.'", "pass", "--agent", bob_key.agent_pub,
                          "--json"], bob_dir, homes["bob"], agent)
    assert code == 0, (out, err)
    moved = json.loads(out)
    assert moved["seq"] == 2
    move2_path = bob_dir / moved["outbox"]
    move2 = parse(move2_path.read_bytes())
    move2.verify(file_bob.public.raw)
    assert set(move2.uses) == {bob_reveal.id, carol_reveal.id}
    results = side_by_side(
        lambda: cli(["apply", move2_path, "--json"], alice_dir, homes["alice"]),
        lambda: cli(["apply", move2_path, "--json"], carol_dir, homes["carol"]),
    )
    for code, out, err in results:
        assert code == 0, (out, err)
        assert [(o["id"], o["status"]) for o in json.loads(out)["outcomes"]] == [(move2.id, "applied")]
    results = side_by_side(*[
        (lambda d=d, h=h: cli(["verify", "--json"], d, h)) for d, h in
        ((alice_dir, homes["alice"]), (bob_dir, homes["bob"]), (carol_dir, homes["carol"]))
    ])
    heads = set()
    for code, out, err in results:
        assert code == 0, (out, err)
        summary = json.loads(out)
        assert summary["ok"] and summary["entries"] == 2 and summary["joins"] == 3
        heads.add(summary["head"])
    assert heads == {move2.id}
    code, out, err = cli(["status", "--json"], carol_dir, homes["carol"])
    assert code == 0 and json.loads(out)["step"]["waiting_for"] == ["carol"], (out, err)


def test_agent_refuses_while_ssh_connection_is_set(tmp_path, agent, bob_key):
    game = make_charter(tmp_path, bob_key)
    target = tmp_path / "bob-over-ssh"
    code, out, err = cli(["join", game.charter_path, "--dir", target, "--agent", bob_key.agent_pub],
                         tmp_path, game.homes["bob"], agent, SSH_CONNECTION="192.0.2.7 51234 192.0.2.1 22")
    assert code == 2, (out, err)
    one_line_error(err)
    assert "SSH_CONNECTION" in err and "--agent" in err
    assert not target.exists()
    assert list(game.homes["bob"].iterdir()) == []
    # a key file is not refused there: the guard is about a forwarded agent
    code, out, err = cli(["join", game.charter_path, "--dir", game.dirs["alice"], "--key", game.key_paths["alice"]],
                         tmp_path, game.homes["alice"], agent, SSH_CONNECTION="192.0.2.7 51234 192.0.2.1 22")
    assert code == 0, (out, err)


def test_an_agent_without_the_key_is_a_one_line_usage_error(tmp_path, request, bob_key):
    empty = start_agent(tmp_path, request)
    empty.add(str(bob_key.private))
    empty.add("-D")
    assert "bob@test.invalid" not in empty.keys()  # noqa: SIM118 (the agent's key list, not a dict)
    game = make_charter(tmp_path / "game", bob_key)
    target = game.dirs["bob"]
    code, out, err = cli(["join", game.charter_path, "--dir", target, "--agent", bob_key.agent_pub],
                         tmp_path, game.homes["bob"], empty)
    assert code == 2, (out, err)
    one_line_error(err)
    assert "ssh-agent did not sign" in err and "--agent" in err
    assert not list((target / "outbox").glob("*")) if (target / "outbox").exists() else True
    assert not list(game.homes["bob"].rglob("seeds.toml"))
    # once the key is back in the agent, the same join goes through
    empty.add(str(bob_key.private))
    code, out, err = cli(["join", game.charter_path, "--dir", target, "--agent", bob_key.agent_pub],
                         tmp_path, game.homes["bob"], empty)
    assert code == 0, (out, err)
    assert len(list((target / "outbox").glob("join-bob*.toml"))) == 1
