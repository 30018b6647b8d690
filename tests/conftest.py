"""Shared fixtures: the golden vectors of PROTOCOL.md.

The vectors are kept as byte-for-byte copies in tests/vectors/ so the suite also runs from a clone
without ../shared; test_vectors.py checks the copies against ../shared/vectors when it exists.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

VECTOR_DIR = Path(__file__).resolve().parent / "vectors"
SHARED_VECTOR_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "vectors"
VECTOR_FILES = {"dice": "dice-v1.toml", "keys": "keys-v1.toml", "message": "message-v1.toml"}


@pytest.fixture(scope="session")
def vector_dir() -> Path:
    """The folder holding the copies of the vector files."""
    return VECTOR_DIR


@pytest.fixture(scope="session")
def shared_vector_dir() -> Path:
    """The normative vector folder beside the repository (may not exist in a bare clone)."""
    return SHARED_VECTOR_DIR


@pytest.fixture(scope="session")
def vectors() -> dict[str, dict]:
    """The three vector files parsed with tomllib: keys 'dice', 'keys' and 'message'."""
    return {
        name: tomllib.loads((VECTOR_DIR / filename).read_text(encoding="utf-8"))
        for name, filename in VECTOR_FILES.items()
    }
