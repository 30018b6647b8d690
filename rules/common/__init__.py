"""Machinery shared by games: dice notation, result tables."""
