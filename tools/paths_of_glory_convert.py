"""Regenerate the Paths of Glory data files from the reference CSVs.

    python tools/paths_of_glory_convert.py REFERENCE_DIR [--out DIR] [--check]

Run it from a checkout where pbem is installed (`pip install -e .`); it is a script of the source
tree, not part of the installed package. REFERENCE_DIR holds spaces.csv, edges.csv, pieces.csv,
setup-1914.csv and cards.csv. The output (by default rules/paths_of_glory/data/ in this checkout)
is map.toml, units.toml, setup_1914.toml and cards.toml, written deterministically: the same CSVs
always give the same bytes. --check writes nothing and exits 1 when a file differs.

Facts the CSVs do not hold (the Suicide of Europe variants, the supply source groups of 14.2, the
neutral nations, the card facts fixed by rulings) are constants below, each citing its rule or
ruling. Only names and numbers are carried over; no rule or card text.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import NotRequired, TypedDict

from pbem.rules.paths_of_glory.data import slug


class SpaceFields(TypedDict):
    """A [spaces.<id>] table of map.toml (see MAP_HEADER); a variant's space has `rule`, not `ref`."""

    name: str
    map: str
    nation: str
    control: str
    terrain: str
    ref: NotRequired[int]
    rule: NotRequired[str]
    source: NotRequired[bool]
    vp: NotRequired[int]
    fort: NotRequired[int]
    port: NotRequired[str]
    capital: NotRequired[bool]
    offmap: NotRequired[bool]
    x: NotRequired[int]
    y: NotRequired[int]
    w: NotRequired[int]
    h: NotRequired[int]


class BoxFields(TypedDict):
    name: str
    side: str
    ref: int
    x: int
    y: int
    w: int
    h: int


# A [supply.<id>] table of map.toml; `except` is a keyword, hence the functional form.
SupplyFields = TypedDict("SupplyFields", {
    "rule": str, "spaces": list[str], "sea": bool,
    "factions": NotRequired[list[str]], "nations": NotRequired[list[str]], "except": NotRequired[list[str]],
})

Links = list[tuple[list[str], str]]  # connections as ([a, b, token...], rule)


class MapVariant(TypedDict):
    """A [variants.<id>] table of map.toml, with the comments written beside it."""

    name: str
    rule: str
    comment: str
    remove: NotRequired[Links]
    add: NotRequired[Links]
    add_comment: NotRequired[str]
    spaces: NotRequired[list[tuple[str, SpaceFields, str]]]


class MapFacts(TypedDict):
    """What the set-up needs from the map: spaces and boxes by id, ids by printed name."""

    spaces: dict[str, SpaceFields]
    boxes: dict[str, BoxFields]
    by_name: dict[str, str]


DATA_DIR = Path(__file__).resolve().parents[1] / "rules" / "paths_of_glory" / "data"

BOX_IDS = {
    "AP Reserve Box": "ap_reserve",
    "CP Reserve Box": "cp_reserve",
    "AP Eliminated Box": "ap_eliminated",
    "CP Eliminated Box": "cp_eliminated",
}

# The off-map boxes printed at the Russian edge of the map, which only Russian units may enter; the
# 14.1.2 note lets RO and SB units trace supply into them (R15). The reference marks them only by
# their drawn size, so they are named here.
OFFMAP_BOXES = ("reval", "petrograd", "moscow", "kharkov", "caucasus")

# Names found in other editions, histories and languages, each mapped to a space id. Accents, case
# and punctuation are ignored anyway (so "Königsberg" needs no entry); these are other spellings.
ALIASES = {
    "koenigsberg": "konigsberg",
    "kaliningrad": "konigsberg",
    "bagdhad": "baghdad",
    "brunn": "brun",
    "bruenn": "brun",
    "brno": "brun",
    "olmuetz": "olmutz",
    "olomouc": "olmutz",
    "krakow": "cracow",
    "st_petersburg": "petrograd",
    "istanbul": "constantinople",
    "smyrna": "izmir",
    "canakkale": "cana_kale",
    "chanak": "cana_kale",
    "erzurum": "erzerum",
    "trabzon": "trebizond",
    "lwow": "lemberg",
    "lviv": "lemberg",
    "ap_reserve_box": "ap_reserve",
    "cp_reserve_box": "cp_reserve",
}

# 14.2: supply source groups. A unit may trace to the spaces of every group admitting it (by its
# faction or nation, unless its nation is excepted); `sea` says whether the path may use ports.
SUPPLY: list[tuple[str, SupplyFields, str]] = [
    ("central_powers", {"rule": "14.2.1", "factions": ["cp"],
                        "spaces": ["essen", "breslau", "sofia", "constantinople"], "sea": True},
     "14.2.1; sea supply only through CP ports in Germany and Russia (14.1.4.1)"),
    ("east", {"rule": "14.2.2", "nations": ["ru", "sb", "ro"],
              "spaces": ["petrograd", "moscow", "kharkov", "caucasus", "belgrade"], "sea": False},
     "14.2.2: the Russian edge sources and Belgrade; no sea supply for these nations"),
    ("salonika", {"rule": "14.2.3", "nations": ["sb"], "spaces": ["salonika"], "sea": False},
     "14.2.3: Serbs also, while Salonika is Allied controlled"),
    ("london", {"rule": "14.2.4", "factions": ["ap"], "except": ["ru", "sb", "ro"],
                "spaces": ["london"], "sea": True},
     "14.2.4: every other Allied unit, even while Britain is neutral (18.2: Dutch units too);"
     " Allied sea supply only through ports outside Germany and Russia (14.1.4.2)"),
    ("paris", {"rule": "14.2.4", "nations": ["fr"], "spaces": ["paris"], "sea": True},
     "14.2.4: French units only"),
]

# Map variants: spaces added, connections added and removed, each citing its rule.
VARIANTS: list[tuple[str, MapVariant]] = [
    ("vesting_holland", {
        "name": "Vesting Holland",
        "rule": "18",
        "comment": "18.1: Holland's two spaces and their connections",
        "add": [
            (["amsterdam", "nijmegen"], "18.1.1"),
            (["amsterdam", "antwerp"], "18.1.1"),
            (["nijmegen", "essen"], "18.1.1"),
            (["nijmegen", "aachen"], "18.1.1"),
            (["nijmegen", "antwerp"], "18.1.1"),
            (["london", "amsterdam", "br_corps"], "18.1.2"),
            (["london", "amsterdam", "ho_corps", "oneway"], "18.1.2"),
        ],
        "add_comment": "18.1.1: Holland's connections; 18.1.2: London-Amsterdam, by BR corps either way"
                       " and by the HO corps only from London",
        # The reference has no position for these two: RULINGS R45 places them north of Antwerp
        # and west of Essen, clear of every drawn space.
        "spaces": [
            ("amsterdam", {"rule": "18.1.1", "name": "Amsterdam", "map": "europe", "nation": "ho",
                           "control": "ap", "terrain": "clear", "fort": 1, "port": "ap",
                           "x": 471, "y": 437, "w": 44, "h": 44},
             "18.1.1: fort CF 1, port, no VP; 18.1.2: an Allied port; R45: where the picture draws it"),
            ("nijmegen", {"rule": "18.1.1", "name": "Nijmegen", "map": "europe", "nation": "ho",
                          "control": "ap", "terrain": "clear", "x": 541, "y": 459, "w": 44, "h": 44},
             "18.1.1: clear, no VP; R45: where the picture draws it"),
        ],
    }),
    ("italy_19_1", {
        "name": "Italy: no Trent-Verona connection",
        "rule": "19.1",
        "comment": "19.1: Trent and Verona are no longer connected (19.1.1 optionally keeps the"
                   " connection but bars combat across it; that is a rule, not map data)",
        "remove": [(["trent", "verona"], "19.1")],
    }),
    ("italy_19_1_2", {
        "name": "Italy: Taranto-Valona for Italian corps only",
        "rule": "19.1.2",
        "comment": "19.1.2 (optional): only Italian corps use Taranto-Valona",
        "remove": [(["taranto", "valona"], "19.1.2")],
        "add": [(["taranto", "valona", "it_corps"], "19.1.2")],
    }),
    ("italy_19_1_3", {
        "name": "Italy: Maggiore-Venice connection",
        "rule": "19.1.3",
        "comment": "19.1.3 (optional): an ordinary Maggiore-Venice connection",
        "add": [(["maggiore", "venice"], "19.1.3")],
    }),
]

# 18.2: the Dutch units, with the factors the rule suggests (full / reduced CF-LF-MF). The rule
# names no replacement point type, so none is given.
VARIANT_UNITS = [
    ("ho_vl_army", {"variant": "vesting_holland", "rule": "18.2", "name": "VL Army",
                    "faction": "ap", "nation": "ho", "type": "army",
                    "cf": 2, "lf": 3, "mf": 3, "rcf": 1, "rlf": 3, "rmf": 3}),
    ("ho_corps", {"variant": "vesting_holland", "rule": "18.2", "name": "HO Corps",
                  "faction": "ap", "nation": "ho", "type": "corps",
                  "cf": 1, "lf": 1, "mf": 3, "rcf": 0, "rlf": 1, "rmf": 3}),
]

# Nations neutral at the start of the 1914 game: their units and trenches are placed when they
# enter the war (Deluxe 4.2.2; Turkey on CP Limited War, 16.1.3.1).
NEUTRAL_1914 = ["bu", "gr", "it", "ro", "tu", "us"]

# Set-up changes of the variants (setup_1914.toml).
SETUP_VARIANTS = [
    ("italy_19_1", "19.1: the Italian 1st Army sets up in Venice", [("it_1_army", "venice", "19.1")]),
]

NATION_LABELS = {"ah": "A-H"}


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return [{k: (v or "").strip() for k, v in row.items()} for row in csv.DictReader(handle)]


def toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(value)


def comment_lines(text: str | None) -> list[str]:
    return textwrap.wrap(text, 98, initial_indent="# ", subsequent_indent="#   ") if text else []


def table(header: str, fields: Mapping[str, object], comment: str | None = None) -> list[str]:
    lines = [*comment_lines(comment), f"[{header}]"]
    lines += [f"{key} = {toml_value(value)}" for key, value in fields.items()]
    return [*lines, ""]


def truthy(text: str) -> bool:
    return text.upper() in ("TRUE", "YES", "1")


# --- map -------------------------------------------------------------------------------------

MAP_HEADER = """\
# Paths of Glory map (Deluxe map, Suicide of Europe variant). Generated by tools/paths_of_glory_convert.py from
# the reference CSVs; regenerate rather than edit by hand.
#
# format_version: layout of this file.
#
# connections: one entry per connection, [a, b, token...]; a and b are space ids. With no tokens
#   anyone may use it. Tokens limit who may: a nation id (`ru`, `br`, `it`, `tu`) admits only that
#   nation's units; `ana` admits only the British ANA corps; `mef` marks the MEF beach head
#   connections, usable only as the MEF rules allow; `<nation>_corps` admits only that nation's
#   corps; `oneway` makes the entry's tokens valid only from a to b. Several tokens admit anyone
#   matching one. A connection with any limit is closed to units matching no token valid in the
#   direction they go.
#
# [spaces.<id>]: one table per map space; the id is the name in snake_case. Space numbers
#   (index into the loader's arrays) follow the order of this file.
#   name     display name
#   ref      the space's id in the reference spaces.csv
#   map      "europe" or "neareast" (the Near East map)
#   nation   owning nation (br fr be ge ah it ru sb mn al gr bu ro tu pe ar eg); "none" for the
#            MEF beach heads
#   control  faction controlling it at the start, "ap" or "cp"; a neutral nation's spaces carry
#            the faction it would join
#   terrain  "clear", "mountain", "forest", "desert" or "swamp"
#   source   true for a supply source space (see [supply] for who may use it); absent otherwise
#   vp       victory points, when any
#   fort     fort strength (its combat and loss factor), when a fort
#   port     "ap" or "cp" for a port of that faction; absent otherwise
#   capital  true for a capital; absent otherwise
#   offmap   true for an off-map box drawn at the map's edge (Reval and the Russian edge
#            sources; 14.1.2 note); absent otherwise
#   x, y, w, h  where the map picture draws it: left, top, width and height in pixels, both maps
#            in one frame (the reference's screen rectangle; for the Dutch spaces, RULINGS R45)
#
# [boxes.<id>]: off-map boxes: name, side ("ap" or "cp"), ref (id in spaces.csv), and x, y, w, h
#   as for spaces.
#
# [supply.<id>]: groups of supply sources (14.2). A unit may trace to the spaces of every group
#   admitting it: by `factions` or `nations`, unless its nation is in `except`. `sea` says whether
#   the trace may use sea supply (14.1.4). `rule` cites the rule.
#
# [aliases]: other spellings of space and box names, alias = id (case, accents and punctuation
#   are ignored when names are looked up, so they need no alias).
#
# [variants.<id>]: map changes a charter may switch on: name, rule; `add` and `remove` are
#   connections as { link = [a, b, token...], rule }, removals applied before additions;
#   [variants.<id>.spaces.<id>] adds spaces with the fields above and a `rule` instead of `ref`.
#   Added spaces are numbered after the base map's, in the order given. A pair may have two
#   entries, one of them `oneway` (tokens valid either way, plus tokens valid one way only).
"""


def space_fields(key: str, row: dict[str, str]) -> SpaceFields:
    """One map space of spaces.csv, as map.toml writes it."""
    fields: SpaceFields = {
        "name": row["name"],
        "ref": int(row["id"]),
        "map": row["map"],
        "nation": row["nation"],
        "control": row["faction"],
        "terrain": row["terrain"] or "clear",
    }
    if truthy(row["supply"]):
        fields["source"] = True
    if row["vp"] and int(row["vp"]) > 0:
        fields["vp"] = int(row["vp"])
    if row["fort"] and int(row["fort"]) > 0:
        fields["fort"] = int(row["fort"])
    if truthy(row["apport"]) and truthy(row["cpport"]):
        raise SystemExit(f"{row['name']}: both an Allied and a CP port")
    if truthy(row["apport"]):
        fields["port"] = "ap"
    if truthy(row["cpport"]):
        fields["port"] = "cp"
    if truthy(row["capital"]):
        fields["capital"] = True
    if key in OFFMAP_BOXES:
        fields["offmap"] = True
    fields["x"], fields["y"], fields["w"], fields["h"] = place(row)
    return fields


def place(row: dict[str, str]) -> tuple[int, int, int, int]:
    """Where the picture draws a space or box: the reference's screen rectangle (left, top, width,
    height) in pixels, one frame for both maps."""
    return int(row["x"]), int(row["y"]), int(row["w"]), int(row["h"])


def variant_lines(key: str, variant: MapVariant) -> list[str]:
    """One map variant's [variants.<id>] table, then the tables of the spaces it adds."""
    out = [*comment_lines(variant["comment"]), f"[variants.{key}]",
           f"name = {toml_value(variant['name'])}", f"rule = {toml_value(variant['rule'])}"]
    for op, links in (("remove", variant.get("remove")), ("add", variant.get("add"))):
        if links is None:
            continue
        if op == "add" and "add_comment" in variant:
            out += comment_lines(variant["add_comment"])
        out.append(f"{op} = [")
        out += [f"  {{ link = {toml_value(link)}, rule = {toml_value(rule)} }}," for link, rule in links]
        out.append("]")
    out.append("")
    for space, fields, comment in variant.get("spaces", []):
        out += table(f"variants.{key}.spaces.{space}", fields, comment)
    return out


def build_map(ref: Path) -> tuple[str, MapFacts]:
    rows = read_csv(ref / "spaces.csv")
    edges = read_csv(ref / "edges.csv")
    by_ref: dict[str, str] = {}
    spaces: list[tuple[str, SpaceFields]] = []
    boxes: list[tuple[str, BoxFields]] = []
    for row in rows:
        if not row["map"]:
            key = BOX_IDS[row["name"]]
            x, y, w, h = place(row)
            boxes.append((key, {"name": row["name"], "side": row["faction"], "ref": int(row["id"]),
                                "x": x, "y": y, "w": w, "h": h}))
            by_ref[row["id"]] = key
            continue
        key = slug(row["name"])
        if key in by_ref.values():
            raise SystemExit(f"duplicate space id {key}")
        by_ref[row["id"]] = key
        spaces.append((key, space_fields(key, row)))

    space_ids = {key for key, _ in spaces}
    if not set(OFFMAP_BOXES) <= space_ids:
        raise SystemExit(f"off-map boxes not on the map: {sorted(set(OFFMAP_BOXES) - space_ids)}")
    links = []
    for edge in edges:
        a, b = by_ref[edge["a"]], by_ref[edge["b"]]
        if a not in space_ids or b not in space_ids:
            raise SystemExit(f"edge {edge} leaves the map")
        tokens = [t for t in edge["nations"].split("|") if t]
        links.append([a, b, *tokens])

    sources = {key for key, fields in spaces if fields.get("source")}
    grouped = {space for _, group, _ in SUPPLY for space in group["spaces"]}
    if not sources <= grouped:
        raise SystemExit(f"supply sources outside the 14.2 groups: {sorted(sources - grouped)}")

    out = [MAP_HEADER, "format_version = 1", "", "connections = ["]
    out += [f"  {toml_value(link)}," for link in links]
    out += ["]", ""]
    for key, space in spaces:
        out += table(f"spaces.{key}", space)
    for key, box in boxes:
        out += table(f"boxes.{key}", box)
    for key, group, comment in SUPPLY:
        out += table(f"supply.{key}", group, comment)
    out += ["[aliases]"] + [f"{a} = {toml_value(t)}" for a, t in ALIASES.items()] + [""]
    for key, variant in VARIANTS:
        out += variant_lines(key, variant)
    by_name = {fields["name"]: key for key, fields in spaces}
    by_name.update((fields["name"], key) for key, fields in boxes)
    facts: MapFacts = {"spaces": dict(spaces), "boxes": dict(boxes), "by_name": by_name}
    return "\n".join(out).rstrip() + "\n", facts


# --- units -----------------------------------------------------------------------------------

UNITS_HEADER = """\
# Paths of Glory units (Deluxe counter mix). Generated by tools/paths_of_glory_convert.py from the reference
# pieces.csv; regenerate rather than edit by hand.
#
# format_version: layout of this file.
#
# [units.<id>]: one table per piece, in the reference order. Ids are nation + name in snake_case
#   (`ge_1_army`, `br_bef_corps`, `ge_pol_corps`); where several identical pieces share a name
#   they are numbered in order (`ge_corps_1`, `ge_corps_2`, ...).
#   name         the piece's name as printed (its nation is apart)
#   faction      "ap" (Allied Powers) or "cp" (Central Powers)
#   nation       nation id, as in map.toml
#   type         "army" or "corps"
#   cf, lf, mf   combat, loss and movement factors at full strength
#   rcf, rlf, rmf  the same at reduced strength
#   replaceable  false for a piece that may never take replacements; absent (true) otherwise
#   near_east    true for a piece limited to the Near East; absent otherwise
#   rp           the replacement points that rebuild it: a nation id or "allied" (the minor
#                Allies' pool); absent for pieces that take none
#   card_nation  the nation it counts as for combat cards where that is not `nation` (base
#                9.5.4.1.1: the ANA, AUS, CND and PT corps are not British there)
#
# [variant_units.<id>]: pieces a variant adds: the fields above, plus `variant` (its id in
#   map.toml) and `rule`.
"""


# base 9.5.4.1.1: these British pieces are not British for combat cards (12.1.11.2 still groups them).
DOMINION_CORPS = {"ANA Corps": "ana", "AUS Corps": "aus", "CND Corps": "cnd", "PT Corps": "pt"}


def unit_base(nation: str, name: str) -> str:
    words = name.split()
    label = NATION_LABELS.get(nation, nation.upper())
    if len(words) > 1 and words[0] == label:
        words = words[1:]
    return f"{nation}_{slug(' '.join(words))}"


def build_units(ref: Path) -> tuple[str, list[tuple[str, dict]]]:
    rows = read_csv(ref / "pieces.csv")
    bases = [unit_base(r["nation"], r["name"]) for r in rows]
    counts: dict[str, int] = {}
    for base in bases:
        counts[base] = counts.get(base, 0) + 1
    seen: dict[str, int] = {}
    first: dict[str, dict] = {}
    units: list[tuple[str, dict]] = []
    for row, base in zip(rows, bases, strict=True):
        fields: dict = {
            "name": row["name"],
            "faction": row["faction"],
            "nation": row["nation"],
            "type": row["type"],
        }
        for key in ("cf", "lf", "mf", "rcf", "rlf", "rmf"):
            fields[key] = int(row[key])
        if truthy(row["notreplaceable"]):
            fields["replaceable"] = False
        if truthy(row["neareast"]):
            fields["near_east"] = True
        if row["rptype"]:
            fields["rp"] = row["rptype"]
        if row["nation"] == "br" and row["name"] in DOMINION_CORPS:
            fields["card_nation"] = DOMINION_CORPS[row["name"]]
        if counts[base] > 1:
            if first.setdefault(base, fields) != fields:
                raise SystemExit(f"pieces sharing the id {base} differ")
            seen[base] = seen.get(base, 0) + 1
            key = f"{base}_{seen[base]}"
        else:
            key = base
        units.append((key, fields))
    keys = [key for key, _ in units]
    if len(set(keys)) != len(keys):
        raise SystemExit("duplicate unit ids")

    out = [UNITS_HEADER, "format_version = 1", ""]
    for key, fields in units:
        out += table(f"units.{key}", fields)
    out.append("# 18.2: the Dutch army (VL) and corps, with the suggested factors")
    for key, fields in VARIANT_UNITS:
        out += table(f"variant_units.{key}", fields)
    return "\n".join(out).rstrip() + "\n", units


# --- set-up ----------------------------------------------------------------------------------

SETUP_HEADER = """\
# Paths of Glory 1914 set-up. Generated by tools/paths_of_glory_convert.py from the reference setup-1914.csv;
# regenerate rather than edit by hand.
#
# format_version: layout of this file.
# neutral_nations: nations not at war at the start; what they place is listed under on_entry.
#
# [[units]]: a unit placed at the start: unit (an id in units.toml, each used once), space (a
#   space or box id in map.toml), reduced (true when it starts reduced; absent otherwise).
# [[trenches]]: a trench at the start: space, level, faction ("ap" or "cp").
# [[on_entry]]: a neutral nation's unit and where it sets up when that nation enters the war:
#   nation, unit, space, reduced. The Greek corps come from the rulebook's set-up chart, which the
#   reference's set-up list leaves out.
# [[on_entry_free]]: corps the entering side places itself (the set-up chart's "any other 4
#   spaces ... 1 Corps each space"): nation, units (the corps), not_in (the spaces the chart
#   names for the nation's other corps), rule.
# [[on_entry_trenches]]: a trench placed when the nation owning its space enters the war:
#   nation, space, level, faction.
#
# [variants.<id>]: set-up changes of a map variant (map.toml): `move` entries
#   { unit, space, rule } put a unit elsewhere, keeping its other fields.
"""


# The set-up chart (rulebook, end of the set-up section) for what the reference's set-up list lacks:
# the Greek corps, and the corps of Bulgaria and Romania each placed "in any other" space of the
# nation, one a space.
GREEK_ENTRY = (("gr_corps_1", "Florina"), ("gr_corps_2", "Larisa"), ("gr_corps_3", "Athens"))
FREE_ENTRY = (("bu", "set-up chart: any other 4 spaces in Bulgaria, 1 corps each"),
              ("ro", "set-up chart: any other 4 spaces in Romania, 1 corps each"))
FREE_ENTRY_CORPS = 4


def free_entry(nation: str, rule: str, on_entry: list[dict], unit_keys: list[str]) -> dict:
    """The nation's next four corps, placed by the entering side away from its listed spaces."""
    listed = [p["unit"] for p in on_entry if p["nation"] == nation]
    corps = [k for k in unit_keys if k.startswith(f"{nation}_corps_") and k not in listed][:FREE_ENTRY_CORPS]
    if len(corps) != FREE_ENTRY_CORPS:
        raise SystemExit(f"{nation}: too few corps pieces for the set-up chart's free placements")
    spaces = sorted({p["space"] for p in on_entry if p["nation"] == nation})
    return {"nation": nation, "units": corps, "not_in": spaces, "rule": rule}


def build_setup(ref: Path, facts: MapFacts, units: list[tuple[str, dict]]) -> str:
    rows = read_csv(ref / "setup-1914.csv")
    unit_nation = {key: fields["nation"] for key, fields in units}
    unit_keys = [key for key, _ in units]
    used: set[str] = set()

    def piece(label: str) -> str:
        match = re.fullmatch(r"([A-Z]{2})(?: ([A-Za-z0-9]+?))?(c?)", label)
        if not match:
            raise SystemExit(f"set-up unit {label!r} not understood")
        nation, name, corps = match.group(1).lower(), match.group(2), match.group(3)
        if corps:
            base = f"{nation}_{slug(name)}_corps" if name else f"{nation}_corps"
        else:
            base = f"{nation}_{slug(name)}_army"
        pattern = re.compile(re.escape(base) + r"(_\d+)?")
        for key in unit_keys:
            if pattern.fullmatch(key) and key not in used:
                used.add(key)
                return key
        raise SystemExit(f"set-up unit {label!r}: no unused piece {base}")

    def space(name: str) -> str:
        if name not in facts["by_name"]:
            raise SystemExit(f"set-up space {name!r} not on the map")
        return facts["by_name"][name]

    def nation_of(key: str) -> str | None:
        return facts["spaces"][key]["nation"] if key in facts["spaces"] else None

    placed, on_entry, trenches, on_entry_trenches = [], [], [], []
    for row in rows:
        if row["kind"] == "piece":
            key = piece(row["unit"])
            if unit_nation[key] != row["nation"]:
                raise SystemExit(f"set-up {row['unit']}: nation {row['nation']} but piece {key}")
            placement: dict[str, str | bool] = {"unit": key, "space": space(row["space"])}
            if truthy(row["reduced"]):
                placement["reduced"] = True
            if row["nation"] in NEUTRAL_1914:
                on_entry.append({"nation": row["nation"], **placement})
            else:
                placed.append(placement)
        elif row["kind"] == "trench":
            level = int(row["reduced"].removeprefix("level").strip())
            where = space(row["space"])
            trench: dict[str, str | int] = {"space": where, "level": level, "faction": row["faction"]}
            if nation_of(where) in NEUTRAL_1914:
                on_entry_trenches.append({"nation": nation_of(where), **trench})
            else:
                trenches.append(trench)
        else:
            raise SystemExit(f"set-up row kind {row['kind']!r} not understood")
    on_entry += [{"nation": "gr", "unit": unit, "space": space(name)} for unit, name in GREEK_ENTRY]

    def array(name: str, items: list[dict], comment: str | None = None) -> list[str]:
        lines = [f"# {comment}"] if comment else []
        for item in items:
            lines += [f"[[{name}]]"] + [f"{k} = {toml_value(v)}" for k, v in item.items()] + [""]
        return lines

    out = [SETUP_HEADER, "format_version = 1", f"neutral_nations = {toml_value(NEUTRAL_1914)}", ""]
    out += array("units", placed)
    out += array("trenches", trenches)
    out += array("on_entry", on_entry)
    out += array("on_entry_trenches", on_entry_trenches)
    out += array("on_entry_free", [free_entry(nation, rule, on_entry, unit_keys) for nation, rule in FREE_ENTRY])
    for key, comment, moves in SETUP_VARIANTS:
        out += [*comment_lines(comment), f"[variants.{key}]", "move = ["]
        out += [f"  {{ unit = {toml_value(u)}, space = {toml_value(s)}, rule = {toml_value(r)} }},"
                for u, s, r in moves]
        out += ["]", ""]
    return "\n".join(out).rstrip() + "\n"


# --- cards -----------------------------------------------------------------------------------

CARDS_HEADER = """\
# Paths of Glory strategy cards (Deluxe decks, 65 cards a side), as facts only: no card text.
# Generated by tools/paths_of_glory_convert.py from the reference cards.csv; regenerate rather than
# edit by hand. What each event does lives with the rules that use it (combat_cards.toml, ...).
#
# format_version: layout of this file.
#
# [cards.<id>]: one table per card, the Allied deck then the Central Powers deck, each by number.
#   The id is the side and the two-digit number (`ap06`, `cp56`), as players type it.
#   side            "ap" or "cp": the deck it belongs to
#   number          its number within that deck
#   name            the name as printed
#   event           the event's id (the one combat_cards.toml and the rules use); absent on the
#                   plain reinforcement cards, whose event is their `reinforcements`
#   commitment      the War Status deck it comes in with: "mobilization", "limited" or "total"
#   ops, sr         its operations and strategic redeployment points
#   rp              the replacement points it gives, by RP type, only types it gives any of: a
#                   nation id or "allied" (the minor Allies' pool), as in replacements.toml
#                   [rp_types] and units.toml `rp`
#   war_status      what playing its event adds to its side's War Status; absent when nothing
#   combat_card     true for a combat card (base 9.5.4); absent otherwise
#   ops_event       true when the event comes with operations: the card is the action round's
#                   operations card and its event acts in that round (for Kerensky Offensive,
#                   also a combat card, RULINGS R90); absent otherwise
#   removed_after_play  true for a starred card: out of the game once its event is played (a
#                   combat card: once used, base 9.5.4.2); absent otherwise
#   optional        true for cards 56-65 of each deck, the optional cards outside the basic game
#                   (base 2.3); absent otherwise
#   expires         the last turn (calendar.toml, 1 = Aug 1914) its event may be played, for a
#                   card whose play ends at a date (8.1.6.1: it may be removed when recycled);
#                   absent otherwise
#   reinforcements  for a reinforcement event, { nation, units, corps }: the nation reinforced;
#                   `units`, the named pieces it brings (ids in units.toml; absent when none);
#                   `corps`, how many of that nation's identical corps pieces it brings, the
#                   player picking which of `<nation>_corps_<n>` (absent when none). A piece of
#                   another nation may come with it (the SN corps on a Turkish card, base 9.5.3.2).
#                   The cards that place their units as they direct (base 9.5.3.2-9.5.3.5, R116)
#                   add: `where`, the spaces each of `units` may enter, a list of space ids or
#                   "near_east" (any space of `nation` on the Near East map); the card's conditions
#                   for placing them so, `at_war` (nations that must be at war), `after` (event
#                   ids that must be in effect) and `before` (event ids none of which may be);
#                   `beach_head`, true when the MEF Beach Head marker goes in the army's space
#                   (9.5.3.5); `home_entry`, for an Allied Near East army that may instead enter
#                   at home free of those conditions (9.5.3.4, R117), the record then put among
#                   the position's events
"""

COMMITMENTS = ("mobilization", "limited", "total")
CARDS_PER_SIDE = 65

# base 2.3 and the note to the card list: cards 56 to 65 of each deck are optional.
OPTIONAL_CARDS = range(56, 66)

# Reinforcements the reference leaves out: nation, entries in the reference's notation, and the
# comment citing the ruling that supplies them.
MISSING_REINFORCEMENTS = {
    ("ap", 47): ("us", ["2 Army", "US Corps"],
                 "R89: the reference lists no units; the event brings the US 2nd Army and one US corps"),
}

# base 9.5.3.2-9.5.3.5: the cards that place their units where the card says (see the header's
# `reinforcements`), with the comment citing the rulings.
PLACED_AS_DIRECTED: dict[tuple[str, int], tuple[dict[str, object], str]] = {
    ("ap", 29): ({"where": "near_east", "home_entry": "cau_reinforcement"},
                 "R116: in a supplied Russian space of the Near East map; R117: or at home"),
    ("ap", 31): ({"where": ["mef1", "mef2", "mef3", "mef4"], "at_war": ["tu"], "before": ["salonika"],
                  "beach_head": True, "home_entry": "mef_reinforcement"},
                 "R116: in a MEF space with the beach head, Turkey at war and before Salonika; R117: or at home"),
    ("ap", 41): ({"where": ["arabia"], "at_war": ["tu"]}, "R116: in Arabia, Turkey at war"),
    ("ap", 50): ({"where": ["alexandria"], "after": ["sinai_pipeline"], "home_entry": "ne_reinforcement"},
                 "R116: in Alexandria after Sinai Pipeline; R117: or at home"),
    ("ap", 53): ({"where": ["salonika"], "home_entry": "orient_reinforcement"},
                 "R116: in Salonika while Allied; R117: or at home"),
    ("cp", 24): ({"where": ["libya"]}, "R116: in Libya, free of Allied units"),
}

# Events whose card is also the action round's operations card, as each event says; the comment
# where a ruling settles it (Kerensky Offensive is marked a combat card as well).
OPS_EVENTS: dict[tuple[str, int], str | None] = {
    ("ap", 23): None,  # Cloak and Dagger
    ("ap", 35): None,  # Yanks and Tanks
    ("ap", 45): "R90: played as the round's operations card, its drm going to one Russian attack",
    ("ap", 46): None,  # Brusilov Offensive
    ("cp", 17): None,  # Mata Hari
}

# Events that may be played only until a date (8.1.6.1's "expiry date"): the last turn, by the
# turn record track (calendar.toml), and the comment naming it.
EXPIRES: dict[tuple[str, int], tuple[int, str]] = {
    ("ap", 5): (7, "Putnik: played in 1914 and 1915 only, so Fall 1915 is its last turn"),
    ("ap", 9): (2, "Moltke: played in August or September 1914 only"),
    ("cp", 1): (1, "Guns of August: played in the first action round of August 1914 only"),
}

CardField = tuple[str, object, str | None]  # field, value, and the comment written above it


def card_id(side: str, number: int) -> str:
    return f"{side}{number:02d}"


def card_rp(row: dict[str, str]) -> dict[str, int]:
    """The card's nonzero RPs by RP type; the reference's `rp_a` column is the minor Allies' pool."""
    rp = {}
    for column, text in row.items():
        if column.startswith("rp_") and text and int(text):
            kind = column.removeprefix("rp_")
            rp["allied" if kind == "a" else kind] = int(text)
    return rp


def reinforcement_piece(entry: str, nation: str, side: str, units: Mapping[str, dict]) -> str | None:
    """The unit id a reinforcement entry names, or None for one of the nation's identical corps.
    An entry naming another nation's piece ("SN Corps" on a Turkish card) is looked up by its own
    nation label."""
    for owner in (nation, entry.split()[0].lower()):
        base = unit_base(owner, entry)
        if base == f"{nation}_corps" and units.get(f"{base}_1", {}).get("faction") == side:
            return None
        if base in units and units[base]["faction"] == side:
            return base
    raise SystemExit(f"card reinforcement {entry!r} ({nation}): no {side} piece in units.toml")


def card_reinforcements(row: dict[str, str], units: Mapping[str, dict]) -> tuple[dict, str | None] | None:
    """The card's reinforcements table and its comment, or None when it brings no units."""
    side, number = row["faction"], int(row["num"])
    nation, entries = row["reinf_nation"], [e.strip() for e in row["reinf"].split("|") if e.strip()]
    comment = None
    if (side, number) in MISSING_REINFORCEMENTS:
        if nation or entries:
            raise SystemExit(f"{card_id(side, number)}: the reference now lists reinforcements; drop the ruling")
        nation, entries, comment = MISSING_REINFORCEMENTS[side, number]
    if bool(nation) != bool(entries):
        raise SystemExit(f"{card_id(side, number)}: reinforcement nation and units must come together")
    if not entries:
        return None
    pieces = [reinforcement_piece(entry, nation, side, units) for entry in entries]
    named = [piece for piece in pieces if piece is not None]
    fields: dict[str, object] = {"nation": nation}
    if named:
        fields["units"] = named
    if len(named) < len(pieces):
        fields["corps"] = len(pieces) - len(named)
    if (side, number) in PLACED_AS_DIRECTED:
        directed, comment = PLACED_AS_DIRECTED[side, number]
        fields |= directed
    return fields, comment


def card_fields(row: dict[str, str], units: Mapping[str, dict]) -> list[CardField]:
    """One card's fields in the order cards.toml writes them (see CARDS_HEADER)."""
    side, number = row["faction"], int(row["num"])
    if side not in ("ap", "cp") or row["commitment"] not in COMMITMENTS:
        raise SystemExit(f"card {side} {number}: side or commitment not understood")
    fields: list[CardField] = [("side", side, None), ("number", number, None), ("name", row["name"], None)]
    if row["event"]:
        fields.append(("event", row["event"], None))
    fields += [("commitment", row["commitment"], None), ("ops", int(row["ops"]), None),
               ("sr", int(row["sr"]), None), ("rp", card_rp(row), None)]
    if row["ws"]:
        fields.append(("war_status", int(row["ws"]), None))
    flags = [("combat_card", truthy(row["cc"]), None),
             ("ops_event", (side, number) in OPS_EVENTS, OPS_EVENTS.get((side, number))),
             ("removed_after_play", truthy(row["remove"]), None),
             ("optional", number in OPTIONAL_CARDS, None)]
    fields += [flag for flag in flags if flag[1]]
    if (side, number) in EXPIRES:
        fields.append(("expires", *EXPIRES[side, number]))
    reinforcements = card_reinforcements(row, units)
    if reinforcements:
        fields.append(("reinforcements", *reinforcements))
    return fields


def card_lines(key: str, fields: list[CardField]) -> list[str]:
    lines = [f"[cards.{key}]"]
    for name, value, comment in fields:
        lines += [*comment_lines(comment), f"{name} = {toml_value(value)}"]
    return [*lines, ""]


def check_deck(cards: list[tuple[str, list[CardField]]]) -> None:
    """Both decks whole, each card once, each named piece brought in by one card only."""
    keys = [key for key, _ in cards]
    for side in ("ap", "cp"):
        if sorted(k for k in keys if k.startswith(side)) != [card_id(side, n) for n in range(1, CARDS_PER_SIDE + 1)]:
            raise SystemExit(f"the {side} deck is not cards 1 to {CARDS_PER_SIDE}, each once")
    brought = [unit for _, fields in cards for name, value, _ in fields
               if name == "reinforcements" and isinstance(value, dict) for unit in value.get("units", [])]
    if len(set(brought)) != len(brought):
        raise SystemExit("a piece is brought in by two reinforcement cards")


def build_cards(ref: Path, units: Mapping[str, dict]) -> str:
    rows = sorted(read_csv(ref / "cards.csv"), key=lambda r: (r["faction"] != "ap", int(r["num"])))
    cards = [(card_id(r["faction"], int(r["num"])), card_fields(r, units)) for r in rows]
    check_deck(cards)
    out = [CARDS_HEADER, "format_version = 1", ""]
    for key, fields in cards:
        if key.endswith("01"):
            out += [f"# {'-' * 78} {'Allied Powers' if key == 'ap01' else 'Central Powers'}", ""]
        out += card_lines(key, fields)
    return "\n".join(out).rstrip() + "\n"


def build(ref: Path) -> dict[str, str]:
    """The data files' text, by file name."""
    map_text, facts = build_map(ref)
    units_text, units = build_units(ref)
    return {
        "map.toml": map_text,
        "units.toml": units_text,
        "setup_1914.toml": build_setup(ref, facts, units),
        "cards.toml": build_cards(ref, dict(units)),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reference", type=Path, help="folder holding the reference CSVs")
    parser.add_argument("--out", type=Path, default=DATA_DIR,
                        help="folder to write (default: rules/paths_of_glory/data/)")
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 on a difference")
    args = parser.parse_args(argv)
    files = build(args.reference)
    stale = []
    for name, text in files.items():
        target = args.out / name
        current = target.read_text(encoding="utf-8") if target.exists() else None
        if current == text:
            continue
        stale.append(name)
        if not args.check:
            args.out.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8", newline="\n")
    for name in stale:
        print(f"{'differs' if args.check else 'wrote'}: {args.out / name}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
