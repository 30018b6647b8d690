"""The command line. The one place where errors become text and exit codes (docs/protocol.md §9)."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tomllib
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any, List, Optional

import typer
from typer.core import TyperGroup

from .errors import Held, PbemError, UsageError

app = typer.Typer(
    name="pbem",
    help=(
        "Play board wargames by email: every move is a signed TOML file, the whole log is replayed and "
        "checked, and dice come from values the other players reveal after your move, so nobody can bias "
        "them.\n\nA game lives in a directory (game.toml, entries/, side/, outbox/ …); run commands inside it "
        "or pass --game DIR."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
key_app = typer.Typer(help="Create and show your Ed25519 signing key.", no_args_is_help=True)
app.add_typer(key_app, name="key")
mail_app = typer.Typer(help="Your mail settings and the other players' addresses.", no_args_is_help=True)
app.add_typer(mail_app, name="mail")

GameOpt = typer.Option(Path("."), "--game", "-g", help="The game directory.", show_default=True)
JsonOpt = typer.Option(False, "--json", help="Print data as JSON instead of a report.")
KeyOpt = typer.Option(None, "--key", help="An OpenSSH Ed25519 private key to sign with (default: me.toml's, "
                      "else the key 'pbem key new' made).")
SendOpt = typer.Option(False, "--send", help="Mail it to the other players now (see 'pbem mail setup'); "
                       "if some cannot be reached it stays queued for 'pbem send --retry'.")
FileOpt = typer.Option(None, "--file", "-f", help="Read [[orders]] tables from a TOML file.")
EditOpt = typer.Option(False, "--edit", "-e", help="Write the orders in $EDITOR from a template.")
AgentOpt = typer.Option(None, "--agent", help="Sign through ssh-agent with the key whose public half is this "
                        "file (ssh-keygen -Y sign).")


# ------------------------------------------------------------------------------------- the command group

def _summary(text) -> str:
    """The first paragraph of a help text on one line: what `pbem --help` lists."""
    return " ".join(text.strip().split("\n\n")[0].split()) if isinstance(text, str) else ""


def _literal_help(command):
    """Help texts are plain text: escape them, as typer reads them as rich markup ('[[orders]]')."""
    from rich.markup import escape

    for item in (command, *command.params):
        if getattr(item, "help", None):
            item.help = escape(item.help)
    for sub in getattr(command, "commands", {}).values():
        _literal_help(sub)
    return command


class _LazyCommands(MutableMapping):
    """The subcommands by name; each is built from its function (typer reads its signature and
    help) only when looked up. Building all ~20 costs more than the rest of a `pbem status`."""

    def __init__(self, typer_app: typer.Typer) -> None:
        from typer.main import get_command_name

        self.app = typer_app
        self.infos = {info.name or get_command_name(getattr(info.callback, "__name__", "")): info
                      for info in typer_app.registered_commands}
        self.groups = {str(info.name): info.typer_instance for info in typer_app.registered_groups
                       if info.typer_instance is not None}
        self.built: dict[str, Any] = {}

    def __iter__(self):
        return iter(dict.fromkeys([*self.infos, *self.groups, *self.built]))

    def __len__(self) -> int:
        return len(list(iter(self)))

    def __getitem__(self, name: str):
        if name not in self.built:
            from typer.main import get_command_from_info, get_group

            if name in self.infos:
                command = get_command_from_info(self.infos[name], rich_markup_mode=self.app.rich_markup_mode,
                                                pretty_exceptions_short=self.app.pretty_exceptions_short)
            elif name in self.groups:
                command = get_group(self.groups[name])
            else:
                raise KeyError(name)
            self.built[name] = _literal_help(command)
        return self.built[name]

    def __setitem__(self, name: str, command) -> None:
        self.built[name] = command

    def __delitem__(self, name: str) -> None:
        self.infos.pop(name, None)
        self.groups.pop(name, None)
        del self.built[name]

    def summaries(self) -> dict[str, str]:
        """Each command's one-line help, read from its function or sub-app without building it."""
        found = {name: _summary(info.help or getattr(info.callback, "__doc__", ""))
                 for name, info in self.infos.items()}
        found.update((name, _summary(sub.info.help)) for name, sub in self.groups.items())
        return found


class _Group(TyperGroup):
    """`pbem`: its subcommands are built on demand, and `pbem --help` is drawn from their names and
    one-line helps alone (typer's own help screen imports much of rich, markdown and pygments)."""

    lazy: _LazyCommands

    def format_help(self, ctx, formatter) -> None:
        from rich.padding import Padding
        from rich.panel import Panel
        from rich.text import Text

        console = out()
        usage = self.get_usage(ctx).partition(": ")[2]
        console.print(Padding(Text.assemble(("Usage: ", "yellow"), usage), 1), style="bold")
        first, _, rest = (self.help or "").partition("\n\n")
        console.print(Padding(_options_marked(Text(_summary(first))), (0, 1, 0 if rest else 1, 1)))
        if rest:
            text = Text("\n\n".join(_summary(p) for p in rest.split("\n\n")), "dim")
            console.print(Padding(_options_marked(text), (1, 1, 1, 1)))
        options = _help_table()  # typer's columns: long, short and negated forms, type, help
        for _ in range(5):
            options.add_column()
        options.add_column(ratio=1)
        options.add_row(Text("--help", "bold cyan"), "", "", "", "", Text("Show this message and exit."))
        console.print(Panel(options, title=Text("Options"), title_align="left", border_style="dim"))
        summaries = self.lazy.summaries()
        commands = _help_table()
        commands.add_column(style="bold cyan", no_wrap=True, width=max(map(len, summaries)))
        commands.add_column(ratio=10)
        for name, summary in summaries.items():
            commands.add_row(name, Text(summary))
        console.print(Panel(commands, title=Text("Commands"), title_align="left", border_style="dim"))


def _options_marked(text):
    """Options named in a help text stand out, as in typer's help screens."""
    text.highlight_regex(r"(?<![\w-])--[\w-]+", "bold cyan")
    return text


def _help_table():
    from rich.table import Table

    return Table(box=None, show_header=False, expand=True, pad_edge=False, padding=(0, 1))


def command_group() -> _Group:
    """The click group `main` runs; building it builds no subcommand."""
    group = _Group(name="pbem", help=app.info.help, no_args_is_help=True, rich_markup_mode=app.rich_markup_mode)
    group.lazy = _LazyCommands(app)
    group.commands = group.lazy
    return group


def out():
    from . import console

    return console.stdout()


def emit_json(data) -> None:
    sys.stdout.write(json.dumps(data, indent=2, sort_keys=True, default=str) + "\n")


def _passphrase() -> str | None:
    secret = os.environ.get("PBEM_PASSPHRASE")
    if secret is not None:
        return secret
    if sys.stdin.isatty():
        import getpass

        return getpass.getpass("Key passphrase: ")
    return None


def _signer(key: Optional[Path], agent: Optional[Path], game=None):
    from . import keys

    identity = game.identity if game is not None else None
    if agent is None and key is None and identity is not None:
        if identity.agent:
            agent = Path(identity.agent)
        elif identity.key:
            key = Path(identity.key)
    if agent is not None:
        if os.environ.get("SSH_CONNECTION"):
            raise UsageError("--agent refuses to sign while SSH_CONNECTION is set: through a forwarded agent "
                             "anyone on that host could derive your seeds (PROTOCOL §6)", field="--agent")
        return keys.AgentSigner(agent)
    path = key or keys.default_key_path()
    if not Path(path).exists():
        raise UsageError(f"no key at {path}: make one with 'pbem key new' or pass --key PATH", field="--key")
    return keys.FileSigner.load(Path(path), _passphrase)


def _game(path: Path):
    from .game import Game

    if path.name == "game.toml" and path.is_file():  # --game DIR/game.toml means DIR
        path = path.parent
    game = Game(path)
    game.announce_later = True  # each command calls game.announced() once it has said what to mail
    return game


def _me(game) -> str:
    """The player of this game directory; a directory without me.toml signs and stores nothing."""
    game.dir.require(player=True)
    return game.identity.player


# ------------------------------------------------------------------------------------- keys

@key_app.command("new")
def key_new(
    out_path: Optional[Path] = typer.Option(None, "--out", help="Where to write it (default: the pbem app dir)."),
    comment: str = typer.Option("", "--comment", "-C", help="Comment in the public key, e.g. your mail address."),
    no_passphrase: bool = typer.Option(False, "--no-passphrase", help="Store the key unencrypted."),
) -> None:
    """Make an Ed25519 key (OpenSSH format, mode 0600), passphrase-protected unless --no-passphrase.

    The passphrase is asked for, or read from PBEM_PASSPHRASE. Send the printed public key line to the
    game's host; compare fingerprints with the other players by phone or in person.
    """
    from . import keys

    path = out_path or keys.default_key_path()
    passphrase = None
    if not no_passphrase:
        passphrase = os.environ.get("PBEM_PASSPHRASE")
        if passphrase is None:
            if not sys.stdin.isatty():
                raise UsageError("give a passphrase in PBEM_PASSPHRASE, or --no-passphrase", field="--no-passphrase")
            passphrase = typer.prompt("Passphrase for the new key", hide_input=True, confirmation_prompt=True)
    signer = keys.generate(path, passphrase, comment or os.environ.get("USER", ""))
    out().print(f"[ok]Wrote[/ok] {path} and {path}.pub", soft_wrap=True)
    print(signer.public.line())  # one line however long: it is copied and mailed as it is
    print(signer.public.fingerprint_line())


@key_app.command("show")
def key_show(key: Optional[Path] = KeyOpt, as_json: bool = JsonOpt) -> None:
    """Print your public key line and its fingerprint exactly as 'ssh-keygen -lf' does."""
    from . import keys

    path = key or keys.default_key_path()
    public_path = Path(str(path) + ".pub") if not str(path).endswith(".pub") else Path(path)
    if public_path.exists():
        public = keys.PublicKey.parse(public_path.read_text())
    else:
        public = keys.FileSigner.load(Path(path), _passphrase).public
    if as_json:
        emit_json({"public": public.line(), "fingerprint": public.fingerprint(),
                   "fingerprint_line": public.fingerprint_line()})
        return
    print(public.line())
    print(public.fingerprint_line())


# ------------------------------------------------------------------------------------- setup

def _read_pubkey(spec: str, player: str):
    from . import keys

    text = spec
    if not spec.startswith("ssh-") and not spec.startswith("sk-"):
        try:
            text = Path(spec).read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            why = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
            raise UsageError(f"cannot read public key file {spec}: {why}", player=player,
                             field="--player") from None
    return keys.PublicKey.parse(text, field=f"--player {player}")


@app.command("new")
def new(
    game_id: str = typer.Argument(..., help="Game id: lowercase letters, digits, - and _ (e.g. pog-club-2026)."),
    player: List[str] = typer.Option(..., "--player", "-p", help="ID=PUBKEY: a player id and his public key "
                                     "(a .pub file or the 'ssh-ed25519 AAAA…' line). Repeat; order is roster order."),
    ruleset: str = typer.Option("freeform", "--ruleset", "-r", help="Which rules adjudicate (see 'pbem rules')."),
    scenario: Optional[str] = typer.Option(None, "--scenario", help="Scenario id (default: the ruleset's first)."),
    sides: List[str] = typer.Option([], "--sides", help="ID=SIDE[,SIDE]: the sides a player commands."),
    referee: List[str] = typer.Option([], "--referee", help="A player id whose role is referee."),
    observer: List[str] = typer.Option([], "--observer", help="A player id who only watches."),
    dice: str = typer.Option("all", "--dice", help="Who witnesses rolls: all, opponents, referee, or open "
                             "(no witnesses: the mover can try salts until he likes the dice)."),
    reveal_hours: int = typer.Option(48, "--reveal-hours", help="Deadline for a witness's reveal."),
    move_hours: int = typer.Option(72, "--move-hours", help="Deadline for a move."),
    option: List[str] = typer.Option([], "--option", "-o", help="NAME=on|off, NAME=VALUE or NAME (on): an optional "
                                     "rule; 'pbem rules GAME' lists them."),
    table: List[str] = typer.Option([], "--table", help="NAME=FILE.toml: a result table players roll on."),
    out_path: Path = typer.Option(Path("game.toml"), "--out", help="Where to write the charter."),
) -> None:
    """Host a game: write its charter (game.toml) and show every player's fingerprint.

    Mail game.toml to the players; each checks the fingerprints out of band and runs 'pbem join'.
    """
    from . import ruleset as rulesets
    from .charter import Charter, Member

    rules = rulesets.load(ruleset)
    scenarios = rules.scenarios()
    scenario = scenario or next(iter(scenarios))
    if scenario not in scenarios:
        raise UsageError(f"{ruleset} has no scenario {scenario!r} (has: {', '.join(scenarios)})", field="--scenario")
    side_map = {}
    roster = [item.partition("=")[0] for item in player]
    for item in sides:
        pid, _, names = item.partition("=")
        if pid not in roster:
            raise UsageError(f"--sides names {pid!r}, who is no --player of this game", field="--sides")
        side_map[pid] = tuple(n for n in names.split(",") if n)
    members = []
    for item in player:
        pid, sep, spec = item.partition("=")
        if not sep:
            raise UsageError(f"--player wants ID=PUBKEY, got {item!r}", field="--player")
        role = "referee" if pid in referee else "observer" if pid in observer else "player"
        members.append(Member(pid, side_map.get(pid, ()), _read_pubkey(spec, pid), role))
    options = _charter_options(rules, option)
    tables = _charter_tables(table)
    if out_path.exists():
        raise UsageError(f"{out_path} exists; pbem will not overwrite a charter", field="--out")
    for other in _games_nearby(out_path.resolve().parent, game_id):
        out().print(f"[warn]game id {game_id} is already used by {other}: players who keep both games in one "
                    "place will see each other's mail; a rematch should take a new id.[/warn]")
    charter = Charter.create(
        game=game_id, ruleset=rules.id, version=rules.version, scenario=scenario, dice=dice,
        reveal_hours=reveal_hours, move_hours=move_hours, options=options, tables=tables, players=members,
    )
    rules.check_setup(rulesets.Setup.of(charter))  # options in conflict, tables it cannot use, sides
    from .log import atomic_write

    atomic_write(out_path, charter.text.encode())
    out().print(f"[ok]Wrote[/ok] {out_path}: game [bold]{game_id}[/bold], {rules.id} {rules.version}, "
                f"scenario {scenario}, dice {dice}")
    if dice == "open":
        out().print("[warn]Dice are open: no witnesses, so a mover can retry salts until he likes his dice.[/warn]")
    for member in charter.players:
        out().print(f"  {member.id:12} {member.role:8} {','.join(member.sides) or '-':12} "
                    f"{member.pubkey.fingerprint()}")
    chosen = rules.chosen(rulesets.Setup.of(charter))
    if chosen:
        words = {True: "on", False: "off"}
        out().print("options: " + ", ".join(f"{name} {words.get(value, value)}" for name, value in chosen.items()),
                    markup=False)
    out().print(f"charter digest {charter.digest}")


def _charter_options(rules, items: list[str]) -> dict:
    """--option NAME=VALUE (or NAME, meaning on), each read by the type the ruleset declares."""
    options = {}
    for item in items:
        name, _, value = item.partition("=")
        if name not in rules.options:
            raise UsageError(f"{rules.id} has no option {name!r} (see 'pbem rules {rules.id}')", field="--option")
        options[name] = rules.options[name].parse(value)
    return options


def _charter_tables(items: list[str]) -> dict:
    """--table NAME=FILE.toml: result tables the players roll on."""
    tables = {}
    for item in items:
        name, _, file = item.partition("=")
        try:
            tables[name] = tomllib.loads(Path(file).read_text(encoding="utf-8-sig"))
        except (OSError, ValueError) as exc:
            raise UsageError(f"cannot read table {file}: {exc}", field="--table") from None
    return tables


def _games_nearby(folder: Path, game_id: str) -> list[Path]:
    """Charters with this game id in the folder and up to two levels below it."""
    from .charter import Charter

    found = []
    for pattern in ("game.toml", "*/game.toml", "*/*/game.toml"):
        for path in sorted(folder.glob(pattern)):
            try:
                if Charter.parse(path.read_text(encoding="utf-8-sig")).game == game_id:
                    found.append(path)
            except (PbemError, OSError, UnicodeDecodeError):
                continue
    return found


@app.command("join")
def join_cmd(
    charter: Path = typer.Argument(..., help="The game.toml the host mailed you."),
    directory: Path = typer.Option(Path("."), "--dir", "-d", help="Your game directory (made if missing)."),
    as_player: Optional[str] = typer.Option(None, "--as", help="Your player id (default: found by your key)."),
    key: Optional[Path] = KeyOpt,
    agent: Optional[Path] = AgentOpt,
) -> None:
    """Join a game: check the charter, derive your dice seeds from your key, sign your join.

    Compare the fingerprints it prints with the other players before you mail outbox/join-*.toml to
    all of them; 'pbem apply' their joins. The game starts when every participant has joined.
    """
    from .charter import Charter
    from .game import join

    signer = _signer(key, agent)
    game, message = join(charter, directory, signer, as_player=as_player,
                         key_path=str(Path(key).resolve()) if key else "",
                         agent_path=str(Path(agent).resolve()) if agent else "")
    parsed = Charter.parse(Path(charter).read_text())
    out().print(f"Game [bold]{parsed.game}[/bold] ({parsed.ruleset} {parsed.version}); check these fingerprints:")
    for member in parsed.players:
        out().print(f"  {member.id:12} {member.role:8} {member.pubkey.fingerprint()}")
    if message is None:
        out().print("You observe this game: apply the others' messages to follow it.")
        return
    out().print(f"[ok]Joined as[/ok] [player]{message.player}[/player]. Mail "
                f"{game.dir.outbox_path(message)} to every other player.")


# ------------------------------------------------------------------------------------- moves

def _parse_order(text: str, game) -> dict:
    from . import orders

    return orders.parse(text, game.ruleset.order_kinds)


def _gather_orders(game, player: str, orders: list[str] | None, file: Path | None, edit: bool) -> list[dict]:
    """The orders typed, then those of --file, then those written in --edit, in that order."""
    parsed = [_parse_order(o, game) for o in orders or []]
    if file:
        parsed.extend(_orders_from_file(file))
    if edit:
        parsed.extend(_edit_orders(game, player))
    return parsed


def _orders_from_file(path: Path) -> list[dict]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8-sig"))  # a Windows editor may add a BOM
    except (OSError, ValueError) as exc:
        raise UsageError(f"cannot read orders from {path}: {exc}", field="--file") from None
    orders = data.get("orders")
    if not isinstance(orders, list):
        raise UsageError(f"{path} has no [[orders]] tables", field="--file")
    return orders


def _edit_orders(game, player: str) -> list[dict]:
    from . import orders as order_text

    engine, _ = game.current()
    kinds = list(game.ruleset.legal(engine.state, player))
    step = engine.pending()
    heading = getattr(step, "prompt", "") or f"Orders for {player}"
    if not kinds:
        heading += f" (no orders are {player}'s to give now)"
    suggested = game.ruleset.suggest(engine.state, player, engine.views.get(player)) if kinds else []
    text = _run_editor(order_text.template(kinds, heading, suggested) + "\n")
    try:
        orders = tomllib.loads(text).get("orders", [])
    except ValueError as exc:  # not TOML, or an integer beyond Python's digit limit
        raise UsageError(f"the orders you wrote are not TOML: {exc}", field="--edit") from None
    if not orders:
        raise UsageError("no [[orders]] table was uncommented; nothing signed", field="--edit")
    return orders


def _run_editor(template: str) -> str:
    """Open $VISUAL or $EDITOR on a template; the text saved, unchanged text meaning 'cancel'."""
    import shlex
    import subprocess
    import tempfile

    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "orders.toml"
        path.write_text(template)
        try:
            code = subprocess.call([*shlex.split(editor), str(path)])
        except OSError as exc:
            raise UsageError(f"cannot run the editor {editor!r}: {exc.strerror}", field="--edit") from None
        text = path.read_text()
    if code != 0 or text == template:
        raise UsageError("the editor was closed without new orders; nothing signed", field="--edit")
    return text


@app.command("move")
def move(
    orders: List[str] = typer.Argument(None, help="Each order quoted as one argument, 'KIND key=value …': "
                                       "'roll dice=2d6+1 purpose=\"attack on Verdun\"', 'activate "
                                       "spaces=aachen,koblenz' (lists with commas). 'pbem rules GAME' lists the "
                                       "orders, their fields and examples."),
    file: Optional[Path] = FileOpt,
    edit: bool = EditOpt,
    game_dir: Path = GameOpt,
    key: Optional[Path] = KeyOpt,
    agent: Optional[Path] = AgentOpt,
    send_now: bool = SendOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Sign your next move from the local head and put it in outbox/ to mail to the others.

    The move is checked against the rules first: an illegal order is refused with its rule number and
    nothing is written. Run with no orders to sign an entry that only uses reveals (a closing entry).
    """
    game = _game(game_dir)
    player = _me(game)
    _refuse_after_interrupted_move(game, player)
    parsed = _gather_orders(game, player, orders, file, edit)
    message, report = game.move(player, parsed, _signer(key, agent, game))
    path = game.dir.outbox_path(message)
    if not as_json:
        from . import report as reports

        out().print(reports.outcome_lines(report, game.ruleset.summary))
        _say_finished(game)
        if not send_now:
            out().print(f"Mail [bold]{path}[/bold] to the other players (and the reveals, seals and unseals it "
                        "uses, if you hold them), or run 'pbem send' on it.")
    posted = _post(game, [message], quiet=as_json) if send_now else []
    game.announced()  # after mailing: a run killed while sending names the move again
    if as_json:
        emit_json({"id": message.id, "seq": message.seq, "outbox": str(path), "orders": parsed,
                   "mailed": [_delivery_json(p) for p in posted], "finished": _finished_json(game)})
    _check_delivered(posted)


@app.command("seal")
def seal_cmd(
    orders: List[str] = typer.Argument(None, help="Your orders for the simultaneous decision, each quoted as one "
                                       "argument: 'choose text=\"3 points\"'. None: you abstain."),
    file: Optional[Path] = FileOpt,
    edit: bool = EditOpt,
    game_dir: Path = GameOpt,
    key: Optional[Path] = KeyOpt,
    agent: Optional[Path] = AgentOpt,
    send_now: bool = SendOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Seal your orders for a simultaneous decision: the others see only a digest until all have sealed.

    Your orders are checked alone first (an illegal one is refused with its rule; nothing is signed);
    the key that opens the seal and the orders' text stay in your app dir, never in the game directory.
    Once every member has sealed, run 'pbem unseal' (or 'pbem apply --unseal').
    """
    game = _game(game_dir)
    player = _me(game)
    parsed = _gather_orders(game, player, orders, file, edit)
    message, _ = game.seal(player, parsed, _signer(key, agent, game))
    _report_side(game, message, as_json, send_now, f"[ok]Sealed[/ok] your orders for seq {message.seq}. Mail "
                 f"[bold]{game.dir.outbox_path(message)}[/bold] to every player; unseal once every member has sealed.")


def _report_side(game, message, as_json: bool, send_now: bool, said: str) -> None:
    """What a seal or unseal command prints (or its JSON), then the mail it sends with --send."""
    if not as_json:
        _say_finished(game)
        out().print(said)
    posted = _post(game, [message], quiet=as_json) if send_now else []
    game.announced()
    if as_json:
        emit_json({"id": message.id, "type": message.type, "seq": message.seq,
                   "outbox": str(game.dir.outbox_path(message)), "mailed": [_delivery_json(p) for p in posted],
                   "finished": _finished_json(game)})
    _check_delivered(posted)


@app.command("unseal")
def unseal_cmd(
    game_dir: Path = GameOpt,
    key: Optional[Path] = KeyOpt,
    agent: Optional[Path] = AgentOpt,
    send_now: bool = SendOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Open your seal, once every member of the simultaneous decision has sealed (exit 5 until then)."""
    game = _game(game_dir)
    player = _me(game)
    message, _ = game.unseal(player, _signer(key, agent, game))
    _report_side(game, message, as_json, send_now, f"[ok]Unsealed[/ok] your orders for seq {message.seq}. Mail "
                 f"[bold]{game.dir.outbox_path(message)}[/bold] to every player.")


@app.command("disclose")
def disclose_cmd(
    upto: Optional[int] = typer.Option(None, "--upto", help="Disclose up to this seq (default: the last entry)."),
    game_dir: Path = GameOpt,
    key: Optional[Path] = KeyOpt,
    agent: Optional[Path] = AgentOpt,
    send_now: bool = SendOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Disclose your hidden draws up to a seq, so that every player can audit them.

    Every private draw and choice of yours up to that seq becomes checkable ('pbem audit'), nothing
    after it. At the end of a game everyone discloses; in a dispute, up to the entry in question."""
    game = _game(game_dir)
    player = _me(game)
    message, _ = game.disclose(player, _signer(key, agent, game), upto)
    _report_side(game, message, as_json, send_now, f"[ok]Disclosed[/ok] up to seq {message.fields['upto']}. Mail "
                 f"[bold]{game.dir.outbox_path(message)}[/bold] to every player.")


@app.command("dispute")
def dispute_cmd(
    seq: int = typer.Argument(..., help="The entry you dispute."),
    player: Optional[str] = typer.Option(None, "--player", help="Who owes the disclosure (default: its author)."),
    game_dir: Path = GameOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Dispute an entry: its author owes a disclosure of his hidden draws up to it.

    Kept in this game directory (disputes.toml) and shown by 'pbem status' until his disclosure
    reaching that seq arrives; tell him by mail. Then 'pbem audit PLAYER' checks his play."""
    game = _game(game_dir)
    item = game.dispute(seq, player)
    if as_json:
        emit_json(item)
        return
    out().print(f"You dispute seq {item['seq']}: ask {item['player']} to run 'pbem disclose --upto {item['seq']}' "
                f"and mail it; then 'pbem audit {item['player']}'.", markup=False)


@app.command("audit")
def audit_cmd(
    player: Optional[str] = typer.Argument(None, help="Audit this player only (default: everyone who disclosed)."),
    game_dir: Path = GameOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Check the cards each player played against the hand his disclosure shows he held.

    Every private draw is derived again from the disclosed values; the first defect exits 4, naming
    the entry, the player and the rule."""
    game = _game(game_dir)
    found = game.audit(player)
    if as_json:
        emit_json(found)
        return
    if not found:
        out().print("Nobody has disclosed anything yet: nothing to audit.")
    for name, item in found.items():
        out().print(f"[ok]{name}[/ok]: every order up to seq {item['upto']} is consistent with the hidden "
                    "draws his disclosure opens.")


def _refuse_after_interrupted_move(game, player: str) -> None:
    """A move an interrupted run had signed is finished first; then nothing new is signed, so running
    the same command again after a crash never plays the move twice."""
    game.finish_interrupted()
    interrupted = [m for m in game.finished if m.type == "move" and m.player == player]
    if interrupted:
        _say_finished(game)
        game.announced()
        raise UsageError(f"your interrupted move for seq {interrupted[-1].seq} was finished and stored instead; "
                         "nothing new was signed. Run the command again if you meant another move", player=player)


def _check_delivered(posted: list) -> None:
    from . import exchange

    exchange.check_delivered(posted)


def _finished_json(game) -> list[dict]:
    return [{"type": m.type, "seq": m.seq, "id": m.id, "outbox": str(game.dir.outbox_path(m))} for m in game.finished]


def _say_finished(game) -> None:
    """Own messages an interrupted command had signed, which this command stored: they still need mailing."""
    for message in game.finished:
        out().print(f"[ok]Finished[/ok] an interrupted command: your {message.type}"
                    + (f" for seq {message.seq}" if message.seq is not None else "")
                    + f" is stored; mail [bold]{game.dir.outbox_path(message)}[/bold] to every player.")


def _read_batches(files: list[str]) -> tuple[list, list[tuple[str, PbemError]]]:
    """Each file's messages as one batch; a file that cannot be read is refused on its own."""
    from .game import read_messages

    batches: list = []
    refused: list[tuple[str, PbemError]] = []
    for name in files:
        try:
            raw = sys.stdin.buffer.read() if name == "-" else Path(name).read_bytes()
        except OSError as exc:
            refused.append((name, UsageError(f"cannot read {name}: {exc.strerror}", field="FILE")))
            continue
        try:
            batches.append((name, read_messages(raw, "stdin" if name == "-" else name)))
        except PbemError as exc:
            refused.append((name, exc))
    return batches, refused


@app.command("apply")
def apply(
    files: List[str] = typer.Argument(None, help="Message files, saved mails (.eml) or - for stdin."),
    reveal: bool = typer.Option(False, "--reveal", help="If you are a witness of the new roll point, sign your "
                                "reveal now and put it in outbox/."),
    not_revealed_elsewhere: bool = typer.Option(False, "--not-revealed-elsewhere", help="On a machine with no "
                                                "reveal record: you confirm you never revealed for this seq."),
    unseal: bool = typer.Option(False, "--unseal", help="If every member of a simultaneous decision has now "
                                "sealed, open your seal and put the unseal in outbox/."),
    game_dir: Path = GameOpt,
    key: Optional[Path] = KeyOpt,
    agent: Optional[Path] = AgentOpt,
    send_now: bool = typer.Option(False, "--send", help="Mail the reveal this writes to every player."),
    as_json: bool = JsonOpt,
) -> None:
    """Verify incoming messages, store them and adjudicate; answer with a reveal when you witness.

    Each message is a duplicate (already here), held (its predecessor has not arrived: kept in held/,
    exit 5), a fork (exit 4, the game stops) or applied. A file that does not check is refused whole
    and nothing of it is written; the good files of the same command still apply, and the exit code is
    the worst of the refusals.
    """
    game = _game(game_dir)
    me = _me(game)
    report = _accept_files(game, files or [])
    owed = game.owed_reveal(me)
    revealed = None
    if owed is not None and (reveal or (sys.stdin.isatty() and not as_json and files and
                                        typer.confirm(f"You witness the roll of seq {owed.seq}. Reveal now?",
                                                      default=True))):
        revealed, reveal_report = game.reveal(me, lambda: _signer(key, agent, game),
                                              fresh_machine_ok=not_revealed_elsewhere)
        report.rolls.extend(reveal_report.rolls)
        game.completed_roll(reveal_report)
        report.rolls.extend(r for r in reveal_report.rolls if r not in report.rolls)
    elif reveal and not files and not any(m.type == "reveal" for m in game.finished):
        raise UsageError(f"{me} owes no reveal now", player=me, field="--reveal")
    unsealed = game.unseal(me, _signer(key, agent, game))[0] if unseal and game.owed_sealed(me) == "unseal" else None
    if unsealed is not None and not as_json:
        out().print(f"[ok]Unsealed[/ok] your orders for seq {unsealed.seq}: mail "
                    f"{game.dir.outbox_path(unsealed)} to every player.")
    if as_json:
        emit_json({**_apply_json(game, report, owed, revealed),
                   "unseal": str(game.dir.outbox_path(unsealed)) if unsealed else None,
                   "owed_sealed": game.owed_sealed(me)})
    else:
        _print_apply(game, report, owed, revealed)
    mine = [m for m in (revealed, unsealed) if m is not None]
    posted = _post(game, mine, quiet=as_json) if send_now and mine else []
    game.announced()  # after mailing: a run killed while sending names the reveal again
    _exit_for(report, posted)


def _accept_files(game, files: list[str]):
    """Apply the files; with none, finish an interrupted command and retry held/. The roll an
    incoming reveal completes is shown at once."""
    batches, unreadable = _read_batches(files)
    if len(files) == 1 and unreadable:
        raise unreadable[0][1]
    report = game.accept_batches(batches)
    report.refused[:0] = unreadable
    game.completed_roll(report)
    return report


def _apply_json(game, report, owed, revealed) -> dict:
    return {
        "outcomes": [{"id": o.message.id, "type": o.message.type, "player": o.message.player,
                      "seq": o.message.seq, "status": o.status, "detail": o.detail} for o in report.outcomes],
        "refused": [{"source": source, "error": str(error), "exit": error.exit_code}
                    for source, error in report.refused],
        "rolls": [{"seq": r.seq, "draws": [d.to_dict() for d in r.draws]} for r in report.rolls],
        "reveal": str(game.dir.outbox_path(revealed)) if revealed else None,
        "owed_reveal": owed.seq if owed and not revealed else None,
        "finished": _finished_json(game),
    }


def _print_apply(game, report, owed, revealed) -> None:
    from . import report as reports

    out().print(reports.outcome_lines(report, game.ruleset.summary))
    _say_finished(game)
    if revealed is not None:
        out().print(f"[ok]Revealed[/ok] for seq {revealed.seq}: mail [bold]{game.dir.outbox_path(revealed)}"
                    "[/bold] to every player, yourself included.")
    elif owed is not None:
        out().print(f"[warn]You witness the roll of seq {owed.seq}:[/warn] run 'pbem apply --reveal' to reveal.")


def _exit_for(report, posted: tuple | list = ()) -> None:
    """Each refused source on its own line, then the worst of what happened (SEVERITY)."""
    from . import console

    for source, error in report.refused:
        console.stderr().print(f"error: refused {source}: {error}", markup=False, highlight=False)
    codes = [error.exit_code for _, error in report.refused] + ([Held.exit_code] if report.held else [])
    _exit_worst(codes, posted)


def _exit_worst(codes: list[int], posted: tuple | list) -> None:
    """Exit with the worst code; a mail not delivered is one more line (exit 8)."""
    from .errors import NotDelivered

    try:
        _check_delivered(list(posted))
    except NotDelivered as exc:
        if not codes:
            raise
        _print_error(exc)
        codes.append(exc.exit_code)
    if codes:
        raise typer.Exit(worst(codes))


INTERNAL_ERROR = 9  # a bug: an exception no library code meant to raise

# Worst first: a fork or a forgery outranks a disk or usage error, any refusal outranks mail not
# delivered, and a message held for a predecessor (which will come) is the mildest.
SEVERITY = (4, 3, 7, 6, 2, 1, 8, 5)


def worst(codes: list[int]) -> int:
    return min(codes, key=lambda code: SEVERITY.index(code) if code in SEVERITY else -1)


@app.command("resign")
def resign(
    reason: str = typer.Option("", "--reason", help="Why, for the record."),
    game_dir: Path = GameOpt,
    key: Optional[Path] = KeyOpt,
    agent: Optional[Path] = AgentOpt,
) -> None:
    """Resign: sign a resign message; it takes effect in the next entry that uses it."""
    game = _game(game_dir)
    player = _me(game)
    signer = _signer(key, agent, game)
    owed = _seal_what_you_owe(game, player, signer)
    message, _ = game.resign(player, signer, reason)
    _say_finished(game)
    also = "".join(f", {game.dir.outbox_path(m)}" for m in owed)
    out().print(f"Resigned. Mail [bold]{game.dir.outbox_path(message)}{also}[/bold] to every player.")
    game.announced()


def _seal_what_you_owe(game, player: str, signer) -> list:
    """§5: a member who resigns still owes the open decision his seal and unseal: no orders."""
    sent = []
    if game.owed_sealed(player) == "seal":
        sent.append(game.seal(player, [], signer)[0])
    if game.owed_sealed(player, early=True) == "unseal":
        try:
            sent.append(game.unseal(player, signer, early=True)[0])
        except Held:  # orders he sealed before wait for the others' seals, as ever
            out().print("[warn]You still owe your unseal: run 'pbem unseal' once every member has sealed.[/warn]")
    return sent


# ------------------------------------------------------------------------------------- mail

def _delivery_json(posted) -> dict:
    return {"id": posted.message.id, "type": posted.message.type, "seq": posted.message.seq,
            "delivered": posted.delivery.delivered, "failed": posted.delivery.failed,
            "queued": str(posted.queued) if posted.queued else None}


def _post(game, messages, *, quiet: bool = False) -> list:
    """Mail each message and say who got it (unless quiet: --json prints the results). Whoever did not
    get it (refused, unreachable, no address yet) stays queued in mailq/; the caller ends with
    exchange.check_delivered, NotDelivered (exit 8), once it has reported the rest: the messages are
    signed and stored all the same."""
    from . import exchange
    from . import report as reports

    settings = exchange.sending_settings(game, messages)
    results = [exchange.post(game, message, settings) for message in messages]
    if not quiet:
        out().print(reports.delivery_lines(results), soft_wrap=True)
    return results


@mail_app.command("setup")
def mail_setup(
    address: str = typer.Option(..., "--address", help="Your mail address: the From of what you send."),
    smtp_host: str = typer.Option(..., "--smtp-host", help="Your outgoing mail server."),
    smtp_port: int = typer.Option(587, "--smtp-port", help="587 for STARTTLS, 465 for TLS, 25 for none."),
    security: str = typer.Option("starttls", "--security", help="starttls, tls or none."),
    user: str = typer.Option("", "--user", help="SMTP login, if the server wants one."),
    password_env: str = typer.Option("", "--password-env", help="Read the SMTP password from this environment "
                                     "variable (never stored)."),
    password_command: str = typer.Option("", "--password-command", help="Or run this command for it, e.g. "
                                         "'pass show mail/smtp' (never stored)."),
) -> None:
    """Write your mail settings (mail.toml in your pbem app dir, mode 0600); no password is stored."""
    from . import keys, mail

    if password_env and password_command:
        raise UsageError("give --password-env or --password-command, not both", field="--password-env")
    settings = mail.MailSettings(address, smtp_host, smtp_port, security, user, password_env, password_command)
    path = settings.save(keys.app_dir())
    out().print(f"[ok]Wrote[/ok] {path}")


@mail_app.command("address")
def mail_address(
    player: str = typer.Argument(..., help="A player id of this game."),
    address: str = typer.Argument(..., help="Where that player reads his pbem mail."),
    game_dir: Path = GameOpt,
) -> None:
    """Record a player's mail address in this game's addresses.toml (local; it may change mid-game)."""
    from . import exchange

    exchange.set_address(_game(game_dir), player, address)
    out().print(f"{player}: {address}", markup=False)


@app.command("send")
def send_cmd(
    files: List[Path] = typer.Argument(None, help="Signed message files, e.g. outbox/000012-move-alice.toml."),
    retry: bool = typer.Option(False, "--retry", help="Send again what an earlier send left in mailq/."),
    game_dir: Path = GameOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Mail signed messages to every other player: a readable body, the message pasted and attached.

    Says who got each one, and for the others the server's answer (refused, TLS required,
    connection refused …). What did not reach everyone stays queued in mailq/ and the exit code
    is 8; once the cause is fixed (or 'pbem mail address PLAYER ADDRESS' given), 'pbem send
    --retry' sends it again.
    """
    from . import exchange, keys, mail
    from . import report as reports
    from .game import read_messages

    game = _game(game_dir)
    if retry:
        posted = exchange.retry(game, mail.MailSettings.load(keys.app_dir()))
    elif files:
        messages = []
        for path in files:
            try:
                messages.extend(read_messages(Path(path).read_bytes(), str(path)))
            except OSError as exc:
                raise UsageError(f"cannot read {path}: {exc.strerror}", field="FILES") from None
        settings = exchange.sending_settings(game, messages)
        posted = [exchange.post(game, message, settings) for message in messages]
    else:
        raise UsageError("name the message files to send, or --retry", field="FILES")
    if as_json:
        emit_json([_delivery_json(p) for p in posted])
    else:
        out().print(reports.delivery_lines(posted) if posted else "Nothing queued.", soft_wrap=True)
    exchange.check_delivered(posted)


def _inbox_games(root: Path) -> list:
    """The game directory here, or every one below (as where `game.toml` was saved before joining
    with --dir). One below that cannot be opened is named and left out; the others still read mail."""
    from . import console
    from .game import Game

    folders = [root] if (root / "me.toml").exists() else \
        [p.parent for p in sorted(root.glob("*/me.toml")) if (p.parent / "game.toml").exists()]
    if not folders:
        from .log import GameDir

        GameDir(root).require(player=True)  # refuses, naming the nearest game directory
    games = []
    for folder in folders:
        try:
            game = Game(folder)
        except PbemError as exc:
            if len(folders) == 1:
                raise
            console.stderr().print(f"error: left out {folder}: {exc}", markup=False, highlight=False)
            continue
        game.announce_later = True  # own messages leave journal/ once this run has said to mail them
        games.append(game)
    return games


@app.command("inbox")
def inbox_cmd(
    maildir: Optional[Path] = typer.Option(None, "--maildir", help="Read this Maildir."),
    mbox: Optional[Path] = typer.Option(None, "--mbox", help="Read this mbox file."),
    imap: Optional[str] = typer.Option(None, "--imap", help="Read this IMAP server (HOST)."),
    port: Optional[int] = typer.Option(None, "--port", help="IMAP port (default 993 with --security tls, else 143)."),
    security: str = typer.Option("tls", "--security", help="IMAP: tls, starttls or none."),
    user: str = typer.Option("", "--user", help="IMAP login."),
    password_env: str = typer.Option("PBEM_IMAP_PASSWORD", "--password-env", help="IMAP password variable."),
    folder: str = typer.Option("INBOX", "--folder", help="IMAP folder."),
    auto_reveal: bool = typer.Option(False, "--auto-reveal", help="Reveal at once as a witness and mail the "
                                     "reveal. Only for a machine that is your ONLY revealer in this game."),
    auto_unseal: bool = typer.Option(False, "--auto-unseal", help="Once every member of a simultaneous decision "
                                     "has sealed, open your seal and mail the unseal."),
    game_dir: Path = GameOpt,
    key: Optional[Path] = KeyOpt,
    agent: Optional[Path] = AgentOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Apply every pbem message in a mailbox, in log order, for the game here (or the games in the
    directories below it). Each mail is read once: a second run does nothing.

    A refused mail is named on stderr with the reason. One that can never apply (a bad
    signature, unreadable, another game, a fork, an illegal order) is marked read; one that may
    apply later (the game directory locked, a disk error, the game stopped by a fork) is left for
    the next run. The exit code is the worst of what happened: 5 if something is held, a refused
    mail's own code (3, 4 …), 8 if an --auto-reveal did not reach everyone.
    """
    from . import console, exchange, keys, mail
    from . import report as reports

    sources = [s for s in (maildir, mbox, imap) if s]
    if len(sources) != 1:
        raise UsageError("choose one of --maildir, --mbox or --imap", field="--maildir")
    if security not in ("tls", "starttls", "none"):
        raise UsageError(f"--security is tls, starttls or none, not {security!r}", field="--security")
    games = _inbox_games(Path(game_dir))
    by_dir = {str(game.dir.root): game for game in games}
    if maildir:
        mails = mail.read_maildir(maildir)
    elif mbox:
        mails = mail.read_mbox(mbox)
    elif imap:
        mails = mail.read_imap(imap, port or (993 if security == "tls" else 143), user,
                               os.environ.get(password_env), folder, security)
    settings = mail.MailSettings.load(keys.app_dir()) if auto_reveal or auto_unseal else None
    signer_game = games[0]
    report = exchange.inbox(games, mails, auto_reveal=auto_reveal, auto_unseal=auto_unseal,
                            signer_factory=lambda: _signer(key, agent, signer_game), settings=settings)
    posted = [p for p in report.reveals + report.unseals if isinstance(p, exchange.Posted)]
    if as_json:
        emit_json({
            "new_mails": report.new_mails, "skipped": report.skipped,
            "refused": [{"mail": r.mail, "error": str(r.error), "exit": r.error.exit_code, "read": r.final}
                        for r in report.refused],
            "applied": {d: [{"id": o.message.id, "type": o.message.type, "player": o.message.player,
                             "seq": o.message.seq, "status": o.status} for o in r.outcomes]
                        for d, r in report.applied.items()},
            "reveals": [_delivery_json(p) if isinstance(p, exchange.Posted) else {"id": p.id}
                        for p in report.reveals],
            "unseals": [_delivery_json(p) if isinstance(p, exchange.Posted) else {"id": p.id}
                        for p in report.unseals],
        })
    else:
        for directory, applied in report.applied.items():
            if applied.outcomes or applied.dropped:
                out().print(f"[bold]{directory}[/bold]")
                out().print(reports.outcome_lines(applied, by_dir[directory].ruleset.summary))
        if posted:
            out().print(reports.delivery_lines(posted), soft_wrap=True)
        out().print(f"{report.new_mails} new mail(s), {report.skipped} skipped")
        for game in games:
            _say_finished(game)
    for game in games:
        game.announced()
    for refusal in report.refused:
        console.stderr().print(f"error: {reports.refusal_line(refusal)}", markup=False, highlight=False)
    codes = [r.error.exit_code for r in report.refused] + [Held.exit_code for r in report.applied.values()
                                                           if r.held]
    _exit_worst(codes, posted)


# ------------------------------------------------------------------------------------- inspection

@app.command("status")
def status_cmd(game_dir: Path = GameOpt, as_json: bool = JsonOpt) -> None:
    """Whose step it is, who owes a reveal for which entry since when, against the deadlines."""
    from .game import status

    game = _game(game_dir)
    data = status(game)
    if as_json:
        emit_json(data)
        game.announced()
        return
    from . import report as reports

    out().print(reports.status_view(data))
    _say_finished(game)
    game.announced()
    for item in data["unfinished"]:
        out().print(f"[warn]Your {item['type']} for seq {item['seq']} was signed, but a command was interrupted "
                    "before it was stored and put in outbox/:[/warn] run 'pbem apply' here when the directory "
                    "can be written, then mail it from outbox/.")


@app.command("show")
def show(
    view: Optional[str] = typer.Argument(None, help="Which view (default: the ruleset's first); "
                                         "'pbem show list' names them; 'picture' draws the map."),
    args: List[str] = typer.Argument(None, help="What the view takes, e.g. a space: 'pbem show space Verdun'."),
    focus: Optional[str] = typer.Option(None, "--focus", help="With 'picture': draw only the part of the map "
                                        "around this space, e.g. --focus Verdun (the ruleset says how far)."),
    out_path: Optional[Path] = typer.Option(None, "--out", help="With 'picture': write the SVG to this file "
                                            "('-': standard output)."),
    game_dir: Path = GameOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Inspect the game as it stands, with the latest roll resolved once all witnesses revealed.

    Views of what only you may see (your hand) are derived from your key on this machine.

    'pbem show picture --out map.svg' draws the map as an SVG file to open in a browser, in games that draw one.

    'pbem show picture --focus Verdun --out verdun.svg' draws the part of the map around one space.
    """
    game = _game(game_dir)
    _derive_seeds_once(game)
    engine, _ = game.current()
    if not engine.started:
        raise UsageError(f"the game has not started: waiting for joins from {', '.join(engine.missing_joins())}")
    if view == "picture":
        _show_picture(game.ruleset.picture(engine.state, focus), game, args, out_path, as_json)
        return
    if focus is not None or out_path is not None:
        raise UsageError("--focus and --out go with 'pbem show picture'", field="--focus" if focus else "--out")
    views = game.ruleset.views(engine.state, engine.views)
    if view == "list":
        listed = {name: v.help for name, v in views.items()}
        if _draws_pictures(game.ruleset):
            listed["picture"] = "the map as an SVG picture: --out FILE, --focus SPACE for a part of it"
        if as_json:
            emit_json(listed)
        else:
            for name, text in listed.items():
                out().print(f"[bold]{name}[/bold]: {text}")
        return
    name = view or next(iter(views))
    if name not in views:
        raise UsageError(f"no view {name!r}; {game.ruleset.id} has: {', '.join(views)}", field="VIEW")
    data = views[name].data(*_view_words(name, views[name].data, args or []))
    if as_json:
        emit_json(data)
    else:
        out().print(views[name].render(data))


def _view_words(name: str, data, words: List[str]) -> List[str]:
    """The words after a view's name, if its data function takes that many (UsageError else)."""
    import inspect

    parameters = inspect.signature(data).parameters.values()
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in parameters):
        return words
    most = sum(p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
               for p in parameters)
    if len(words) > most:
        takes = "no words" if most == 0 else f"at most {most} word{'s' if most > 1 else ''}"
        raise UsageError(f"'pbem show {name}' takes {takes}, not {' '.join(words)!r}", field="VIEW")
    return words


def _draws_pictures(ruleset) -> bool:
    """Does this ruleset draw a picture at all (does it override Ruleset.picture)?"""
    from .ruleset import Ruleset

    return type(ruleset).picture is not Ruleset.picture


def _show_picture(svg: Optional[str], game, args: Optional[List[str]], out_path: Optional[Path],
                  as_json: bool) -> None:
    """`pbem show picture`: the SVG to a file, or to standard output with '--out -'."""
    if svg is None:
        raise UsageError(f"{game.ruleset.id} draws no picture of its map; 'pbem show list' names its views",
                         field="VIEW")
    if args:
        raise UsageError(f"'pbem show picture' takes no words; for a part of the map give --focus {args[0]}",
                         field="VIEW")
    if as_json:
        raise UsageError("the picture is SVG, not JSON: leave out --json", field="--json")
    if out_path is None:
        raise UsageError("give --out FILE to write the SVG ('--out -' prints it)", field="--out")
    if str(out_path) == "-":
        sys.stdout.write(svg)
        return
    if game.dir.owns(out_path):
        raise UsageError(f"{out_path} is one of the game's own files; write the picture elsewhere", field="--out")
    from rich.markup import escape

    from .log import atomic_write

    atomic_write(out_path, svg.encode())
    out().print(f"[ok]Wrote[/ok] {escape(str(out_path))}")


def _derive_seeds_once(game) -> None:
    """On a machine that never joined (a new laptop), your seeds come again from your key, so your
    private view is derived as on the first. A key that cannot sign here just leaves it out."""
    with contextlib.suppress(PbemError):
        game.derive_hidden_chain(lambda: _signer(None, None, game))


def _progress(label: str):
    """A rich progress bar on a terminal for long replays, else nothing."""
    console = out()
    if not console.is_terminal:
        return None, None
    from rich.progress import Progress

    bar = Progress(console=console, transient=True)
    task = bar.add_task(label, total=None)

    def advance(done: int, total: int) -> None:
        bar.update(task, completed=done, total=total)

    return bar, advance


@app.command("log")
def log_cmd(
    last: Optional[int] = typer.Option(None, "--last", min=1, help="Show only the last N entries."),
    since: Optional[int] = typer.Option(None, "--since", min=1, help="Show the entries from seq SEQ on."),
    game_dir: Path = GameOpt,
    as_json: bool = JsonOpt,
) -> None:
    """The entries: who, when, the orders, and the dice drawn at each roll point.

    Every entry unless --last N or --since SEQ picks the recent ones. The whole log is replayed
    and checked either way; drawing the table takes most of the time on a long game, and only the
    entries shown are drawn.
    """
    from .history import log_entries

    if last and since:
        raise UsageError("give --last N or --since SEQ, not both", field="--last")
    game = _game(game_dir)
    bar, advance = _progress("Replaying")
    if bar:
        with bar:
            rows = log_entries(game, advance, last=last, since=since or 1)
    else:
        rows = log_entries(game, last=last, since=since or 1)
    if as_json:
        emit_json(rows)
        return
    from . import report as reports

    out().print(reports.log_view(rows, reports.left_out(rows, game.dir.last_seq(), "pbem log")))


@app.command("verify")
def verify(
    roll: Optional[int] = typer.Option(None, "--roll", help="Explain the roll point of entry N step by step."),
    game_dir: Path = GameOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Re-check the whole game from the charter and public keys alone, trusting no cache.

    Every signature, link, reveal, order and state hash is checked; exit 4 names the first defect.
    The summary counts the roll points and names the witnesses a roll still waits for; '--roll N'
    on such an entry says so and exits 5.
    """
    from .history import explain_roll, resolved_roll, roll_points

    game = _game(game_dir)
    bar, advance = _progress("Verifying")
    if bar:
        with bar:
            engine = game.verify(progress=advance)
    else:
        engine = game.verify()
    points = roll_points(game, engine)
    waiting = points.waiting
    if roll is not None:
        explained = explain_roll(resolved_roll(points, engine, roll), game.charter)
        if as_json:
            emit_json(explained)
            return
        from . import report as reports

        out().print(reports.roll_view(explained))
        return
    summary = {"ok": True, "game": game.charter.game, "entries": engine.head_seq, "head": engine.head_id,
               "rolls": points.count(), "joins": len(engine.joins),
               "waiting": {"seq": waiting.seq, "for": list(points.missing)} if waiting else None}
    if as_json:
        emit_json(summary)
        return
    count = points.count()
    rolls = f"{count} roll point{'s' * (count != 1)}" + (
        f" (seq {waiting.seq} waiting for reveals from {', '.join(points.missing)})" if waiting else "")
    out().print(f"[ok]Verified[/ok] {game.charter.game}: {engine.head_seq} entries, {len(engine.joins)} joins, "
                f"{rolls}; every signature, link, reveal, order and state hash checks. Head {engine.head_id}",
                soft_wrap=True)


@app.command("report")
def report_cmd(
    html: Optional[Path] = typer.Option(None, "--html", help="Write an HTML report here, the map picture "
                                        "above the text in games that draw one."),
    svg: Optional[Path] = typer.Option(None, "--svg", help="Write the report here as one SVG document, the "
                                       "map picture above the text in games that draw one."),
    text: Optional[Path] = typer.Option(None, "--text", help="Write a plain text report here."),
    last: Optional[int] = typer.Option(None, "--last", min=1, help="Show the last N entries of the log "
                                       "(default 20)."),
    since: Optional[int] = typer.Option(None, "--since", min=1, help="Show the log from seq SEQ on "
                                        "(--since 1: all of it)."),
    game_dir: Path = GameOpt,
) -> None:
    """Status, the game view and the recent log: on standard output, or in files to mail.

    The log part shows the last 20 entries unless --last N or --since SEQ says otherwise, and
    says which entries it left out.

    In games that draw a map picture, the HTML and SVG files show it above the text ('pbem show picture': alone).
    """
    from . import report as reports
    from .game import status
    from .history import log_entries

    if last and since:
        raise UsageError("give --last N or --since SEQ, not both", field="--last")
    game = _game(game_dir)
    engine, _ = game.current()
    parts = [reports.status_view(status(game))]
    if engine.started:
        first = next(iter(game.ruleset.views(engine.state, engine.views).values()))
        parts.append(first.render(first.data()))
    rows = log_entries(game, last=None if since else last or 20, since=since or 1)
    parts.append(reports.log_view(rows, reports.left_out(rows, game.dir.last_seq(), "pbem report")))
    if not (html or svg or text):
        for part in parts:
            out().print(part)
        return
    from .log import atomic_write

    for fmt, path in (("html", html), ("svg", svg), ("text", text)):
        if path and game.dir.owns(Path(path)):
            raise UsageError(f"{path} is one of the game's own files; write the report elsewhere", field=f"--{fmt}")
    picture = game.ruleset.picture(engine.state) if engine.started and (html or svg) else None
    for fmt, path in (("html", html), ("svg", svg), ("text", text)):
        if path:
            atomic_write(Path(path), reports.export(parts, fmt, picture=picture).encode())
            out().print(f"[ok]Wrote[/ok] {path}")


@app.command("rules")
def rules_cmd(game: Optional[str] = typer.Argument(None, help="A ruleset id, e.g. freeform."),
              as_json: bool = JsonOpt) -> None:
    """List the installed rulesets, or one ruleset's scenarios, options and orders."""
    from . import ruleset as rulesets

    if game is None:
        installed = {name: {"title": rulesets.load(name).title, "version": rulesets.load(name).version}
                     for name in sorted(rulesets.available())}
        if as_json:
            emit_json(installed)
            return
        for name, info in installed.items():
            out().print(f"[bold]{name}[/bold] {info['version']}: {info['title']}")
        return
    data = rulesets.describe(rulesets.load(game))
    if as_json:
        emit_json(data)
        return
    for line in _ruleset_lines(data):
        out().print(line)


def _ruleset_lines(data: dict):
    """`pbem rules GAME` as text: scenarios, optional rules with their rules and relations, orders."""
    from rich.text import Text

    yield Text.assemble((data["id"], "bold"), f" {data['version']}: {data['title']}")
    for name, title in data["scenarios"].items():
        yield Text.assemble("  scenario ", (name, "bold"), f": {title}")
    yield Text("Optional rules (pbem new --option NAME=on|off|VALUE):" if data["options"] else "No optional rules.")
    for name, option in data["options"].items():
        kind = "one of " + ", ".join(map(str, option["choices"])) if "choices" in option else option["type"]
        relations = "".join(f"; {word} {', '.join(option[word])}" for word in ("requires", "excludes")
                            if word in option)
        default = {True: "on", False: "off"}.get(option["default"], option["default"])
        yield Text(f"  {name} (rule {option['rule']}; {kind}, default {default}{relations}): "
                   f"{option['help']}")
    yield Text("Orders (pbem move 'KIND key=value …'; lists as a,b,c):")
    for kind, order in data["orders"].items():
        yield Text.assemble("  ", (kind, "bold"), f" (rule {order['rule']}): {order['help']}")
        for name, spec in order["fields"].items():
            yield Text(f"      {name}: {spec['type']}{'' if spec['required'] else ', optional'}. {spec['help']}")
        yield Text(f"      e.g. pbem move '{order['example']}'", style="dim")


@app.command("demo")
def demo(
    game: str = typer.Argument("freeform", help="Which game: freeform, paths-of-glory, empires-in-arms or "
                               "world-in-flames."),
    keep: Optional[Path] = typer.Option(None, "--keep", help="Keep the players' directories here."),
) -> None:
    """Play a game's script between its players, each in his own directory; verify it, show the report."""
    from . import demo as demos

    for item in demos.run(game, keep):
        out().print(item)


def _print_error(exc: PbemError) -> None:
    from rich.text import Text

    from . import console

    console.stderr().print(Text.assemble(("error: ", "bad"), str(exc)))


def main() -> None:
    """`pbem`: runs the command sys.argv names and ends with SystemExit (its exit code)."""
    _short_lived_process()
    try:
        code = command_group().main(standalone_mode=False)
    except PbemError as exc:
        _print_error(exc)
        sys.exit(exc.exit_code)
    except OSError as exc:  # a disk error that no library call named: still one line, exit 7
        from .log import disk_error

        _print_error(disk_error(exc, "use", exc.filename or "a file"))
        sys.exit(7)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except typer.Abort:
        sys.stderr.write("aborted\n")
        sys.exit(2)
    except Exception as exc:
        # Command-line usage errors from typer's click (vendored or not): shown as click shows them.
        show = getattr(exc, "show", None)
        exit_code = getattr(exc, "exit_code", None)
        if callable(show) and isinstance(exit_code, int):
            show()
            sys.exit(exit_code)
        if os.environ.get("PBEM_DEBUG"):
            raise
        where = exc.__traceback__
        while where is not None and where.tb_next is not None:
            where = where.tb_next
        place = f" at {Path(where.tb_frame.f_code.co_filename).name}:{where.tb_lineno}" if where else ""
        sys.stderr.write(f"error: internal error{place}: {type(exc).__name__}: {' '.join(str(exc).split())} "
                         "(a bug in pbem; PBEM_DEBUG=1 shows the trace)\n")
        sys.exit(INTERNAL_ERROR)
    sys.exit(code if isinstance(code, int) else 0)


def _short_lived_process() -> None:
    """A command's objects mostly live as long as its process: modules, the game's facts. The cycle
    collector would scan them again and again as they are made, and once more, all of them, when the
    interpreter exits (15-20 ms of a 100 ms command). So collect young objects less often (memory
    stays bounded), and freeze everything at exit, where the collector has nothing left to free that
    the operating system does not take back anyway. The process ends with main, so this is not undone."""
    import atexit
    import gc

    threshold = gc.get_threshold()
    gc.set_threshold(max(threshold[0], 50_000), *threshold[1:])
    atexit.unregister(gc.freeze)  # once, however often main runs in one process
    atexit.register(gc.freeze)


if __name__ == "__main__":
    main()
