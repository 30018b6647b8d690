"""The Empires in Arms ruleset: the powers of the charter, the sealed UMP Control Step and its roll
point, the state's dump, and the views. A power in no player's charter `sides` is an uncontrolled
major power (UMP, 14.3)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, replace

from pbem.errors import IllegalOrder, UsageError
from pbem.ruleset import Chance, Decision, OrderKind, Over, Ruleset, Setup, View

from ..common.plain import plain_copy
from . import geography, powers, ump_control, views
from .state import PLAYER, UNCONTROLLED, EiaState, Power


class EmpiresInArms(Ruleset[EiaState]):
    id = "empires_in_arms"
    package = __package__

    def check_setup(self, setup: Setup) -> None:
        """Each side a major power, each power commanded by one player at most; two players or more
        (the UMP Control Step is sealed among them: RULINGS E3)."""
        super().check_setup(setup)
        seen: dict[str, str] = {}
        for seat in setup.roster:
            for side in seat.sides:
                if side not in powers.order():
                    raise UsageError(f"{seat.id}'s side {side!r} is not a major power ({', '.join(powers.order())})",
                                     field="sides")
                if side in seen:
                    raise UsageError(f"{side} is commanded by both {seen[side]} and {seat.id}", field="sides")
                seen[side] = seat.id
        if len([p for p in setup.players if self.commands(setup, p)]) < 2:
            raise UsageError("Empires in Arms needs two players or more commanding powers", field="players")
        _check_table(setup.tables.get("natural_alliance"))

    def commands(self, setup: Setup, player: str) -> list[str]:
        """The powers a player commands, in data order."""
        sides = next((seat.sides for seat in setup.roster if seat.id == player), ())
        return [power for power in powers.order() if power in sides]

    def new_state(self, setup: Setup) -> EiaState:
        self.check_setup(setup)
        scenario = self.data("scenarios.toml")[setup.scenario]
        commanded = {power for player in setup.players for power in self.commands(setup, player)}
        state = EiaState(setup=setup, wars=sorted(sorted(p) for p in scenario.get("wars", [])),
                         alliances=sorted(sorted(p) for p in scenario.get("alliances", [])),
                         surrendered=[list(p) for p in scenario.get("surrendered", [])],
                         bourbon=bool(scenario.get("bourbon", False)),
                         control={**{t: f["home"] for t, f in geography.territories().items() if "home" in f},
                                  **scenario.get("control", {})},
                         forces={area: dict(sorted(held.items()))
                                 for area, held in sorted(scenario.get("forces", {}).items())})
        for power in powers.order():
            facts = scenario["powers"][power]
            state.powers[power] = Power(PLAYER if power in commanded else UNCONTROLLED, facts["pp"], facts["money"],
                                        facts["manpower"], facts["vp"])
        return state

    def _members(self, state: EiaState) -> tuple[str, ...]:
        return tuple(player for player in state.setup.players
                     if self.commands(state.setup, player) and player not in state.resigned)

    def pending(self, state: EiaState):
        members = self._members(state)
        if len(members) < 2:  # E9: the control step is sealed among two or more
            return Over(f"{members[0]} wins: every other player resigned" if members else "abandoned: every player "
                        "resigned")
        if state.step == "ump_roll":
            return Chance()
        when = "before the game" if state.turn == 0 else f"turn {state.turn}'s Economic Phase"
        return Decision(members, f"the UMP Control Step {when}: seal your overtures (pbem seal "
                        "'overture ump=... pp=... pp_against=... subsidy=...', or nothing)")

    def apply(self, state: EiaState, player: str, order: Mapping) -> EiaState:
        kind = self.check_order(order).kind
        raise IllegalOrder(f"{kind} is sealed in the UMP Control Step: pbem seal '{kind} ...'", rule=ump_control.RULE,
                           field="kind")

    def check_together(self, state: EiaState, player: str, orders: Sequence[Mapping]) -> None:
        for index, order in enumerate(orders, 1):
            try:
                self.check_order(order)
            except IllegalOrder as exc:
                exc.field = f"orders[{index}].{exc.field}" if exc.field else f"orders[{index}]"
                raise
        ump_control.check(state, self.commands(state.setup, player), orders)

    def apply_together(self, state: EiaState, orders: Mapping[str, list[Mapping] | None]) -> EiaState:
        ump_control.collect(state, orders, {p: self.commands(state.setup, p) for p in orders}, self.check_order)
        return state

    def resolve(self, state: EiaState, dice, private) -> EiaState:
        ump_control.resolve(state, dice, state.setup.tables)
        return state

    def resign(self, state: EiaState, player: str) -> EiaState:
        """E9: his powers become UMPs, for the players left to bid for; he seals no more, his
        overtures waiting for dice are withdrawn, and the UMPs his powers controlled are let go."""
        if player in state.resigned or player not in state.setup.players:
            return state
        state.resigned.append(player)
        mine = self.commands(state.setup, player)
        state.overtures = [o for o in state.overtures if o["power"] not in mine]
        for facts in state.powers.values():
            if facts.controller in mine:
                facts.status, facts.controller = UNCONTROLLED, None
        for power in mine:
            state.powers[power].status = UNCONTROLLED
        return state

    def legal(self, state: EiaState, player: str) -> list[OrderKind]:
        return [self.order_kinds["overture"]] if player in self._members(state) and state.step == "ump_control" else []

    def standing(self, state: EiaState) -> str:
        return views.standing(state)

    def dump(self, state: EiaState) -> dict:
        return {
            "turn": state.turn, "step": state.step, "bourbon": state.bourbon,
            "powers": {name: asdict(p) for name, p in state.powers.items()},  # with `history`, not the property
            "wars": state.wars, "alliances": state.alliances, "surrendered": state.surrendered,
            "must_accept_peace": state.must_accept_peace, "control": dict(sorted(state.control.items())),
            "forces": state.forces,
            "overtures": state.overtures, "voided": state.voided, "last_control": state.last_control,
            "resigned": state.resigned,
        }

    def load(self, data: dict, setup: Setup) -> EiaState:
        return EiaState(
            setup=setup, turn=data["turn"], step=data["step"], bourbon=data["bourbon"],
            powers={name: Power(**{**facts, "history": list(facts["history"]), "off_map": dict(facts["off_map"])})
                    for name, facts in data["powers"].items()},
            wars=[list(p) for p in data["wars"]], alliances=[list(p) for p in data["alliances"]],
            surrendered=[list(p) for p in data["surrendered"]], must_accept_peace=list(data["must_accept_peace"]),
            overtures=[dict(o) for o in data["overtures"]],
            voided=[dict(v) for v in data["voided"]], last_control=plain_copy(data["last_control"]),
            resigned=list(data["resigned"]), control=dict(data["control"]),
            forces={area: dict(held) for area, held in data["forces"].items()},
        )

    def copy(self, state: EiaState, setup: Setup) -> EiaState:
        return replace(state, powers={name: replace(p, history=list(p.history), off_map=dict(p.off_map))
                                      for name, p in state.powers.items()},
                       wars=[list(p) for p in state.wars], alliances=[list(p) for p in state.alliances],
                       surrendered=[list(p) for p in state.surrendered],
                       must_accept_peace=list(state.must_accept_peace),
                       overtures=[dict(o) for o in state.overtures], voided=[dict(v) for v in state.voided],
                       last_control=plain_copy(state.last_control), resigned=list(state.resigned),
                       control=dict(state.control), forces={area: dict(held) for area, held in state.forces.items()})

    def views(self, state: EiaState, private: Mapping[str, dict] | None = None) -> Mapping[str, View]:
        players = [p for p in state.setup.players if p not in state.resigned]
        return views.all_views(state, {p: self.commands(state.setup, p) for p in players})



def _check_table(table) -> None:
    """14.3.1.2: a charter's Natural Alliance Table gives a whole number for every bidding power
    and every other power, rows the bidders (E1)."""
    if table is None:
        return
    for power in powers.order():
        row = table.get(power) if isinstance(table, dict) else None
        for ump in powers.order():
            if ump != power and not (isinstance(row, dict) and type(row.get(ump)) is int):
                raise UsageError(f"tables.natural_alliance needs a whole number for {power} bidding for {ump}",
                                 rule="14.3.1.2", field="tables.natural_alliance")
