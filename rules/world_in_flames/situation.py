"""What the rules of 2.2-2.4 ask of a position: who controls each hex, who is at war with whom,
who co-operates and consents, the weather, and where each unit is. Powers are major powers
("germany", "commonwealth") and minor countries ("poland"); a minor country is aligned when a major
power controls it, neutral otherwise."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from . import kinds
from .world import World

NEUTRAL = "neutral"


def major_power(world: World, sides: Mapping[str, str], controllers: Mapping[str, str], power: str) -> str:
    """A power's major power: itself for a major, the first major power whose home country it is,
    its controller for an aligned minor, "" for a neutral minor."""
    if power in sides:
        return power
    homes = world.countries[power].home_of if power in world.countries else ()
    return homes[0] if homes else controllers.get(power, "")


@dataclass(frozen=True)
class Unit:
    id: str
    kind: str  # one of kinds.ALL
    country: str  # its nationality: a home country, or a minor country
    hex: int = -1  # on land, or an aircraft on the ground
    sea: str = ""  # in a sea area's sea-box: at sea
    air_to_sea: bool = False  # an aircraft with an air-to-sea factor
    face_up: bool = True
    surprised: bool = False  # option 20, option 13
    invading: bool = False  # invaded or paradropped this turn (11.14, 11.15)
    supply_expended: bool = False  # option 6: an HQ made a primary source for the turn (22.4.10)

    def __post_init__(self) -> None:
        kinds.check(self.kind)


@dataclass(frozen=True)
class Situation:
    world: World
    sides: Mapping[str, str]  # major power -> "axis", "allies" or "neutral"
    controllers: Mapping[str, str] = field(default_factory=dict)  # aligned minor country -> its major power
    control: Mapping[int, str] = field(default_factory=dict)  # hex -> its power, where not its country's owner
    held: Mapping[int, frozenset[str]] = field(default_factory=dict)  # hex -> sides that held it this turn
    at_war: frozenset[frozenset[str]] = frozenset()
    cooperation: frozenset[frozenset[str]] = frozenset()  # pairs of major powers that co-operate (18.1)
    consent: frozenset[tuple[str, str]] = frozenset()  # (owner, guest): owner lets guest trace in (18.2)
    conquered: Mapping[str, str] = field(default_factory=dict)  # country -> the major power that conquered it
    weather: Mapping[str, str] = field(default_factory=dict)  # weather zone -> its weather ("fine" unless said)
    open_neutrals: frozenset[str] = frozenset()  # neutrals supply may enter: Vichy (17.4), Sweden (19.7)
    units: tuple[Unit, ...] = ()
    options: Mapping[str, bool] = field(default_factory=dict)

    def controller(self, hex_: int) -> str:
        """The power controlling a hex: its own, or its country's owner."""
        if hex_ in self.control:
            return self.control[hex_]
        country = self.world.country[hex_]
        return self.world.countries[country].owner if country else ""

    def major_of(self, power: str) -> str:
        return major_power(self.world, self.sides, self.controllers, power)

    def side_of(self, power: str) -> str:
        major = self.major_of(power)
        return self.sides.get(major, NEUTRAL) if major else NEUTRAL

    def at_war_with(self, a: str, b: str) -> bool:
        """Powers at war, or whose major powers are."""
        return frozenset((a, b)) in self.at_war or frozenset((self.major_of(a), self.major_of(b))) in self.at_war

    def co_operators(self, major: str) -> frozenset[str]:
        """The major powers a major power co-operates with, itself among them (18.1)."""
        return frozenset({major, *(other for pair in self.cooperation if major in pair for other in pair)})

    def enemy_land_units(self, hex_: int, side: str) -> list[str]:
        """The land units in a hex of the side at war with `side` (neutrals are nobody's enemy)."""
        return [u.id for u in self.units if u.hex == hex_ and u.kind in kinds.LAND
                and self.side_of(u.country) not in (side, NEUTRAL)]

    def weather_at(self, hex_: int) -> str:
        return self.weather.get(self.world.zone[hex_], "fine")
