"""Moves by mail through real servers on loopback: `pbem move --send` and `pbem send` through an
SMTP server (aiosmtpd) into each player's Maildir, `pbem inbox` from a Maildir, an mbox or IMAP
(dovecot).

Two players play a freeform game to the end purely by mail; a send that does not reach everyone
says why and exits 8 until `pbem send --retry` gets it through; the inbox names each refused mail,
marks read only those that can never apply, and exits with the worst code.
"""

from __future__ import annotations

import datetime
import fcntl
import json
import mailbox
import os
import socket
import ssl
import subprocess
import sys
import tomllib
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

import pytest
from aiosmtpd import controller as aiosmtpd
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from helpers import Table, changes, completed, copy_game, resign_edit, run_cli, setup_game, snapshot, write

from pbem.message import Message

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
        result = completed(args, run_cli(list(args), cwd or self.dir, env=self.env))
        assert result.returncode == code, (args, result.returncode, result.stdout, result.stderr)
        return result

    def inbox(self) -> dict:
        return json.loads(self.run("inbox", "--maildir", str(self.maildir), "--auto-reveal", "--json").stdout)


def tls_context(folder: Path) -> ssl.SSLContext:
    """A server-side TLS context with a throwaway self-signed certificate for 127.0.0.1."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(1).not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=1)).sign(key, hashes.SHA256()))
    (folder / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (folder / "key.pem").write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                                       serialization.PrivateFormat.PKCS8,
                                                       serialization.NoEncryption()))
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(folder / "cert.pem", folder / "key.pem")
    return context


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
    assert subjects == ["[pbem mail-game] join from alice",
                        "[pbem mail-game] seq 1 from alice: roll dice=2d6 purpose=opening"]
    mail = next(m for m in received if "seq 1" in m["Subject"])
    assert mail["In-Reply-To"] == mail["References"] and mail["In-Reply-To"].startswith("<pbem.mail-game.")
    assert [p.get_filename() for p in mail.iter_attachments()] == ["000001-move-alice.toml"]

    # bob's inbox applies the move and, as the witness, reveals and mails it to both players.
    answer = bob.inbox()
    assert answer["new_mails"] == 1 and answer["reveals"][0]["delivered"] == ["alice@example.test",
                                                                              "bob@example.test"]
    again = bob.inbox()  # his own reveal comes back to him (PROTOCOL §6): already in his log
    assert [o["status"] for outcomes in again["applied"].values() for o in outcomes] == ["duplicate"]
    assert bob.inbox() == {"new_mails": 0, "skipped": 3, "refused": [], "applied": {}, "reveals": [],
                           "unseals": []}
    alice.inbox()
    assert json.loads(alice.run("show", "--json").stdout)["last_roll"]["purpose"] == "opening"

    bob.run("move", "pass", "--send")
    alice.inbox()
    alice.run("move", "end result='alice by a nose'", "--send")
    bob.inbox()
    heads = {p.name: json.loads(p.run("verify", "--json").stdout)["head"] for p in players.values()}
    assert heads["alice"] == heads["bob"]
    assert json.loads(bob.run("status", "--json").stdout)["step"]["result"] == "alice by a nose"


def test_retry_says_the_servers_answer_until_the_move_gets_through(tmp_path, smtp):
    """Each failed send and --retry names who did not get the move and the server's answer, exits 8
    and keeps the move queued; the retry that delivers it exits 0 and empties the queue."""
    controller, handler = smtp
    players = start(tmp_path, controller.port)
    alice, bob = players["alice"], players["bob"]
    handler.refuse.add(bob.address)
    sent = alice.run("move", "pass", "--send", code=8)
    head = json.loads(alice.run("status", "--json").stdout)["head_id"]
    assert "Not delivered move seq 1 to bob@example.test: 550 no such mailbox here" in sent.stdout
    assert sent.stderr == (f"error: move {head[:12]} (seq 1), player alice: signed and stored, but not delivered "
                           "to bob@example.test (550 no such mailbox here); queued in mailq/ for 'pbem send --retry'\n")
    assert len(list((alice.dir / "mailq").glob("*.eml"))) == 1

    retried = alice.run("send", "--retry", code=8)
    assert "Not delivered move seq 1 to bob@example.test: 550 no such mailbox here" in retried.stdout
    strict = aiosmtpd.Controller(handler, hostname="127.0.0.1", port=free_port(), tls_context=tls_context(tmp_path),
                                 require_starttls=True)
    strict.start()
    try:
        alice.run("mail", "setup", "--address", alice.address, "--smtp-host", "127.0.0.1", "--smtp-port",
                  str(strict.port), "--security", "none", cwd=tmp_path)
        retried = alice.run("send", "--retry", code=8)
        assert "to bob@example.test: 530 Must issue a STARTTLS command first" in retried.stdout
    finally:
        strict.stop()
    retried = alice.run("send", "--retry", code=8)
    assert f"to bob@example.test: connection refused by 127.0.0.1:{strict.port}" in retried.stdout
    assert len(list((alice.dir / "mailq").glob("*.eml"))) == 1 and bob.inbox()["new_mails"] == 0

    handler.refuse.clear()
    alice.run("mail", "setup", "--address", alice.address, "--smtp-host", "127.0.0.1", "--smtp-port",
              str(controller.port), "--security", "none", cwd=tmp_path)
    retried = json.loads(alice.run("send", "--retry", "--json").stdout)
    assert retried[0]["delivered"] == [bob.address] and not list((alice.dir / "mailq").glob("*.eml"))
    assert bob.inbox()["new_mails"] == 1
    assert json.loads(bob.run("status", "--json").stdout)["head_seq"] == 1


def test_a_send_that_reaches_nobody_exits_8(tmp_path, smtp):
    controller, _ = smtp
    players = start(tmp_path, controller.port)
    alice = players["alice"]
    controller.stop()
    moved = alice.run("move", "pass", "--send", code=8)
    assert f"Not delivered move seq 1 to bob@example.test: connection refused by 127.0.0.1:{controller.port}" \
        in moved.stdout and "'pbem send --retry' sends it again" in moved.stdout
    assert json.loads(alice.run("status", "--json").stdout)["head_seq"] == 1  # signed and applied here
    assert len(list((alice.dir / "mailq").glob("*.eml"))) == 1
    again = alice.run("send", "outbox/000001-move-alice.toml", code=8)
    assert "signed and stored, but not delivered to bob@example.test (connection refused" in again.stderr


def test_a_move_for_a_player_without_address_waits_for_it(tmp_path, smtp):
    """`move --send` with no address for bob: the move is signed, stored and queued, the command says
    so and how to send it (exit 8); once bob's address is recorded, --retry delivers it."""
    controller, _ = smtp
    players = start(tmp_path, controller.port)
    alice, bob = players["alice"], players["bob"]
    (alice.dir / "addresses.toml").write_text(f'alice = "{alice.address}"\n')
    moved = alice.run("move", "pass", "--send", code=8)
    assert "Not delivered move seq 1 to bob: no address yet: 'pbem mail address bob ADDRESS'" in moved.stdout
    assert "signed and stored, but not delivered to bob (no address yet: 'pbem mail address bob ADDRESS'); " \
           "queued in mailq/ for 'pbem send --retry'" in moved.stderr
    assert json.loads(alice.run("status", "--json").stdout)["head_seq"] == 1
    alice.run("mail", "address", "bob", bob.address)
    assert "Mailed move seq 1 to bob@example.test" in alice.run("send", "--retry").stdout
    assert not list((alice.dir / "mailq").glob("*.eml"))
    assert bob.inbox()["new_mails"] == 1


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


# ------------------------------------------------------------------ the inbox: what is refused, and why

ROLL = [{"kind": "roll", "dice": "2d6", "purpose": "opening"}]


@pytest.fixture(scope="module")
def three(tmp_path_factory) -> Table:
    """A started three-player game (helpers.setup_game); each test works on a copy."""
    return setup_game(tmp_path_factory.mktemp("inbox-template"))


def mail_of(message: Message, mail_id: str, *, text: str | None = None) -> bytes:
    msg = EmailMessage()
    msg["From"] = f"{message.player}@example.test"
    msg["To"] = "bob@example.test"
    msg["Subject"] = f"[pbem err-game] {message.type} from {message.player}"
    msg["Message-ID"] = f"<{mail_id}@example.test>"
    msg.set_content(text if text is not None else message.stored().decode())
    return bytes(msg)


def maildir_with(folder: Path, *mails: bytes) -> Path:
    box = mailbox.Maildir(str(folder), create=True)
    for raw in mails:
        box.add(raw)
    return folder


def handled(player) -> list[str]:
    path = player.dir / "inbox.toml"
    return tomllib.loads(path.read_text())["handled"] if path.exists() else []


def test_inbox_names_both_entries_of_a_fork_and_exits_4(three, tmp_path, imap_server):
    """bob's unattended inbox gets a second seq 1 by alice (a fork) and carol's reveal for the first:
    exit 4, one line per mail; the fork's line names both entries and marks the mail read, the
    reveal is left unread since it may apply once the players settle the fork."""
    game = copy_game(three, tmp_path)
    first = game.draft("alice", ROLL)
    second = game.draft("alice", [{"kind": "note", "text": "another history"}, *ROLL])
    game.deliver(write(tmp_path / "first.toml", first), ["alice", "bob", "carol"])
    reveal, _ = game.reveal("carol", to=[])
    imap_server.deliver(mail_of(second, "fork"))
    imap_server.deliver(mail_of(reveal, "reveal"))
    bob = game["bob"]
    env = {**bob.env(), "PBEM_TEST_IMAP": imap_server.password}
    reading = ["inbox", "--imap", imap_server.host, "--port", imap_server.port, "--security", "none",
               "--user", imap_server.user, "--password-env", "PBEM_TEST_IMAP"]
    code, out, err = run_cli(reading, bob.dir, env=env)
    assert code == 4, (out, err)
    fork_line, reveal_line = sorted(err.splitlines())
    assert fork_line.startswith("error: refused mail <fork@example.test>: move ") and first.id in fork_line \
        and second.id in fork_line and fork_line.endswith("(marked read: it can never apply)")
    assert reveal_line == ("error: refused mail <reveal@example.test>: game: not applied: a fork in another mail "
                           "stopped the game (left unread: it may apply on a later run)")
    assert sorted(p.name for p in (bob.dir / "forks").iterdir()) == sorted(
        f"move-alice-{m.id[:16]}.toml" for m in (first, second))
    assert handled(bob) == ["<fork@example.test>"]
    code, out, err = run_cli(reading, bob.dir, env=env)  # the game is still stopped: only the reveal again
    assert code == 4 and err.count("\n") == 1 and "refused mail <reveal@example.test>" in err, (out, err)


def test_inbox_marks_read_only_the_mails_that_can_never_apply(three, tmp_path):
    """A forged move (exit 3) and a truncated one (exit 2) are each named on one line and marked read;
    the inbox exits with the worst code, and the next run finds nothing new."""
    game = copy_game(three, tmp_path)
    move = game.draft("alice", ROLL)
    forged = resign_edit(move, b"opening", b"closing", game["carol"].signer).decode()
    truncated = move.stored().decode().split("# -----END")[0]
    box = maildir_with(tmp_path / "mail", mail_of(move, "forged", text=forged),
                       mail_of(move, "truncated", text=truncated))
    bob = game["bob"]
    before = snapshot(bob.dir)
    code, out, err = bob.cli("inbox", "--maildir", box)
    assert code == 3, (out, err)
    forged_line, truncated_line = sorted(err.splitlines())
    assert forged_line.startswith("error: refused mail <forged@example.test>: move ") \
        and "player alice" in forged_line and forged_line.endswith("(marked read: it can never apply)")
    assert truncated_line.startswith("error: refused mail <truncated@example.test>: ") \
        and "truncated" in truncated_line and truncated_line.endswith("(marked read: it can never apply)")
    assert changes(before, snapshot(bob.dir)) == {"added": ["inbox.toml"], "removed": [], "changed": []}
    assert bob.cli("inbox", "--maildir", box) == (0, "0 new mail(s), 2 skipped\n", "")


def test_inbox_leaves_a_mail_unread_while_the_game_is_locked(three, tmp_path):
    game = copy_game(three, tmp_path)
    move = game.draft("alice", ROLL)
    box = maildir_with(tmp_path / "mail", mail_of(move, "move"))
    bob = game["bob"]
    before = snapshot(bob.dir)
    with open(bob.dir / ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another pbem at work in bob's directory
        code, out, err = bob.cli("inbox", "--maildir", box)
        fcntl.flock(lock, fcntl.LOCK_UN)
    assert code == 6, (out, err)
    assert err.startswith("error: refused mail <move@example.test>: ") and "locked" in err \
        and err.endswith("(left unread: it may apply on a later run)\n") and err.count("\n") == 1
    assert changes(before, snapshot(bob.dir)) == {"added": [], "removed": [], "changed": []}
    code, out, err = bob.cli("inbox", "--maildir", box, "--json")
    assert code == 0 and json.loads(out)["new_mails"] == 1, (out, err)
    assert (bob.dir / "entries" / "000001.toml").read_bytes() == move.stored()


def test_a_move_killed_while_mailing_is_named_by_the_next_command(tmp_path, smtp):
    """A server that takes the connection and never answers; `move --send` is killed while it waits.
    The move is stored, and the next `status` says to mail it: nothing is lost silently."""
    import socket
    import time

    controller, _ = smtp
    players = start(tmp_path, controller.port)
    alice = players["alice"]
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(1)
    alice.run("mail", "setup", "--address", alice.address, "--smtp-host", "127.0.0.1", "--smtp-port",
              str(silent.getsockname()[1]), "--security", "none", cwd=tmp_path)
    try:
        moving = subprocess.Popen([sys.executable, "-m", "pbem.cli", "move", "pass", "--send"], cwd=alice.dir,
                                  env=alice.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 30
        while not (alice.dir / "outbox" / "000001-move-alice.toml").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.5)
        moving.kill()
        moving.wait(timeout=30)
    finally:
        silent.close()
    said = alice.run("status")
    assert "Finished an interrupted command: your move for seq 1 is stored; mail" in said.stdout
    assert "outbox/000001-move-alice.toml" in said.stdout
    assert "Finished" not in alice.run("status").stdout  # said once, then it is the player's


# ------------------------------------------------------------------ what a mail's headers may hold

def test_a_note_with_line_breaks_is_mailed_under_a_one_line_subject(tmp_path, smtp):
    """The subject holds the orders' summary on one short line: a note's newline and control characters
    are written as their escapes, as the order would be typed, and a long summary is cut."""
    controller, _ = smtp
    players = start(tmp_path, controller.port)
    alice, bob = players["alice"], players["bob"]
    sent = alice.run("move", 'note text="line one\nline two\x1b[2J"', "--send")
    assert "Mailed move seq 1 to bob@example.test" in sent.stdout
    alice.run("send", "outbox/000001-move-alice.toml")
    received = [message_from_bytes(m.as_bytes(), policy=policy.default) for m in mailbox.Maildir(str(bob.maildir))]
    subjects = [m["Subject"] for m in received if "seq 1" in m["Subject"]]
    assert subjects == ['[pbem mail-game] seq 1 from alice: note text="line one\\nline two\\u00…'] * 2
    assert bob.inbox()["new_mails"] == 2  # the same move twice: applied, then a duplicate
    assert json.loads(bob.run("status", "--json").stdout)["head_seq"] == 1


# ------------------------------------------------------------------ the mail queue survives a crash

def test_the_queue_writes_who_is_left_before_the_mail(tmp_path, smtp):
    """A run killed between the two writes never leaves a queued mail without its recipients."""
    controller, handler = smtp
    players = start(tmp_path, controller.port)
    alice = players["alice"]
    handler.refuse.add(players["bob"].address)
    alice.env["PBEM_FAULT_LOG"] = str(tmp_path / "writes.log")
    alice.run("move", "pass", "--send", code=8)
    queued = [line.split()[1] for line in (tmp_path / "writes.log").read_text().splitlines()
              if line.startswith("write ") and "mailq/" in line]
    assert [Path(p).suffix for p in queued] == [".toml", ".eml"], queued


def test_a_queued_mail_that_lost_its_recipients_goes_to_its_to_header(tmp_path, smtp):
    """A mail in mailq/ without its list of recipients is sent to everyone it was addressed to,
    never dropped unsent."""
    controller, handler = smtp
    players = start(tmp_path, controller.port)
    alice, bob = players["alice"], players["bob"]
    handler.refuse.add(bob.address)
    alice.run("move", "pass", "--send", code=8)
    for sidecar in (alice.dir / "mailq").glob("*.toml"):
        sidecar.unlink()
    handler.refuse.clear()
    retried = alice.run("send", "--retry")
    assert "Mailed move seq 1 to bob@example.test" in retried.stdout
    assert not list((alice.dir / "mailq").glob("*.eml")) and bob.inbox()["new_mails"] == 1


# ------------------------------------------------------------------ damaged local files: one line

@pytest.mark.parametrize("damage", [b"handled = [", b"\xff\xfe\x00", b"handled = 3\n"], ids=["toml", "binary", "shape"])
def test_a_damaged_inbox_record_is_one_line(three, tmp_path, damage):
    game = copy_game(three, tmp_path)
    bob = game["bob"]
    write(bob.dir / "inbox.toml", damage)
    box = maildir_with(tmp_path / "mail", mail_of(game.draft("alice", ROLL), "move"))
    before = snapshot(bob.dir)
    code, out, err = bob.cli("inbox", "--maildir", box)
    assert code == 2 and err.startswith("error: inbox record: inbox.toml is ") \
        and err.count("\n") == 1, (code, out, err)
    assert changes(before, snapshot(bob.dir)) == {"added": [], "removed": [], "changed": []}


@pytest.mark.parametrize("damage", [b"bob = [", b"\xff\xfe\x00"], ids=["toml", "binary"])
def test_a_damaged_address_book_is_one_line(three, tmp_path, damage):
    game = copy_game(three, tmp_path)
    bob = game["bob"]
    write(bob.dir / "addresses.toml", damage)
    assert bob.cli("mail", "setup", "--address", "bob@example.test", "--smtp-host", "127.0.0.1",
                   "--smtp-port", str(free_port()), "--security", "none")[0] == 0
    for command in (("mail", "address", "alice", "alice@example.test"), ("send", "outbox/join-bob.toml")):
        code, out, err = bob.cli(*command)
        assert code == 2 and err.startswith("error: addresses: addresses.toml is ") \
            and err.count("\n") == 1, (command, code, out, err)
    assert (bob.dir / "addresses.toml").read_bytes() == damage


def test_a_move_sent_with_damaged_mail_settings_is_stored_and_says_so(three, tmp_path):
    game = copy_game(three, tmp_path)
    alice = game["alice"]
    write(alice.home / "mail.toml", b"smtp_host = [")
    code, out, err = alice.cli("move", "pass", "--send")
    assert code == 8 and "signed and stored in outbox/000001-move-alice.toml, but not mailed: " in err \
        and "mail.toml is damaged" in err and err.count("\n") == 1, (code, out, err)
    assert (alice.dir / "entries" / "000001.toml").exists()


def test_a_sealed_round_is_played_by_mail_with_auto_unseal(tmp_path, smtp):
    """alice opens a round; both seal with --send; each inbox --auto-unseal opens and mails the
    unseal once both seals are in; alice collects the round in her next move."""
    controller, _ = smtp
    players = start(tmp_path, controller.port)
    alice, bob = players["alice"], players["bob"]
    alice.run("move", 'sealed players=alice,bob purpose="bids"', "--send")
    bob.inbox()
    alice.run("seal", 'choose text="two"', "--send")
    bob.run("seal", 'choose text="three"', "--send")

    def auto_unseal(player) -> dict:
        return json.loads(player.run("inbox", "--maildir", str(player.maildir), "--auto-unseal", "--json").stdout)

    assert [u["id"] for u in auto_unseal(alice)["unseals"]]  # bob's seal arrives: alice unseals and mails
    assert [u["id"] for u in auto_unseal(bob)["unseals"]]
    auto_unseal(alice)  # bob's unseal arrives
    alice.run("move", "pass", "--send")
    bob.inbox()
    state = json.loads(bob.run("show", "state", "--json").stdout)
    assert state["last_sealed"]["choices"] == {"alice": "two", "bob": "three"}
