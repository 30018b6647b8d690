"""The Paths of Glory ruleset, Suicide of Europe variant (see RULINGS.md for our rulings)."""

from .ruleset import PathsOfGlory

ruleset = PathsOfGlory()
