"""Machinery shared by games: dice notation, result tables, copies of plain data."""
