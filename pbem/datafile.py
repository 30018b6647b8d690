"""The one loader of a ruleset's data files (maps, units, tables, scenarios): TOML with a format_version.

Every file a ruleset ships is read through `load`, which checks its layout version once and keeps
the parsed result for the life of the process (data is loaded once, never per command step).

Parsing TOML is slow (over 10 ms for the Paths of Glory map), and every command that opens a game
would pay it. So the parsed tables are also kept as a marshal file, as Python keeps bytecode: in `__pycache__/`
beside the data file, or, where the installation cannot be written, in the user's cache directory
(`$XDG_CACHE_HOME/pbem`, else `~/.cache/pbem`). A cache file records the size and modification
time of the source it was made from and is used only while both match, so an edited data file is
parsed afresh and its cache rewritten. Nothing is written when Python is told not to write
bytecode (PYTHONDONTWRITEBYTECODE): the data is then parsed each time, as it always can be.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import sys
from functools import cache

from .errors import UsageError

FORMAT_VERSION = 1  # the layout every shipped data file declares
CACHE_LAYOUT = 1  # bump when what a cache file holds changes
_TAG = f"{sys.implementation.cache_tag or sys.implementation.name}.data"  # marshal differs between Pythons


class DataFileError(UsageError):
    """A shipped data file is missing, unreadable or of another layout: the installation is broken."""


@cache
def load(package: str, name: str) -> dict:
    """`data/<name>` of the ruleset package `package` (its __package__), parsed and checked.

    The same dict is returned to every caller: treat it as read-only."""
    try:
        path = _source_path(package, name)
        data = _parse_resource(package, name) if path is None else _load_path(path)
    except (OSError, ValueError) as exc:  # ValueError: not TOML, or an integer of thousands of digits
        raise DataFileError(f"{package} data file {name} cannot be read: {exc}; reinstall pbem",
                            field="data") from None
    if data.get("format_version") != FORMAT_VERSION:
        raise DataFileError(f"{package} data file {name} has format_version {data.get('format_version')!r}; this "
                            f"pbem reads {FORMAT_VERSION}: reinstall pbem", field="format_version")
    return data


def _source_path(package: str, name: str) -> str | None:
    """The data file on disk; None when the package is not a directory (a zip), read as a resource."""
    module = sys.modules.get(package)
    if module is None:
        import importlib

        module = importlib.import_module(package)
    folder = getattr(module, "__file__", None)
    if not folder:
        return None
    path = os.path.join(os.path.dirname(folder), "data", name)
    return path if os.path.isdir(os.path.dirname(path)) else None


def _parse_resource(package: str, name: str) -> dict:
    import tomllib
    from importlib import resources

    with resources.files(package).joinpath("data", name).open("rb") as handle:
        return tomllib.load(handle)


def _load_path(path: str) -> dict:
    """The parsed file: from a cache made from exactly this source, else parsed (and cached)."""
    status = os.stat(path)
    stamp = (CACHE_LAYOUT, path, status.st_size, status.st_mtime_ns)
    places = _cache_places(path)
    for place in places:
        data = _read_cache(place, stamp)
        if data is not None:
            return data
    import tomllib

    with open(path, "rb") as handle:
        data = tomllib.load(handle)
    if not sys.dont_write_bytecode:
        for place in places:
            if _write_cache(place, stamp, data):
                break
    return data


def _cache_places(path: str) -> list[str]:
    """Where a cache of `path` may be: beside it, then in the user's cache directory."""
    folder, name = os.path.split(path)
    beside = os.path.join(folder, "__pycache__", f"{name}.{_TAG}")
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if not os.path.isabs(home):  # no home directory to be found: never a folder named ~ here
        return [beside]
    flat = path.strip(os.sep).replace(os.sep, "%")  # one file per source path: installs never share one
    return [beside, os.path.join(home, "pbem", "data", f"{flat}.{_TAG}")]


def _read_cache(place: str, stamp: tuple) -> dict | None:
    try:
        with open(place, "rb") as handle:
            stored, data = marshal.loads(handle.read())
    except (OSError, EOFError, ValueError, TypeError):  # missing, unreadable, truncated or not ours
        return None
    return data if stored == stamp and isinstance(data, dict) else None


def _write_cache(place: str, stamp: tuple, data: dict) -> bool:
    """Best effort, atomically (a reader never sees half a file); False where it cannot be written."""
    try:
        blob = marshal.dumps((stamp, data))
    except ValueError:  # a value marshal cannot hold (a TOML date): parse such a file each time
        return False
    temporary = f"{place}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(place), exist_ok=True)
        with open(temporary, "wb") as handle:
            handle.write(blob)
        os.replace(temporary, place)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        return False
    return True
