"""Exo's `gemmini` platform, which exo2 1.0 does not ship."""

raise ImportError(
    "exo2 does not ship Exo's 'gemmini' platform (exo.platforms.gemmini); "
    "exo2 1.0 provides exo2.platforms.x86 and exo2.platforms.cuda"
)
