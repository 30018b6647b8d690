"""The paths_of_glory ruleset: the plug-in the engine drives (pbem.ruleset contract).

A side's action is one of (8.1.4; SR, RP and event plays are still to come):
  activate {spaces, attack, card}  an operation paid with a card as OPS or the automatic OPS 1
                      (9.2, operations.py): movement in those spaces (14.1.1.1), attacks from those; then
  move {units, path}  one stack's move within it (11), one order per stack; `pass` ends it
  build_fort, entrench       within a movement action (15.4, 11.2)
  attack {units, space, pinning, cards}  a combat after all movement (12); its card steps
                      (`play_cards`), losses, retreat or stand, and advance follow (battle.py)
  sr {card}           a card played as SR, or the automatic SR 1; then `redeploy {unit, to}`
                      per unit and `pass` (9.3, base 13.1, sr.py)
  rp {card | rp}      a card played as RP, or the automatic RP 1 (9.4, card_plays.py)
  event {card}        a card played as its event, where that event is data (9.5, events.py)
  economic            foreign aid, replacements, then the sieges (16.5.1, 17, 15.3)
  political           attrition, then foreign policy or peace terms (14.3.6, 16.5)
  pass                end the open action, or take a pass action (8.1.4)
At the end of every action both sides' OOS markers are adjusted (8.1.5, 14.3.5), then the other
side acts; the Central Powers act first in each round (8.1.2); the turn ends with the War Status
Phase (turn.py).
"""

from __future__ import annotations

from collections.abc import Mapping

from pbem.errors import IllegalOrder, UsageError
from pbem.ruleset import Chance, Decision, OrderKind, Over, Ruleset, Setup, View

from . import state as positions
from .state import PogState, enemy, next_step

# the action kinds waiting for a roll point
DICE_STEPS = ("economic", "offensive_roll", "policy", "peace_roll", "entrench_roll", "draw_roll", "reshuffle",
              "extra_roll", "last_roll", "initiative_roll", "event_roll")
# the orders of each step within an action (8.1.4 and the steps the seed and events add)
STEP_ORDERS = {
    "offensives": ("offensives",), "select_cards": ("select_cards",), "peace_offer": ("answer_peace",),
    "movement": ("move", "build_fort", "entrench", "reorganize", "attack", "pass"),
    "sr": ("redeploy", "activate", "pass"),
    "draw_step": ("draw", "recycle", "pass"), "keep": ("keep",), "initiative": ("initiative", "pass"),
    "last_extra": ("extra", "pass"), "mandated_economic": ("economic",), "show_hand": ("show_hand",),
    "enemy_choice": ("answer_event",), "ops_event": ("activate", "pass"),  # R106: operations may be declined
}
MAP_VARIANTS = ("vesting_holland", "italy_19_1", "italy_19_1_2", "italy_19_1_3")  # options that shape the map


class PathsOfGlory(Ruleset[PogState]):
    id = "paths_of_glory"
    package = __package__

    def scenarios(self) -> dict[str, str]:
        return {name: scenario["title"] for name, scenario in self._scenario_data().items()}

    def _scenario_data(self) -> dict:
        return {name: value for name, value in self.data("scenarios.toml").items() if isinstance(value, dict)}

    def variants(self, setup: Setup) -> frozenset[str]:
        """The map variants this charter's options choose."""
        chosen = self.chosen(setup)
        return frozenset(name for name in MAP_VARIANTS if chosen[name])

    # ------------------------------------------------------------------ state

    def check_setup(self, setup: Setup) -> None:
        super().check_setup(setup)
        self._players(setup)
        fixed = self._scenario_data()[setup.scenario].get("first_cards")
        if fixed and self.chosen(setup)["optional_cards"] == "selected":
            raise UsageError(f"scenario {setup.scenario} deals fixed first cards, which a secret selection could take "
                             "out of the game: choose optional_cards none or all (R119)", field="optional_cards")

    def new_state(self, setup: Setup) -> PogState:
        """The scenario's start, with the tracks' starting values, the charter's VP bid and the first
        turn's mandated offensive roll to make (R81)."""
        from . import victory, war

        state = self._start(setup)
        state.tracks = {**war.starting_tracks(), **state.tracks}
        chosen = self.chosen(setup)
        if chosen["vp_bid"]:
            victory.record_bid(state, chosen["vp_bid"], chosen["vp_bid_to"])
        if not state.mo:
            from . import optional_cards

            selecting = optional_cards.mode(chosen) == optional_cards.SELECTED
            state.action = {"kind": "select_cards" if selecting else "offensives"}
        return state

    def _start(self, setup: Setup) -> PogState:
        """The scenario's position: what every dump of the game is sparse against."""
        self.check_setup(setup)
        scenario = self._scenario_data()[setup.scenario]
        state = positions.position_from_case(scenario.get("position", {}), self.variants(setup))
        state.setup = setup  # who commands each side; not part of the public dump
        return state

    def _players(self, setup: Setup) -> dict[str, str]:
        """Which player commands each side (charter sides "ap" and "cp")."""
        owners = {}
        for seat in setup.roster:
            if seat.role != "player":
                continue
            for side in seat.sides:
                if side in owners or side not in self.sides:
                    raise UsageError(f"side {side!r} must be 'ap' or 'cp' and held by one player", field="sides")
                owners[side] = seat.id
        if set(owners) != set(self.sides):
            raise UsageError("each of the sides ap and cp needs a player (--sides ID=ap)", field="sides")
        return owners

    def dump(self, state: PogState) -> dict:
        return positions.dump(state)

    def load(self, data: dict, setup: Setup) -> PogState:
        return positions.load(data, self._start(setup))  # the dump is sparse against the scenario's start

    def copy(self, state: PogState, setup: Setup) -> PogState:
        return positions.copy(state)

    # ------------------------------------------------------------------ the state machine

    def pending(self, state: PogState):
        resigned = sorted(e for e in state.events if e.startswith("resigned:"))
        if resigned:
            return Over(f"{resigned[0].split(':', 1)[1]} resigned")
        over = positions.result(state)
        if over:
            return Over(over)
        combat = state.action.get("combat")
        if state.action.get("kind") in DICE_STEPS or (combat and combat["step"] in ("flank", "fire")):
            return Chance()
        return Decision((self._owner(state, self._deciding_side(state)),), self._prompt(state))

    def _deciding_side(self, state: PogState) -> str:
        combat = state.action.get("combat")
        if combat:
            from .battle import side_of

            return side_of(combat, combat["deciding"])
        if state.action.get("kind") == "peace_offer":
            return enemy(state.active)  # 16.5.3: the other side answers
        if state.action.get("kind") == "show_hand":
            return state.action["victim"]  # R106
        if state.action.get("kind") == "enemy_choice":
            return enemy(state.active)  # R114: War in Africa's Allied choice
        if state.action.get("kind") == "select_cards":
            from . import optional_cards

            return optional_cards.waiting(state) or state.active
        from . import additional

        return additional.deciding(state) or state.active

    def _prompt(self, state: PogState) -> str:
        side = "Allied Powers" if state.active == "ap" else "Central Powers"
        combat = state.action.get("combat")
        if combat:
            where = state.map.name_of(combat["space"])
            return {"cards": f"combat at {where}: the {combat.get('deciding')} may play combat cards (play_cards "
                              "cards=... from the hand and/or front=... kept in front, or play_cards alone for none)",
                    "losses": f"combat at {where}: the {combat.get('deciding')} takes losses (losses steps=...)",
                    "retreat": f"combat at {where}: the defender retreats (retreat units=... path=...) or stands",
                    "advance": f"combat at {where}: the attacker advances (advance units=... path=...) or passes",
                    }[combat["step"]]
        if state.action.get("kind") == "select_cards":
            who = "Central Powers" if self._deciding_side(state) == "cp" else "Allied Powers"
            return (f"{who}: before the deal, select the optional cards you add and the basic cards they replace, "
                    "in private (select_cards add=... remove=...; none: select_cards)")
        if state.action.get("kind") == "offensives":
            return (f"turn {state.turn}: the Central Powers deal both hands (Guns of August in theirs with "
                    "offensives guns_of_august=true) and roll both sides' mandated offensives (offensives)")
        if state.action.get("kind") == "peace_offer":
            other = "Allied Powers" if state.active == "cp" else "Central Powers"
            return f"{other}: accept or reject the {side}' peace terms (answer_peace accept=true or false)"
        if "event_attackers" in state.action and not state.action.get("attacked_spaces"):
            return (f"{side}: the event activated {', '.join(state.action['event_attackers'])} for combat: attack "
                    "with them (attack units=... space=...) or pass")
        if state.action.get("attacked_spaces"):
            return f"{side}, turn {state.turn} round {state.round}: attack from the spaces activated for attack or pass"
        if state.action.get("kind") == "movement":
            return (f"{side}, turn {state.turn} round {state.round}: move, build_fort or entrench in the activated "
                    "spaces, attack from the spaces activated for attack, or pass")
        if state.action.get("kind") == "sr":
            return (f"{side}, turn {state.turn} round {state.round}: redeploy (redeploy unit=... to=...) with "
                    f"{state.action['points']} SR points left, or pass")
        if state.action.get("kind") in ("draw_step", "keep"):
            return self._draw_prompt(state, side)
        if state.action.get("kind") == "initiative":
            return (f"Allied Powers, turn {state.turn}: discard a card to roll for acting first in every round "
                    "(initiative card=...; 1-2 wins), or pass")
        if state.action.get("kind") == "last_extra":
            return (f"{side}: the turn's last action is taken; discard a card to roll for one more action "
                    "(extra card=...; 1-2 wins), or pass")
        if state.action.get("kind") == "show_hand":
            victim = "Allied Powers" if state.action["victim"] == "ap" else "Central Powers"
            return f"{victim}: show your hand in the clear (show_hand cards=...; pbem show hand lists it)"
        if state.action.get("kind") == "enemy_choice":
            from . import cards, unit_events

            other = enemy(state.active)
            eligible = ", ".join(unit_events.corps_to_remove(state, other, state.action["nation"])) or "none"
            return (f"{'Allied Powers' if other == 'ap' else 'Central Powers'}: {cards.label(state.action['card'])}: "
                    f"remove a {state.action['nation'].upper()} corps from the game (answer_event remove=UNIT; "
                    f"{eligible}) or give {state.action['vp']} VP (answer_event)")
        if state.action.get("kind") == "ops_event":
            shown = f" (the hand shown: {', '.join(state.action['shown']) or 'empty'})" \
                if "shown" in state.action else ""
            return (f"{side}: activate spaces with the {state.action['ops']} OPS of the event's card "
                    f"(activate spaces=... attack=...), or pass{shown}")
        if state.action.get("kind") == "mandated_economic":
            return (f"{side}, end of turn {state.turn}: the Mandated Economic Action: economic [replace=...] (RPs not "
                    "spent are lost, 17.1.2; then your sieges are rolled)")
        from . import hands

        buy = " (draw first for 1 VP)" if hands.can_buy(state, state.active) else ""
        return (f"{side}, turn {state.turn} round {state.round}: activate, sr, rp, event, economic, political "
                f"or pass{buy}")

    def _draw_prompt(self, state: PogState, side: str) -> str:
        step = state.action
        if step["kind"] == "keep":
            return (f"{side}: keep one of the {step['looking']} cards you are looking at (keep card=...; "
                    "pbem show hand lists them)")
        choices = {"die": f"draw (a die less {step['spaces']} spaces activated must be 0 or more), ",
                   "yes": "draw, "}.get(step["draw"], "") if step["drawable"] else ""
        recycle = "recycle card=... or front=..., " if step["recycle"] else ""
        return f"{side}, draw step: {choices}{recycle}or pass"

    def _owner(self, state: PogState, side: str) -> str:
        if state.setup is None:  # a position from a rule case: no charter, so the side plays itself
            return side
        return self._players(state.setup)[side]

    def apply(self, state: PogState, player: str, order: Mapping) -> PogState:
        kind = self.check_order(order).kind
        in_movement = state.action.get("kind") == "movement"
        if kind in ("move", "build_fort") and not in_movement:
            raise IllegalOrder(f"{kind} belongs to a movement action: 'activate' spaces first", rule="14.1.1.1",
                               field="kind")
        if kind not in self._kinds_now(state):  # 8.1.4: one action at a time; pass ends a movement action
            raise IllegalOrder(f"{kind} is not an order now: {self._prompt(state)}", rule="8.1.4", field="kind")
        if state.action.get("combat"):
            self._within_combat(state, kind, order)
        elif kind in ("offensives", "answer_peace"):
            self._phase_order(state, kind, order)
        elif kind == "select_cards":
            from . import optional_cards

            optional_cards.record_public(state)
        elif state.action.get("kind") == "sr":
            self._within_sr(state, kind, order)
        elif state.action.get("kind") in ("draw_step", "keep"):
            self._within_draw_step(state, kind, order)
        elif state.action.get("kind") in ("initiative", "last_extra"):
            self._offer_answered(state, kind, order)
        elif state.action.get("kind") == "mandated_economic":
            self._chart(state, "mandated_economic", order)
            self._economic(state, order)
        elif state.action.get("kind") == "show_hand":  # R106: the victim's hand in the clear
            from . import hands

            state.action.update(kind="ops_event", shown=hands.show(state, state.action["victim"], order))
        elif state.action.get("kind") == "enemy_choice":
            from . import unit_events

            unit_events.answer_choice(state, state.action, order.get("remove"))
            self._after_activity(state)
        elif state.action.get("kind") == "ops_event" and kind == "activate":
            self._activate(state, order, event_ops=state.action["ops"])
        elif kind == "pass":
            if in_movement:
                self._end_movement(state, bool(order.get("take_back")))
            elif not state.action.get("kind"):  # a pass action (8.1.4)
                next_step(state, draw=self._entitlement(state, kind, order))
                self._chart(state, kind, order)
            if state.action.get("entrench"):  # base 11.2.2: rolled after all movement (R83)
                state.action["kind"] = "entrench_roll"
            else:
                self._after_activity(state)
        elif kind == "attack":
            self._attack(state, order)
        elif in_movement:
            self._within_movement(state, kind, order)
        else:
            self._new_action(state, kind, order)
        from .connections import lift_beach_head
        from .turn import sync_control_vp

        sync_control_vp(state)
        lift_beach_head(state)  # 9.5.3.5: after a move, advance or retreat into its space
        return state

    def _end_movement(self, state: PogState, take_back: bool = False) -> None:
        """The end-of-movement tests, once, for every stack moved (base 10.1.2, 11.1.8, R39); with
        `pass take_back=true` the moves that leave a siege short are taken back first (R109)."""
        from . import movement

        if not state.action.get("attacked_spaces"):
            pending = state.action.get("pending", {})
            if take_back:
                movement.take_back(state, state.active, pending)
            movement.judge_action(state, state.active, pending)

    def _attack(self, state: PogState, order: Mapping) -> None:
        """base 9.2.9, 12.2.2: a combat after all movement; its dice at this entry's roll point."""
        from . import battle, combat, movement, offensives

        self._end_movement(state)
        activation = movement.Activation.load(state.action["activation"])
        held = set(state.action.get("sr_units", ())) & set(order.get("units") or [])
        if held:  # 9.3.3: units that redeployed this action do not attack
            raise IllegalOrder(f"{', '.join(sorted(held))} redeployed this action and may not attack", rule="9.3.3",
                               field="units")
        designated = combat.designate(state, state.active, order, activation, state.action, self._barred(state),
                                      italy_19_2=self._italy_19_2(state))
        state.action["combat"] = designated
        battle.begin(state, designated)
        if state.mo:  # 7.1.3-7.1.8: judged at designation
            offensives.designate_combat(state, state.active, designated["attackers"], designated["defenders"],
                                        designated["space"])

    def _barred(self, state: PogState) -> tuple[tuple[str, str], ...]:
        """19.1.1 (an option): Trent–Verona stays on the map, closed to combat and advance."""
        if state.setup is not None and self.chosen(state.setup).get("italy_19_1_1"):
            return (("trent", "verona"),)
        return ()

    def _italy_19_2(self, state: PogState) -> bool:
        """19.2 (an option): the German, British and French units that may operate in Italy (R35)."""
        return state.setup is not None and bool(self.chosen(state.setup).get("italy_19_2"))

    def _within_combat(self, state: PogState, kind: str, order: Mapping) -> None:
        """A side's choice in the open combat: its losses, a retreat or a stand, an advance or pass."""
        from . import advance, battle, retreat

        combat = state.action["combat"]
        if kind == "play_cards":
            battle.play_cards(state, combat, list(order.get("cards") or []), list(order.get("front") or []))
        elif kind == "losses":
            battle.take_losses(state, combat, combat["deciding"], battle.check_losses(state, combat, order["steps"]))
        elif kind == "retreat":
            retreat.retreat(state, combat, order["units"], order["path"])
        elif kind == "stand":
            retreat.stand(state, combat, str(order["unit"]))
        elif kind == "advance":
            advance.advance(state, combat, order["units"], order["path"])
        else:  # pass: no (more) advance
            combat["advance_over"] = True
        if combat.get("advance_over"):
            battle.finish(state, combat)
        elif combat["step"] not in ("cards", "fire", "done"):
            battle.advance_steps(state, combat)
        if combat["step"] == "done":
            del state.action["combat"]

    def _within_sr(self, state: PogState, kind: str, order: Mapping) -> None:
        """One unit's redeployment (13.1), or the pass that ends the SR action (9.3.3: a card played
        as SR redeploys at least one unit)."""
        from . import sr

        if kind == "redeploy":
            sr.redeploy(state, state.active, state.action, order)
            return
        if kind == "activate":
            self._operations_after_sr(state, order)
            return
        if state.action.get("card") and not state.action["redeployed"]:
            raise IllegalOrder("a card played as SR redeploys at least one unit", rule="9.3.3", field="kind")
        if not state.action["redeployed"]:  # the automatic SR 1 unused is a pass action, and draws as one (R99)
            state.action["draw"] = self._entitlement(state, "pass", {})
        self._after_activity(state)

    def _operations_after_sr(self, state: PogState, order: Mapping) -> None:
        """9.3.3: after at least one SR, up to two SR points left activate spaces; the units that
        redeployed may end in them but neither move nor attack."""
        from . import movement, operations, sr

        redeployed = state.action["redeployed"]
        if not redeployed:
            raise IllegalOrder("SR comes first: redeploy a unit before activating spaces", rule="9.3.3", field="kind")
        spaces, attack = order.get("spaces") or [], order.get("attack") or []
        activation = movement.activate_for_movement(state, state.active, spaces, self._supplied(state))
        activation = movement.activate_for_attack(state, state.active, attack, activation)
        operations.pay(state, state.active, order.get("card"), sorted(activation.move), sorted(activation.attack),
                       sr_points=min(sr.SR_TO_OPS, state.action["points"]))
        activation.moved.update(redeployed)  # 9.3.3: no farther move
        next_step(state, kind="movement", activation=activation.dump(), sr_units=list(redeployed),
                  draw=state.action["draw"])

    def _within_movement(self, state: PogState, kind: str, order: Mapping) -> None:
        """A move (11) or a fort built before any move (15.4) inside the open movement action."""
        from . import forts, movement, supply

        side = state.active
        activation = movement.Activation.load(state.action["activation"])
        held = set(state.action.get("sr_units", ())) & set(order.get("units") or [])
        if kind == "move" and held:  # 9.3.3: units that redeployed this action move no farther
            raise IllegalOrder(f"{', '.join(sorted(held))} redeployed this action and may not move", rule="9.3.3",
                               field="units")
        if kind == "move":
            movement.move(state, side, {"units": order["units"], "path": order["path"]}, self._supplied(state),
                          activation, state.action.setdefault("pending", {}), italy_19_2=self._italy_19_2(state))
            movement.check_can_end(state, side, activation, state.action["pending"])
        elif kind == "entrench":
            from . import entrench

            entrench.attempt(state, side, str(order["unit"]), activation, state.action)
        elif kind == "reorganize":
            from . import reorganize

            enhanced = state.setup is not None and bool(self.chosen(state.setup).get("enhanced_reorganisation"))
            reorganize.reorganize(state, side, activation, state.action, order, self._supplied(state), enhanced)
        else:
            build = forts.rebuild_fort if order.get("rebuild") else forts.build_fort
            build(state, side, self._space_field(state, order), order["corps"], activation,
                  lambda where: supply.compute(state).space_supplied(side, where))
        state.action["activation"] = activation.dump()

    def _new_action(self, state: PogState, kind: str, order: Mapping) -> None:
        """8.1.4: activate for movement (paid with a card as OPS, or OPS 1), an economic action
        (sieges), or a political one."""
        from . import draws

        if kind == "draw":  # 8.1.3: bought before the activity
            draws.buy(state, state.active)
            return
        if kind == "extra":  # 8.2.2: a card discarded before the activity
            from . import additional

            additional.try_extra(state, state.active, order)
            return
        next_step(state, draw=self._entitlement(state, kind, order))
        self._chart(state, kind, order)
        if kind == "activate":
            self._activate(state, order)
        elif kind == "economic":
            self._economic(state, order)
        elif kind == "sr":
            from . import sr

            state.action.update(sr.open_sr(state, state.active, order.get("card")))
        elif kind == "event":
            from . import events

            events.play(state, state.active, str(order.get("card", "")), order.get("place"))
            step = events.step_after(state, state.active, str(order.get("card", "")))
            if step:  # what the event opens after its effect (operations, a roll, a choice, attacks)
                state.action.update(step)
            else:
                self._after_activity(state)
        elif kind == "rp":  # base 9.4.2: the whole action
            from . import card_plays

            card_plays.play_rp(state, state.active, order)
            self._after_activity(state)
        else:
            self._political(state, order)

    def _activate(self, state: PogState, order: Mapping, event_ops: int | None = None) -> None:
        """Activate spaces for movement and attack (14.1.1.1), paid with a card played as OPS, the
        automatic OPS 1, or the OPS of the event card just played (R106)."""
        from . import movement, operations

        spaces, attack = order.get("spaces") or [], order.get("attack") or []
        if not spaces and not attack:
            raise IllegalOrder("name the spaces to activate: activate spaces=aachen,koblenz attack=aachen",
                               rule="14.1.1.1", field="spaces")
        self._refuse_medina(state, state.active, spaces)
        activation = movement.activate_for_movement(state, state.active, spaces, self._supplied(state))
        activation = movement.activate_for_attack(state, state.active, attack, activation)
        paid = operations.pay(state, state.active, order.get("card"), sorted(activation.move),
                              sorted(activation.attack), event_ops=event_ops)
        state.action.update(kind="movement", activation=activation.dump(), **({"ops": paid} if paid else {}))

    def _economic(self, state: PogState, order: Mapping) -> None:
        """An Economic Action: foreign aid (16.5.1, voluntary only), the Replacement Phase (17.1;
        in a mandated one the RPs left are lost), then the Siege Phase (15.3), rolled at this
        entry's roll point (R82, R103)."""
        from . import peace, replacements

        mandated = bool(state.action.get("mandated"))
        if order.get("aid"):
            giver, _, receiver = str(order["aid"]).partition(":")
            peace.foreign_aid(state, state.active, giver, receiver, mandated=mandated)
        if order.get("replace") or mandated:
            replacements.spend_rps(state, state.active, [_spend(text) for text in order.get("replace") or []],
                                   mandated=mandated)
        state.action["kind"] = "economic"

    def _political(self, state: PogState, order: Mapping) -> None:
        """A voluntary Political Action: attrition for both sides (14.3.6), then foreign policy
        (16.5.2, rolled at this entry's roll point) or an offer of peace terms (16.5.3) if chosen."""
        from . import peace, supply, turn, victory

        if order.get("policy") and order.get("peace"):
            raise IllegalOrder("peace terms are offered instead of foreign policy, not with it", rule="16.5.3.1",
                               field="peace")
        supply.attrition(state)
        turn.sync_control_vp(state)  # 16.5.3.1 reads the VP after attrition's changes of control
        if order.get("policy"):
            if order["policy"] not in peace.POLITICAL_TRACKS:
                raise IllegalOrder(f"foreign policy moves {' or '.join(peace.POLITICAL_TRACKS)}", rule="16.5.2",
                                   field="policy")
            state.action.update(kind="policy", track=order["policy"])
        elif order.get("peace"):
            peace.offer_peace(state, state.active, victory.scenario_kind(state))
            state.action["kind"] = "peace_offer"
        else:
            self._after_activity(state)

    def _refuse_medina(self, state: PogState, side: str, spaces: list) -> None:
        """14.1.8: Turkish units in Medina's special supply are never activated for movement."""
        from . import supply
        from .data import UnknownSpace

        computed = supply.compute(state)
        for index, text in enumerate(spaces):
            try:
                space = state.map.find(str(text))
            except UnknownSpace:
                continue  # activation itself names the unknown space
            own = [u for u in state.units_in(space) if state.faction(u) == side]
            if own and all(computed.medina_only(u) for u in own):
                raise IllegalOrder(f"the units in {state.map.name_of(space)} are supplied only by Medina and may "
                                   "not be activated for movement", rule="14.1.8", field=f"spaces[{index}]")

    def _space_field(self, state: PogState, order: Mapping) -> str:
        from .data import UnknownSpace

        try:
            return state.map.find(str(order.get("space", "")))
        except UnknownSpace as exc:
            raise IllegalOrder(str(exc), rule="15.4", field="space") from None

    def resolve(self, state: PogState, dice, private) -> PogState:
        from . import battle, forts, peace, turn

        combat, kind = state.action.get("combat"), state.action.get("kind")
        if state.action.get("entrench"):  # base 11.2.2: the entrench dice come first, after movement
            from . import entrench

            reminder = state.setup is not None and self.chosen(state.setup).get("entrench_reminder", False)
            entrench.roll(state, dice, state.action, reminder)
        if kind == "entrench_roll":
            self._after_activity(state)
        elif kind in ("extra_roll", "last_roll", "initiative_roll"):
            self._additional_roll(state, kind, dice)
        elif kind in ("draw_roll", "reshuffle"):
            self._draw_roll(state, dice, private)
        elif combat:
            battle.roll(state, combat, dice)
            if combat["step"] == "done":
                del state.action["combat"]
        elif kind == "offensive_roll":
            from . import hands

            first = self._scenario_data()[state.setup.scenario].get("first_cards", {}) if state.setup else {}
            options = self.chosen(state.setup) if state.setup else {}
            hands.deal(state, private, state.action.get("guns_of_august", False), options,
                       self._players(state.setup) if state.setup else {}, first)
            turn.roll_offensives(state, dice)
        elif kind == "policy":  # 16.5.2
            peace.foreign_policy(state, state.active, state.action["track"], dice)
            self._after_activity(state)
        elif kind == "peace_roll":  # 16.5.3.2: rejected terms
            peace.answer_peace(state, False, dice)
            self._after_activity(state)
        elif kind == "event_roll":  # R115: The Sixtus Affair
            peace.event_terms_roll(state, state.active, dice, state.action["line_from"])
            self._after_activity(state)
        else:  # economic: the Siege Phase (15.3)
            forts.resolve_sieges(state, state.active, dice, self._supplied(state))
            self._after_activity(state)
        turn.sync_control_vp(state)
        return state

    def _draw_roll(self, state: PogState, dice, private) -> None:
        """A draw (8.1.3, 8.1.6.2) or the new decks (16.1.3-16.1.4), drawn by their side's player."""
        from . import draws, turn

        owners = self._players(state.setup) if state.setup else {}
        if state.action["kind"] == "reshuffle":
            turn.shuffle_in_decks(state, private, owners, self._first())
            return
        draws.roll(state, dice, private, owners.get(state.active, state.active))
        self._draw_settled(state)

    def _additional_roll(self, state: PogState, kind: str, dice) -> None:
        """The die of 8.2.2.1, 8.2.4.1 or 8.2.1.1."""
        from . import additional, turn

        if kind == "extra_roll":
            turn.roll_extra(state, dice, self._first())
        elif kind == "last_roll":
            turn.roll_last(state, dice, self._first())
        else:
            additional.roll_initiative(state, dice, self._first())

    def _within_draw_step(self, state: PogState, kind: str, order: Mapping) -> None:
        """The draw step (8.1.6): draw, recycle, or pass; then keep one card looked at."""
        from . import draws

        if kind == "draw":
            draws.ask(state, state.active)
        elif kind == "recycle":
            draws.recycle(state, state.active, order)
        elif kind == "keep":
            draws.keep(state, state.active)
        else:  # pass: no draw
            next_step(state, kind="draw_done")
        self._draw_settled(state)

    def _offer_answered(self, state: PogState, kind: str, order: Mapping) -> None:
        """8.2.1: the Allies' card for acting first, or 8.2.4: the first side's for an extra action;
        or `pass`."""
        from . import additional, turn

        if kind == "initiative":
            additional.try_initiative(state, order)
        elif kind == "extra":
            additional.try_extra(state, state.active, order)
        elif state.action["kind"] == "initiative":
            state.action = {}
        else:
            turn.pass_last(state, self._first())

    def _draw_settled(self, state: PogState) -> None:
        if state.action.get("kind") == "draw_done":
            self._end_action(state)

    def _chart(self, state: PogState, kind: str, order: Mapping) -> None:
        from .turn import chart_action  # here: `pbem status` needs no turn procedures

        chart_action(state, kind, order)

    def _entitlement(self, state: PogState, kind: str, order: Mapping) -> str:
        """What the activity about to open lets its side draw at its end (8.1.6.2, R101)."""
        from . import draws

        if state.action.get("additional"):
            return "no"  # 8.2.2.1
        pass_draws = self.chosen(state.setup)["pass_draws"] if state.setup else "limited"
        return draws.entitlement(kind, bool(order.get("card")), state.commitment[state.active], pass_draws)

    def _phase_order(self, state: PogState, kind: str, order: Mapping) -> None:
        """The Mandated Offensive Phase's roll (7.1.1, R81), or the answer to peace terms (16.5.3)."""
        from . import peace

        if kind == "offensives" and order.get("guns_of_august") and state.hands:
            raise IllegalOrder("the hands are dealt already: Guns of August is chosen at the game's first entry",
                               rule="base 4.3.1", field="guns_of_august")
        if kind == "offensives":  # base 4.3: the hands are dealt at the same roll point
            state.action = {"kind": "offensive_roll", "guns_of_august": bool(order.get("guns_of_august"))}
        elif order["accept"]:
            peace.answer_peace(state, True, None)
            self._after_activity(state)
        else:
            state.action["kind"] = "peace_roll"

    def _supplied(self, state: PogState):
        """May this unit move (or besiege in supply)? Asked unit by unit against the live position,
        so a path opened earlier in the action counts (R04). Turks in Medina are in special supply
        but may not be activated for movement (14.1.8)."""
        from . import supply

        def supplied(unit: str) -> bool:
            computed = supply.compute(state)
            return computed.status(unit) != "out" and not computed.medina_only(unit)

        return supplied

    def _after_activity(self, state: PogState) -> None:
        """8.1.5 the supply step, then the draw step (8.1.6) or straight on (turn.py)."""
        from . import turn

        turn.after_activity(state, self._first())

    def _end_action(self, state: PogState) -> None:
        """8.1.7 and 16.1.2, then 8.2.3: the next side acts, or the turn ends (turn.py)."""
        from . import turn

        turn.end_action(state, self._first())

    def _first(self) -> str:
        return self.data("sequence.toml")["first"]

    def private_view(self, state: PogState, player: str) -> dict:
        """R92: the player's side, and the cards he was dealt or drew with his pile's order."""
        from . import hands

        if state.setup is None:
            return {}
        return hands.empty_view(side for side, owner in self._players(state.setup).items() if owner == player)

    def check_private(self, view: dict, player: str, order: Mapping, state: PogState) -> None:
        from . import draws, hands

        if order.get("kind") == "keep":
            draws.check_keep(view, order)
        elif order.get("kind") == "show_hand":
            hands.check_shown(state, view, order)
        elif order.get("kind") in ("select_cards", "offensives"):
            from . import optional_cards

            optional_cards.check_private(view, order, self._deciding_side(state))
        hands.check_private(view, order)

    def apply_private(self, view: dict, player: str, order: Mapping) -> None:
        """8.1.6: the card kept goes to his hand; base 2.3: his selection of optional cards."""
        from . import draws

        if order.get("kind") == "keep":
            draws.keep_private(view, order)
        elif order.get("kind") == "select_cards":
            from . import optional_cards

            optional_cards.record_private(view, order)

    def held(self, state: PogState, view: dict) -> list[str]:
        """R92: each side's cards of the view still in its hand."""
        from . import cards, hands

        return [cards.label(card) for mine in view.get("sides", {}).values() for card in hands.holding(state, mine)]

    def resign(self, state: PogState, player: str) -> PogState:
        state.events.add(f"resigned:{player}")
        return state

    def legal(self, state: PogState, player: str) -> list[OrderKind]:
        """Within a movement action: move, build_fort, pass; otherwise a new action (8.1.4)."""
        step = self.pending(state)
        if not isinstance(step, Decision) or player not in step.players:
            return []
        return [self.order_kinds[kind] for kind in self._kinds_now(state)]

    def standing(self, state: PogState) -> str:
        """Turn and round, who acts first, the VP, both war statuses and commitment levels, the
        hand sizes."""
        from . import additional, war

        first = additional.first_side(state, self._first()).upper()
        hands = "; hands " + ", ".join(f"{side.upper()} {counts['hand']} (pile {counts['pile']})"
                                       for side, counts in sorted(state.hands.items())) if state.hands else ""
        return (f"{state.turn_label} (turn {state.turn}), round {state.round} of {war.rounds_per_turn(state)}, "
                f"{first} first; VP {war.track(state, 'vp')}; war status AP {state.war_status['ap']}, "
                f"CP {state.war_status['cp']}; commitment AP {state.commitment['ap']}, CP {state.commitment['cp']}"
                f"{hands}")

    def suggest(self, state: PogState, player: str, view: dict | None = None) -> list[dict]:
        """The candidates of suggest.py that this state accepts, tried each on a copy (and against
        the player's view, as his client would)."""
        from . import suggest

        step = self.pending(state)
        if not isinstance(step, Decision) or player not in step.players:
            return []
        side = self._deciding_side(state)
        mine = (view or {}).get("sides", {}).get(side)
        return [order for order in suggest.candidates(state, side, mine) if self._stands(state, player, order, view)]

    def _stands(self, state: PogState, player: str, order: dict, view: dict | None) -> bool:
        try:
            if view is not None:
                self.check_private(view, player, order, state)
            public, _ = self.order_kinds[order["kind"]].split(order)
            self.apply(positions.copy(state), player, public)
        except IllegalOrder:
            return False
        return True

    def _kinds_now(self, state: PogState) -> tuple[str, ...]:
        """8.1.4: within a movement action its moves (and forts, 15.4) or pass; else a new action."""
        from . import hands

        combat = state.action.get("combat")
        if combat:
            return {"cards": ("play_cards",), "losses": ("losses",), "retreat": ("retreat", "stand"),
                    "advance": ("advance", "pass")}.get(combat["step"], ())
        if state.action.get("attacked_spaces") or "event_attackers" in state.action:
            return ("attack", "pass")  # base 9.2.9: movement is over once combat begins; R113: nothing moves
        if state.action.get("kind") in STEP_ORDERS:
            return STEP_ORDERS[state.action["kind"]]
        dealt = hands.dealt(state)
        buy = ("draw",) if dealt and not state.action.get("bought") else ()  # 8.1.3
        extra = ("extra",) if dealt else ()  # 8.2.2
        return ("activate", "sr", "rp", "event", "economic", "political", "pass", *buy, *extra)

    def picture(self, state: PogState, focus: str | None = None) -> str | None:
        from . import picture

        return picture.draw(state, focus)

    def views(self, state: PogState, private: Mapping[str, dict] | None = None) -> dict:
        from . import hands, record_views, views

        return {
            "map": View("spaces by nation: control, forts, trenches, units and OOS markers; 'map NATION' for one "
                        "(its id or name)",
                        lambda *nation: views.map_data(state, views.find_nation(state, " ".join(nation))
                                                       if nation else None),
                        views.render_map),
            "space": View("one space: 'space NAME' (any case; near misses suggest the closest)",
                          lambda *name: views.space_data(state, views.find(state, " ".join(name) or "?")),
                          views.render_space),
            "supply": View("each unit: supplied, special or out, the sources it reaches, its OOS marker; "
                           "'supply ap' or 'supply cp' for one side",
                           lambda side=None: views.supply_data(state, side), views.render_supply),
            "tracks": View("VP, war status and commitment, the US entry and Russian tracks, RPs, mandated "
                           "offensives, turn and round",
                           lambda: record_views.tracks_data(state), record_views.render_tracks),
            "combat": View("the turn's last combat step by step (strengths, shifts, dice, losses, retreat, advance); "
                           "'combat N' for the Nth",
                           lambda number=None: record_views.combat_data(state, number), record_views.render_combat),
            "cards": View("the combat cards kept in front, discarded, removed or used this round, and the events "
                          "acting in combats", lambda: record_views.cards_data(state), record_views.render_cards),
            "hand": View("your cards and the size of your pile (on the machine with your key), and both sides' "
                         "hand and pile sizes", lambda: hands.hand_data(state, private), record_views.render_hand),
        }


def _spend(text: str) -> dict:
    """One replacement as an order writes it: unit[:space][:reduced] (17.1, R82)."""
    unit, *rest = str(text).split(":")
    spend: dict = {"unit": unit}
    for part in rest:
        if part in ("reduced", "full"):
            spend["strength"] = part
        elif part:
            spend["space"] = part
    return spend
