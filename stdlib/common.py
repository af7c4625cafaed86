"""What the operation modules of exo2.stdlib share: the default scope of
the passes, "the whole procedure" (docs/stdlib.md).
"""

from __future__ import annotations

from exo2.API_cursors import InvalidCursor

# The default scope: "the whole procedure".
_WHOLE_PROC = InvalidCursor()
