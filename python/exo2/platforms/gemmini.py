"""Exo's `gemmini` platform, which exo2 does not ship yet."""

raise ImportError(
    "exo2 does not ship Exo's 'gemmini' platform (exo.platforms.gemmini); "
    "exo2 provides exo2.platforms.x86, neon, rvv and cuda"
)
