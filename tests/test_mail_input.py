"""Messages read out of mail through the real CLI (PROTOCOL.md §3, mail reading rules).

Mails are built with the standard library's `email` package (or by hand where a client's exact bytes
matter, as for format=flowed) and applied with `pbem apply FILE.eml` and with `pbem apply -` reading
stdin. Each successful apply is checked against the receiver's state: the outcome `apply --json`
reports, the stored file byte for byte, and `status` (the function behind `pbem status --json`,
called in-process to keep the suite fast; the multi-message tests run the CLI's `status --json`).

The template game (helpers.setup_game: alice, bob, carol, dice `all`):
  - alice signed seq 1 (a long note and a 2d6 roll); carol has it and revealed; bob has nothing yet.
  - bob's reveal for seq 1 and his seq 2 (which uses both reveals) were signed in a scratch copy.
So "move" mails go to bob (head 0 -> 1) and "reveal" mails to alice (she waits for bob and carol).
"""

from __future__ import annotations

import json
import shutil
import textwrap
from dataclasses import dataclass
from email import policy, quoprimime
from email.message import EmailMessage
from pathlib import Path

import pytest
from helpers import Table, changes, copy_game, run_cli, setup_game, snapshot

from pbem.game import Game, status
from pbem.message import Message

ORDERS = [
    {"kind": "note", "text": "The third corps marches at dawn through the forest of Argonne towards "
                             "Verdun, weather permitting, and digs in before the rains."},
    {"kind": "roll", "dice": "2d6", "purpose": "morale check", "table": "morale"},
]
MODES = ("file", "stdin")


@dataclass
class Template:
    table: Table
    move1: Message  # alice's seq 1, opens a roll point witnessed by bob and carol
    reveal_carol: Message
    reveal_bob: Message
    move2: Message  # bob's seq 2, uses both reveals

    def text(self, name: str) -> str:
        return getattr(self, name).stored().decode()


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Template:
    root = tmp_path_factory.mktemp("mail-template")
    table = setup_game(root / "game")
    alice, carol = table.players["alice"], table.players["carol"]
    move1, _ = alice.game().move("alice", ORDERS, alice.signer)
    move1_path = alice.outbox(move1)
    table.deliver(move1_path, ["carol"])
    reveal_carol, _ = carol.game().reveal("carol", lambda: carol.signer)
    # bob's answers, signed in a scratch copy so the template's bob still has nothing
    (root / "scratch").mkdir()
    scratch = copy_game(table, root / "scratch")
    bob = scratch.players["bob"]
    scratch.deliver(move1_path, ["bob"])
    scratch.deliver(carol.outbox(reveal_carol), ["bob"])
    reveal_bob, _ = bob.game().reveal("bob", lambda: bob.signer)
    move2, _ = bob.game().move("bob", [{"kind": "note", "text": "Holding the ridge."}, {"kind": "pass"}],
                               bob.signer)
    shutil.rmtree(root / "scratch")
    assert set(move2.uses) == {reveal_bob.id, reveal_carol.id}
    return Template(table, move1, reveal_carol, reveal_bob, move2)


# ------------------------------------------------------------------------------ building mails

def envelope(sender: str = "alice", to: str = "bob", subject: str = "pbem err-game") -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = f"{sender.title()} <{sender}@example.org>"
    msg["To"] = f"{to.title()} <{to}@example.org>"
    msg["Subject"] = subject
    msg["Date"] = "Sun, 22 Nov 2026 10:31:00 +0000"
    msg["Message-ID"] = f"<{sender}.{to}.1@example.org>"
    return msg


def quote(text: str, prefix: str = "> ") -> str:
    """Quote every line as a mail client does; an empty line gets the prefix without its trailing space."""
    return "".join((prefix + line if line else prefix.rstrip()) + "\n" for line in text.splitlines())


def stuff(line: str) -> str:
    """RFC 3676 space-stuffing."""
    return " " + line if line.startswith((" ", ">", "From ")) else line


def flow_at_spaces(text: str, width: int = 40) -> list[str]:
    """format=flowed, DelSp=no: break after a space so no line exceeds `width` where a space allows;
    the trailing space of each piece marks the soft break. A word longer than the width stays whole."""
    out = []
    for line in text.splitlines():
        while len(line) > width:
            cut = line.rfind(" ", 0, width)
            if cut <= 0:
                cut = line.find(" ", width)
                if cut == -1:
                    break
            out.append(stuff(line[:cut + 1]))
            line = line[cut + 1:]
        out.append(stuff(line))
    return out


def flow_anywhere(text: str, width: int = 40) -> list[str]:
    """format=flowed, DelSp=yes: pieces of width-1 characters, each soft break an added space."""
    out = []
    for line in text.splitlines():
        pieces = [line[i:i + width - 1] for i in range(0, len(line), width - 1)] or [""]
        for index, piece in enumerate(pieces):
            out.append(stuff(piece) + ("" if index == len(pieces) - 1 else " "))
    return out


def by_hand(body_lines: list[str], content_type: str, eol: str = "\n", cte: str = "7bit") -> bytes:
    headers = [
        "From: Alice <alice@example.org>", "To: Bob <bob@example.org>", "Subject: pbem err-game",
        "Date: Sun, 22 Nov 2026 10:31:00 +0000", "Message-ID: <by-hand.1@example.org>", "MIME-Version: 1.0",
        f"Content-Type: {content_type}", f"Content-Transfer-Encoding: {cte}",
    ]
    return (eol.join(headers) + eol + eol + eol.join(body_lines) + eol).encode()


INTRO = "Here is my move for this week.\n\n"
OUTRO = "\nYours,\nAlice\n"


def plain_mail(body: str, **content) -> bytes:
    msg = envelope()
    msg.set_content(body, **content)
    return bytes(msg)


def attached(texts: list[str], body: str = "My move is attached.\n", how: str = "application/toml") -> bytes:
    msg = envelope()
    msg.set_content(body)
    for index, text in enumerate(texts, 1):
        if how == "application/toml":
            msg.add_attachment(text.encode(), maintype="application", subtype="toml",
                               filename=f"message-{index}.toml")
        elif how == "octet-stream":
            msg.add_attachment(text.encode(), maintype="application", subtype="octet-stream", filename="x.toml")
        elif how == "text/toml":
            msg.add_attachment(text, subtype="toml", filename=f"message-{index}.toml")
    return bytes(msg)


def reply(text: str, prefix: str = "> ") -> str:
    return ("Thanks, it applied on my side; my reveal follows tonight.\n\nBob\n\n"
            "On Sun, 22 Nov 2026 at 10:31, Alice <alice@example.org> wrote:\n"
            + quote(text, prefix)
            + "\n-- \nBob Example\nBrigade HQ, third floor\n")


def v_paste(text):  # the body pasted on its own, no mail headers
    return text.encode()


def v_plain(text):
    return plain_mail(INTRO + text + OUTRO)


def v_reply(text):
    return plain_mail(reply(text))


def v_quoted_twice(text):
    return plain_mail("Carol, see below.\n\n" + quote(reply(text), "> "))


def v_quoted_twice_tight(text):
    return plain_mail("Forwarding.\n\n" + quote(text, ">> "))


def v_crlf(text):
    raw = envelope()
    raw.set_content(INTRO + text + OUTRO)
    data = raw.as_bytes(policy=policy.SMTP)
    assert b"\r\n" in data and b"\n" not in data.replace(b"\r\n", b"")
    return data


def v_crlf_paste(text):
    return text.replace("\n", "\r\n").encode()


def v_trailing_spaces(text):
    padded = "".join(line + "  \t \n" for line in (INTRO + text + OUTRO).splitlines())
    data = plain_mail(padded, cte="8bit")
    assert b"pbem = 1  \t \n" in data and b"-----END SSH SIGNATURE-----  \t \n" in data
    return data


def v_quoted_printable(text):
    data = plain_mail(INTRO + text + OUTRO, cte="quoted-printable")
    assert b"=3D" in data
    return data


def v_quoted_printable_soft_breaks(text):
    """Quoted-printable encoded at 40 columns: long lines end in '=' soft breaks."""
    encoded = quoprimime.body_encode(INTRO + text + OUTRO, maxlinelen=40)
    lines = encoded.split("\n")
    assert sum(line.endswith("=") for line in lines) >= 3 and max(len(line) for line in lines) <= 40
    return by_hand(lines, "text/plain; charset=utf-8", cte="quoted-printable")


def v_base64(text):
    data = plain_mail(INTRO + text + OUTRO, cte="base64")
    assert b"pbem = 1" not in data
    return data


def v_attach_toml(text):
    return attached([text], how="application/toml")


def v_attach_octet(text):
    return attached([text], how="octet-stream")


def v_body_and_attachment(text):
    return attached([text], body=INTRO + text + OUTRO, how="text/toml")


def v_flowed(text):
    lines = flow_at_spaces(INTRO + text + OUTRO)
    assert any(line.endswith(" ") for line in lines)  # soft breaks were made
    assert max(len(line) for line in lines if " " in line.rstrip()) <= 40
    return by_hand(lines, "text/plain; charset=utf-8; format=flowed")


def v_flowed_delsp(text):
    lines = flow_anywhere(INTRO + text + OUTRO)
    assert max(len(line) for line in lines) <= 41 and sum(line.endswith(" ") for line in lines) >= 5
    return by_hand(lines, 'text/plain; charset="utf-8"; format="flowed"; delsp="yes"', eol="\r\n")


def v_windows_editor(text):
    """Saved by a Windows editor: a UTF-8 byte order mark first, CRLF line ends."""
    return ("\ufeff" + text).replace("\n", "\r\n").encode()


def v_attach_with_bom(text):
    return attached(["\ufeff" + text], how="application/toml")


VARIANTS = {
    "paste": v_paste,
    "windows-editor": v_windows_editor,
    "attachment-with-bom": v_attach_with_bom,
    "plain": v_plain,
    "reply-quoted": v_reply,
    "quoted-twice": v_quoted_twice,
    "quoted-twice-tight": v_quoted_twice_tight,
    "crlf": v_crlf,
    "crlf-paste": v_crlf_paste,
    "trailing-spaces": v_trailing_spaces,
    "quoted-printable": v_quoted_printable,
    "quoted-printable-40": v_quoted_printable_soft_breaks,
    "base64": v_base64,
    "attachment-application-toml": v_attach_toml,
    "attachment-octet-stream": v_attach_octet,
    "body-and-attachment": v_body_and_attachment,
    "flowed-40": v_flowed,
    "flowed-40-delsp": v_flowed_delsp,
}


# ------------------------------------------------------------------------------ running the CLI

def apply_job(player, raw: bytes, mode: str, tmp_path: Path, *extra: str) -> tuple:
    """The run_cli arguments of `pbem apply FILE.eml` or `pbem apply -` (the mail on stdin)."""
    if mode == "file":
        path = tmp_path / f"{player.name}-{'pasted.txt' if raw[:5] == b'pbem ' else 'incoming.eml'}"
        path.write_bytes(raw)
        return ["apply", str(path), *extra], player.dir, player.home, None
    return ["apply", "-", *extra], player.dir, player.home, raw


def run_jobs(*jobs: tuple) -> list[tuple[int, str, str]]:
    """Independent CLI runs (separate game directories), one after the other, in-process."""
    return [run_cli(args, cwd, home=home, stdin=stdin) for args, cwd, home, stdin in jobs]


def applied(result: tuple[int, str, str], expected: list[Message]) -> None:
    code, out, err = result
    assert code == 0, (code, out, err)
    outcomes = json.loads(out)["outcomes"]
    assert sorted((o["id"], o["status"]) for o in outcomes) == sorted((m.id, "applied") for m in expected), outcomes


def state(player) -> dict:
    return status(Game(player.dir, home=player.home))


def one_line_error(err: str) -> None:
    assert err.startswith("error: ") and err.endswith("\n") and err.count("\n") == 1, err


TARGETS = {"move": ("bob", "move1"), "reveal": ("alice", "reveal_carol")}


def check_received(template: Template, game: Table, target: str) -> None:
    if target == "move":
        bob = game.players["bob"]
        assert (bob.dir / "entries" / "000001.toml").read_bytes() == template.move1.stored()
        st = state(bob)
        assert st["head_seq"] == 1 and st["head_id"] == template.move1.id
        assert st["step"]["kind"] == "reveal" and st["step"]["waiting_for"] == ["bob", "carol"]
    else:
        alice = game.players["alice"]
        assert (alice.dir / "side" / "reveal-carol-000001.toml").read_bytes() == template.reveal_carol.stored()
        st = state(alice)
        assert st["head_seq"] == 1 and st["step"]["kind"] == "reveal" and st["step"]["waiting_for"] == ["bob"]


# ------------------------------------------------------------------------------ tests

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("variant", VARIANTS)
def test_a_move_and_a_reveal_from_mail(template, tmp_path, variant, mode):
    """alice's move mailed to bob and carol's reveal mailed to alice, each in the same kind of mail."""
    game = copy_game(template.table, tmp_path)
    jobs, expected = [], []
    for receiver, name in TARGETS.values():
        raw = VARIANTS[variant](template.text(name))
        jobs.append(apply_job(game.players[receiver], raw, mode, tmp_path, "--json"))
        expected.append(getattr(template, name))
    for result, message in zip(run_jobs(*jobs), expected, strict=True):
        applied(result, [message])
    for target in TARGETS:
        check_received(template, game, target)


def test_the_same_mail_twice_is_a_duplicate(template, tmp_path):
    game = copy_game(template.table, tmp_path)
    bob = game.players["bob"]
    raw = v_body_and_attachment(template.text("move1"))
    applied(run_jobs(apply_job(bob, raw, "file", tmp_path, "--json"))[0], [template.move1])
    code, out, err = run_jobs(apply_job(bob, raw, "stdin", tmp_path, "--json"))[0]
    assert code == 0 and [o["status"] for o in json.loads(out)["outcomes"]] == ["duplicate"], (out, err)
    check_received(template, game, "move")


def mails_with_two(template: Template, first: str, second: str, layout: str) -> bytes:
    a, b = template.text(first), template.text(second)
    if layout == "body":
        return plain_mail("Two for you.\n\n" + a + "\nand\n\n" + b + OUTRO)
    if layout == "quoted-printable-reply":
        return plain_mail(reply(a + "\n" + b), cte="quoted-printable")
    if layout == "attachments":
        return attached([a, b], how="octet-stream")
    return attached([b], body=INTRO + a + OUTRO, how="application/toml")  # body-and-attachment


MULTI = {
    # an entry and a reveal for it in one mail: the reveal waits in the batch for the entry
    "entry-then-its-reveal": ("bob", "move1", "reveal_carol", 1, {"kind": "reveal", "waiting_for": ["bob"]}),
    # an entry and the reveal it uses (§4: an entry is mailed with the side messages it uses)
    "entry-and-the-reveal-it-uses": ("carol", "move2", "reveal_bob", 2, {"kind": "decision",
                                                                          "waiting_for": ["carol"]}),
    # two reveals: the roll resolves
    "two-reveals": ("alice", "reveal_bob", "reveal_carol", 1, {"kind": "decision", "waiting_for": ["bob"]}),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("layout", ["body", "quoted-printable-reply", "attachments", "body-and-attachment"])
def test_two_messages_in_one_mail(template, tmp_path, layout, mode):
    game = copy_game(template.table, tmp_path)
    jobs = []
    for _case, (receiver, first, second, _, _) in MULTI.items():
        raw = mails_with_two(template, first, second, layout)
        jobs.append(apply_job(game.players[receiver], raw, mode, tmp_path, "--json"))
    for result, (_, first, second, _, _) in zip(run_jobs(*jobs), MULTI.values(), strict=True):
        applied(result, [getattr(template, first), getattr(template, second)])
    statuses = run_jobs(*[(["status", "--json"], game.players[receiver].dir, game.players[receiver].home, None)
                          for receiver, *_ in MULTI.values()])
    for (code, out, err), (_, _, _, head, step) in zip(statuses, MULTI.values(), strict=True):
        assert code == 0, err
        st = json.loads(out)
        assert st["head_seq"] == head and st["held"] == 0, st
        assert {k: st["step"][k] for k in step} == step, st
    alice = game.players["alice"]
    code, out, err = alice.cli("show", "--json")
    roll = json.loads(out)["last_roll"]
    assert code == 0 and len(roll["faces"]) == 2 and roll["total"] == sum(roll["faces"])


def break_quoting(text: str) -> bytes:
    quoted = quote(text).splitlines()
    index = next(i for i, line in enumerate(quoted) if line.startswith("> player = "))
    quoted[index] = quoted[index][2:]  # the client dropped the prefix of one line in the middle
    return plain_mail("See below.\n\n" + "\n".join(quoted) + "\n\n-- \nBob\n")


def change_byte(text: str) -> bytes:
    key = "salt = \"" if "salt = " in text else "value = \""
    at = text.index(key) + len(key) + 5
    changed = text[:at] + ("0" if text[at] != "0" else "1") + text[at + 1:]
    return plain_mail(reply(changed))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("damage,code,words", [
    ("quoting", 2, "breaks the quoting"),  # a line of the quoted message lost its '> '
    ("byte", 3, "signature"),  # one hex digit changed
])
def test_a_broken_mail_is_refused_and_changes_nothing(template, tmp_path, damage, code, words, mode):
    game = copy_game(template.table, tmp_path)
    jobs, snapshots = [], []
    for receiver, name in TARGETS.values():
        player = game.players[receiver]
        raw = (break_quoting if damage == "quoting" else change_byte)(template.text(name))
        snapshots.append((player, snapshot(player.dir), snapshot(player.home)))
        jobs.append(apply_job(player, raw, mode, tmp_path))
    for (got, out, err), (player, before, home_before), (_, name) in zip(run_jobs(*jobs), snapshots,
                                                                        TARGETS.values(), strict=True):
        assert got == code, (got, out, err)
        one_line_error(err)
        assert words in err
        if damage == "byte":
            assert f"player {getattr(template, name).player}" in err  # names whose message it was
        assert changes(before, snapshot(player.dir)) == {"added": [], "removed": [], "changed": []}
        assert snapshot(player.home) == home_before


def hard_wrapped(text: str, width: int = 72) -> bytes:
    """A client that wraps long lines at `width` when it sends (not format=flowed), at the last space
    that fits, as Outlook and many webmails do."""
    lines = [piece for line in (INTRO + text + OUTRO).splitlines()
             for piece in textwrap.wrap(line, width, break_long_words=False, break_on_hyphens=False) or [""]]
    assert max(len(line) for line in lines) == width
    return by_hand(lines, "text/plain; charset=utf-8")


@pytest.mark.parametrize("mode", MODES)
def test_a_mail_hard_wrapped_by_the_client_is_named_so(template, tmp_path, mode):
    """Not a TOML error: the player learns the client re-wrapped the message, at which column."""
    game = copy_game(template.table, tmp_path)
    jobs, snapshots = [], []
    for receiver, name in TARGETS.values():
        player = game.players[receiver]
        snapshots.append((player, snapshot(player.dir)))
        jobs.append(apply_job(player, hard_wrapped(template.text(name)), mode, tmp_path))
    for (code, out, err), (player, before) in zip(run_jobs(*jobs), snapshots, strict=True):
        assert code == 2, (code, out, err)
        one_line_error(err)
        assert "the message was re-wrapped at column 72 (line " in err and "was broken in two)" in err
        assert changes(before, snapshot(player.dir)) == {"added": [], "removed": [], "changed": []}


# ------------------------------------------------------------------------------ known bugs

def v_flowed_reply(text: str, shape: str) -> bytes:
    """What a format=flowed client sends when it replies quoting a message (RFC 3676 §4.5): quoted
    lines keep their soft breaks (a line ending in a space, continued on the next line at the same
    quote depth), or an empty quoted line is written '> ' (quote mark and stuffing space)."""
    lines = ["Got it, thanks.", "", "On Sun, 22 Nov 2026, Alice wrote:"]
    if shape == "soft-breaks":
        lines += [("> " + line) if line else ">" for line in flow_at_spaces(text)]
    else:  # no soft break at all, only the blank lines written as '> '
        assert all(len(line) <= 76 for line in text.splitlines())
        lines += ["> " + line for line in text.splitlines()]
    return by_hand(lines, "text/plain; charset=utf-8; format=flowed")


def v_html_alternative(text: str) -> bytes:
    """multipart/alternative as GUI clients send it: the text/plain part and an HTML rendering."""
    import html

    msg = envelope()
    msg.set_content(INTRO + text + OUTRO)
    rendered = "".join(f"<div>{html.escape(line) or '<br>'}</div>" for line in (INTRO + text).splitlines())
    msg.add_alternative(f'<html><body><div dir="ltr">{rendered}</div></body></html>\n', subtype="html")
    return bytes(msg)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape", ["soft-breaks", "blank-lines-as-quote-space"])
def test_flowed_reply_quoting_a_message(template, tmp_path, shape, mode):
    game = copy_game(template.table, tmp_path)
    raw = v_flowed_reply(template.text("move1"), shape)
    applied(run_jobs(apply_job(game.players["bob"], raw, mode, tmp_path, "--json"))[0], [template.move1])
    check_received(template, game, "move")


@pytest.mark.parametrize("mode", MODES)
def test_html_alternative_does_not_hide_the_plain_part(template, tmp_path, mode):
    game = copy_game(template.table, tmp_path)
    raw = v_html_alternative(template.text("move1"))
    applied(run_jobs(apply_job(game.players["bob"], raw, mode, tmp_path, "--json"))[0], [template.move1])
    check_received(template, game, "move")


# ------------------------------------------------------------------------------ mails no parser expects

def by_bytes(headers: list[str], body: bytes) -> bytes:
    return "".join(line + "\n" for line in ["From: alice@example.org", "To: bob@example.org", *headers]).encode() \
        + b"\n" + body


def inbox_of(player, folder: Path, *mails: bytes) -> tuple[int, str, str]:
    import mailbox

    box = mailbox.Maildir(str(folder), create=True)
    for raw in mails:
        box.add(raw)
    return player.cli("inbox", "--maildir", str(folder))


def test_mails_whose_message_id_cannot_be_parsed_are_read_once(template, tmp_path):
    """A Message-ID the standard parser fails on (<@>, <, <a@[) gives the mail a key of its bytes'
    hash: a spam is skipped, a move is applied, and the next run finds nothing new."""
    game = copy_game(template.table, tmp_path)
    bob = game.players["bob"]
    spams = [by_bytes(["Subject: buy now", f"Message-ID: {bad}"], b"cheap\n") for bad in ("<@>", "<")]
    move = by_bytes(["Subject: pbem err-game", "Message-ID: <a@["], template.move1.stored())
    code, out, err = inbox_of(bob, tmp_path / "mail", *spams, move)
    assert (code, err) == (0, "") and "1 new mail(s), 2 skipped" in out, (code, out, err)
    check_received(template, game, "move")
    assert inbox_of(bob, tmp_path / "mail") == (0, "0 new mail(s), 3 skipped\n", "")


def utf7_mail(template: Template) -> bytes:
    """A message in utf-7 whose note decodes to a lone surrogate (+2D0-), which has no UTF-8 bytes."""
    assert b" marches " in template.move1.body
    return by_bytes(["Subject: pbem err-game", "Message-ID: <utf7@example.org>", "MIME-Version: 1.0",
                     "Content-Type: text/plain; charset=utf-7"],
                    template.move1.stored().replace(b" marches ", b" +2D0- "))


@pytest.mark.parametrize("mode", MODES)
def test_a_mail_whose_charset_gives_no_text_is_refused_in_one_line(template, tmp_path, mode):
    game = copy_game(template.table, tmp_path)
    bob = game.players["bob"]
    before = snapshot(bob.dir)
    code, out, err = run_jobs(apply_job(bob, utf7_mail(template), mode, tmp_path))[0]
    assert code in (2, 3), (code, out, err)  # utf-7 also turns the armor's '+' into other text
    one_line_error(err)
    assert changes(before, snapshot(bob.dir)) == {"added": [], "removed": [], "changed": []}


def test_the_inbox_refuses_a_mail_whose_charset_gives_no_text_once(template, tmp_path):
    game = copy_game(template.table, tmp_path)
    bob = game.players["bob"]
    code, out, err = inbox_of(bob, tmp_path / "mail", utf7_mail(template))
    assert code in (2, 3), (code, out, err)
    one_line_error(err)
    assert err.startswith("error: refused mail <utf7@example.org>: ") and "(marked read" in err
    assert inbox_of(bob, tmp_path / "mail") == (0, "0 new mail(s), 1 skipped\n", "")
