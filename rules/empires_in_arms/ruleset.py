"""The Empires in Arms ruleset: the powers of the charter, the turn's steps (sequence.py): the land
phases with their reactions and overruns, the sealed UMP Control Step and its roll point; the
state's dump, and the views. A power in no player's charter `sides` is an uncontrolled major power
(UMP, 14.3)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, replace

from pbem.errors import IllegalOrder, UsageError
from pbem.ruleset import Chance, Decision, OrderKind, Over, Ruleset, Setup, View

from ..common.plain import plain_copy
from . import (
    charter_tables,
    combat,
    command,
    economy,
    geography,
    peace,
    planned,
    powers,
    reactions,
    schedule,
    sequence,
    solitaire,
    steps,
    ump_control,
    views,
)
from . import units as units_facts
from .sealed_orders import order_number
from .state import PLAYER, UNCONTROLLED, Corps, EiaState, Leader, Power


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
        charter_tables.check(setup.tables)

    def commands(self, setup: Setup, player: str) -> list[str]:
        """The powers in a player's charter sides, in data order (command.own_powers, once the game
        has a state, also forgets a player who resigned)."""
        sides = next((seat.sides for seat in setup.roster if seat.id == player), ())
        return [power for power in powers.order() if power in sides]

    def new_state(self, setup: Setup) -> EiaState:
        self.check_setup(setup)
        scenario = self.data("scenarios.toml")[setup.scenario]
        patches = [self.data("patches.toml")[name] for name in scenario.get("patches", [])]
        commanded = {power for player in setup.players for power in self.commands(setup, player)}
        state = EiaState(setup=setup, wars=sorted(sorted(p) for p in scenario.get("wars", [])),
                         start=schedule.when(scenario["start"]),
                         alliances=sorted(sorted(p) for p in scenario.get("alliances", [])),
                         surrendered=[list(p) for p in scenario.get("surrendered", [])],
                         bourbon=bool(scenario.get("bourbon", False)),
                         militia_conversion=bool(scenario.get("militia_conversion", False)),
                         control={**{t: f["home"] for t, f in geography.territories().items() if "home" in f},
                                  **scenario.get("control", {})},
                         leaders={name: Leader(units_facts.leader(name)["power"], area)
                                  for name, area in scenario.get("leaders", {}).items()})
        state.schedule = schedule.merged([], scenario.get("schedule", []))
        _place_corps(state, scenario)
        for patch in patches:  # 14.1.5.1, 14.7.6: each in the scenario's order
            state.control.update(patch.get("control", {}))
            state.free_states += patch.get("free_states", [])
            _place_corps(state, patch)
            state.schedule = schedule.merged(state.schedule, patch.get("schedule", []))
        for name, unit in state.corps.items():
            wrong = units_facts.check_factors(name, unit.kind, unit.factors)
            if wrong:
                raise UsageError(f"scenario {setup.scenario}: {wrong}", field="scenario")
        for power in powers.order():
            facts = scenario["powers"][power]
            state.powers[power] = Power(PLAYER if power in commanded else UNCONTROLLED, facts["pp"], facts["money"],
                                        facts["manpower"], facts["vp"])
        for power, _ in state.surrendered:
            state.powers[power].surrendered_in = 0
        return state

    def pending(self, state: EiaState):
        members = economy.members(state)  # every player commanding a power
        if len(members) < 2:  # E9: the control step is sealed among two or more
            return Over(f"{members[0]} wins: every other player resigned" if members else "abandoned: every player "
                        "resigned")
        if state.step in ("ump_roll", "loss_roll") or state.reaction:
            return Chance()
        if state.step == "land":
            return steps.land_decision(state)
        if state.step == "peace":
            if state.peace["tries"]:
                return Chance()
            return Decision((peace.deciding(state) or "",), f"turn {state.turn}'s peace step: force_peace ump=... "
                            "for each UMP you would force to sue (14.3.3.8), or no_force_peace")
        if state.step == "political_combinations":
            return Decision(economy.members(state), f"turn {state.turn}'s New Political Combinations: seal your "
                            "landwehr decisions (pbem seal 'landwehr power=austria active=true'), or nothing")
        when = "before the game" if state.turn == 0 else f"turn {state.turn}'s Economic Phase"
        return Decision(members, f"the UMP Control Step {when}: seal your overtures (pbem seal "
                        "'overture ump=... pp=... pp_against=... subsidy=...', or nothing)")

    def apply(self, state: EiaState, player: str, order: Mapping) -> EiaState:
        kind = self.check_order(order).kind
        if state.step == "peace":
            steps.peace_order(state, player, kind, order)
            return state
        if state.step != "land" or steps.sealed_battle(state) or state.plan:
            raise IllegalOrder(f"{kind} is not given now: this step is sealed (pbem seal '"
                               f"{self.legal_sealed(state)} ...')", rule=ump_control.RULE, field="kind")
        asked = self.pending(state)
        situation = steps.situation(state)
        if not isinstance(asked, Decision) or player not in asked.players or kind not in steps.LAND_ORDERS[situation]:
            raise IllegalOrder(f"{kind} is not open to {player} now: {getattr(asked, 'prompt', 'dice are due')}",
                               rule=self.order_kinds[kind].rule, field="kind")
        steps.LAND_HANDLERS[kind](state, player, order)
        steps.advance_if_orphaned(state)
        return state

    @staticmethod
    def legal_sealed(state: EiaState) -> str:
        if state.plan:
            return "move ... or policy"
        if state.battle:
            return "tactic"
        return "landwehr" if state.step == "political_combinations" else "overture"

    def check_together(self, state: EiaState, player: str, orders: Sequence[Mapping]) -> None:
        for index, order in enumerate(orders, 1):
            with order_number(index):
                self.check_order(order)
        if state.step == "political_combinations":
            economy.check(state, command.commanded(state, player), orders)
        elif state.plan:
            planned.check(state, player, orders)
        elif state.battle:
            combat.check_options(state, player, orders)
        else:
            ump_control.check(state, self.commands(state.setup, player), orders)

    def apply_together(self, state: EiaState, orders: Mapping[str, list[Mapping] | None]) -> EiaState:
        if state.plan:
            planned.collect(state, orders, self.check_order)
            return state
        if state.battle:
            combat.collect(state, orders, self.check_order)
            return state
        if state.step == "political_combinations":
            economy.collect(state, orders, self.check_order)
            if state.step != "loss_roll":
                sequence.after(state, "political_combinations")
            return state
        ump_control.collect(state, orders, {p: self.commands(state.setup, p) for p in orders}, self.check_order)
        return state

    def resolve(self, state: EiaState, dice, private) -> EiaState:
        if state.step == "peace":
            peace.resolve(state, dice)
            if not peace.deciding(state):
                sequence.after(state, "peace")
        elif state.plan:
            planned.run(state, dice)
        elif state.reaction:
            reactions.resolve(state, dice)
            steps.advance_if_orphaned(state)
        elif state.battle.get("stage") == "options_roll":
            solitaire.roll_options(state, dice)
        elif state.battle.get("stage") == "check_roll":
            solitaire.roll_check(state, dice)
        elif state.battle:
            combat.fight(state, dice)
        elif state.step == "loss_roll":
            economy.roll_losses(state, dice)
            sequence.after(state, "political_combinations")
        else:
            ump_control.resolve(state, dice, state.setup.tables)
            sequence.after(state, "ump_control")
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
        if state.step == "land":
            steps.resign_in_land_phase(state, player)
        elif state.step == "peace" and not state.peace["tries"] and not peace.deciding(state):
            sequence.after(state, "peace")
        return state

    def legal(self, state: EiaState, player: str) -> list[OrderKind]:
        asked = self.pending(state)
        if not isinstance(asked, Decision) or player not in asked.players:
            return []
        if state.step == "peace":
            return [self.order_kinds["force_peace"], self.order_kinds["no_force_peace"]]
        if state.plan:
            mover = player == command.commander(state, state.phasing)
            return [self.order_kinds[k] for k in (planned.MOVER_KINDS if mover else ("policy",))]
        if state.step != "land" or steps.sealed_battle(state):
            return [self.order_kinds[self.legal_sealed(state)]]
        return [self.order_kinds[kind] for kind in steps.LAND_ORDERS[steps.situation(state)]]

    def standing(self, state: EiaState) -> str:
        return views.standing(state)

    def dump(self, state: EiaState) -> dict:
        return {
            "turn": state.turn, "start": list(state.start), "step": state.step, "bourbon": state.bourbon,
            "powers": {name: asdict(p) for name, p in state.powers.items()},  # with `history`, not the property
            "wars": state.wars, "alliances": state.alliances, "surrendered": state.surrendered,
            "must_accept_peace": state.must_accept_peace, "control": dict(sorted(state.control.items())),
            "corps": {name: asdict(unit) for name, unit in state.corps.items()},
            "leaders": {name: asdict(leader) for name, leader in state.leaders.items()},
            "overtures": state.overtures, "voided": state.voided, "last_control": state.last_control,
            "resigned": state.resigned,
            **{key: getattr(state, key) for key in LAND_KEYS},
        }

    def load(self, data: dict, setup: Setup) -> EiaState:
        return EiaState(
            setup=setup, turn=data["turn"], start=(data["start"][0], data["start"][1]), step=data["step"],
            bourbon=data["bourbon"],
            powers={name: Power(**{**facts, "history": list(facts["history"]),
                                   "set_aside": plain_copy(facts["set_aside"])})
                    for name, facts in data["powers"].items()},
            wars=[list(p) for p in data["wars"]], alliances=[list(p) for p in data["alliances"]],
            surrendered=[list(p) for p in data["surrendered"]], must_accept_peace=list(data["must_accept_peace"]),
            overtures=[dict(o) for o in data["overtures"]],
            voided=[dict(v) for v in data["voided"]], last_control=plain_copy(data["last_control"]),
            resigned=list(data["resigned"]), control=dict(data["control"]),
            corps={name: Corps(**{**facts, "factors": dict(facts["factors"])})
                   for name, facts in data["corps"].items()},
            leaders={name: Leader(**facts) for name, facts in data["leaders"].items()},
            **{key: plain_copy(data[key]) for key in LAND_KEYS},
        )

    def copy(self, state: EiaState, setup: Setup) -> EiaState:
        return replace(state, powers={name: replace(p, history=list(p.history), set_aside=plain_copy(p.set_aside))
                                      for name, p in state.powers.items()},
                       wars=[list(p) for p in state.wars], alliances=[list(p) for p in state.alliances],
                       surrendered=[list(p) for p in state.surrendered],
                       must_accept_peace=list(state.must_accept_peace),
                       overtures=[dict(o) for o in state.overtures], voided=[dict(v) for v in state.voided],
                       last_control=plain_copy(state.last_control), resigned=list(state.resigned),
                       control=dict(state.control),
                       corps={name: replace(unit, factors=dict(unit.factors)) for name, unit in state.corps.items()},
                       leaders={name: replace(leader) for name, leader in state.leaders.items()},
                       **{key: plain_copy(getattr(state, key)) for key in LAND_KEYS})

    def picture(self, state: EiaState, focus: str | None = None) -> str | None:
        from . import picture

        return picture.draw(state, focus)

    def views(self, state: EiaState, private: Mapping[str, dict] | None = None) -> Mapping[str, View]:
        players = [p for p in state.setup.players if p not in state.resigned]
        return views.all_views(state, {p: self.commands(state.setup, p) for p in players})


def _place_corps(state: EiaState, source: dict) -> None:
    """The corps a scenario or a set-up patch places."""
    state.corps.update({name: Corps(u["power"], u["kind"], u["area"], dict(u["factors"]), u.get("origin", ""))
                        for name, u in source.get("corps", {}).items()})


# plain data, dumped and copied as it is
LAND_KEYS = ("phasing", "movement", "reaction", "overrun", "waived", "attack_minus", "prisoners", "land_log",
             "last_phase", "battles", "battle", "free_states", "schedule", "last_economic", "ottoman_penalties",
             "informal_peace", "peace", "conversions", "militia_conversion", "plan")
