"""The Paths of Glory ruleset, Suicide of Europe variant."""
