"""`pbem demo`: a scripted game between three players in separate directories.

Each player has his own directory and key; messages travel as files through the same functions the
CLI uses (read_messages, Game.accept, Game.move, Game.reveal). Yields renderables for the CLI to print.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from rich.rule import Rule
from rich.text import Text

from . import keys
from .charter import Charter, Member
from .game import Game, join, read_messages, status

PLAYERS = (("alice", ("allies",)), ("bob", ("central",)), ("carol", ("neutrals",)))
TABLES = {"morale": {"rule": "house 4.2: morale check", "2-6": "the line breaks", "7-12": "the line holds"}}

# (player, orders): each roll is revealed by the two others before the next move.
SCRIPT = [
    ("alice", [{"kind": "set", "counter": "vp_allies", "value": 2},
               {"kind": "roll", "dice": "2d6", "purpose": "morale of the Guard", "table": "morale"}]),
    ("bob", [{"kind": "note", "text": "The guns open up along the ridge."},
             {"kind": "roll", "dice": "1d6+1", "purpose": "artillery barrage"}]),
    ("carol", [{"kind": "set", "counter": "vp_central", "add": 1}, {"kind": "pass"}]),
    ("alice", [{"kind": "roll", "dice": "d10", "purpose": "weather"}]),
    ("bob", [{"kind": "end", "result": "draw agreed after the barrage"}]),
]


def _deliver(message_path: Path, recipients: list[Game]) -> None:
    messages = read_messages(message_path.read_bytes(), str(message_path))
    for game in recipients:
        game.accept(messages)


def run(which: str = "freeform", keep: Path | None = None):
    if which != "freeform":
        from .errors import UsageError

        raise UsageError(f"no demo {which!r}; available: freeform", field="GAME")
    root = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="pbem-demo-"))
    root.mkdir(parents=True, exist_ok=True)
    try:
        yield Rule("pbem demo: a freeform game between alice, bob and carol")
        signers = {}
        for name, _ in PLAYERS:
            home = root / name / "home"
            key_path = home / "id_ed25519"
            signers[name] = keys.generate(key_path, None, f"{name}@demo.invalid TEST-ONLY-KEY")
        charter = Charter.create(
            game="demo-freeform", ruleset="freeform", version=_version(), scenario="default", dice="all",
            reveal_hours=24, move_hours=48, options={}, tables=TABLES,
            players=[Member(name, sides, signers[name].public, "player") for name, sides in PLAYERS],
        )
        host_copy = root / "game.toml"
        host_copy.write_text(charter.text)
        yield Text(f"alice hosts: wrote {host_copy} (digest {charter.digest[:16]}…)")
        games: dict[str, Game] = {}
        joins = []
        for name, _ in PLAYERS:
            game, message = join(host_copy, root / name / "game", signers[name], home=root / name / "home")
            games[name] = game
            joins.append(game.dir.outbox_path(message))
            yield Text(f"{name} joins in {game.dir.root}  ({signers[name].public.fingerprint()})")
        for path in joins:
            _deliver(path, list(games.values()))
        yield Text("joins exchanged: the game starts", style="green")
        for mover, orders in SCRIPT:
            game = games[mover]
            message, report = game.move(mover, orders, signers[mover])
            summary = "; ".join(game.ruleset.summary(o) for o in orders)
            yield Text.assemble(("seq ", "bold"), (str(message.seq), "bold"), f" {mover}: {summary}")
            others = [g for n, g in games.items() if n != mover]
            _deliver(game.dir.outbox_path(message), others)
            for name, witness_game in games.items():
                if witness_game.owed_reveal(name) is None:
                    continue
                reveal, _ = witness_game.reveal(name, lambda name=name: signers[name])
                _deliver(witness_game.dir.outbox_path(reveal), [g for n, g in games.items() if n != name])
                yield Text(f"   {name} reveals for seq {reveal.seq}", style="dim")
            current, record = game.current()
            if record is not None:
                roll = current.ruleset.dump(current.state)["last_roll"]
                outcome = f" → {roll['outcome']}" if "outcome" in roll else ""
                yield Text(f"   dice for {roll['purpose']}: {' '.join(map(str, roll['faces']))} = "
                           f"{roll['total']}{outcome}", style="cyan")
        heads = {name: g.replay().head_id for name, g in games.items()}
        yield Text(f"verified in all three directories; every log ends at {heads['alice'][:16]}…", style="green")
        if len(set(heads.values())) != 1:
            from .errors import ChainBroken

            raise ChainBroken(f"the demo's logs diverged: {heads}")
        from . import report as reports
        from .game import log_entries

        final = games["carol"]
        engine, _ = final.current()
        yield reports.status_view(status(final))
        view = final.ruleset.views(engine.state)["state"]
        yield view.render(view.data())
        yield reports.log_view(log_entries(final))
        if keep:
            yield Text(f"The players' directories are in {root}: try 'pbem verify --game {root}/carol/game'.")
    finally:
        if not keep:
            shutil.rmtree(root, ignore_errors=True)


def _version() -> str:
    from . import ruleset

    return ruleset.load("freeform").version
