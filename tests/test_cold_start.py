"""What keeps the command line quick to start: the data-file cache, the lazily built commands, the
map view's table, and the help screens that come with them (bench/cold_start.py measures the time)."""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from pbem.rules.paths_of_glory.views import NationTable
from rich.console import Console
from rich.table import Table
from rich.text import Text
from typer.models import ArgumentInfo, OptionInfo

from pbem import cli, datafile

ROOT = Path(__file__).resolve().parents[1]
POG = "pbem.rules.paths_of_glory"


# ------------------------------------------------------------------------------ data files

@pytest.fixture
def package(tmp_path, monkeypatch):
    """A ruleset-like package `pkgdata` with data/table.toml, importable from tmp_path; data files
    may be cached (as if PYTHONDONTWRITEBYTECODE were unset) and the user cache is in tmp_path."""
    root = tmp_path / "site" / "pkgdata"
    (root / "data").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "data" / "table.toml").write_text('format_version = 1\nrows = ["a", "b"]\n')
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    datafile.load.cache_clear()
    yield root
    datafile.load.cache_clear()
    sys.modules.pop("pkgdata", None)


def load() -> dict:
    datafile.load.cache_clear()  # as a new process would: only the files on disk carry over
    return datafile.load("pkgdata", "table.toml")


def cached(root: Path) -> Path:
    return next((root / "data" / "__pycache__").glob("table.toml.*"))


def edit(path: Path, text: str) -> None:
    """Rewrite a file so that its size and modification time both change."""
    stamp = path.stat().st_mtime_ns
    path.write_text(text)
    os.utime(path, ns=(stamp + 10**9, stamp + 10**9))


def test_a_data_file_is_parsed_once_and_then_read_from_its_cache(package):
    assert load() == {"format_version": 1, "rows": ["a", "b"]}
    cache = cached(package)
    assert cache.parent.name == "__pycache__"
    before = cache.stat().st_mtime_ns
    assert load() == {"format_version": 1, "rows": ["a", "b"]}
    assert cache.stat().st_mtime_ns == before  # read, not rewritten


def test_an_edited_data_file_is_parsed_afresh_and_its_cache_rebuilt(package):
    load()
    edit(package / "data" / "table.toml", 'format_version = 1\nrows = ["a", "b", "c"]\n')
    assert load()["rows"] == ["a", "b", "c"]
    edit(package / "data" / "table.toml", 'format_version = 1\nrows = ["z"]\n')
    assert load()["rows"] == ["z"]


def test_a_damaged_cache_is_ignored_and_replaced(package):
    load()
    cached(package).write_bytes(b"not marshal at all")
    assert load()["rows"] == ["a", "b"]
    assert load()["rows"] == ["a", "b"]


def test_a_read_only_installation_caches_in_the_user_cache_directory(package, tmp_path):
    (package / "data" / "__pycache__").write_text("a file where the cache folder would be: nothing goes here")
    assert load()["rows"] == ["a", "b"]
    assert len(list((tmp_path / "user-cache" / "pbem").rglob("*table.toml.*"))) == 1
    assert load()["rows"] == ["a", "b"]


def test_data_loads_where_nothing_can_be_written(package, tmp_path, monkeypatch):
    (package / "data" / "__pycache__").write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(package / "data" / "table.toml"))  # a file: no folder in it
    assert load()["rows"] == ["a", "b"]
    assert load()["rows"] == ["a", "b"]


def test_nothing_is_written_when_python_writes_no_bytecode(package, tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    assert load()["rows"] == ["a", "b"]
    assert not (package / "data" / "__pycache__").exists() and not (tmp_path / "user-cache").exists()


def test_a_package_in_a_zip_file_reads_its_data_as_a_resource(tmp_path, monkeypatch):
    with zipfile.ZipFile(tmp_path / "zipped.zip", "w") as archive:
        archive.writestr("pkgzipped/__init__.py", "")
        archive.writestr("pkgzipped/data/table.toml", "format_version = 1\nrows = []\n")
    monkeypatch.syspath_prepend(str(tmp_path / "zipped.zip"))
    try:
        assert datafile.load("pkgzipped", "table.toml") == {"format_version": 1, "rows": []}
    finally:
        datafile.load.cache_clear()
        sys.modules.pop("pkgzipped", None)


def test_a_data_file_of_another_layout_is_refused(package):
    edit(package / "data" / "table.toml", "format_version = 2\n")
    with pytest.raises(datafile.DataFileError, match="format_version 2"):
        load()
    edit(package / "data" / "table.toml", "format_version = \n")
    with pytest.raises(datafile.DataFileError, match="cannot be read"):
        load()


def test_the_paths_of_glory_map_loads_as_toml_parses_it():
    with (ROOT / "rules" / "paths_of_glory" / "data" / "map.toml").open("rb") as handle:
        assert datafile.load(POG, "map.toml") == tomllib.load(handle)


# ------------------------------------------------------------------------------ the command group

def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pbem.cli", *args], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "400", "NO_COLOR": "1"}, stdin=subprocess.DEVNULL)


def test_help_lists_every_command_with_its_first_paragraph():
    result = run_cli("--help")
    assert result.returncode == 0, result.stderr
    shown = " ".join(result.stdout.split())
    summaries = cli.command_group().lazy.summaries()
    names = [info.name for info in cli.app.registered_commands + cli.app.registered_groups]
    assert list(summaries) == names and len(names) >= 16
    for name, summary in summaries.items():
        assert summary and f"{name} {summary}" in shown, name


def test_commands_are_built_only_when_invoked():
    group = cli.command_group()
    group.lazy.summaries()
    assert group.lazy.built == {}
    assert group.get_command(None, "status").name == "status"
    assert list(group.lazy.built) == ["status"]
    assert group.get_command(None, "stauts") is None


def test_a_mistyped_command_is_refused_with_a_suggestion():
    result = run_cli("stauts")
    assert result.returncode == 2 and "No such command 'stauts'. Did you mean 'status'?" in result.stderr


def test_the_main_help_needs_none_of_typers_help_machinery():
    probe = ("import sys\nsys.argv = ['pbem', '--help']\nfrom pbem.cli import main\ntry:\n    main()\n"
             "except SystemExit as exc:\n    code = exc.code\nprint('CODE', code, 'typer.rich_utils' in sys.modules)\n")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert result.stdout.splitlines()[-1] == "CODE 0 False", result.stderr


def help_texts(callback) -> list[str]:
    texts = [inspect.getdoc(callback) or ""]
    for parameter in inspect.signature(callback).parameters.values():
        if isinstance(parameter.default, (OptionInfo, ArgumentInfo)) and parameter.default.help:
            texts.append(parameter.default.help)
    return texts


def every_command():
    for info in cli.app.registered_commands:
        yield [info.name], info.callback
    for group in cli.app.registered_groups:
        for info in group.typer_instance.registered_commands:
            yield [group.name, info.name], info.callback


def test_every_help_screen_shows_brackets_as_written():
    expected = {tuple(words): [token for text in help_texts(callback) for token in re.findall(r"\S*\[\S*", text)]
                for words, callback in every_command()}
    assert ("ID=SIDE[,SIDE]:" in expected[("new",)]) and ("[[orders]]" in expected[("move",)])
    for words, tokens in expected.items():
        if tokens:
            result = run_cli(*words, "--help")
            assert result.returncode == 0, result.stderr
            for token in tokens:
                assert token in result.stdout, (words, token)
    assert "Read [[orders]] tables from a TOML file." in run_cli("move", "--help").stdout


# ------------------------------------------------------------------------------ the map view's table

def test_the_map_table_draws_what_a_rich_table_draws():
    units = Text.assemble(("FR 6 Army·r", "bold"), "  ", ("FR Corps", ""), (" OOS2", "bold red"), "  ")
    rows = [(Text("Paris ★"), Text("AP", "blue"), Text("1 intact"), Text("1"), units),
            (Text("Liege"), Text("CP", "red"), Text("3 besieged"), Text(""), Text("GE 1 Army  GE 2 Army  ")),
            (Text("Sedan"), Text("AP", "blue"), Text(""), Text(""), Text(""))]
    table = Table(title=Text("France"), title_justify="left", show_edge=False)
    for column in NationTable.HEADERS:
        table.add_column(column)
    for row in rows:
        table.add_row(*row)

    def drawn(renderable, width: int) -> str:
        console = Console(width=width, record=True, file=open(os.devnull, "w"), color_system=None)  # noqa: SIM115 (closed at exit)
        console.print(renderable)
        return console.export_text()

    for width in (100, 64, 40):  # at 40 the units wrap in their column, as in a rich Table
        assert drawn(NationTable(Text("France"), rows), width) == drawn(table, width), width
