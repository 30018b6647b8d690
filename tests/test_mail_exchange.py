"""Two players play a freeform game to the end purely by mail: `pbem move --send` through a real
SMTP server on loopback (aiosmtpd) into each player's Maildir, and `pbem inbox --auto-reveal`."""

from __future__ import annotations

import json
import mailbox
import os
import socket
import subprocess
import sys
from email import message_from_bytes, policy
from pathlib import Path

import pytest

from aiosmtpd import controller as aiosmtpd

pytest_plugins = ["imap_server"]  # the real IMAP server fixture (tests/imap_server.py)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Deliver:
    """The SMTP server's handler: each recipient's mail lands in his own Maildir."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.root.mkdir(parents=True, exist_ok=True)
        self.refuse: set[str] = set()

    async def handle_RCPT(self, server, session, envelope, address, options):
        if address in self.refuse:
            return "550 no such mailbox here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        for address in envelope.rcpt_tos:
            mailbox.Maildir(str(self.root / address), create=True).add(envelope.original_content)
        return "250 OK"


@pytest.fixture
def smtp(tmp_path):
    handler = Deliver(tmp_path / "maildirs")
    controller = aiosmtpd.Controller(handler, hostname="127.0.0.1", port=free_port())
    controller.start()
    yield controller, handler
    if getattr(controller, "_thread", None) is not None:  # a test may have stopped it already
        controller.stop()


class Player:
    def __init__(self, root: Path, name: str, port: int) -> None:
        self.name = name
        self.address = f"{name}@example.test"
        self.home = root / name / "home"
        self.dir = root / name / "game"
        self.maildir = root / "maildirs" / self.address
        self.home.mkdir(parents=True)
        self.env = {**os.environ, "PBEM_HOME": str(self.home), "COLUMNS": "200"}
        self.env.pop("SSH_CONNECTION", None)
        self.port = port

    def run(self, *args: str, code: int = 0, cwd: Path | None = None):
        result = subprocess.run([sys.executable, "-m", "pbem.cli", *args], cwd=cwd or self.dir, env=self.env,
                                capture_output=True, text=True, stdin=subprocess.DEVNULL)
        assert result.returncode == code, (args, result.returncode, result.stdout, result.stderr)
        return result

    def inbox(self) -> dict:
        return json.loads(self.run("inbox", "--maildir", str(self.maildir), "--auto-reveal", "--json").stdout)


def start(tmp_path, port):
    players = {name: Player(tmp_path, name, port) for name in ("alice", "bob")}
    for player in players.values():
        player.run("key", "new", "--no-passphrase", cwd=tmp_path)
        player.run("mail", "setup", "--address", player.address, "--smtp-host", "127.0.0.1",
                   "--smtp-port", str(port), "--security", "none", cwd=tmp_path)
    players["alice"].run("new", "mail-game", "--out", str(tmp_path / "game.toml"),
                         *[arg for p in players.values() for arg in ("--player", f"{p.name}={p.home}/id_ed25519.pub")],
                         cwd=tmp_path)
    for player in players.values():
        player.run("join", str(tmp_path / "game.toml"), "--dir", str(player.dir), cwd=tmp_path)
        for other in players.values():
            player.run("mail", "address", other.name, other.address)
    for player in players.values():
        player.run("send", str(next((player.dir / "outbox").glob("join-*.toml"))))
    for player in players.values():
        player.inbox()
    return players


def test_a_game_played_to_the_end_by_mail(tmp_path, smtp):
    controller, _ = smtp
    players = start(tmp_path, controller.port)
    alice, bob = players["alice"], players["bob"]
    assert json.loads(alice.run("status", "--json").stdout)["step"]["waiting_for"] == ["alice"]

    sent = alice.run("move", "roll dice=2d6 purpose=opening", "--send").stdout
    assert "Mailed move seq 1 to bob@example.test" in sent
    received = [message_from_bytes(m.as_bytes(), policy=policy.default) for m in mailbox.Maildir(str(bob.maildir))]
    subjects = sorted(m["Subject"] for m in received)
    assert subjects == ["[pbem mail-game] join from alice", "[pbem mail-game] seq 1 from alice: roll 2d6 for 'opening'"]
    mail = next(m for m in received if "seq 1" in m["Subject"])
    assert mail["In-Reply-To"] == mail["References"] and mail["In-Reply-To"].startswith("<pbem.mail-game.")
    assert [p.get_filename() for p in mail.iter_attachments()] == ["000001-move-alice.toml"]

    # bob's inbox applies the move and, as the witness, reveals and mails it to both players.
    answer = bob.inbox()
    assert answer["new_mails"] == 1 and answer["reveals"][0]["delivered"] == ["alice@example.test",
                                                                              "bob@example.test"]
    again = bob.inbox()  # his own reveal comes back to him (PROTOCOL §6): already in his log
    assert [o["status"] for outcomes in again["applied"].values() for o in outcomes] == ["duplicate"]
    assert bob.inbox() == {"new_mails": 0, "skipped": 3, "rejected": [], "applied": {}, "reveals": []}
    alice.inbox()
    assert json.loads(alice.run("show", "--json").stdout)["last_roll"]["purpose"] == "opening"

    bob.run("move", "pass", "--send")
    alice.inbox()
    alice.run("move", "end result='alice by a nose'", "--send")
    bob.inbox()
    heads = {p.name: json.loads(p.run("verify", "--json").stdout)["head"] for p in players.values()}
    assert heads["alice"] == heads["bob"]
    assert json.loads(bob.run("status", "--json").stdout)["step"]["result"] == "alice by a nose"


def test_a_refused_recipient_stays_queued_until_retry(tmp_path, smtp):
    controller, handler = smtp
    players = start(tmp_path, controller.port)
    alice, bob = players["alice"], players["bob"]
    handler.refuse.add(bob.address)
    out = alice.run("move", "pass", "--send").stdout
    assert "Not delivered to bob@example.test: 550 no such mailbox here" in out
    assert len(list((alice.dir / "mailq").glob("*.eml"))) == 1
    assert bob.inbox()["new_mails"] == 0
    handler.refuse.clear()
    retried = json.loads(alice.run("send", "--retry", "--json").stdout)
    assert retried[0]["delivered"] == [bob.address] and not list((alice.dir / "mailq").glob("*.eml"))
    assert bob.inbox()["new_mails"] == 1
    assert json.loads(bob.run("status", "--json").stdout)["head_seq"] == 1


def test_an_unreachable_server_queues_the_move_and_writes_it(tmp_path, smtp):
    controller, _ = smtp
    players = start(tmp_path, controller.port)
    alice = players["alice"]
    controller.stop()
    out = alice.run("move", "pass", "--send").stdout
    assert "Not delivered to bob@example.test" in out and "pbem send --retry" in out
    assert json.loads(alice.run("status", "--json").stdout)["head_seq"] == 1  # signed and applied here
    assert len(list((alice.dir / "mailq").glob("*.eml"))) == 1


def test_inbox_reads_a_real_imap_server_once(tmp_path, smtp, imap_server):
    """A move delivered to an IMAP mailbox (dovecot on loopback) is applied; a second run does nothing."""
    controller, _ = smtp
    players = start(tmp_path, controller.port)
    alice, bob = players["alice"], players["bob"]
    alice.run("move", "note text='by IMAP'", "pass", "--send")
    for delivered in mailbox.Maildir(str(bob.maildir)):
        imap_server.deliver(delivered.as_bytes())
    bob.env["PBEM_TEST_IMAP"] = imap_server.password
    reading = ("inbox", "--imap", imap_server.host, "--port", str(imap_server.port), "--security", "none",
               "--user", imap_server.user, "--password-env", "PBEM_TEST_IMAP", "--json")
    first = json.loads(bob.run(*reading).stdout)
    statuses = sorted(o["status"] for outcomes in first["applied"].values() for o in outcomes)
    assert statuses == ["applied"] and first["skipped"] == 1  # her join's mail was read from the Maildir
    assert json.loads(bob.run("status", "--json").stdout)["head_seq"] == 1
    again = json.loads(bob.run(*reading).stdout)
    assert again["new_mails"] == 0 and again["applied"] == {}


def test_inbox_reads_an_mbox_export(tmp_path, smtp):
    controller, _ = smtp
    players = start(tmp_path, controller.port)
    alice, bob = players["alice"], players["bob"]
    alice.run("move", "pass", "--send")
    export = mailbox.mbox(str(tmp_path / "export.mbox"))
    for delivered in mailbox.Maildir(str(bob.maildir)):
        export.add(delivered)
    export.flush()
    reading = ("inbox", "--mbox", str(tmp_path / "export.mbox"), "--json")
    first = json.loads(bob.run(*reading).stdout)
    assert [o["seq"] for outcomes in first["applied"].values() for o in outcomes] == [1]
    assert json.loads(bob.run(*reading).stdout)["new_mails"] == 0
