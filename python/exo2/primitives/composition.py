"""Combinators over scheduling operations (stdlib.md §1): `repeat` and
`sched_seq`."""

import functools

from ..errors import SchedulingError


def repeat(op, n_times=None, verbose=False):
    """`f(proc, *args, **kwargs)` applying `op` with the same arguments
    `n_times` times, or, when None, until it fails (returning the last
    success)."""
    if not callable(op):
        raise TypeError(f"repeat expects a scheduling operation, not {type(op)}")
    if n_times is not None and (
        not isinstance(n_times, int) or isinstance(n_times, bool) or n_times < 1
    ):
        raise TypeError("expected n_times to be None or a positive int")

    @functools.wraps(op)
    def repeated(proc, *args, **kwargs):
        if n_times is not None:
            for _ in range(n_times):
                proc = op(proc, *args, **kwargs)
            return proc
        while True:
            try:
                proc = op(proc, *args, **kwargs)
            except (SchedulingError, TypeError, ValueError) as e:
                if verbose:
                    print(f"repeat ended with error {e}")
                return proc

    repeated.__name__ = f"repeat_{getattr(op, '__name__', 'op')}"
    return repeated


def sched_seq(proc, sched_list):
    """Applies each item in turn: a callable gets `proc`; a list or tuple
    `(op, *args)` calls `op(proc, *args)`."""
    for item in sched_list:
        if callable(item):
            proc = item(proc)
        elif isinstance(item, (list, tuple)) and item and callable(item[0]):
            proc = item[0](proc, *item[1:])
        else:
            raise TypeError(
                "sched_seq expects each item to be a callable taking the "
                "procedure, or a list or tuple (op, *args) calling "
                f"op(proc, *args); got {item!r}"
            )
    return proc
