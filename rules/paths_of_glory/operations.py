"""Operations (seed 9.2; R93): what activating spaces costs, and the card that pays for it.

A space costs one Activation Point per nationality in it (9.2.3), forts aside, with the seed's
groupings: the British family (ANA, AUS, CND, PT are British pieces here), Belgians in six western
spaces and the Dutch in their two as British, French and US units together in France and Germany.
After the Fall of the Tsar each Russian unit costs one for combat (9.2.2). Events change prices
(R98): under Moltke each Central Powers unit in Belgium and France costs one; Sud Army makes one
stack of up to two German corps and one Austro-Hungarian unit one nation; the German 11th Army makes
the Central Powers corps with it one nation. A space activated for
both costs its attack cost, at least 2 (9.2.5). No nationality may be withheld (9.2.4): every unit
of the side in the space counts. The Allies activate at most one space on the Near East map for
combat per action, the MEF beach head's and the BR NE Army's aside (9.2.7). Allied units whose
supply runs through the MEF beach head cost 3 for the MEF army and 1 a corps, on top of the rest of
the space (9.2.7.1, R105), unless the MEF came in as a normal reinforcement (9.5.3.4).

An action pays with a card played as OPS (its OPS value) or, with no card, the automatic OPS 1
(8.1.4). Before hands are dealt (a rule case's position) activation is not priced.
"""

from __future__ import annotations

from collections.abc import Iterable

from pbem.errors import IllegalOrder

from . import card_plays, cards, hands
from .state import PogState

AS_BRITISH = {"be": {"antwerp", "brussels", "liege", "ostend", "calais", "amiens"},  # 9.2.3
              "ho": {"amsterdam", "nijmegen"}}
FRENCH_WITH_US = {"fr", "ge"}  # 9.2.3: the map nations where French and US units count as one
FALL_OF_THE_TSAR = "fall_of_the_tsar"  # 9.2.2: the event after which Russian combat costs per unit
NEAR_EAST_EXEMPT_UNITS = {"br_ne_army"}  # 9.2.7: its space does not count against the limit
MINIMUM_BOTH = 2  # 9.2.5
AUTOMATIC_OPS = 1  # 8.1.4
MOLTKE, MOLTKE_NATIONS = "moltke", {"be", "fr"}  # AP card 9 (event ids as in cards.toml)
SUD_ARMY = "sud_army"  # CP card 10
ELEVENTH_ARMY, ELEVENTH_ARMY_UNIT = "eleventh_army", "ge_11_army"  # CP card 29: with CP corps, one unit
MEF_ARMY, MEF_ARMY_COST, BEACH_CORPS_COST = "br_mef_army", 3, 1  # 9.2.7.1
EVERYONE_INTO_BATTLE, ONE_NATION_WEST = "everyone_into_battle", {"it", "fr", "be"}  # AP card 51
MEF_AS_REINFORCEMENT = "mef_reinforcement"  # in state.events once the MEF came as in 9.5.3.4: no 9.2.7.1


def _group(state: PogState, unit: str, space: str) -> str:
    """The nationality a unit counts as for activation in this space (9.2.3; Everyone Into Battle)."""
    nation = state.nation(unit)
    space_nation = state.map.nation[state.map.index[space]]
    if EVERYONE_INTO_BATTLE in state.events and state.faction(unit) == "ap" and space_nation in ONE_NATION_WEST:
        return "ap"  # AP card 51: one nationality in Italy, France and Belgium for the rest of the turn
    if space in AS_BRITISH.get(nation, ()):
        return "br"
    if nation == "us" and space_nation in FRENCH_WITH_US:
        return "fr"
    return nation


def space_cost(state: PogState, side: str, space: str, attack: bool) -> int:
    """9.2.2-9.2.3: the Activation Points one space costs, for movement or for attack."""
    units = [u for u in state.units_in(space) if state.faction(u) == side]
    beach = _through_beach_head(state, units) if side == "ap" else set()
    if beach:  # 9.2.7.1: these units at their own price, the rest of the space as usual
        rest = [u for u in units if u not in beach]
        own = sum(MEF_ARMY_COST if u == MEF_ARMY else BEACH_CORPS_COST for u in beach)
        return own + len({_group(state, u, space) for u in rest})
    if side == "cp" and MOLTKE in state.events and state.map.nation[state.map.index[space]] in MOLTKE_NATIONS:
        return len(units)  # AP card 9: per unit in Belgium and France until Falkenhayn
    groups = {_group(state, u, space) for u in units}
    if side == "cp" and ELEVENTH_ARMY in state.events and ELEVENTH_ARMY_UNIT in units:
        groups = {_group(state, u, space) for u in units if u == ELEVENTH_ARMY_UNIT or _is_army(state, u)}
    if attack and FALL_OF_THE_TSAR in state.events and "ru" in groups:
        return len(groups - {"ru"}) + sum(1 for u in units if state.nation(u) == "ru")
    return len(groups)


def _through_beach_head(state: PogState, units: list[str]) -> set[str]:
    """9.2.7.1 (R105): the units supplied now that would not be without the MEF beach head."""
    from . import connections, supply
    from .state import copy

    if not units or connections.beach_head(state) is None or MEF_AS_REINFORCEMENT in state.events:
        return set()
    now = supply.compute(state)
    supplied = [u for u in units if now.status(u) != "out"]
    if not supplied:
        return set()
    without = copy(state)
    without.events = {e for e in state.events if not e.startswith(connections.BEACH_HEAD_EVENT)}
    after = supply.compute(without)
    return {u for u in supplied if after.status(u) == "out"}


def _is_army(state: PogState, unit: str) -> bool:
    return state.unit_facts[unit].type == "army"


def _sud_army_stack(state: PogState, space: str) -> bool:
    """CP card 10: up to two German corps and one Austro-Hungarian unit, activated as one nation."""
    units = [u for u in state.units_in(space) if state.faction(u) == "cp"]
    german = [u for u in units if state.nation(u) == "ge"]
    austrian = [u for u in units if state.nation(u) == "ah"]
    return (len(austrian) == 1 and 1 <= len(german) <= 2 and not any(_is_army(state, u) for u in german)
            and len(german) + len(austrian) == len(units))


def cost(state: PogState, side: str, move: Iterable[str], attack: Iterable[str]) -> int:
    """The whole activation: each space once, at its attack cost and at least 2 if both (9.2.5);
    Sud Army makes one stack of the action one nation (CP card 10)."""
    move, attack = set(move), set(attack)
    sud = next((s for s in sorted(move | attack) if _sud_army_stack(state, s)), None) \
        if side == "cp" and SUD_ARMY in state.events else None
    total = 0
    for space in move | attack:
        price = space_cost(state, side, space, space in attack) - (1 if space == sud else 0)
        total += max(price, MINIMUM_BOTH) if space in attack and space in move else price
    return total


def check_near_east(state: PogState, side: str, attack: list[str]) -> None:
    """9.2.7: one Allied space on the Near East map activated for combat per action."""
    if side != "ap":
        return
    counted = [space for space in attack if state.map.map[state.map.index[space]] == "neareast"
               and not NEAR_EAST_EXEMPT_UNITS & set(state.units_in(space)) and not _beach_head(state, space)]
    if len(counted) > 1:
        raise IllegalOrder("the Allies activate one space on the Near East map for combat per action",
                           rule="9.2.7", field="attack")


def _beach_head(state: PogState, space: str) -> bool:
    from . import connections

    beach = connections.beach_index(state)
    return beach is not None and state.map.index[space] == beach


def pay(state: PogState, side: str, card: str | None, move: list[str], attack: list[str],
        sr_points: int | None = None, event_ops: int | None = None) -> dict:
    """Price the activation against the card played as OPS, the automatic OPS 1, (`sr_points`)
    the SR points converted after an SR (9.3.3), or (`event_ops`) the OPS of a card whose event
    came with operations (R106); a card played as OPS leaves the hand for the discard pile.
    Returns what the action records of it."""
    check_near_east(state, side, attack)
    if event_ops is not None:
        if card:
            raise IllegalOrder("the event's own card pays for this activation", rule="R106", field="card")
        price = cost(state, side, move, attack)
        if hands.dealt(state) and price > event_ops:
            raise IllegalOrder(f"activating these spaces costs {price} Activation Points; the card gives {event_ops}",
                               rule="9.2.1", field="spaces")
        return {"ops": event_ops, "cost": price}
    if sr_points is not None:
        if card:
            raise IllegalOrder("after SR, the activation is paid with SR points, not a card", rule="9.3.3",
                               field="card")
        price = cost(state, side, move, attack)
        if hands.dealt(state) and price > sr_points:
            raise IllegalOrder(f"activating these spaces costs {price} Activation Points; {sr_points} SR points may "
                               "be converted", rule="9.3.3", field="spaces")
        return {"sr_points": sr_points}
    if not hands.dealt(state):
        return {}
    budget, played = AUTOMATIC_OPS, None
    if card:
        played = hands.card_from_hand(state, side, card, "9.2.1")
        card_plays.check_late_entry(state, side, played)
        budget = cards.catalogue()[played]["ops"]
    price = cost(state, side, move, attack)
    if price > budget:
        paid_with = f"{cards.label(played)} gives {budget}" if played else \
            "the automatic operation gives 1: play a card as OPS (card=...)"
        raise IllegalOrder(f"activating these spaces costs {price} Activation Points; {paid_with}",
                           rule="9.2.1", field="card")
    if played:
        hands.play_to_discard(state, side, played)
    return {"ops": budget, "cost": price, **({"card": played} if played else {})}
