"""exo2.stdlib.scheduling: every primitive, `sched_op` and its argument
processors, the combinators, `user_op`, `SchedulingError`, `Procedure` and
the cursor classes (stdlib.md §1)."""

from exo2.API import Procedure as Procedure
from exo2.API_cursors import *  # noqa: F403
from exo2.API_scheduling import *  # noqa: F403
