"""World in Flames (seed 004), as it lands: the world's hexes and their adjacency (2.1), and zones
of control (2.2). Not yet a ruleset a charter can name."""
