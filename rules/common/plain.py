"""Copies of JSON-like data (tables of tables and lists), as rulesets keep in their states."""

from __future__ import annotations


def plain_copy(value):
    """A deep copy of JSON-like data: tables and lists copied, the rest shared."""
    if isinstance(value, dict):
        return {key: plain_copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain_copy(item) for item in value]
    return value
