"""The ruleset contract as code (pbem/ruleset.py) and orders as values (pbem/orders.py).

Every shipped ruleset declares its optional rules and order kinds in data; `pbem new` and every
command that opens a charter check the options against their types, choices, requires and
excludes; `pbem move` reads one grammar whose inverse is each ruleset's summary; `pbem rules GAME`
lists both; `pbem move --edit` opens a template that is valid TOML.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from helpers import cli_env, open_pog_game, run_cli, setup_game, write_key
from hypothesis import given
from hypothesis import strategies as st

from pbem import orders
from pbem import ruleset as rulesets
from pbem.charter import Charter, Member
from pbem.errors import IllegalOrder, UsageError
from pbem.game import join
from pbem.ruleset import OptionSpec, Setup, resolve_options

SHIPPED = ("freeform", "paths_of_glory", "empires_in_arms", "world_in_flames")


# ---------------------------------------------------------------------------- orders as values

@pytest.mark.parametrize("ruleset_id", SHIPPED)
def test_every_declared_example_is_an_order_the_summary_writes_back(ruleset_id):
    ruleset = rulesets.load(ruleset_id)
    for kind in ruleset.order_kinds.values():
        order = orders.parse(kind.example, ruleset.order_kinds)
        assert ruleset.check_order(kind.split(order)[0]) is kind  # private fields travel encrypted
        assert ruleset.summary(order) == kind.example
        assert orders.parse(ruleset.summary(order), ruleset.order_kinds) == order


def test_lists_are_written_with_commas_or_as_a_toml_array():
    kinds = rulesets.load("paths_of_glory").order_kinds
    wanted = {"kind": "activate", "spaces": ["aachen", "koblenz"]}
    assert orders.parse("activate spaces=aachen,koblenz", kinds) == wanted
    assert orders.parse('activate spaces=["aachen", "koblenz"]', kinds) == wanted
    assert orders.parse("activate spaces='aachen, koblenz'", kinds) == wanted
    assert orders.parse("move units=ge_8_army path=memel,szawli", kinds) == {
        "kind": "move", "units": ["ge_8_army"], "path": ["memel", "szawli"]}


def test_a_value_is_read_by_the_type_its_field_declares():
    kinds = rulesets.load("freeform").order_kinds
    assert orders.parse("note text=12", kinds) == {"kind": "note", "text": "12"}  # text stays text
    assert orders.parse("set counter=vp add=-3", kinds) == {"kind": "set", "counter": "vp", "add": -3}
    assert orders.parse("set counter=vp add=three", kinds)["add"] == "three"  # the ruleset refuses it by rule
    pog = rulesets.load("paths_of_glory").order_kinds
    assert orders.parse("build_fort space=metz corps=ge_corps_4 rebuild=yes", pog)["rebuild"] is True
    maybe = orders.parse("build_fort space=metz corps=ge_corps_4 rebuild=maybe", pog)
    with pytest.raises(IllegalOrder, match="must be true or false") as refused:  # exit 1, by the kind's rule
        rulesets.load("paths_of_glory").check_order(maybe)
    assert (refused.value.rule, refused.value.field) == ("15.4", "rebuild")


@pytest.mark.parametrize("typed, wanted", [
    ('note "text=hello world"', {"kind": "note", "text": "hello world"}),
    ("note text='C:\\games\\pog'", {"kind": "note", "text": "C:\\games\\pog"}),
    ('note text="two\\nlines \\u00e9"', {"kind": "note", "text": "two\nlines é"}),
    ('note text="don\'t"', {"kind": "note", "text": "don't"}),
    ("activate spaces=[aachen, koblenz]", {"kind": "activate", "spaces": ["aachen", "koblenz"]}),
    ('activate "spaces=aachen,koblenz"', {"kind": "activate", "spaces": ["aachen", "koblenz"]}),
])
def test_quoted_values_are_toml_strings(typed, wanted):
    kinds = {**rulesets.load("freeform").order_kinds, **rulesets.load("paths_of_glory").order_kinds}
    assert orders.parse(typed, kinds) == wanted


@pytest.mark.parametrize("typed, says", [
    ("note text=x text=y", "text is given twice"),
    ('note text="open', 'a " is not closed'),
    ("activate spaces=[aachen", "a [ is not closed"),
    ('note text="a"b', "a quoted value is one whole TOML string"),
    ("note hello", "quote each whole order as one argument"),
])
def test_an_order_that_cannot_be_read_is_one_usage_error(typed, says):
    with pytest.raises(UsageError, match=re.escape(says)):
        orders.parse(typed, rulesets.load("freeform").order_kinds)


def test_a_summary_is_one_line_whatever_the_text_holds():
    ruleset = rulesets.load("freeform")
    order = {"kind": "note", "text": "line one\nline two\r\x1b[2J\ttab"}
    written = ruleset.summary(order)
    assert "\n" not in written and "\r" not in written and "\x1b" not in written
    assert orders.parse(written, ruleset.order_kinds) == order


def test_a_word_without_key_names_the_kinds_example():
    kinds = rulesets.load("paths_of_glory").order_kinds
    with pytest.raises(UsageError, match="for example: activate spaces=aachen,koblenz"):
        orders.parse("activate aachen", kinds)


TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)
NAMES = st.lists(st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12), max_size=4)
INT64 = st.integers(-(2**63), 2**63 - 1)


@st.composite
def declared_orders(draw):
    """Any order of a shipped kind whose fields hold values of their declared types."""
    ruleset = rulesets.load(draw(st.sampled_from(SHIPPED)))
    kind = draw(st.sampled_from(list(ruleset.order_kinds.values())))
    order = {"kind": kind.kind}
    values = {"text": TEXT, "int": INT64, "bool": st.booleans(), "list": NAMES}
    for spec in kind.fields:
        if spec.required or draw(st.booleans()):
            order[spec.name] = draw(values[spec.type])
    return ruleset, order


@given(declared_orders())
def test_the_summary_is_the_inverse_of_the_parser(case):
    """What the log shows of an order can be typed back into `pbem move`, whatever the text holds:
    quotes, backslashes, commas, spaces, newlines, markup."""
    ruleset, order = case
    assert orders.parse(ruleset.summary(order), ruleset.order_kinds) == order


def test_an_undeclared_field_keeps_its_type_through_the_text_form():
    kinds = rulesets.load("freeform").order_kinds
    order = {"kind": "note", "text": "x", "extra": "12", "more": [1, "a b"], "flag": True}
    assert orders.parse(orders.text(order, kinds), kinds) == order
    with pytest.raises(IllegalOrder, match="note takes no 'extra'"):
        rulesets.load("freeform").check_order(order)


# ---------------------------------------------------------------------------- optional rules

def pog_setup(options: dict) -> Setup:
    return Setup("august_1914", (rulesets.Seat("alice", ("ap",), "player"), rulesets.Seat("bob", ("cp",), "player")),
                 options)


def test_an_option_turned_on_takes_the_default_it_excludes_out():
    pog = rulesets.load("paths_of_glory")
    assert pog.chosen(pog_setup({}))["italy_19_1"] is True
    chosen = pog.chosen(pog_setup({"italy_19_1_1": True}))
    assert chosen["italy_19_1_1"] is True and chosen["italy_19_1"] is False  # 19.1.1 instead of 19.1


def test_two_options_the_charter_wrote_in_conflict_are_refused_naming_both_rules():
    pog = rulesets.load("paths_of_glory")
    with pytest.raises(UsageError) as refused:
        pog.check_setup(pog_setup({"italy_19_1_1": True, "italy_19_1": True}))
    assert "rule 19.1.1" in str(refused.value) and "rule 19.1)" in str(refused.value)


@pytest.mark.parametrize("options, says", [
    ({"italy_19_1": "yes"}, "option italy_19_1 is on or off, not 'yes'"),
    ({"italy_19_3": True}, "no option 'italy_19_3'"),
])
def test_an_option_of_the_wrong_type_or_unknown_is_refused(options, says):
    with pytest.raises(UsageError, match=says):
        rulesets.load("paths_of_glory").check_setup(pog_setup(options))


def test_a_default_gives_way_to_an_option_it_excludes():
    specs = {"a": OptionSpec("a", True, "1", "", excludes=("b",)), "b": OptionSpec("b", False, "2", "")}
    assert resolve_options(specs, {"b": True}) == {"a": False, "b": True}
    with pytest.raises(UsageError, match=r"option a \(rule 1\) cannot be played with b \(rule 2\)"):
        resolve_options(specs, {"a": True, "b": True})


def test_conditions_on_values_are_read_by_the_options_type():
    specs = {"n": OptionSpec("n", 3, "1", "", "int"), "b": OptionSpec("b", True, "2", ""),
             "x": OptionSpec("x", False, "3", "", requires=("n=3", "b=on"))}
    assert resolve_options(specs, {"x": True})["x"] is True
    with pytest.raises(UsageError, match="needs n=3"):
        resolve_options(specs, {"x": True, "n": 4})


@pytest.mark.parametrize("spec, typed, value", [
    (OptionSpec("b", False, "1", ""), "", True),
    (OptionSpec("b", False, "1", ""), "off", False),
    (OptionSpec("n", 3, "1", "", "int"), "5", 5),
    (OptionSpec("t", "x", "1", "", "text"), "5", "5"),
    (OptionSpec("c", "none", "1", "", "choice", ("none", "all")), "all", "all"),
])
def test_a_command_line_option_is_read_by_its_type(spec, typed, value):
    assert spec.parse(typed) == value


@pytest.mark.parametrize("spec, typed, says", [
    (OptionSpec("b", False, "1", ""), "maybe", "option b is on or off, not 'maybe'"),
    (OptionSpec("n", 3, "1", "", "int"), "many", "option n is a whole number, not 'many'"),
    (OptionSpec("c", "none", "1", "", "choice", ("none", "all")), "some", "option c is one of none, all"),
])
def test_a_command_line_option_of_the_wrong_type_is_refused(spec, typed, says):
    with pytest.raises(UsageError, match=re.escape(says)):
        spec.parse(typed)


@pytest.mark.parametrize("options, says", [
    ({"a": {"default": True, "rule": "1", "help": "", "requires": ["nothing"]}}, "names no declared option"),
    ({"a": {"default": True, "rule": "1", "help": "", "requires": "b"}}, "are lists"),
    ({"a": {"default": True, "rule": "1", "help": "", "excludes": ["b"]},
      "b": {"default": True, "rule": "2", "help": ""}}, "the default options conflict"),
    ({"a": {"default": "yes", "rule": "1", "help": ""}}, "option a is on or off"),
])
def test_a_ruleset_declaring_options_that_cannot_work_is_refused_when_it_loads(options, says):
    class Broken(rulesets.Ruleset[dict]):
        id = "broken"

        def declaration(self):
            return {"version": "1", "title": "x", "scenarios": {"s": {"title": "s"}}, "options": options}

    with pytest.raises(UsageError, match=says):
        Broken()


def test_requires_choices_and_excludes_of_any_type():
    specs = {
        "optional_cards": OptionSpec("optional_cards", "none", "9.1", "", "choice", ("none", "all", "selected")),
        "hand_8": OptionSpec("hand_8", False, "9.1.4", "", requires=("optional_cards=all",)),
        "fast": OptionSpec("fast", False, "x.1", "", excludes=("optional_cards=selected",)),
    }
    assert resolve_options(specs, {"optional_cards": "all", "hand_8": True})["hand_8"] is True
    with pytest.raises(UsageError, match=r"hand_8 \(rule 9.1.4\) needs optional_cards=all \(rule 9.1\)"):
        resolve_options(specs, {"hand_8": True})
    with pytest.raises(UsageError, match="one of none, all, selected, not 'some'"):
        resolve_options(specs, {"optional_cards": "some"})
    with pytest.raises(UsageError, match="cannot be played with optional_cards=selected"):
        resolve_options(specs, {"optional_cards": "selected", "fast": True})


def new_pog(tmp_path: Path, *options: str) -> tuple[int, str, str]:
    keys = {name: tmp_path / "keys" / f"{name}.pub" for name in ("alice", "bob")}
    for seed, name in enumerate(keys, 1):
        write_key(tmp_path / "keys" / name, bytes([seed]) * 32, name)
    args = ["new", "pog-options", "-r", "paths_of_glory", "-p", f"alice={keys['alice']}", "-p",
            f"bob={keys['bob']}", "--sides", "alice=ap", "--sides", "bob=cp"]
    for option in options:
        args += ["-o", option]
    return run_cli(args, tmp_path)


def test_pbem_new_checks_options_before_writing_the_charter(tmp_path):
    code, _, err = new_pog(tmp_path, "italy_19_1_1=on", "italy_19_1=on")
    assert code == 2 and "rule 19.1.1" in err and len(err.splitlines()) == 1, err
    assert not (tmp_path / "game.toml").exists()
    code, _, err = new_pog(tmp_path, "italy_19_1=maybe")
    assert code == 2 and "field 'options.italy_19_1', rule 19.1: option italy_19_1 is on or off, not 'maybe'" in err
    code, out, err = new_pog(tmp_path, "italy_19_1_1")  # a bare name turns the option on
    assert code == 0, err
    assert tomllib.loads((tmp_path / "game.toml").read_text())["options"] == {"italy_19_1_1": True}
    assert ("options: vesting_holland on, italy_19_1 off, italy_19_1_1 on, italy_19_1_2 off, italy_19_1_3 off"
            in out)


def test_a_charter_edited_into_a_conflict_is_refused_by_every_command(tmp_path):
    table = setup_game(tmp_path)
    alice = table["alice"]
    charter = alice.dir / "game.toml"
    text = charter.read_text()
    charter.write_text(text.replace('scenario = "default"', 'scenario = "default"\n\n[options]\nfog = true', 1))
    code, _, err = alice.cli("status")
    assert code != 0 and len(err.splitlines()) == 1, err


# ---------------------------------------------------------------------------- the CLI

def test_pbem_rules_lists_options_and_orders_with_rules_fields_and_examples(tmp_path):
    code, out, err = run_cli(["rules", "paths_of_glory", "--json"], tmp_path)
    assert code == 0, err
    data = json.loads(out)
    assert data["options"]["italy_19_1_1"]["rule"] == "19.1.1"
    assert data["options"]["italy_19_1_1"]["excludes"] == ["italy_19_1"]
    assert data["orders"]["move"]["fields"]["path"] == {"type": "list", "required": True,
                                                        "help": "the spaces entered, in order"}
    assert data["orders"]["activate"]["example"] == "activate spaces=aachen,koblenz attack=koblenz card=cp09"
    code, out, err = run_cli(["rules", "paths_of_glory"], tmp_path)
    assert code == 0, err
    assert "italy_19_1_1 (rule 19.1.1; bool, default off; excludes italy_19_1)" in out
    assert "e.g. pbem move 'move units=ge_8_army path=memel,szawli'" in out


@pytest.fixture
def pog_game(tmp_path):
    """A Paths of Glory game between alice (ap) and bob (cp), bob's key on disk for the CLI."""
    signers = {name: write_key(tmp_path / "keys" / name, bytes([seed]) * 32, name)
               for seed, name in enumerate(("alice", "bob"), 21)}
    charter = Charter.create(
        game="pog-cli", ruleset="paths_of_glory", version=rulesets.load("paths_of_glory").version,
        scenario="august_1914", dice="all", reveal_hours=24, move_hours=72, options={}, tables={},
        players=[Member(name, (side,), signers[name].public, "player") for name, side in (("alice", "ap"),
                                                                                          ("bob", "cp"))])
    (tmp_path / "game.toml").write_text(charter.text)
    games, joins = {}, []
    for name in signers:
        games[name], message = join(tmp_path / "game.toml", tmp_path / name, signers[name],
                                    home=tmp_path / "home" / name, key_path=str(tmp_path / "keys" / name))
        joins.append(message)
    for one in games.values():
        one.accept(joins)
    open_pog_game(games, signers)
    return tmp_path


def test_a_player_moves_with_lists_typed_as_on_the_board(pog_game):
    bob = pog_game / "bob"
    code, out, err = run_cli(["move", "activate spaces=[insterberg]", "move units=ge_8_army path=konigsberg,tannenberg",
                              "pass"], bob, home=pog_game / "home" / "bob")
    assert code == 0, err
    assert "activate spaces=insterberg; move units=ge_8_army path=konigsberg,tannenberg" in out
    entry = tomllib.loads((bob / "entries" / "000002.toml").read_text())
    assert entry["orders"][0] == {"kind": "activate", "spaces": ["insterberg"]}
    assert entry["orders"][1] == {"kind": "move", "units": ["ge_8_army"], "path": ["konigsberg", "tannenberg"]}
    code, out, err = run_cli(["show", "space", "tannenberg", "--json"], bob, home=pog_game / "home" / "bob")
    assert "ge_8_army" in json.dumps(json.loads(out)), out


def edit_as_bob(pog_game, tmp_path, script: str) -> tuple[int, str, str]:
    """`pbem move --edit` by bob with an editor that keeps a copy of the template and then runs
    `script` on the file (its lines, Python); returns the exit code, stderr and the template."""
    kept = tmp_path / "template.toml"
    editor = tmp_path / "editor.py"
    editor.write_text(f"import shutil, sys\nshutil.copy(sys.argv[1], {str(kept)!r})\n{script}")
    code, _, err = run_cli(["move", "--edit"], pog_game / "bob", home=pog_game / "home" / "bob",
                           env={**cli_env(pog_game / "home" / "bob"), "EDITOR": f"{sys.executable} {editor}"})
    return code, err, kept.read_text() if kept.exists() else ""


def test_the_edit_template_is_valid_toml_listing_the_legal_orders(pog_game, tmp_path):
    """The editor opens a template that parses as TOML as it stands; uncommenting an example is an order."""
    code, err, template = edit_as_bob(pog_game, tmp_path, (
        "text = open(sys.argv[1]).read()\n"
        "text += '\\n[[orders]]\\nkind = \"activate\"\\nspaces = [\"aachen\"]\\n[[orders]]\\nkind = \"pass\"\\n'\n"
        "open(sys.argv[1], 'w').write(text)\n"))
    assert code == 0, err
    assert tomllib.loads(template) == {}
    assert "Central Powers, turn 1 round 1: activate, sr, rp, event, economic, political or pass" in template
    assert '# kind = "activate"\n# spaces = [\n#     "aachen",\n#     "koblenz",\n# ]' in template
    assert "move" not in [line.split(":")[0].strip("# ") for line in template.splitlines() if "(rule" in line]


def test_the_edit_template_offers_whole_orders_the_position_accepts(pog_game, tmp_path):
    """Item 11: the ruleset's suggestions head the template; uncommenting the first one as it is
    gives an order that is signed."""
    code, err, template = edit_as_bob(pog_game, tmp_path, (
        "lines = open(sys.argv[1]).read().splitlines()\n"
        "start = lines.index('# [[orders]]')\n"
        "end = lines.index('', start)\n"
        "picked = [line[2:] for line in lines[start:end] if not line.startswith('##')]\n"
        "open(sys.argv[1], 'w').write('\\n'.join(picked) + '\\n')\n"))
    assert code == 0, err
    assert "## Orders the position accepts now (" in template
    first = template.split("## Orders the position accepts now")[1].split("# [[orders]]")[1]
    assert first.startswith('\n# kind = "pass"'), first
    entry = tomllib.loads((pog_game / "bob" / "entries" / "000002.toml").read_text())
    assert entry["orders"] == [{"kind": "pass"}]


def test_a_second_action_in_one_round_is_refused(pog_game):
    """8.1.4: one action a round; within a movement action only moves, forts and pass."""
    bob = pog_game / "bob"
    code, _, err = run_cli(["move", "activate spaces=aachen", "activate spaces=koblenz"], bob,
                           home=pog_game / "home" / "bob")
    assert code == 1 and "field 'orders[2].kind', rule 8.1.4: activate is not an order now" in err, err


def test_a_space_not_on_the_map_is_an_illegal_order_naming_its_field(pog_game):
    bob = pog_game / "bob"
    code, _, err = run_cli(["move", "activate spaces=aachen,nowhere"], bob, home=pog_game / "home" / "bob")
    assert code == 1 and "player bob, field 'orders[1].spaces[1]', rule 9.2.6: unknown space 'nowhere'" in err, err
    code, _, err = run_cli(["move", "activate spaces=aachen", "move units=ge_1_army path=nowhere"], bob,
                           home=pog_game / "home" / "bob")
    assert code == 1 and "field 'orders[2].path[0]', rule base 11.1.3" in err, err


def test_a_package_that_is_no_ruleset_is_not_installed(tmp_path):
    code, _, err = run_cli(["rules", "common"], tmp_path)
    assert code == 2 and "no ruleset 'common' is installed" in err, err


def test_an_edit_that_uncomments_no_order_signs_nothing(pog_game, tmp_path):
    editor = tmp_path / "editor.py"
    editor.write_text("import sys\nopen(sys.argv[1], 'a').write('# my plan: hold the line\\n')\n")
    bob = pog_game / "bob"
    code, _, err = run_cli(["move", "--edit"], bob, home=pog_game / "home" / "bob",
                           env={**cli_env(pog_game / "home" / "bob"), "EDITOR": f"{sys.executable} {editor}"})
    assert code == 2 and "no [[orders]] table was uncommented; nothing signed" in err, err
    assert not (bob / "entries" / "000002.toml").exists()


def test_status_shows_what_the_decision_asks(pog_game):
    code, out, err = run_cli(["status"], pog_game / "alice", home=pog_game / "home" / "alice")
    assert code == 0, err
    assert "Central Powers, turn 1 round 1: activate, sr, rp, event, economic, political or pass" in out


# ---------------------------------------------------------------------------- the registry

def test_a_ruleset_defined_in_code_is_registered_and_listed():
    class Solitaire(rulesets.Ruleset[dict]):
        id = "solitaire"

        def declaration(self):
            return {"version": "1", "title": "one player", "scenarios": {"default": {"title": "alone"}}}

    rulesets.register(Solitaire())
    try:
        assert rulesets.load("solitaire").title == "one player"
        assert "solitaire" in rulesets.available()
    finally:
        rulesets.unregister("solitaire")
    with pytest.raises(UsageError, match="no ruleset 'solitaire'"):
        rulesets.load("solitaire")


def test_every_shipped_data_file_declares_its_format_version():
    root = Path(__file__).resolve().parents[1] / "rules"
    for path in sorted(root.glob("*/data/*.toml")):
        assert tomllib.loads(path.read_text()).get("format_version") == 1, path


def test_a_data_file_of_another_layout_is_refused_naming_it(tmp_path):
    package = tmp_path / "oddrules"
    (package / "data").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "data" / "ruleset.toml").write_text('format_version = 2\nversion = "1"\ntitle = "x"\n')
    code = ("import sys; sys.path.insert(0, sys.argv[1])\n"
            "from pbem import datafile\n"
            "try:\n    datafile.load('oddrules', 'ruleset.toml')\n"
            "except datafile.DataFileError as exc:\n    print(exc)\n")
    result = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True,
                            env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert "oddrules data file ruleset.toml has format_version 2" in result.stdout, result
