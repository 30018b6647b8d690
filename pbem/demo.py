"""`pbem demo [GAME]`: a ruleset's scripted game, each player in his own directory.

The script comes from the ruleset (`demo_script()`). Each player gets a TEST-ONLY key and his own
game directory; messages travel as files through the functions the CLI uses (read_messages,
Game.accept, Game.move, Game.reveal, Game.seal, Game.unseal). Every roll is revealed by its
witnesses before the next step; a sealed round is sealed, then unsealed, by every member before the
collector's next step uses it. At the end every directory is verified and must end on the same head.
Yields renderables for the CLI to print.
"""

from __future__ import annotations

import functools
import shutil
import tempfile
from pathlib import Path

from rich.rule import Rule
from rich.text import Text

from . import keys, sealing
from . import ruleset as rulesets
from .charter import Charter, Member
from .errors import ChainBroken, IllegalOrder, UsageError
from .game import Game, join, read_messages, status
from .history import log_entries
from .message import Message
from .orders import from_sealed_text
from .ruleset import Decision


def _deliver(path: Path, recipients: list[Game]) -> None:
    messages = read_messages(path.read_bytes(), str(path))
    for game in recipients:
        game.accept(messages)


def _mail(games: dict[str, Game], sender: str, message: Message) -> None:
    """From the sender's outbox to every other player's directory."""
    _deliver(games[sender].dir.outbox_path(message), [g for n, g in games.items() if n != sender])


def _draws(record) -> Text:
    """Each purpose once, with its results (2d6 is two draws of one purpose), to stay on one line."""
    if not record.draws and record.private:  # only private draws: who drew, never what (§7)
        return Text("   drawn in private: " + "; ".join(r["purpose"] for r in record.private), style="dim")
    if not record.draws:  # a roll point that needed no die after all (an economic action with no siege)
        return Text("   dice: none needed", style="dim")
    text = Text("   dice:", style="cyan")
    last = None
    for draw in record.draws:
        if (draw.purpose, draw.rule) != last:
            text.append(f"{'  ' if last else ' '}{draw.purpose} ({draw.rule}):", style="dim")
            last = (draw.purpose, draw.rule)
        text.append(f" {draw.result}", style="bold cyan")
    if record.private:
        text.append("; drawn in private: " + "; ".join(r["purpose"] for r in record.private), style="dim")
    return text


def _shows(show) -> list[list[str]]:
    """A step's `show`: one view and its words, or a list of them."""
    if not show:
        return []
    return show if isinstance(show[0], list) else [show]


def _view(game: Game, words: list[str]):
    engine, _ = game.current()
    view = game.ruleset.views(engine.state, engine.views)[words[0]]
    return view.render(view.data(*words[1:]))


def _summary(game: Game, orders: list[dict]) -> str:
    return "; ".join(game.ruleset.summary(o) for o in orders) or "(no orders)"


def _refused(game: Game, step: dict, signer) -> Text:
    """The step's orders must be refused under its rule before anything is signed: as a move, or
    with `seal = true` as the player's seal for the sealed round open."""
    mover, summary = step["player"], _summary(game, step.get("orders", []))
    try:
        if step.get("seal"):
            game.seal(mover, step.get("orders", []), signer)
        else:
            game.draft(mover, step.get("orders", []), signer)
    except IllegalOrder as refusal:
        if refusal.rule != step["refused"]:
            raise
        return Text.assemble(("refused ", "bold red"), f"{mover}: {summary}\n   ", (str(refusal), "red"),
                             ("  (nothing signed)", "dim"))
    raise UsageError(f"the demo expected {summary!r} to be refused under {step['refused']}")


PICK = "?"


def _asked(game: Game, player: str, words: str) -> bool:
    """Is `player` to move, with `words` in what the open decision asks?"""
    engine, _ = game.current()
    pending = engine.pending()
    return isinstance(pending, Decision) and player in pending.players and words in pending.prompt


def _picked(game: Game, player: str, orders: list[dict]) -> list[dict]:
    """A step of one order may leave fields to the position ("?", where the cards a player holds
    come from private draws): the first order the ruleset suggests now with the others as given."""
    if not any(PICK in order.values() for order in orders):
        return orders
    if len(orders) != 1:
        raise UsageError("a step that leaves a field to the position (\"?\") holds one order", field="orders")
    wanted = orders[0]
    engine, _ = game.current()
    for offered in game.ruleset.suggest(engine.state, player, engine.views.get(player)):
        if offered.keys() >= wanted.keys() and all(v == PICK or offered[k] == v for k, v in wanted.items()):
            return [offered]
    raise UsageError(f"{player} has no order the position accepts that matches {wanted} (is he to move, and does "
                     "the ruleset suggest orders?)", field="orders")


def _move(games: dict[str, Game], signers: dict, step: dict, unseals: list[Message]):
    """The mover signs and mails his entry; its witnesses reveal; everyone sees the dice."""
    mover = step["player"]
    game = games[mover]
    orders = _picked(game, mover, step.get("orders", []))
    message, _ = game.move(mover, orders, signers[mover])
    split = [game.ruleset.order_kinds[order["kind"]].split(order) for order in orders]
    hidden = "; ".join(" ".join(f"{k}={v}" for k, v in private.items()) for _, private in split if private)
    yield Text.assemble(("seq ", "bold"), (str(message.seq), "bold"),
                        f" {mover}: {_summary(game, [public for public, _ in split])}",
                        (f"  (in {mover}'s private record: {hidden})" if hidden else "", "dim"))
    opened = [u for u in unseals if u.id in message.uses]
    if opened:
        yield _collected(game, opened)
    _mail(games, mover, message)
    for name, witness_game in games.items():
        if witness_game.owed_reveal(name) is None:
            continue
        reveal, _ = witness_game.reveal(name, functools.partial(signers.__getitem__, name))
        _mail(games, name, reveal)
        yield Text(f"   {name} reveals for seq {reveal.seq}", style="dim")
    _, record = game.current()
    if record is not None:  # every witness has revealed: everyone sees these dice now
        yield _draws(record)


def _collected(game: Game, unseals: list[Message]) -> Text:
    """What each member sealed, as the collector's entry applies it: public only now."""
    text = Text(f"   collects the seals and unseals of seq {unseals[0].seq}:", style="magenta")
    for unseal in unseals:
        orders = from_sealed_text(unseal.fields["orders"])
        text.append(f"\n     {unseal.player}: ", style="bold")
        text.append(_summary(game, orders) if orders else "(no orders: abstains)")
    return text


def _sealed_members(games: dict[str, Game], sealed: dict) -> list[str]:
    """The members of the round open now, in roster order; the script must seal for exactly them."""
    engine, _ = next(iter(games.values())).current()
    decision = sealing.open_decision(engine)
    members = decision.members if decision is not None else []
    if sorted(members) != sorted(sealed):
        raise UsageError(f"the demo seals for {', '.join(sorted(sealed))}, but the sealed round open is "
                         f"among {', '.join(members) or 'nobody'}", field="sealed")
    return members


def _sealed_round(games: dict[str, Game], signers: dict, sealed: dict):
    """Each member seals his orders and mails the seal; once all are in, each unseals and mails that.
    Only digests are shown until the collector's entry applies them. Returns the unseals."""
    members = _sealed_members(games, sealed)
    digests = {}
    for name in members:
        seal, _ = games[name].seal(name, sealed[name], signers[name])
        _mail(games, name, seal)
        digests[name] = f"{seal.fields['sealed'][:16]}…"
        yield Text.assemble(f"   {name} seals for seq {seal.seq}: digest ", (digests[name], "cyan"))
    unseals = []
    for name in members:  # only now: a member unseals once he holds every seal
        unseal, _ = games[name].unseal(name, signers[name])
        _mail(games, name, unseal)
        unseals.append(unseal)
        yield Text.assemble(f"   {name} unseals: opens ", (digests[name], "cyan"), style="dim")
    return unseals


def _start(root: Path, ruleset, script: dict, signers: dict):
    """The host writes the charter; every player joins in his own directory; joins go to all.
    Returns the players' games."""
    players = script["players"]
    charter = Charter.create(
        game=script["game"], ruleset=ruleset.id, version=ruleset.version, scenario=script["scenario"],
        dice=script["dice"], reveal_hours=24, move_hours=48, options=script.get("options", {}),
        tables=script.get("tables", {}),
        players=[Member(p["id"], tuple(p.get("sides", ())), signers[p["id"]].public, p.get("role", "player"))
                 for p in players],
    )
    host_copy = root / "game.toml"
    host_copy.write_text(charter.text)
    yield Text(f"{players[0]['id']} hosts: wrote {host_copy} (digest {charter.digest[:16]}…)")
    games: dict[str, Game] = {}
    joins = []
    for name in signers:
        game, message = join(host_copy, root / name / "game", signers[name], home=root / name / "home")
        games[name] = game
        if message is not None:  # every demo player takes part
            joins.append(game.dir.outbox_path(message))
        yield Text(f"{name} joins in {game.dir.root}\n   key {signers[name].public.fingerprint()}")
    for path in joins:
        _deliver(path, list(games.values()))
    yield Text("joins exchanged: the game starts", style="green")
    return games


def _disclose_and_audit(games: dict[str, Game], signers: dict):
    """Every player discloses up to the last entry; then each one's play is audited (protocol §7)."""
    for name, game in games.items():
        disclose, _ = game.disclose(name, signers[name])
        _deliver(game.dir.outbox_path(disclose), [g for n, g in games.items() if n != name])
        yield Text(f"   {name} discloses up to seq {disclose.fields['upto']}", style="dim")
    auditor = next(iter(games.values()))
    engine, _ = auditor.current()
    for name, held in auditor.audit().items():
        cards = ", ".join(auditor.ruleset.held(engine.state, held["view"])) or "none"
        yield Text(f"   audit: {name}'s play matches the private draws; {name} ends holding {cards}", style="green")


def _play(games: dict[str, Game], signers: dict, steps: list[dict]):
    unseals: list[Message] = []  # the last sealed round's, shown when an entry collects them
    for number, step in enumerate(steps, 1):
        if "if_asked" in step and "player" not in step:
            raise UsageError(f"the demo's step {number} has if_asked but no player", field="if_asked")
        if "if_asked" in step and not _asked(games[step["player"]], step["player"], step["if_asked"]):
            continue  # a branch the dice did not take
        if step.get("note"):
            yield Text(step["note"], style="italic")
        if "sealed" in step:
            unseals = yield from _sealed_round(games, signers, step["sealed"])
            continue
        if step.get("disclose"):
            yield from _disclose_and_audit(games, signers)
            continue
        if "refused" in step:
            yield _refused(games[step["player"]], step, signers[step["player"]])
            continue
        try:
            yield from _move(games, signers, step, unseals)
        except IllegalOrder as exc:  # the script, not a player, is wrong: say which step
            raise UsageError(f"the demo's step {number} ({step['player']}): {exc}", field="steps") from None
        for words in _shows(step.get("show")):
            yield _view(games[step["player"]], words)


def run(which: str = "freeform", keep: Path | None = None):
    try:
        ruleset = rulesets.load(which.replace("-", "_"))
        script = ruleset.demo_script()
    except (UsageError, AttributeError):
        games = ", ".join(name.replace("_", "-") for name in sorted(rulesets.available()))
        raise UsageError(f"no demo {which!r}; try one of {games}", field="GAME") from None
    root = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="pbem-demo-"))
    root.mkdir(parents=True, exist_ok=True)
    try:
        yield Rule(f"pbem demo: {script['title']}")
        players = script["players"]
        signers = {}
        for player in players:
            name = player["id"]
            signers[name] = keys.generate(root / name / "home" / "id_ed25519", None,
                                          f"{name}@demo.invalid TEST-ONLY-KEY")
        games = yield from _start(root, ruleset, script, signers)
        yield from _play(games, signers, script["steps"])
        host = players[0]["id"]
        heads = {name: g.replay().head_id for name, g in games.items()}
        if len(set(heads.values())) != 1:
            raise ChainBroken(f"the demo's logs diverged: {heads}")
        yield Text(f"verified in all {len(games)} directories; every log ends at {(heads[host] or '')[:16]}…",
                   style="green")
        from . import report as reports

        final = games[players[-1]["id"]]
        yield reports.status_view(status(final))
        yield reports.log_view(log_entries(final))
        if keep:
            yield Text(f"The players' directories are in {root}: try 'pbem verify --game {root}/{host}/game'.")
    finally:
        if not keep:
            shutil.rmtree(root, ignore_errors=True)
