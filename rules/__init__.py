"""Game rules for pbem, installed as the package pbem.rules. Each game is a sub-package."""
