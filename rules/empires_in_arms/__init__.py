"""Empires in Arms (seed 003): the ruleset. So far the UMP Control Step (14.3.1-14.3.2, 14.3.7,
14.3.8), before the game and in each turn's Economic Phase; see RULINGS.md."""

from .ruleset import EmpiresInArms

ruleset = EmpiresInArms()
