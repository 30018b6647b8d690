"""`pbem demo [GAME]`: a ruleset's scripted game, each player in his own directory.

The script comes from the ruleset (`demo_script()`). Each player gets a TEST-ONLY key and his own
game directory; messages travel as files through the functions the CLI uses (read_messages,
Game.accept, Game.move, Game.reveal). Every roll is revealed by its witnesses before the next
step. At the end every directory is verified and must end on the same head. Yields renderables
for the CLI to print.
"""

from __future__ import annotations

import functools
import shutil
import tempfile
from pathlib import Path

from rich.rule import Rule
from rich.text import Text

from . import keys
from . import ruleset as rulesets
from .charter import Charter, Member
from .errors import ChainBroken, IllegalOrder, UsageError
from .game import Game, join, read_messages, status
from .history import log_entries


def _deliver(path: Path, recipients: list[Game]) -> None:
    messages = read_messages(path.read_bytes(), str(path))
    for game in recipients:
        game.accept(messages)


def _draws(record) -> Text:
    text = Text("   dice: ", style="cyan")
    for draw in record.draws:
        text.append(f"{draw.purpose} ({draw.rule}): ", style="dim")
        text.append(f"{draw.result}  ", style="bold cyan")
    return text


def _view(game: Game, words: list[str]):
    engine, _ = game.current()
    view = game.ruleset.views(engine.state)[words[0]]
    return view.render(view.data(*words[1:]))


def run(which: str = "freeform", keep: Path | None = None):
    try:
        ruleset = rulesets.load(which.replace("-", "_"))
        script = ruleset.demo_script()
    except (UsageError, AttributeError):
        raise UsageError(f"no demo {which!r}; try freeform or paths-of-glory", field="GAME") from None
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
        charter = Charter.create(
            game=script["game"], ruleset=ruleset.id, version=ruleset.version, scenario=script["scenario"],
            dice=script["dice"], reveal_hours=24, move_hours=48, options=script.get("options", {}),
            tables=script.get("tables", {}),
            players=[Member(p["id"], tuple(p.get("sides", ())), signers[p["id"]].public, p.get("role", "player"))
                     for p in players],
        )
        host_copy = root / "game.toml"
        host_copy.write_text(charter.text)
        host = players[0]["id"]
        yield Text(f"{host} hosts: wrote {host_copy} (digest {charter.digest[:16]}…)")
        games: dict[str, Game] = {}
        joins = []
        for name in signers:
            game, message = join(host_copy, root / name / "game", signers[name], home=root / name / "home")
            games[name] = game
            if message is not None:  # every demo player takes part
                joins.append(game.dir.outbox_path(message))
            yield Text(f"{name} joins in {game.dir.root}  ({signers[name].public.fingerprint()})")
        for path in joins:
            _deliver(path, list(games.values()))
        yield Text("joins exchanged: the game starts", style="green")
        for step in script["steps"]:
            mover = step["player"]
            game = games[mover]
            orders = step.get("orders", [])
            summary = "; ".join(game.ruleset.summary(o) for o in orders) or "(no orders)"
            if step.get("note"):
                yield Text(step["note"], style="italic")
            if "refused" in step:
                try:
                    game.draft(mover, orders, signers[mover])
                except IllegalOrder as refusal:
                    if refusal.rule != step["refused"]:
                        raise
                    yield Text.assemble(("refused ", "bold red"), f"{mover}: {summary}\n   ", (str(refusal), "red"),
                                        ("  (nothing signed)", "dim"))
                    continue
                raise UsageError(f"the demo expected {summary!r} to be refused under {step['refused']}")
            message, _ = game.move(mover, orders, signers[mover])
            yield Text.assemble(("seq ", "bold"), (str(message.seq), "bold"), f" {mover}: {summary}")
            _deliver(game.dir.outbox_path(message), [g for n, g in games.items() if n != mover])
            for name, witness_game in games.items():
                if witness_game.owed_reveal(name) is None:
                    continue
                reveal, _ = witness_game.reveal(name, functools.partial(signers.__getitem__, name))
                _deliver(witness_game.dir.outbox_path(reveal), [g for n, g in games.items() if n != name])
                yield Text(f"   {name} reveals for seq {reveal.seq}", style="dim")
            _, record = game.current()
            if record is not None:  # every witness has revealed: everyone sees these dice now
                yield _draws(record)
            if step.get("show"):
                yield _view(game, step["show"])
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
