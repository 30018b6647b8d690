"""Paths of Glory data: the map, the units and the 1914 set-up, read once from data/*.toml.

The TOML files document their own fields (see their header comments); they are regenerated from
the reference CSVs by tools/convert.py. Everything here is read through pbem.datafile (which keeps a
parsed copy beside the data, so most commands never parse TOML), works from an installed wheel as
well as from the source tree, and is cached: callers share one read-only object per variant set.

`load_map(variants)` compiles the map into integer arrays: space i is `ids[i]`, its neighbours are
`neighbours[i]`, and the per-space facts are tuples indexed the same way. Variant spaces are added
after the base map's 281, so a base space keeps its number under every variant set.

Limited connections: `limits[frozenset({a, b})]` holds the tokens that may use a-b either way,
`limits[(a, b)]` those that may use it only from a to b. A connection with any limit entry is
closed to every unit matching none of the tokens valid in its direction; `PogMap.allowed(a, b)`
gives those tokens (None for an unrestricted connection). Tokens: a nation (`ru`: only that
nation's units), `<nation>_corps` (only that nation's corps), `ana` (only the ANA corps), `mef`
(only while the MEF beach head rules allow it).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache, cached_property
from types import MappingProxyType
from typing import Any, NamedTuple

from pbem import datafile

NO_VARIANTS: frozenset[str] = frozenset()


def slug(text: str) -> str:
    """The id form of a name: ASCII, lower case, each run of other characters one `_`."""
    import unicodedata  # here: only reading what a player typed needs it

    text = unicodedata.normalize("NFKD", text.replace("ß", "ss"))
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).lower()
    return re.sub(r"[^a-z0-9]+", "_", text).strip("_")


class UnknownSpace(ValueError):
    """A space name matching no space, box or alias; `suggestions` holds the closest ids."""

    def __init__(self, text: str, suggestions: tuple[str, ...], names: Mapping[str, str]):
        self.text = text
        self.suggestions = suggestions
        message = f"unknown space {text!r}"
        if suggestions:
            shown = [names[s] for s in suggestions]
            message += "; did you mean " + (
                shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]
            ) + "?"
        super().__init__(message)


# The records are NamedTuples: immutable as frozen dataclasses are, and made several times faster
# when the module loads, which every command that opens a game pays.
class Box(NamedTuple):
    id: str
    name: str
    side: str
    ref: int | None = None


class SupplyGroup(NamedTuple):
    """Supply sources and who may trace to them (14.2); a unit may use every group admitting it."""

    id: str
    rule: str
    spaces: tuple[int, ...]
    factions: frozenset[str]
    nations: frozenset[str]
    excluded: frozenset[str]
    sea: bool

    def admits(self, faction: str, nation: str) -> bool:
        if nation in self.excluded:
            return False
        return faction in self.factions or nation in self.nations


@dataclass(frozen=True, eq=False, repr=False)
class PogMap:
    """The map compiled into arrays indexed by space number (see the module docstring)."""

    variants: frozenset[str]
    ids: tuple[str, ...]
    index: Mapping[str, int]
    names: tuple[str, ...]
    refs: tuple[int | None, ...]
    map: tuple[str, ...]
    nation: tuple[str, ...]
    control: tuple[str, ...]
    terrain: tuple[str, ...]
    source: tuple[bool, ...]
    vp: tuple[int, ...]
    fort: tuple[int, ...]
    port: tuple[str | None, ...]
    capital: tuple[bool, ...]
    offmap: tuple[bool, ...]  # off-map boxes at the map's edge (14.1.2 note)
    neighbours: tuple[tuple[int, ...], ...]
    connections: tuple[tuple[int, int], ...]
    limits: Mapping[frozenset[int] | tuple[int, int], tuple[str, ...]]
    boxes: Mapping[str, Box]
    supply: tuple[SupplyGroup, ...]
    aliases: Mapping[str, str]

    def __len__(self) -> int:
        return len(self.ids)

    @cached_property
    def _lookup(self) -> Mapping[str, str]:
        """Each form a player may type (id, name or alias, slugged) and the id it names. Built on the
        first look-up: drawing the map never needs it."""
        lookup: dict[str, str] = {}
        named = [*zip(self.ids, self.names, strict=True), *((b, box.name) for b, box in self.boxes.items())]
        for key, name in named:
            for form in (key, slug(name)):
                lookup.setdefault(form, key)
                lookup.setdefault(form.replace("_", ""), key)
        for alias, target in self.aliases.items():
            lookup.setdefault(slug(alias), target)
            lookup.setdefault(slug(alias).replace("_", ""), target)
        return MappingProxyType(lookup)

    def __repr__(self) -> str:
        variants = ", ".join(sorted(self.variants)) or "none"
        return f"<PogMap {len(self.ids)} spaces, {len(self.connections)} connections, variants: {variants}>"

    def allowed(self, a: int, b: int) -> tuple[str, ...] | None:
        """Tokens that may use the connection from a to b; None when it is not limited."""
        both = self.limits.get(frozenset((a, b)))
        one_way = self.limits.get((a, b))
        if both is None and one_way is None and (b, a) not in self.limits:
            return None
        return (both or ()) + (one_way or ())

    def name_of(self, key: str) -> str:
        """Display name of a space or box id."""
        if key in self.index:
            return self.names[self.index[key]]
        return self.boxes[key].name

    def find(self, text: str) -> str:
        """The id of the space or box `text` names (id, name or alias; case, accents and
        punctuation ignored). Raises UnknownSpace, suggesting the closest names."""
        key = slug(text)
        found = self._lookup.get(key) or self._lookup.get(key.replace("_", ""))
        if found:
            return found
        import difflib

        close = difflib.get_close_matches(key, list(self._lookup), n=8, cutoff=0.6)
        suggestions: list[str] = []
        for candidate in close:
            target = self._lookup[candidate]
            if target not in suggestions:
                suggestions.append(target)
        names = {s: self.name_of(s) for s in suggestions}
        raise UnknownSpace(text, tuple(suggestions[:3]), names)


class Unit(NamedTuple):
    id: str
    name: str
    faction: str
    nation: str
    type: str
    cf: int
    lf: int
    mf: int
    rcf: int
    rlf: int
    rmf: int
    replaceable: bool = True
    near_east: bool = False
    rp: str | None = None
    card_nation: str | None = None  # base 9.5.4.1.1, where it is not `nation`
    variant: str | None = None
    rule: str | None = None


class Placement(NamedTuple):
    unit: str
    space: str
    reduced: bool = False
    nation: str | None = None


class Trench(NamedTuple):
    space: str
    level: int
    faction: str
    nation: str | None = None


class FreeEntry(NamedTuple):
    """Corps the side bringing a neutral nation in places itself, one in each of as many of the
    nation's spaces, none of them one of `not_in` (the set-up chart's "any other" spaces)."""

    nation: str
    units: tuple[str, ...]
    not_in: tuple[str, ...]
    rule: str


class Setup(NamedTuple):
    """The 1914 set-up: units and trenches at the start, and those placed on a neutral's entry."""

    neutral_nations: tuple[str, ...]
    units: tuple[Placement, ...]
    trenches: tuple[Trench, ...]
    on_entry: tuple[Placement, ...]
    on_entry_trenches: tuple[Trench, ...]
    on_entry_free: tuple[FreeEntry, ...] = ()


def _read(name: str) -> dict:
    return datafile.load(__package__, name)


@cache
def variant_names() -> tuple[str, ...]:
    """The map variants map.toml defines, in file order."""
    return tuple(_read("map.toml").get("variants", {}))


def _variants(variants) -> frozenset[str]:
    """The variant set as a frozenset (a plain string is one name), checked against map.toml.
    Called on every look-up of the map (PogState.map), so the check stays a set difference."""
    variants = frozenset((variants,) if isinstance(variants, str) else variants)
    unknown = sorted(variants.difference(variant_names()))
    if unknown:
        raise ValueError(f"unknown variant(s) {', '.join(unknown)}; known: {', '.join(variant_names())}")
    return variants


def _joins(link: list[str], ends: list[str]) -> bool:
    """Does the connection `link` join the two spaces `ends`, either way round?"""
    return link[:2] == ends[:2] or link[1::-1] == ends[:2]


def load_map(variants: frozenset[str] = NO_VARIANTS) -> PogMap:
    """The map with the named variants applied (their additions and removals, in file order)."""
    return _load_map(_variants(variants))


def space_facts(variants: frozenset[str] = NO_VARIANTS) -> Mapping[str, Mapping[str, Any]]:
    """Each space's fields as map.toml gives them, with the variants' spaces added: all a start
    position needs, without building the map's graph (which `status` never looks at)."""
    return _space_facts(_variants(variants))


@cache
def _space_facts(variants: frozenset[str]) -> Mapping[str, Mapping[str, Any]]:
    data = _read("map.toml")
    spaces: dict[str, dict] = dict(data["spaces"])
    for name, variant in data.get("variants", {}).items():
        if name not in variants:
            continue
        for key, space in variant.get("spaces", {}).items():
            if key in spaces:
                raise ValueError(f"variant {name}: space {key} already exists")
            spaces[key] = space
    return MappingProxyType(spaces)


@cache
def _load_map(variants: frozenset[str]) -> PogMap:
    data = _read("map.toml")
    spaces = _space_facts(variants)
    links: list[list[str]] = [list(link) for link in data["connections"]]
    for name, variant in data.get("variants", {}).items():
        if name not in variants:
            continue
        for item in variant.get("remove", []):
            kept = [link for link in links if not _joins(link, item["link"])]
            if len(kept) == len(links):
                raise ValueError(f"variant {name}: no connection {'-'.join(item['link'][:2])} to remove")
            links = kept
        links.extend(list(item["link"]) for item in variant.get("add", []))

    ids = tuple(spaces)
    index = {key: i for i, key in enumerate(ids)}

    adjacent: list[set[int]] = [set() for _ in ids]
    connections: dict[frozenset[int], tuple[int, int]] = {}
    limits: dict[frozenset[int] | tuple[int, int], tuple[str, ...]] = {}
    for link in links:
        try:
            a, b = index[link[0]], index[link[1]]
        except KeyError as exc:
            raise ValueError(f"connection {link}: unknown space {exc.args[0]}") from None
        if a == b:
            raise ValueError(f"connection {link} joins a space to itself")
        adjacent[a].add(b)
        adjacent[b].add(a)
        pair = frozenset((a, b))
        connections.setdefault(pair, (a, b))
        if len(link) == 2:  # most connections are open to all
            continue
        tokens = tuple(link[2:])
        if "oneway" in tokens:
            limits[(a, b)] = limits.get((a, b), ()) + tuple(t for t in tokens if t != "oneway")
        else:
            limits[pair] = limits.get(pair, ()) + tokens

    boxes = {key: Box(key, box["name"], box["side"], box.get("ref")) for key, box in data["boxes"].items()}
    supply = tuple(
        SupplyGroup(
            id=key,
            rule=group["rule"],
            spaces=tuple(index[s] for s in group["spaces"]),
            factions=frozenset(group.get("factions", ())),
            nations=frozenset(group.get("nations", ())),
            excluded=frozenset(group.get("except", ())),
            sea=group["sea"],
        )
        for key, group in data.get("supply", {}).items()
    )
    aliases = {alias: target for alias, target in data.get("aliases", {}).items()
               if target in index or target in boxes}

    return PogMap(
        variants=variants,
        ids=ids,
        index=MappingProxyType(index),
        names=_required(spaces, "name"),
        refs=_optional(spaces, "ref", None),
        map=_required(spaces, "map"),
        nation=_required(spaces, "nation"),
        control=_required(spaces, "control"),
        terrain=_required(spaces, "terrain"),
        source=_optional(spaces, "source", False),
        vp=_optional(spaces, "vp", 0),
        fort=_optional(spaces, "fort", 0),
        port=_optional(spaces, "port", None),
        capital=_optional(spaces, "capital", False),
        offmap=_optional(spaces, "offmap", False),
        neighbours=tuple(tuple(sorted(n)) for n in adjacent),
        connections=tuple(connections.values()),
        limits=MappingProxyType(limits),
        boxes=MappingProxyType(boxes),
        supply=supply,
        aliases=MappingProxyType(aliases),
    )


def _required(spaces: Mapping[str, Mapping[str, Any]], key: str) -> tuple[Any, ...]:
    """One field of every space, in space order; map.toml gives it for each space."""
    missing = [space for space, fields in spaces.items() if key not in fields]
    if missing:
        raise ValueError(f"space {missing[0]}: no {key}")
    return tuple(fields[key] for fields in spaces.values())


def _optional(spaces: Mapping[str, Mapping[str, Any]], key: str, default: Any) -> tuple[Any, ...]:
    """One field of every space, in space order; map.toml leaves it out where it is `default`."""
    return tuple(fields.get(key, default) for fields in spaces.values())


def find_space(text: str, variants: frozenset[str] = NO_VARIANTS) -> str:
    """The id of the space or box `text` names; see PogMap.find."""
    return load_map(variants).find(text)


def _unit(key: str, raw: dict) -> Unit:
    return Unit(id=key, **raw)


def load_units(variants: frozenset[str] = NO_VARIANTS) -> Mapping[str, Unit]:
    """Every unit by id, in file order; units of the named variants follow the base ones."""
    return _load_units(_variants(variants))


@cache
def _load_units(variants: frozenset[str]) -> Mapping[str, Unit]:
    data = _read("units.toml")
    units = {key: _unit(key, raw) for key, raw in data["units"].items()}
    for key, raw in data.get("variant_units", {}).items():
        if raw["variant"] in variants:
            if key in units:
                raise ValueError(f"variant unit {key} already exists")
            units[key] = _unit(key, raw)
    return MappingProxyType(units)


def load_setup(variants: frozenset[str] = NO_VARIANTS) -> Setup:
    """The 1914 set-up, with the named variants' set-up changes applied."""
    return _load_setup(_variants(variants))


@cache
def _load_setup(variants: frozenset[str]) -> Setup:
    data = _read("setup_1914.toml")
    sections = {
        name: [Placement(**raw) for raw in data.get(name, [])] for name in ("units", "on_entry")
    }
    for name, variant in data.get("variants", {}).items():
        if name not in variants:
            continue
        for move in variant.get("move", []):
            for placements in sections.values():
                for i, placed in enumerate(placements):
                    if placed.unit == move["unit"]:
                        placements[i] = Placement(placed.unit, move["space"], placed.reduced, placed.nation)
                        break
                else:
                    continue
                break
            else:
                raise ValueError(f"variant {name}: unit {move['unit']} is not in the set-up")
    return Setup(
        neutral_nations=tuple(data.get("neutral_nations", ())),
        units=tuple(sections["units"]),
        trenches=tuple(Trench(**raw) for raw in data.get("trenches", [])),
        on_entry=tuple(sections["on_entry"]),
        on_entry_trenches=tuple(Trench(**raw) for raw in data.get("on_entry_trenches", [])),
        on_entry_free=tuple(FreeEntry(raw["nation"], tuple(raw["units"]), tuple(raw["not_in"]), raw["rule"])
                            for raw in data.get("on_entry_free", [])),
    )
