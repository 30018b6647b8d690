"""A player's text reaches the other players' terminals exactly as written, and harmlessly.

Notes, counter names, roll purposes and results are the players' own words: they may hold rich
markup (`[/]`, `[link=…]`), emoji codes, terminal escapes (ESC, CR, BEL) or bidirectional overrides.
Every view (`apply`, `show`, `log`, `report`, `status`, `verify --roll`) prints them literally, with
control characters shown as escapes such as \\x1b, and never fails on them.
"""

from __future__ import annotations

import pytest
from helpers import run_cli, setup_game, stored, write

NOTE = "[/] [link=file:///etc/passwd]x[/link] \x1b[31mred\x1b[0m a\rb \u202eevil :smile:"
COUNTER = "[/]"
PURPOSE = "[/]\x1b[2J"
RESULT = "[bold]\x1b]8;;x\x07won"
RAW = ("\x1b", "\r", "\x07", "\u202e")  # what must never reach the terminal


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    """alice notes, counts and rolls in hostile words (carol applies it with the CLI); the witnesses
    reveal; bob ends the game with a hostile result."""
    table = setup_game(tmp_path_factory.mktemp("hostile-text"))
    orders = [{"kind": "note", "text": NOTE}, {"kind": "set", "counter": COUNTER, "add": 1},
              {"kind": "roll", "dice": "2d6", "purpose": PURPOSE}]
    _, path = table.move("alice", orders, to=["bob"])
    carol = table["carol"]
    applied = carol.cli("apply", str(path))
    table.reveal_all()
    table.move("bob", [{"kind": "end", "result": RESULT}])
    return table, applied


def shown_literally(result: tuple[int, str, str], *texts: str) -> str:
    code, out, err = result
    assert (code, err) == (0, ""), (code, out, err)
    assert not [raw for raw in RAW if raw in out], out
    for text in texts:
        assert text in out, (text, out)
    return out


def test_apply_shows_the_orders_as_written(game):
    _, applied = game
    # the orders as they would be typed (pbem/orders.py escapes control characters as TOML does)
    shown_literally(applied, 'note text="[/] [link=file:///etc/passwd]x[/link] \\u001b[31mred\\u001b[0m a\\rb '
                             '\\u202eevil :smile:"; set counter="[/]" add=1')


@pytest.mark.parametrize("command, texts", [
    (["show"], ["[/]", "[bold]\\x1b]8;;x\\x07won", "for '[/]\\x1b[2J'"]),
    (["log"], ["[link=file:///etc/passwd]x[/link]", "\\u001b[31mred", "[/]\\x1b[2J, freeform.roll",
               'end result="[bold]\\u001b]8;;x\\u0007won"']),
    (["report"], ["Game over: [bold]\\x1b]8;;x\\x07won", "[link=file:///etc/passwd]x[/link]"]),
    (["status"], ["Game over: [bold]\\x1b]8;;x\\x07won"]),
    (["verify", "--roll", "1"], ["[/]\\x1b[2J"]),
])
def test_every_view_shows_a_players_text_literally(game, command, texts):
    table, _ = game
    for name in ("alice", "carol"):
        shown_literally(table[name].cli(*command), *texts)


def test_a_report_file_holds_the_text_literally(game, tmp_path):
    table, _ = game
    carol = table["carol"]
    code, out, err = run_cli(["report", "--text", str(tmp_path / "report.txt")], carol.dir, home=carol.home)
    assert code == 0, (out, err)
    written = (tmp_path / "report.txt").read_text()
    assert 'note text="[/]' in written and "([/]\\x1b[2J," in written and not [raw for raw in RAW if raw in written]


@pytest.mark.parametrize("extra", [b'"\\u001b[2J" = 1\n', b'text = "x"\n"\\u001b[2J" = 1\n'], ids=["message", "order"])
def test_a_key_that_is_no_name_is_named_escaped(tmp_path, extra):
    """The line refusing a message names the key at fault, escaped: the key is a stranger's text."""
    table = setup_game(tmp_path)
    body = table.draft("alice", [{"kind": "note", "text": "x"}]).body
    body = body.replace(b'text = "x"\n', extra) if b"text" in extra else b"pbem = 1\n" + extra + body[9:]
    path = write(tmp_path / "key.toml", stored(body, table["alice"].signer))
    code, out, err = table["bob"].cli("apply", str(path))
    assert code == 2 and "\\x1b[2J': " in err and "\x1b" not in err and err.count("\n") == 1, (code, out, err)


def test_an_error_naming_a_hostile_value_escapes_it():
    """Text from input that reaches an error line cannot drive the terminal: escapes are shown literally."""
    from pbem.errors import IllegalOrder

    line = str(IllegalOrder("no space \x1b[2Jhere\u202e", player="mal\x07lory", field="a\nb"))
    assert line == "player mal\\x07lory, field 'a b': no space \\x1b[2Jhere\\u202e"


@pytest.mark.parametrize("orders, field", [
    (["roll dice=2d6+99999999999 purpose=x"], "orders[1].dice"),
    (["roll dice=2d6" + "+1" * 120 + " purpose=x"], "orders[1].dice"),
    (["set counter=vp value=" + "9" * 5000], "orders[1].value"),
    (["set counter=vp value=9223372036854775807", "set counter=vp add=1"], "orders[2].add"),
])
def test_numbers_beyond_any_sensible_range_are_refused_by_rule(tmp_path, orders, field):
    """A huge constant, a 5,000-digit number or a counter pushed past 64 bits is an illegal order
    (exit 1, naming field and rule), never an internal error or a dump no reader accepts."""
    table = setup_game(tmp_path)
    code, _, err = table["alice"].cli("move", *orders)
    assert code == 1, err
    assert f"field '{field}', rule freeform." in err and err.count("\n") == 1, err


def test_a_mail_address_with_markup_is_recorded_and_shown_as_written(tmp_path):
    table = setup_game(tmp_path)
    code, out, err = table["alice"].cli("mail", "address", "bob", "[/]bob@example.org")
    assert (code, err) == (0, ""), err
    assert "bob: [/]bob@example.org" in out
