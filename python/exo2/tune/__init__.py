"""**[exo2]** Autotuning: search a schedule's parameters for the fastest
kernel.

    space = tune.Space(tune.PowersOfTwo("tile", 4, 64), tune.Categorical("unroll", [False, True]))
    result = tune.search(space, lambda p: my_schedule(kernel, **p), kernel, args, budget=20)
    result.best_point, result.best_seconds

A schedule is a Python function of the point; a point whose schedule
raises `SchedulingError` (or whose C does not compile) is infeasible and
learned from, a schedule that changes the results is a hard error
(`WrongResult`). Results live in an Optuna study (an SQLite file by
default, PostgreSQL for several machines), keyed by kernel, sizes and
machine; `best(...)` reads them back. See docs/tuning-and-measuring.md.

Needs optuna (and tqdm for the progress bar, matplotlib for the charts);
`import exo2` works without them.
"""

from .space import (
    Categorical,
    Divisors,
    Int,
    Ordinal,
    Parameter,
    Permutation,
    PowersOfTwo,
    Space,
)

__all__ = [
    "BayesianSampler",
    "Categorical",
    "Divisors",
    "Infeasible",
    "Int",
    "KernelObjective",
    "Ordinal",
    "Parameter",
    "Permutation",
    "PowersOfTwo",
    "Result",
    "Space",
    "WrongResult",
    "best",
    "default_storage",
    "load",
    "plot_convergence",
    "search",
    "study_name",
]

_LAZY = {
    "BayesianSampler": "sampler",
    "Infeasible": "study",
    "KernelObjective": "study",
    "Result": "study",
    "WrongResult": "study",
    "best": "study",
    "default_storage": "study",
    "load": "study",
    "search": "study",
    "study_name": "study",
    "plot_convergence": "plot",
}


def __getattr__(name):
    # The search needs optuna: imported on first use, with an error naming
    # the package when it is missing.
    if name in _LAZY:
        import importlib

        try:
            module = importlib.import_module(f".{_LAZY[name]}", __name__)
        except ImportError as error:
            if "optuna" in str(error):
                raise ImportError(
                    f"exo2.tune.{name} needs optuna (pip install optuna)"
                ) from error
            raise
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
