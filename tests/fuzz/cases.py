"""Running one fuzz case and classifying what happened.

A case is `(mode, seed)`: `mutate` defines a mutant of a corpus kernel
(mutate.py), `chain` applies random scheduling steps (chains.py). The
result is a dict: the outcome (outcomes.py), the exception class and where
it was raised, a message, and what the case did (the mutant's edits, the
chain's steps).
"""

import os
import signal
import tempfile
import time
import traceback

import chains
import corpus
import mutate
import numpy as np
from exo2 import Procedure
from outcomes import ACCEPTED, DOCUMENTED, FAILURES, classify

MODES = ("mutate", "chain")
# Modes that test the harness itself (tests/python/test_fuzz.py): a case
# that kills its worker, and one that never ends.
SELF_TESTS = ("selftest-crash", "selftest-hang")
_workdir = None


def run_case(mode, seed, verbose=False):
    """The result dict of the case `(mode, seed)`."""
    result = {"mode": mode, "seed": seed, "class": "", "where": "", "message": ""}
    result["classes"] = []  # every documented error class the case raised
    if mode == "selftest-crash":
        os.kill(os.getpid(), signal.SIGSEGV)
    if mode == "selftest-hang":
        time.sleep(3600)
    try:
        if mode == "mutate":
            outcome, detail = _run_mutant(seed, result)
        else:
            chain = chains.Chain(seed)
            result["what"] = f"{chain.original.name()}: steps recorded below"
            try:
                outcome, detail = chain.run()
            finally:
                result["steps"] = chain.steps
                result["classes"] = list(chain.errors)
        result["outcome"], result["message"] = outcome, detail
    except Exception as e:
        outcome, name, where = classify(e)
        result.update(outcome=outcome, where=where)
        result["class"] = name
        if outcome == DOCUMENTED:
            result["classes"].append(name)
        result["message"] = str(e).splitlines()[0][:300] if str(e) else ""
        if verbose or outcome in FAILURES:
            result["traceback"] = "".join(traceback.format_exception(e))[-4000:]
    return result


def _run_mutant(seed, result):
    """Defines the mutant; when exo2 accepts it, generates its C, compiles
    it and runs it on random inputs (and the original, when both have the
    same signature, for the statistics)."""
    global _workdir
    m = mutate.mutant(seed)
    result["what"] = f"{m.kernel}: " + "; ".join(m.edits)
    result["source"] = m.source
    if _workdir is None:
        _workdir = tempfile.mkdtemp(prefix="exo2_fuzz_mutants_")
    module = corpus.load_module(
        corpus.module_source([m.source]), _workdir, f"mutant_{seed}"
    )
    preamble = vars(corpus.load())
    procs = [
        v
        for k, v in vars(module).items()
        if isinstance(v, Procedure) and k not in preamble
    ]
    if not procs:
        return ACCEPTED, "defines no procedure"
    proc = procs[0]
    proc.c_code_str()
    if proc.is_instr():
        return ACCEPTED, "an instruction: not run"
    if chains.has_large_numbers(m.source):
        return ACCEPTED, "not run: large numbers"
    kernel = proc.jit(extra_cflags=("-O0",))
    rng = chains.random.Random(seed)
    for _ in range(4):
        args = chains.random_arguments(proc, rng)
        if args is None or _too_big(args):
            return ACCEPTED, "not run: arguments"
        inputs = _copies(args)
        try:
            kernel(*args)
        except ValueError as e:
            if "precondition" in str(e) or classify(e)[0] == DOCUMENTED:
                continue
            raise
        return ACCEPTED, _compared_with_original(proc, inputs, args)
    return ACCEPTED, "not run: preconditions"


def _too_big(args):
    return any(isinstance(a, np.ndarray) and a.size > 10**6 for a in args)


def _copies(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def _compared_with_original(proc, inputs, outputs):
    """ "same results" or "different results" than the original kernel of
    the same name on the mutant's inputs, when both have the same
    signature; "" otherwise."""
    original = getattr(corpus.load(), proc.name(), None)
    if original is None or _signature(original) != _signature(proc):
        return ""
    original.jit(extra_cflags=("-O0",))(*inputs)
    same = all(
        not isinstance(a, np.ndarray) or np.array_equal(a, b, equal_nan=True)
        for a, b in zip(inputs, outputs, strict=True)
    )
    return "same results" if same else "different results"


def _signature(proc):
    return str(proc).split("\n", 1)[0]
