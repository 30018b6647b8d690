"""The throwaway dovecot of tests/imap_server.py, read with the standard library's imaplib.

Proves the fixture gives a real IMAP server: login, APPEND, SELECT, SEARCH, FETCH byte for byte,
STORE \\Seen (and dovecot writing it into the Maildir file name), and mails dropped straight
into the Maildir's new/ showing up, before login and while the mailbox is selected.
"""

from __future__ import annotations

import imaplib
import re
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from imap_server import ImapServer

# Registers the imap_server fixture (importing the module here too would keep pytest from
# rewriting its asserts).
pytest_plugins = ["imap_server"]

# CRLF line ends and 8-bit UTF-8 in the body: IMAP gives a message back as it was appended.
MESSAGE = (
    b"From: Alice <alice@example.org>\r\n"
    b"To: Bob <bob@example.org>\r\n"
    b"Subject: seq 1\r\n"
    b"Message-ID: <seq1.test@example.org>\r\n"
    b"MIME-Version: 1.0\r\n"
    b"Content-Type: text/plain; charset=utf-8\r\n"
    b"Content-Transfer-Encoding: 8bit\r\n"
    b"\r\n"
    b"The third corps marches at dawn \xe2\x80\x94 through the Argonne.\r\n"
    b"-----BEGIN PBEM MESSAGE-----\r\n"
    b"  leading spaces and a trailing one \r\n"
    b"-----END PBEM MESSAGE-----\r\n"
)


def ok(result: tuple[str, list]) -> list:
    typ, data = result
    assert typ == "OK", (typ, data)
    return data


def flags(imap: imaplib.IMAP4, uid: bytes) -> str:
    data = ok(imap.uid("FETCH", uid, "(FLAGS)"))
    return re.search(rb"FLAGS \(([^)]*)\)", data[0])[1].decode()


def body(imap: imaplib.IMAP4, uid: bytes) -> bytes:
    """The whole message, fetched with BODY.PEEK[] so reading it sets no \\Seen flag."""
    data = ok(imap.uid("FETCH", uid, "(BODY.PEEK[])"))
    return data[0][1]


def test_append_search_fetch_store(imap_server: ImapServer) -> None:
    imap = imap_server.connect()
    try:
        appended = ok(imap.append("INBOX", None, None, MESSAGE))
        assert b"APPENDUID" in appended[0]
        assert ok(imap.select("INBOX")) == [b"1"]
        assert ok(imap.uid("SEARCH", None, "UNSEEN")) == [b"1"]
        uids = ok(imap.uid("SEARCH", None, "HEADER", "Message-ID", "<seq1.test@example.org>"))
        assert uids == [b"1"]
        assert ok(imap.uid("SEARCH", None, "SUBJECT", '"seq 2"')) == [b""]

        assert body(imap, b"1") == MESSAGE
        assert "\\Seen" not in flags(imap, b"1")

        ok(imap.uid("STORE", b"1", "+FLAGS", "(\\Seen)"))
        assert "\\Seen" in flags(imap, b"1")
        assert ok(imap.uid("SEARCH", None, "UNSEEN")) == [b""]
        assert ok(imap.uid("SEARCH", None, "SEEN")) == [b"1"]
    finally:
        imap.logout()

    # A second session sees the same message and flag; dovecot keeps them in the Maildir.
    imap = imap_server.connect()
    try:
        ok(imap.select("INBOX", readonly=True))
        assert body(imap, b"1") == MESSAGE
        assert flags(imap, b"1") == "\\Seen"
    finally:
        imap.logout()
    [stored] = (imap_server.maildir / "cur").iterdir()
    assert stored.name.endswith(":2,S")


def test_mail_dropped_into_maildir_is_visible(imap_server: ImapServer) -> None:
    # LF line ends on disk, as an MTA writes them: IMAP serves the same bytes with CRLF.
    first = imap_server.deliver(MESSAGE.replace(b"\r\n", b"\n"))
    imap = imap_server.connect()
    try:
        assert ok(imap.select("INBOX")) == [b"1"]
        assert not first.exists()  # dovecot moved it from new/ to cur/ on SELECT
        [uid] = ok(imap.uid("SEARCH", None, "ALL"))[0].split()
        assert body(imap, uid) == MESSAGE

        # A mail arriving while INBOX is selected shows up at the next NOOP.
        second = MESSAGE.replace(b"seq 1", b"seq 2").replace(b"<seq1.", b"<seq2.")
        imap_server.deliver(second)
        ok(imap.noop())
        assert ok(imap.select("INBOX")) == [b"2"]
        [uid2] = ok(imap.uid("SEARCH", None, "SUBJECT", '"seq 2"'))[0].split()
        assert body(imap, uid2) == second
        assert ok(imap.uid("SEARCH", None, "UNSEEN"))[0].split() == [uid, uid2]
    finally:
        imap.logout()


def test_wrong_password_is_refused(imap_server: ImapServer) -> None:
    imap = imap_server.connect(login=False)
    try:
        with pytest.raises(imaplib.IMAP4.error, match="AUTHENTICATIONFAILED"):
            imap.login(imap_server.user, "not-" + imap_server.password)
        ok(imap.login(imap_server.user, imap_server.password))
    finally:
        imap.logout()
