"""Signed TOML messages (PROTOCOL.md §3): normalise, ids, strict parsing, emitting, finding in mail."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta, timezone

import pytest
from helpers import changes, copy_game, setup_game, snapshot, stored, write
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pbem import keys, message, sshsig
from pbem.errors import BadSignature, UnreadableInput

SIGNER = keys.FileSigner.from_seed(bytes([1]) * 32, "alice")
OTHER = keys.FileSigner.from_seed(bytes([2]) * 32, "bob")
TIME = datetime(2026, 11, 22, 10, 31, tzinfo=UTC)


def move(**changes) -> dict:
    fields = {
        "pbem": 1,
        "type": "move",
        "game": "g",
        "player": "alice",
        "seq": 1,
        "prev": "0" * 64,
        "time": TIME,
        "salt": "1" * 64,
        "state": "2" * 64,
        "orders": [{"kind": "note", "text": "hello"}],
    }
    fields.update(changes)
    return fields


def note(text: str) -> dict:
    return move(orders=[{"kind": "note", "text": text}])


def stored_text(fields: dict | None = None) -> str:
    return message.sign(fields or move(), SIGNER).stored().decode()


def quote(text: str, prefix: str = "> ") -> str:
    """Quote every line as a mail client does: empty lines get the prefix without its spaces."""
    lines = text[:-1].split("\n") if text.endswith("\n") else text.split("\n")
    return "\n".join(prefix + line if line else prefix.rstrip() for line in lines) + "\n"


def line_lengths(data: bytes) -> list[int]:
    return [len(line) for line in data.decode().split("\n")]


# --------------------------------------------------------------------------------- normalise


def test_normalise_crlf_and_trailing_white_space():
    assert message.normalise("a = 1 \t\r\nb = \"x\"\t\r\n\r\nc = 2  \n") == b'a = 1\nb = "x"\n\nc = 2\n'


def test_normalise_keeps_leading_and_inner_white_space():
    assert message.normalise("  a =\t1\n") == b"  a =\t1\n"


def test_normalise_stops_at_the_signature_line():
    text = "a = 1\n# -----BEGIN SSH SIGNATURE-----\n# AAAA  \n# -----END SSH SIGNATURE-----\n"
    assert message.normalise(text) == b"a = 1\n"
    assert message.normalise(text.replace("\n", "\r\n")) == b"a = 1\n"
    assert message.normalise("a = 1\n# -----BEGIN SSH SIGNATURE-----") == b"a = 1\n"


# ---------------------------------------------------------------------------------------- ids


def test_id_is_sha256_of_normalised_bytes():
    m = message.sign(move(), SIGNER)
    assert m.id == hashlib.sha256(m.body).hexdigest()
    assert message.parse(m.stored()).id == m.id


def test_crlf_and_trailing_spaces_copy_has_the_same_id():
    m = message.sign(note("some text"), SIGNER)
    text = m.stored().decode()
    body, armor = text.split("# -----BEGIN", 1)
    mangled = ("".join(line + " \t \r\n" for line in body.split("\n")[:-1]) + "# -----BEGIN"
               + armor.replace("\n", "\r\n"))
    copy = message.parse(mangled)
    assert copy.id == m.id
    assert copy.body == m.body
    assert copy.signature == m.signature
    copy.verify(SIGNER.public.raw)


def test_trailing_spaces_on_the_armor_lines_keep_the_id():
    m = message.sign(move(), SIGNER)
    mangled = m.stored().decode().replace("\n", "  \r\n")
    assert message.parse(mangled).id == m.id


def test_changed_body_changes_id_and_fails_verification():
    m = message.sign(note("attack at dawn"), SIGNER)
    forged = message.parse(m.stored().decode().replace("attack at dawn", "attack at dusk"))
    assert forged.id != m.id
    with pytest.raises(BadSignature) as err:
        forged.verify(SIGNER.public.raw)
    assert err.value.entry == forged.id and err.value.player == "alice" and err.value.seq == 1
    with pytest.raises(BadSignature):
        m.verify(OTHER.public.raw)


# ------------------------------------------------------------------------------- strict parse


def insert_after(key_line: str, extra: str):
    return lambda text: text.replace(key_line + "\n", key_line + "\n" + extra + "\n", 1)


def replace(old: str, new: str):
    def mutate(text: str) -> str:
        assert old in text
        return text.replace(old, new, 1)

    return mutate


FIELD_ERRORS = [
    ("unknown key", insert_after("seq = 1", "foo = 2"), "foo"),
    ("unknown table", lambda t: t.replace("[[orders]]", "[extra]\nx = 1\n\n[[orders]]"), "extra"),
    ("bad game name", replace('game = "g"', 'game = "G"'), "game"),
    ("game name too long", replace('game = "g"', 'game = "' + "g" * 33 + '"'), "game"),
    ("player starts with digit", replace('player = "alice"', 'player = "1alice"'), "player"),
    ("unknown type", replace('type = "move"', 'type = "jump"'), "type"),
    ("protocol version", replace("pbem = 1", "pbem = 2"), "pbem"),
    ("seq is a string", replace("seq = 1\n", 'seq = "1"\n'), "seq"),
    ("seq negative", replace("seq = 1\n", "seq = -1\n"), "seq"),
    ("seq is a bool", replace("seq = 1\n", "seq = true\n"), "seq"),
    ("time is a string", replace("time = 2026-11-22T10:31:00Z", 'time = "2026-11-22T10:31:00Z"'), "time"),
    ("time not UTC", replace("time = 2026-11-22T10:31:00Z", "time = 2026-11-22T11:31:00+01:00"), "time"),
    ("time local", replace("time = 2026-11-22T10:31:00Z", "time = 2026-11-22T10:31:00"), "time"),
    ("prev too short", replace('prev = "' + "0" * 64, 'prev = "' + "0" * 63), "prev"),
    ("prev too long", replace('prev = "' + "0" * 64, 'prev = "' + "0" * 65), "prev"),
    ("salt uppercase", replace('salt = "' + "1" * 64, 'salt = "' + "A" * 64), "salt"),
    ("state not hex", replace('state = "' + "2" * 64, 'state = "' + "g" * 64), "state"),
    ("state is an int", replace('state = "' + "2" * 64 + '"', "state = 2"), "state"),
    ("uses uppercase", insert_after('state = "' + "2" * 64 + '"', 'uses = ["' + "AB" * 32 + '"]'), "uses"),
    ("uses twice", insert_after('state = "' + "2" * 64 + '"', 'uses = ["' + "ab" * 32 + '", "' + "ab" * 32 + '"]'),
     "uses"),
    ("uses not a list", insert_after('state = "' + "2" * 64 + '"', 'uses = "' + "ab" * 32 + '"'), "uses"),
    ("private odd length", insert_after('state = "' + "2" * 64 + '"', 'private = "abc"'), "private"),
    ("private uppercase", insert_after('state = "' + "2" * 64 + '"', 'private = "ABCD"'), "private"),
    ("missing state", replace('state = "' + "2" * 64 + '"\n', ""), "state"),
    ("missing seq", replace("seq = 1\n", ""), "seq"),
    ("missing player", replace('player = "alice"\n', ""), "player"),
    ("order kind uppercase", replace('kind = "note"', 'kind = "Note"'), "orders[1].kind"),
    ("order kind missing", replace('kind = "note"\n', ""), "orders[1].kind"),
    ("order value float", replace('text = "hello"', "text = 1.5"), "orders[1].text"),
    ("order value table", replace('text = "hello"', "text = { a = 1 }"), "orders[1].text"),
    ("order key not a name", replace('text = "hello"', 'Text = "hello"'), "orders[1].Text"),
    ("orders not tables", replace("\n[[orders]]\nkind = \"note\"\ntext = \"hello\"\n", '\norders = ["x"]\n'), "orders"),
]


@pytest.mark.parametrize("mutate, field", [case[1:] for case in FIELD_ERRORS], ids=[case[0] for case in FIELD_ERRORS])
def test_parse_rejects_with_the_field_named(mutate, field):
    text = mutate(stored_text())
    with pytest.raises(UnreadableInput) as err:
        message.parse(text)
    assert err.value.field == field
    assert f"field '{field}'" in str(err.value)
    assert err.value.exit_code == 2
    if field not in ("player",):
        assert err.value.player == "alice"


def test_parse_rejects_second_order_with_its_index():
    fields = move(orders=[{"kind": "note", "text": "a"}, {"kind": "note", "text": "b"}])
    text = stored_text(fields).replace('text = "b"', "text = 2.5")
    with pytest.raises(UnreadableInput) as err:
        message.parse(text)
    assert err.value.field == "orders[2].text"


@pytest.mark.parametrize(
    "side, field",
    [
        ({"type": "join", "charter": "a" * 64, "anchor": "b" * 64, "hcommit": "c" * 64, "chain_length": "65536"},
         "chain_length"),
        ({"type": "reveal", "for": "a" * 64, "seq": 3, "value": "b" * 63}, "value"),
        ({"type": "seal", "for": "a" * 64, "seq": 3}, "sealed"),
        ({"type": "unseal", "for": "a" * 64, "seq": 3, "key": "b" * 64, "orders": 5}, "orders"),
        ({"type": "disclose", "upto": 4, "hidden": "b" * 64, "seq": 4}, "seq"),
        ({"type": "resign", "at": "a" * 64, "reason": ["x"]}, "reason"),
    ],
)
def test_parse_fields_side_messages(side, field):
    def scalar(value):
        return f'"{value}"' if isinstance(value, str) else str(value).replace("'", '"')

    body = "pbem = 1\n" + f'type = "{side["type"]}"\ngame = "g"\nplayer = "alice"\n'
    body += "".join(f"{key} = {scalar(value)}\n" for key, value in side.items() if key != "type")
    with pytest.raises(UnreadableInput) as err:
        message.parse_fields(body.encode())
    assert err.value.field == field
    assert err.value.kind == side["type"]


def test_parse_accepts_every_side_kind():
    for fields in [
        {"type": "join", "charter": "a" * 64, "anchor": "b" * 64, "hcommit": "c" * 64, "chain_length": 65536},
        {"type": "reveal", "for": "a" * 64, "seq": 3, "value": "b" * 64},
        {"type": "seal", "for": "a" * 64, "seq": 3, "sealed": "c" * 64},
        {"type": "unseal", "for": "a" * 64, "seq": 3, "key": "b" * 64, "orders": '[[orders]]\nkind = "x"\n'},
        {"type": "disclose", "upto": 4, "hidden": "b" * 64},
        {"type": "resign", "at": "a" * 64},
    ]:
        full = {"pbem": 1, "game": "g", "player": "alice", **fields}
        m = message.parse(message.sign(full, SIGNER).stored())
        assert m.fields == full
        m.verify(SIGNER.public.raw)


def test_parse_rejects_over_64_kib():
    text = stored_text().replace('text = "hello"', 'text = "' + "x" * (64 * 1024) + '"')
    with pytest.raises(UnreadableInput) as err:
        message.parse(text)
    assert "64 KiB" in str(err.value)
    with pytest.raises(UnreadableInput):  # nor will the emitter sign one
        message.sign(note("x" * (64 * 1024)), SIGNER)


def test_64_kib_boundary():
    body = message.emit_body(move())
    room = message.MAX_BYTES - len(body) - 2  # '#' and LF
    exact = body + b"#" + b"x" * room + b"\n"
    assert len(exact) == message.MAX_BYTES
    assert message.parse_fields(exact)["seq"] == 1
    with pytest.raises(UnreadableInput):
        message.parse_fields(body + b"#" + b"x" * (room + 1) + b"\n")


def test_parse_rejects_non_utf8():
    data = stored_text(note("caf\u00e9")).encode().replace("caf\u00e9".encode(), b"caf\xe9")
    with pytest.raises(UnreadableInput) as err:
        message.parse(data)
    assert "UTF-8" in str(err.value)
    with pytest.raises(UnreadableInput):
        message.parse_fields(b'pbem = 1\ntype = "m\xffove"\n')


def test_parse_rejects_malformed_toml():
    with pytest.raises(UnreadableInput) as err:
        message.parse(stored_text().replace("[[orders]]", "[[orders"))
    assert "malformed TOML" in str(err.value)
    with pytest.raises(UnreadableInput):
        message.parse(stored_text().replace("seq = 1\n", "seq = 1\nseq = 2\n"))  # duplicate key


def test_parse_rejects_a_charter():
    with pytest.raises(UnreadableInput) as err:
        message.parse_fields(b'ruleset = "freeform"\nnonce = "ab"\n')
    assert "charter" in str(err.value)


def test_unsigned_message_is_a_bad_signature():
    text = stored_text().split("# -----BEGIN")[0]
    with pytest.raises(BadSignature) as err:
        message.parse(text)
    assert err.value.field == "signature"
    assert err.value.exit_code == 3
    assert err.value.entry == hashlib.sha256(text.encode()).hexdigest()


def test_begin_without_end_is_unreadable():
    text = stored_text()
    truncated = text[: text.index("# -----END")]
    with pytest.raises(UnreadableInput) as err:
        message.parse(truncated)
    assert err.value.field == "signature"
    assert "END" in str(err.value)


def test_garbled_armor_is_a_bad_signature():
    text = stored_text()
    lines = text.split("\n")
    lines[-4] = "# !!!!" + lines[-4][6:]
    with pytest.raises(BadSignature) as err:
        message.parse("\n".join(lines))
    assert err.value.field == "signature"


# ----------------------------------------------------------------------------------- emitting


def assert_within_76(m: message.Message) -> None:
    assert max(line_lengths(m.body)) <= 76
    assert max(line_lengths(m.stored())) <= 76


def test_emit_key_order_and_layout():
    body = message.emit_body(move(uses=["ab" * 32], private="00ff"))
    assert body.decode().split("\n")[:12] == [
        "pbem = 1",
        'type = "move"',
        'game = "g"',
        'player = "alice"',
        "seq = 1",
        'prev = "' + "0" * 64 + '"',
        "time = 2026-11-22T10:31:00Z",
        'salt = "' + "1" * 64 + '"',
        'state = "' + "2" * 64 + '"',
        'uses = ["' + "ab" * 32 + '"]',
        'private = "00ff"',
        "",
    ]
    assert body.endswith(b'\n[[orders]]\nkind = "note"\ntext = "hello"\n')


def test_emit_time_in_utc():
    body = message.emit_body(move(time=datetime(2026, 11, 22, 11, 31, tzinfo=timezone(timedelta(hours=1)))))
    assert b"\ntime = 2026-11-22T10:31:00Z\n" in body


def test_emit_long_note_within_76_columns():
    text = "The 7th Panzer crosses the Our at Dasburg; " * 12 + "x" * 200
    m = message.sign(note(text), SIGNER)
    assert_within_76(m)
    assert len(m.body.decode().split("\n")) > 10
    assert message.parse(m.stored()).orders[0]["text"] == text


def test_emit_long_reason_within_76_columns():
    reason = "I have to leave for a long trip and cannot keep up with the deadlines. " * 5
    fields = {"pbem": 1, "type": "resign", "game": "g", "player": "alice", "at": "a" * 64, "reason": reason}
    m = message.sign(fields, SIGNER)
    assert_within_76(m)
    assert b'reason = """\\\n' in m.body
    parsed = message.parse(m.stored())
    assert parsed.fields["reason"] == reason
    parsed.verify(SIGNER.public.raw)


def test_emit_many_uses_within_76_columns():
    uses = [hashlib.sha256(str(i).encode()).hexdigest() for i in range(40)]
    m = message.sign(move(uses=uses), SIGNER)
    assert_within_76(m)
    assert message.parse(m.stored()).uses == uses


def test_emit_long_unseal_orders_text():
    orders = '[[orders]]\nkind = "overture"\nump = "prussia"\npoints = 2\n' * 5
    fields = {"pbem": 1, "type": "unseal", "game": "g", "player": "alice", "for": "a" * 64, "seq": 3,
              "key": "b" * 64, "orders": orders}
    m = message.sign(fields, SIGNER)
    assert_within_76(m)
    assert message.parse(m.stored()).fields["orders"] == orders


def test_emit_refuses_unknown_fields():
    with pytest.raises(ValueError):
        message.emit_body(move(colour="red"))


def test_sign_refuses_what_the_reader_refuses():
    with pytest.raises(UnreadableInput) as err:
        message.sign(move(game="Bad Name"), SIGNER)
    assert err.value.field == "game"


def test_emit_long_string_inside_a_list():
    items = ["a fairly long unit designation " * 3, "short"]
    m = message.sign(move(orders=[{"kind": "note", "units": items}]), SIGNER)
    assert_within_76(m)
    assert message.parse(m.stored()).orders[0]["units"] == items


SPECIAL = st.sampled_from(['"', "\\", " ", "  ", "\n", "\t", "\r", "'", '"""', "\\n", "#", "\u2028", "\x00", "\x7f"])
NOTE_TEXT = st.one_of(
    st.text(max_size=400),
    st.lists(st.one_of(st.text(min_size=1, max_size=12), SPECIAL), max_size=120).map("".join),
    # long enough to be split over continuation lines
    st.lists(st.one_of(st.text(min_size=1, max_size=12), SPECIAL), min_size=40, max_size=150).map("".join),
)


@settings(max_examples=200, deadline=None)
@given(text=NOTE_TEXT)
@example(text="")
@example(text=" " * 200)
@example(text="\t leading white space then text " * 5)
@example(text='ends with a quote "' * 6)
@example(text="ends with a backslash \\" * 6)
@example(text='"""' * 40)
@example(text="line one\nline two\n\n   indented line\n" * 4)
@example(text="# -----BEGIN SSH SIGNATURE-----\n" * 3)
@example(text="\u00e9\u4e2d\U0001f3b2" * 40)
def test_long_strings_round_trip(text):
    m = message.sign(note(text), SIGNER)
    assert max(line_lengths(m.body)) <= 76
    parsed = message.parse(m.stored())
    assert parsed.orders == [{"kind": "note", "text": text}]
    assert parsed.id == m.id
    assert parsed.body == m.body
    parsed.verify(SIGNER.public.raw)
    found = message.find("Hi,\n\n" + quote(m.stored().decode()) + "\n-- \nBob\n")
    assert [f.id for f in found] == [m.id]


# --------------------------------------------------------------------------------------- find


MAIL_INTRO = "Hello Bob,\n\nhere is my move for turn 3.\n\n"
MAIL_SIG = "\nGood luck!\n\n-- \nAlice\nhttps://example.org/~alice\n"


def test_find_in_a_quoted_mail_with_crlf():
    m = message.sign(note("first move"), SIGNER)
    mail = MAIL_INTRO + quote(m.stored().decode()) + MAIL_SIG
    assert "\n>\n" in mail  # the empty line before [[orders]] quoted as a bare '>'
    found = message.find(mail.replace("\n", "\r\n"))
    assert [f.id for f in found] == [m.id]
    assert found[0].body == m.body
    assert found[0].signature == m.signature
    found[0].verify(SIGNER.public.raw)


def test_find_with_quote_prefix_followed_by_spaces_on_empty_lines():
    m = message.sign(note("first move"), SIGNER)
    mail = quote(m.stored().decode()).replace("\n>\n", "\n> \n")
    assert [f.id for f in message.find(mail)] == [m.id]


def test_find_in_double_quoting():
    m = message.sign(note("quoted twice"), SIGNER)
    once = "Alice wrote:\n" + quote(m.stored().decode()) + quote(MAIL_SIG)
    mail = "Bob wrote:\n" + quote(once) + "\nSee you.\n"
    assert "\n> > pbem = 1\n" in mail and "\n> >\n" in mail
    found = message.find(mail)
    assert [f.id for f in found] == [m.id]
    found[0].verify(SIGNER.public.raw)


@pytest.mark.parametrize("level, depth, full", [("> ", 3, "> > > "), (">> ", 1, ">> "), (">", 1, ">"), (">", 2, ">>")])
def test_find_in_other_quotings(level, depth, full):
    m = message.sign(note("quoted"), SIGNER)
    text = m.stored().decode() + MAIL_SIG
    for _ in range(depth):
        text = quote(text, level)
    assert text.startswith(full + "pbem = 1\n")
    found = message.find("Someone wrote:\n" + text)
    assert [f.id for f in found] == [m.id]
    assert found[0].body == m.body


def test_find_unquoted_message_surrounded_by_text():
    m = message.sign(note("plain"), SIGNER)
    found = message.find(MAIL_INTRO + m.stored().decode() + MAIL_SIG)
    assert [f.id for f in found] == [m.id]


def test_find_two_messages_in_one_text():
    first = message.sign(note("first"), SIGNER)
    reveal = {"pbem": 1, "type": "reveal", "game": "g", "player": "bob", "for": first.id, "seq": 1,
              "value": "3" * 64}
    second = message.sign(reveal, OTHER)
    mail = (MAIL_INTRO + second.stored().decode() + "\nand the quoted move:\n" + quote(first.stored().decode())
            + MAIL_SIG)
    found = message.find(mail)
    assert [f.id for f in found] == [second.id, first.id]
    assert [f.type for f in found] == ["reveal", "move"]
    found[0].verify(OTHER.public.raw)
    found[1].verify(SIGNER.public.raw)


def test_find_back_to_back_messages():
    a = message.sign(note("a"), SIGNER)
    b = message.sign(note("b"), SIGNER)
    found = message.find(a.stored().decode() + b.stored().decode())
    assert [f.id for f in found] == [a.id, b.id]


def test_find_counts_the_same_message_once():
    m = message.sign(note("twice"), SIGNER)
    stored = m.stored().decode()
    mail = MAIL_INTRO + stored + MAIL_SIG + "\n" + quote(stored) + "\n" + stored
    found = message.find(mail)
    assert len(found) == 1
    assert found[0].id == m.id


def test_find_accepts_a_rewrapped_armor():
    m = message.sign(note("rewrapped"), SIGNER)
    armor = "".join(sshsig.armor(m.signature).splitlines()[1:-1])
    rewrapped = (
        m.body.decode()
        + "# " + sshsig.BEGIN + "\n"
        + "".join("# " + armor[i : i + 50] + "\n" for i in range(0, len(armor), 50))
        + "# " + sshsig.END + "\n"
    )
    found = message.find(quote(rewrapped))
    assert [f.id for f in found] == [m.id]
    assert found[0].signature == m.signature


def test_find_a_line_breaking_the_quote_prefix():
    m = message.sign(note("broken"), SIGNER)
    lines = quote(m.stored().decode()).split("\n")
    lines[4] = lines[4][2:]  # the mail client lost the quote on the 5th line
    with pytest.raises(UnreadableInput) as err:
        message.find(MAIL_INTRO + "\n".join(lines))
    assert "breaks the quoting" in str(err.value)
    assert f"line {MAIL_INTRO.count(chr(10)) + 5}" in str(err.value)


def test_find_nothing():
    assert message.find(MAIL_INTRO + MAIL_SIG) == []
    assert message.find("pbem = 10\n") == []


# ------------------------------------------------------------------------- integers (TOML: 64 bits)

@pytest.fixture(scope="module")
def started(tmp_path_factory):
    """A started three-player game (helpers.setup_game); the tests only read it or are refused."""
    return setup_game(tmp_path_factory.mktemp("integers"))


@pytest.mark.parametrize("order", ["set counter=x value=99999999999999999999999",
                                   "set counter=x value=9223372036854775808",
                                   "set counter=x add=-9223372036854775809"])
def test_a_move_with_an_integer_over_64_bits_is_not_signed(started, order):
    alice = started["alice"]
    before = snapshot(alice.dir)
    code, out, err = alice.cli("move", order)
    assert code == 2 and err.count("\n") == 1, (code, out, err)
    assert "field 'orders[1]." in err and "outside the signed 64-bit range" in err
    assert changes(before, snapshot(alice.dir)) == {"added": [], "removed": [], "changed": []}


@pytest.mark.parametrize("value, words", [
    (b"9223372036854775808", "field 'orders[1].n': 9223372036854775808 is outside the signed 64-bit range"),
    (b"-9223372036854775809", "field 'orders[1].n': -9223372036854775809 is outside the signed 64-bit range"),
    (b"[1, 99999999999999999999]", "field 'orders[1].n': 99999999999999999999 is outside"),
    (b"1" * 5000, "line 14 holds an integer outside the signed 64-bit range"),  # past the reader's digit limit
], ids=["2^63", "-2^63-1", "in-a-list", "5000-digits"])
def test_a_message_with_an_integer_over_64_bits_is_refused(started, tmp_path, value, words):
    """Signed by its author all the same: the reader refuses it before any signature check."""
    body = started.draft("alice", [{"kind": "note", "text": "x"}]).body
    body = body.replace(b'text = "x"\n', b'text = "x"\nn = ' + value + b"\n")
    path = write(tmp_path / "big.toml", stored(body, started["alice"].signer))
    bob = started["bob"]
    before = snapshot(bob.dir)
    code, out, err = bob.cli("apply", str(path))
    assert code == 2 and err.count("\n") == 1 and words in err, (code, out, err)
    assert changes(before, snapshot(bob.dir)) == {"added": [], "removed": [], "changed": []}


def test_the_64_bit_bounds_themselves_are_signed(started, tmp_path):
    alice = copy_game(started, tmp_path)["alice"]
    code, out, err = alice.cli("move", "set counter=x value=9223372036854775807",
                               "set counter=y value=-9223372036854775808", "--json")
    assert code == 0, (out, err)
