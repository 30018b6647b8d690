"""World in Flames (seed 004): the world, zones of control, stacking and supply, with their
options; see RULINGS.md."""

from .ruleset import WorldInFlames

ruleset = WorldInFlames()
