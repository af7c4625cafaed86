"""exo2.stdlib: scheduling libraries written against the public API only."""
