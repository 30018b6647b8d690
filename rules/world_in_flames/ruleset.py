"""The World in Flames ruleset: the charter's players and their powers, the scenario's set-up, the
impulses (impulses.py) and the orders of each: move, overrun, attack, retreat, destroy,
emergency_supply and pass; the state's dump, the views and the map picture. A player's charter
`sides` are his team and then his major powers (["axis", "germany"])."""

from __future__ import annotations

from collections.abc import Mapping

from pbem.errors import IllegalOrder, UsageError
from pbem.ruleset import Decision, OrderKind, Ruleset, Setup, View

from . import combat, emergency, impulses, moves, position, views
from .state import SIDES, WifState

MAX_PLAYERS = 6


class WorldInFlames(Ruleset[WifState]):
    id = "world_in_flames"
    package = __package__

    def check_setup(self, setup: Setup) -> None:
        """Up to six players, each with a team and major powers of that team; each power commanded
        by one player at most; the charter's combat table (11.16 is not in the seed)."""
        super().check_setup(setup)
        scenario = self.data("scenarios.toml")[setup.scenario]
        if not 2 <= len(setup.players) <= MAX_PLAYERS:
            raise UsageError(f"World in Flames is played by 2 to {MAX_PLAYERS} players", rule="1", field="players")
        seen: dict[str, str] = {}
        for seat in setup.roster:
            if seat.role != "player":
                continue
            _check_seat(seat.id, seat.sides, scenario["sides"], seen)
        combat.check_table(setup.tables.get("combat"))

    def new_state(self, setup: Setup) -> WifState:
        self.check_setup(setup)
        state = WifState.start(setup)
        options = self.chosen(setup)
        situation = position.situation(state, options)
        for hex_text in sorted({u["hex"] for u in state.units.values() if "hex" in u}):
            if moves.overstacked(state, situation, hex_text, options) or not moves.co_operating(state, situation,
                                                                                                 hex_text):
                raise UsageError(f"scenario {setup.scenario} overstacks {hex_text}, or puts units there that cannot "
                                 "co-operate", rule="2.3.1", field="scenario")
        return state

    def pending(self, state: WifState):
        return impulses.pending(state, self.chosen(state.setup))

    def apply(self, state: WifState, player: str, order: Mapping) -> WifState:
        kind = self.check_order(order).kind
        asked = self.pending(state)
        if not isinstance(asked, Decision) or player not in asked.players:
            raise IllegalOrder(f"{player} is not asked now: {getattr(asked, 'prompt', 'the dice are due')}",
                               rule=self.order_kinds[kind].rule, field="kind")
        allowed = self._allowed_now(state, self.chosen(state.setup))
        if kind not in allowed:
            raise IllegalOrder(f"{kind} is not given now: {asked.prompt}", rule=self.order_kinds[kind].rule,
                               field="kind")
        options = self.chosen(state.setup)
        HANDLERS[kind](state, player, order, options)
        return state

    @staticmethod
    def _allowed_now(state: WifState, options: Mapping[str, bool]) -> tuple[str, ...]:
        if state.overstack:
            return ("destroy",)
        if state.retreat:
            return ("retreat",)
        return ("move", "overrun", "attack", "emergency_supply", "pass")

    def legal(self, state: WifState, player: str) -> list[OrderKind]:
        asked = self.pending(state)
        if not isinstance(asked, Decision) or player not in asked.players:
            return []
        played = self.chosen(state.setup).get("option_13_emergency")
        return [self.order_kinds[kind] for kind in self._allowed_now(state, self.chosen(state.setup))
                if played or kind != "emergency_supply"]

    def resolve(self, state: WifState, dice, private) -> WifState:
        combat.resolve(state, dice, self.chosen(state.setup))
        return state

    def resign(self, state: WifState, player: str) -> WifState:
        """His units stay where they are, under nobody; a retreat or an overstack that waits for
        him is settled as W15 says."""
        if player in state.resigned or player not in state.setup.players:
            return state
        state.resigned.append(player)
        combat.settle(state, self.chosen(state.setup))  # what waited for him is decided for him (W15)
        impulses.advance(state)
        return state

    def standing(self, state: WifState) -> str:
        return views.standing(state)

    def dump(self, state: WifState) -> dict:
        return state.dump()

    def load(self, data: dict, setup: Setup) -> WifState:
        return WifState.load(data, setup)

    def copy(self, state: WifState, setup: Setup) -> WifState:
        return state.copy()

    def views(self, state: WifState, private: Mapping[str, dict] | None = None) -> Mapping[str, View]:
        return views.all_views(state, self.chosen(state.setup))

    def picture(self, state: WifState, focus: str | None = None) -> str | None:
        from . import picture

        return picture.draw(state, self.chosen(state.setup), focus)


def _pass(state: WifState, player: str, order: Mapping, options: Mapping[str, bool]) -> None:
    state.last = {"text": f"{player} passes", "hex": state.last.get("hex", ""), "unit": state.last.get("unit", "")}
    impulses.pass_turn(state, player)


HANDLERS = {"move": moves.move, "overrun": combat.overrun, "attack": combat.attack, "retreat": combat.retreat,
            "destroy": combat.destroy, "emergency_supply": emergency.announce, "pass": _pass}


def _check_seat(player: str, sides: tuple[str, ...], powers: Mapping[str, str], seen: dict[str, str]) -> None:
    if not sides or sides[0] not in SIDES or len(sides) < 2:
        raise UsageError(f"{player}'s sides are his team ({' or '.join(SIDES)}) then his major powers, such as "
                         "[\"axis\", \"germany\"]", field="sides")
    for power in sides[1:]:
        if powers.get(power) != sides[0]:
            raise UsageError(f"{player}'s power {power!r} is not a major power of the {sides[0]} in this scenario "
                             f"({', '.join(p for p, s in powers.items() if s == sides[0])})", field="sides")
        if power in seen:
            raise UsageError(f"{power} is commanded by both {seen[power]} and {player}" if seen[power] != player
                             else f"{player} names {power} twice", field="sides")
        seen[power] = player
