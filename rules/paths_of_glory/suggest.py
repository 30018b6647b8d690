"""Concrete orders worth trying at the open decision (the ruleset contract's `suggest`).

For `pbem move --edit` and for machine play: each decision gets a list of whole orders built from
the position and the player's own hand: every pass and answer, each card he holds in each use,
the automatic OPS, SR and RP 1, a move of each stack to each neighbour, an attack on each enemy
next to an attack space, the legal losses, retreats and advances of a combat. A candidate may
still be refused (a move into a space it may not enter): the caller tries it on a copy of the
state (Ruleset.legal_orders), which is the only judge.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from . import cards, hands, movement, peace, reinforcements, replacements, unit_events
from .state import PogState

MAX_SPACES = 12  # the automatic OPS 1 is suggested for at most this many spaces, spread over the map


def candidates(state: PogState, side: str, mine: Mapping | None) -> list[dict]:
    """The orders to try for `side` now; `mine` is the side's part of the player's view (or None)."""
    held = hands.holding(state, mine) if mine else []
    combat = state.action.get("combat")
    if combat:
        return _combat(state, combat, held)
    kind = state.action.get("kind")
    by_step: dict[str, Callable[[], list[dict]]] = {
        "select_cards": lambda: [{"kind": "select_cards"}],
        "offensives": lambda: [{"kind": "offensives"}, {"kind": "offensives", "guns_of_august": True}],
        "peace_offer": lambda: [{"kind": "answer_peace", "accept": False}, {"kind": "answer_peace", "accept": True}],
        "draw_step": lambda: _draw_step(state, side, held),
        "keep": lambda: [{"kind": "keep", "card": card} for card in (mine or {}).get("looking", [])],
        "initiative": lambda: [{"kind": "pass"}, *({"kind": "initiative", "card": c} for c in held)],
        "last_extra": lambda: [{"kind": "pass"}, *({"kind": "extra", "card": c} for c in held)],
        "mandated_economic": lambda: [{"kind": "economic"}],
        "show_hand": lambda: [{"kind": "show_hand", "cards": held}],
        "enemy_choice": lambda: [{"kind": "answer_event"}, *({"kind": "answer_event", "remove": unit} for unit in
                                 unit_events.corps_to_remove(state, side, state.action["nation"]))],
        "ops_event": lambda: _activations(state, side, state.action["ops"], {}),
        "movement": lambda: _movement(state, side),
        "sr": lambda: _sr(state, side),
    }
    return by_step[kind]() if kind in by_step else _new_action(state, side, held)


def _draw_step(state: PogState, side: str, held: list[str]) -> list[dict]:
    front = state.cards.get(f"{side}_front", [])
    return [{"kind": "pass"}, {"kind": "draw"}, *({"kind": "recycle", "card": c} for c in held),
            *({"kind": "recycle", "front": c} for c in front)]


def _new_action(state: PogState, side: str, held: list[str]) -> list[dict]:
    orders: list[dict] = [{"kind": "pass"}, {"kind": "political"}, {"kind": "economic"}, {"kind": "sr"},
                          {"kind": "draw"}]
    orders += [{"kind": "political", "policy": track} for track in peace.POLITICAL_TRACKS]
    orders += [{"kind": "rp", "rp": rp} for rp in replacements.rp_types(side)]
    own = _own_spaces(state, side)
    orders += [{"kind": "activate", "spaces": [space]} for space in own[:: max(1, len(own) // MAX_SPACES)]]
    orders += [{"kind": "activate", "spaces": [], "attack": [space]} for space in _fronts(state, side)]
    for card in held:
        orders += [{"kind": kind, "card": card} for kind in ("rp", "event", "sr", "extra")]
        orders += [{"kind": "event", "card": card, "place": place} for place in _placements(state, card)]
        orders += _activations(state, side, cards.catalogue()[card]["ops"], {"card": card})
    return orders


def _activations(state: PogState, side: str, ops: int, paid: dict) -> list[dict]:
    """Activations worth up to `ops`: runs of the side's spaces for movement, and its fronts for
    attack."""
    own = _own_spaces(state, side)
    orders = [{"kind": "activate", **paid, "spaces": own[start:start + ops]}
              for start in range(0, len(own), max(ops, 1))]
    return [*orders, {"kind": "activate", **paid, "spaces": [], "attack": _fronts(state, side)[:ops]}]


def _placements(state: PogState, card: str) -> list[list[str]]:
    """A reinforcement card's armies each placed in the first space its card or 9.5.3.3 allows it
    (none if one has no space); a neutral entry card's free corps in the first spaces the chart leaves open."""
    from . import events
    from .data import load_setup

    entry = events.catalogue().get(card, {})
    if "flip_reduced" in entry:
        return [[u] for u, where in sorted(state.units.items()) if where.reduced and where.space in state.map.index
                and state.faction(u) == cards.catalogue()[card]["side"]][:6]
    if entry.keys() & {"place_with_army", "remove_eliminated", "reduce_units", "redeploy_to"}:
        return _unit_choices(state, cards.catalogue()[card]["side"], entry)
    nation = entry.get("enters")
    if nation:
        free = next((f for f in load_setup(state.variants).on_entry_free if f.nation == nation), None)
        pog = state.map
        spaces = [pog.ids[i] for i in range(len(pog)) if pog.nation[i] == nation and pog.ids[i] not in free.not_in] \
            if free else []
        return [[f"{unit}:{space}" for unit, space in zip(free.units, spaces, strict=False)]] if free else []
    armies = [unit for unit in cards.catalogue()[card].get("reinforcements", {}).get("units", [])
              if state.unit_facts[unit].type == "army"]
    side, places = cards.catalogue()[card]["side"], []
    for army in armies:  # R116, R117: the card's own spaces first, then the Near East armies' homes
        space = next(reinforcements.army_spaces(state, side, card, army), None)
        if space is None:
            return []
        places.append(f"{army}:{space}")
    return [places] if places else []


def _unit_choices(state: PogState, side: str, entry: dict) -> list[list[str]]:
    """A `place` for the events of unit_events.py and Salonika: a few of the choices each allows."""
    from .state import enemy

    if "place_with_army" in entry:
        nation = entry["place_with_army"]["nation"]
        return [[space] for space in _own_spaces(state, side) if state.map.nation[state.map.index[space]] == nation]
    if "remove_eliminated" in entry:
        box = f"{enemy(side)}_eliminated"
        return [[u] for u, where in sorted(state.units.items()) if where.space == box
                and state.nation(u) == entry["remove_eliminated"]] or [[]]
    if "reduce_units" in entry:
        spec = entry["reduce_units"]
        full = sorted(u for u, where in state.units.items() if where.space in state.map.index and not where.reduced
                      and state.nation(u) == spec["nation"])
        return [full[:spec["count"]]]
    nations = entry["redeploy_to"]["nations"]
    reserve = [u for u, where in sorted(state.units.items()) if where.space == f"{side}_reserve"
               and state.nation(u) in nations and state.unit_facts[u].type == "corps"]
    return [reserve[:1], []]


def _own_spaces(state: PogState, side: str) -> list[str]:
    """The map spaces holding the side's units, in map order."""
    occupied = {where.space for unit, where in state.units.items() if state.faction(unit) == side}
    return [space for space in state.map.ids if space in occupied]


def _fronts(state: PogState, side: str) -> list[str]:
    """The side's spaces next to an enemy unit."""
    pog, enemy_spaces = state.map, _enemy_spaces(state, side)
    return [space for space in _own_spaces(state, side)
            if any(pog.ids[n] in enemy_spaces for n in pog.neighbours[pog.index[space]])]


def _enemy_spaces(state: PogState, side: str) -> set[str]:
    return {where.space for unit, where in state.units.items() if state.faction(unit) != side}


def _movement(state: PogState, side: str) -> list[dict]:
    activation = movement.Activation.load(state.action["activation"])
    pog, orders = state.map, list[dict]([{"kind": "pass"}, {"kind": "pass", "take_back": True}])
    if not state.action.get("attacked_spaces"):
        for space in sorted(activation.move):
            units = [u for u in state.units_in(space) if state.faction(u) == side and u not in activation.moved]
            if units:
                orders += [{"kind": "move", "units": units, "path": [pog.ids[n]]}
                           for n in pog.neighbours[pog.index[space]]]
    enemies = _enemy_spaces(state, side)
    for space in sorted(activation.attack):
        units = [u for u in state.units_in(space) if state.faction(u) == side]
        orders += [{"kind": "attack", "units": units, "space": pog.ids[n]}
                   for n in pog.neighbours[pog.index[space]] if units and pog.ids[n] in enemies]
    return orders


def _sr(state: PogState, side: str) -> list[dict]:
    own = _own_spaces(state, side)
    units = [u for u, where in state.units.items() if state.faction(u) == side and where.space in own]
    orders: list[dict] = [{"kind": "pass"}]
    for unit in units[:: max(1, len(units) // MAX_SPACES)]:
        orders += [{"kind": "redeploy", "unit": unit, "to": to} for to in (*own[:: max(1, len(own) // 4)], "reserve")]
    return orders


def _combat(state: PogState, combat: dict, held: list[str]) -> list[dict]:
    from . import advance, battle, retreat

    step = combat["step"]
    if step == "cards":
        return [{"kind": "play_cards"}, *({"kind": "play_cards", "cards": [c]} for c in held
                                           if cards.catalogue()[c].get("combat_card"))]
    if step == "losses":
        return [{"kind": "losses", "steps": list(outcome.steps)}
                for outcome in battle.legal_losses(state, combat, combat["deciding"])]
    if step == "retreat":
        return _retreats(state, combat, retreat)
    return [{"kind": "pass"}, *({"kind": "advance", "units": [unit], "path": [combat["space"]]}
                                for unit in advance.advancers(state, combat))]


def _retreats(state: PogState, combat: dict, retreat) -> list[dict]:
    units = retreat.to_retreat(state, combat)
    orders = [{"kind": "stand", "unit": unit} for unit in units]
    for unit in units:
        for first in retreat.first_spaces(state, combat, unit):
            orders.append({"kind": "retreat", "units": [unit], "path": [first]})
            orders += [{"kind": "retreat", "units": [unit], "path": [first, second]}
                       for second in retreat.second_spaces(state, combat, unit, first)]
    return orders
