"""Exo's `sve_vla` platform, which exo2 does not ship yet."""

raise ImportError(
    "exo2 does not ship Exo's 'sve_vla' platform (exo.platforms.sve_vla); "
    "exo2 provides exo2.platforms.x86, neon, rvv and cuda"
)
