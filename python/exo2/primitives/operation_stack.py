"""The user-level operations running now, for error reports (docs/errors.md).

`user_op` (library functions) and `sched_op` (primitives) push the
operation's name and call site while it runs; an exo2 error passing through
the innermost primitive records the stack on the exception.
"""

import functools
import sys

_stack = []


def call_site(depth=2):
    """`(file, line)` of the code calling the function `depth` frames up."""
    frame = sys._getframe(depth)
    return frame.f_code.co_filename, frame.f_lineno


def current_stack():
    """`[(name, file, line), ...]`, outermost first."""
    return list(_stack)


class running:
    """Context manager: the operation `name`, called from `site`, runs."""

    def __init__(self, name, site):
        self.entry = (name, *site)

    def __enter__(self):
        _stack.append(self.entry)

    def __exit__(self, *exc):
        _stack.pop()
        return False


def user_op(fn):
    """Records `fn` (a scheduling library function) on the operation stack of
    errors raised while it runs."""

    name = fn.__name__

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        # `running`, inlined: library functions run by the hundred thousand
        frame = sys._getframe(1)
        _stack.append((name, frame.f_code.co_filename, frame.f_lineno))
        try:
            return fn(*args, **kwargs)
        except Exception as e:
            # a refusal of the library itself, not of a primitive it ran
            if getattr(e, "op", False) is None and hasattr(e, "_set_operation"):
                e._set_operation(name, current_stack())
            raise
        finally:
            _stack.pop()

    return wrapper
