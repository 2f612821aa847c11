"""Reading text the way a reader sees it, so a name cannot hide from the gates: decoded, folded, reordered, spelled."""
