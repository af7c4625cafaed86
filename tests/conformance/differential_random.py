"""Random schedules on both compilers (docs/internals/conformance.md,
"Random schedules on both compilers"): exo2's randomized schedule generator
(tests/python/random_schedules) picks random steps on the kernels of its
corpus; every step is written down in a portable form, applied on exo2 and
replayed, through the reverse import alias `exo2` -> `exo`, on Exo in its
own interpreter; the two are compared step by step.

    python differential_random.py --exo-python VENV/bin/python --out DIR \\
        [--seed N] [--steps N] [--results-every N] [--kernel NAME]...
    python differential_random.py --report-only --out DIR  # after editing
                                                            # the list

The portable form of a step is Python source that both compilers run: the
primitive's call on `p` with its arguments written out, cursors as
navigation from the procedure (`p.body()[1].body()[0].rhs().lhs()`, gaps
with `.before()` / `.after()`, blocks with `.expand(0, k)`), procedures,
configurations and instructions of the corpus by name, memories by name.
A procedure a generator derives for an argument (the sub-procedure
`replace` unifies, the callee `call_eqv` swaps in, scheduled by a few
steps) is derived by the same source, one line per primitive call. A step
is replayed only when it can be written so and the primitive exists in Exo.

Per step, in order: whether each side accepts it (exo2: a documented
refusal, random_schedules/refusals.py, or a crash; Exo: any exception), the
printed procedure when both accept, and, where both accept, the results
of running both procedures on the same random inputs (exo2's JIT on
exo2's side; Exo's C compiled with the system compiler and called through
ctypes on Exo's, as differential_trace.py does). A sequence is compared up
to its first disagreement: after it the two sides schedule different
procedures. A procedure that compiles on one side only is a disagreement,
and so is an Exo step that changes the procedure it was given (the replay
then starts the next sequence from a fresh corpus). When Exo accepts a step
exo2 refuses, Exo's procedure is also run against Exo's own kernel: a
change in the results is a counterexample to Exo's step.

A disagreement is allowed when `expected_differences.toml` lists it, under
`differential:random:<primitive>:<class>:<kernel>` (globs allowed; `proc`
and `kernel` for the kernel's definition and its compiled C), with a
category, a reason and optionally `match`, a regular expression its details
must contain; the classes are `exo2-refuses`, `exo-refuses`,
`text-differs`, `codegen-differs`, `results-differ`, `exo-mutates-input`
and `exo2-crash`. Any other one is a problem, and the exit status is 1. Written:
a report named random in DIR (Markdown), the raw steps and both sides' outcomes beside it (JSON).
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
RANDOM = ROOT / "tests" / "python"
sys.path.insert(0, str(HERE))
from differential_c import (  # noqa: E402
    call,
    cflags,
    compile_library,
    error_text,
    inputs,
    outputs,
    run_in_child,
    same_outputs,
)
from report import find_entry, print_problems, text_diff  # noqa: E402, F401 (lists disagreements)

STEPS_PER_SEQUENCE = 8  # accepted steps (random_schedules.running: 10)
ATTEMPTS_PER_SEQUENCE = 12  # so that a few hundred steps reach every kernel
MAX_STATEMENTS = 80
# exo2's primitives that Exo 1.0 does not have (docs/reference/primitives.md,
# marked [exo2]): their steps are not replayed
EXO2_ONLY = {"widen_loop"}
RUN_TIMEOUT_S = 60  # for compiling and running one sequence's procedures
CFLAGS = ("-O1",)
CLASSES = (
    "exo2-refuses",
    "exo-refuses",
    "text-differs",
    "codegen-differs",
    "results-differ",
    "exo-mutates-input",
    "exo2-crash",
)


# --------------------------------------------------------------------------- #
# Both sides: the corpus, the namespace steps run in, applying a step


def install_side(side):
    sys.path.insert(0, str(HERE))
    sys.path.insert(0, str(RANDOM))
    if side == "exo":
        import exo_alias

        exo_alias.install("exo2", "exo")


class RefusedKernel:
    """A corpus definition the compiler refused (`@proc` raised)."""

    def __init__(self, name, error):
        self._name, self.error = name, error

    def name(self):
        return self._name


def load_corpus():
    """random_schedules.corpus, with each `@proc` that the compiler refuses
    replaced by a RefusedKernel (Exo refuses some of the corpus)."""
    import exo2

    original = exo2.proc

    def tolerant_proc(f):
        try:
            return original(f)
        except Exception as e:  # noqa: BLE001 (the refusal is data)
            return RefusedKernel(f.__name__, error_text(e))

    exo2.proc = tolerant_proc
    try:
        import random_schedules.corpus as corpus
    finally:
        exo2.proc = original
    return corpus


def namespace(corpus):
    """What the portable source of a step may name."""
    import exo2
    import exo2.API_scheduling as S
    import exo2.libs.memories as memories

    names = {n: getattr(S, n) for n in dir(S) if not n.startswith("_")}
    names.update({n: v for n, v in vars(corpus).items() if not n.startswith("_")})
    names["DRAM"] = exo2.DRAM
    names["DRAM_STACK"] = memories.DRAM_STACK
    names["DRAM_STATIC"] = memories.DRAM_STATIC
    return names


def apply_step(lines, p, names):
    """Runs a step's source with `p` bound to the procedure; the new `p`."""
    scope = dict(names, p=p)
    exec("\n".join(lines), scope)  # noqa: S102 (the step's own source)
    return scope["p"]


# --------------------------------------------------------------------------- #
# Both sides: running procedures on seeded random inputs


def run_exo2(procs, runs, workdir):
    """exo2's side: the procedures through exo2's JIT (one compiler run)."""
    from exo2.jit import jit, jit_library

    flags = (*CFLAGS, "-shared", "-fPIC", "-Wl,-Bsymbolic")
    try:
        kernels = jit_library(procs, cflags=flags)
    except Exception:  # noqa: BLE001 (find those that do not compile)
        kernels = []
        for p in procs:
            try:
                kernels.append(jit(p, cflags=flags))
            except Exception as e:  # noqa: BLE001
                kernels.append(f"does not compile: {error_text(e)}")
    results = []
    for p, kernel in zip(procs, kernels, strict=True):
        results.append(_run_each(p, runs, kernel, lambda _p, k, args: k(*args)))
    return results


def run_exo(procs, runs, workdir):
    """Exo's side: its C, compiled with the system compiler, through
    ctypes (a zeroed context, as many bytes as any configuration needs)."""
    flags = cflags(CFLAGS)
    cdll = compile_library(procs, workdir, flags)
    if isinstance(cdll, str):  # one by one, to find those that do not compile
        libraries = [compile_library([p], workdir, flags) for p in procs]
    else:
        libraries = [cdll for _ in procs]
    return [
        _run_each(
            p, runs, lib if isinstance(lib, str) else getattr(lib, p.name()), call
        )
        for p, lib in zip(procs, libraries, strict=True)
    ]


def _run_each(p, runs, kernel, call):
    if isinstance(kernel, str):
        return kernel
    results = []
    for k, sizes in enumerate(runs):
        args = inputs(p, sizes, seed=k)
        if args is None:
            return None
        try:
            call(p, kernel, args)
        except Exception as e:  # noqa: BLE001
            return f"cannot run: {error_text(e)}"
        results.append(outputs(args))
    return results


def run_sequence(side, procs, runs, workdir):
    """The results of each procedure (renamed apart) on each run; a string
    for all of them when the batch crashed."""
    import exo2.API_scheduling as S

    renamed = [S.rename(p, f"dr_{side}_{k}") for k, p in enumerate(procs)]
    runner = run_exo2 if side == "exo2" else run_exo
    results = run_in_child(lambda: runner(renamed, runs, workdir), RUN_TIMEOUT_S)
    if isinstance(results, str):  # one by one, to find the one that crashes
        results = [
            run_in_child(lambda q=q: runner([q], runs, workdir)[0], RUN_TIMEOUT_S)
            for q in renamed
        ]
    return results


# --------------------------------------------------------------------------- #
# exo2's side: generating steps and writing them down


class Unportable(Exception):
    """An argument that has no portable source."""


def _stmt_paths(block_expr, block):
    from exo2.API_cursors import ForCursor, IfCursor

    for k, stmt in enumerate(block):
        here = f"{block_expr}[{k}]"
        yield stmt, here
        if isinstance(stmt, ForCursor):
            yield from _stmt_paths(f"{here}.body()", stmt.body())
        elif isinstance(stmt, IfCursor):
            yield from _stmt_paths(f"{here}.body()", stmt.body())
            if stmt.orelse():
                yield from _stmt_paths(f"{here}.orelse()", stmt.orelse())


def _expr_paths(expr, here):
    import exo2.API_cursors as PC

    yield expr, here
    children = []
    if isinstance(expr, PC.BinaryOpCursor):
        children = [(expr.lhs(), ".lhs()"), (expr.rhs(), ".rhs()")]
    elif isinstance(expr, PC.UnaryMinusCursor):
        children = [(expr.arg(), ".arg()")]
    elif isinstance(expr, PC.ReadCursor):
        children = [(e, f".idx()[{k}]") for k, e in enumerate(expr.idx())]
    elif isinstance(expr, PC.ExternFunctionCursor):
        children = [(e, f".args()[{k}]") for k, e in enumerate(expr.args())]
    for child, step in children:
        yield from _expr_paths(child, here + step)


def _stmt_expr_paths(stmt, here):
    import exo2.API_cursors as PC

    roots = []
    if isinstance(stmt, (PC.AssignCursor, PC.ReduceCursor)):
        roots = [(e, f".idx()[{k}]") for k, e in enumerate(stmt.idx())]
        roots.append((stmt.rhs(), ".rhs()"))
    elif isinstance(stmt, PC.IfCursor):
        roots = [(stmt.cond(), ".cond()")]
    elif isinstance(stmt, PC.ForCursor):
        roots = [(stmt.lo(), ".lo()"), (stmt.hi(), ".hi()")]
    elif isinstance(stmt, PC.AssignConfigCursor):
        roots = [(stmt.rhs(), ".rhs()")]
    for root, step in roots:
        yield from _expr_paths(root, here + step)


class Writer:
    """Writes a step as source: the calls of primitives that derive
    procedures for its arguments, one per line, then the step itself."""

    def __init__(self, p, corpus):
        self.procs = [(p, "p")]  # (procedure, name in the source)
        self.lines = []
        self.corpus = corpus
        self.unportable = None

    def fresh(self):
        return f"q{len(self.lines) + 1}"

    def proc(self, q):
        for known, name in self.procs:
            if known is q:
                return name
        for known, name in self.procs:
            if known == q:
                return name
        value = getattr(self.corpus, q.name(), None)
        if value is q:
            return q.name()
        # a callee of a procedure the step knows
        from exo2.API_cursors import CallCursor

        for known, name in list(self.procs):
            for stmt, here in _stmt_paths(f"{name}.body()", known.body()):
                if isinstance(stmt, CallCursor) and stmt.subproc() == q:
                    var = self.fresh()
                    self.lines.append(f"{var} = {here}.subproc()")
                    self.procs.append((q, var))
                    return var
        value = getattr(self.corpus, q.name(), None)
        if value is q or (value is not None and value == q):
            return q.name()
        raise Unportable(f"procedure {q.name()}")

    def cursor(self, c):
        import exo2.API_cursors as PC

        if isinstance(c, PC.BlockCursor):
            return f"{self.cursor(c[0])}.expand(0, {len(c) - 1})"
        if isinstance(c, PC.GapCursor):
            side = "before" if c.type().name.lower() == "before" else "after"
            return f"{self.cursor(c.anchor())}.{side}()"
        q = self.proc(c.proc())
        for stmt, here in _stmt_paths(f"{q}.body()", c.proc().body()):
            if isinstance(c, PC.StmtCursor):
                if stmt == c:
                    return here
            else:
                for e, there in _stmt_expr_paths(stmt, here):
                    if e == c:
                        return there
        raise Unportable(f"cursor {c!r}")

    def value(self, v):
        import exo2
        import exo2.API_cursors as PC
        from exo2.core.configs import Config

        if isinstance(v, (bool, int, float, str)) or v is None:
            return repr(v)
        if isinstance(v, (list, tuple)):
            inner = ", ".join(self.value(x) for x in v)
            return f"[{inner}]" if isinstance(v, list) else f"({inner},)"
        if isinstance(v, PC.Cursor):
            return self.cursor(v)
        if isinstance(v, exo2.Procedure):
            return self.proc(v)
        if isinstance(v, Config):
            if getattr(self.corpus, v.name(), None) is v:
                return v.name()
            raise Unportable(f"config {v.name()}")
        if isinstance(v, type) and v.__name__ in ("DRAM", "DRAM_STACK", "DRAM_STATIC"):
            return v.__name__
        raise Unportable(f"{type(v).__name__} {v!r}")

    def call(self, primitive, p_source, args, kwargs):
        written = [p_source, *(self.value(a) for a in args)]
        written += [f"{k}={self.value(v)}" for k, v in kwargs.items()]
        return f"{primitive}({', '.join(written)})"

    def derived(self, primitive, args, kwargs, result):
        """Records a call a generator made to derive a procedure."""
        if self.unportable:
            return
        try:
            var = self.fresh()
            self.lines.append(
                f"{var} = {self.call(primitive, self.value(args[0]), args[1:], kwargs)}"
            )
        except Unportable as e:
            self.unportable = str(e)
            return
        if isinstance(result, tuple):
            self.procs += [(r, f"{var}[{k}]") for k, r in enumerate(result)]
        else:
            self.procs.append((result, var))

    def step(self, step):
        if self.unportable:
            raise Unportable(self.unportable)
        line = self.call(step.primitive, "p", step.args, step.kwargs)
        if step.primitive == "extract_subproc":
            line += "[0]"
        return [*self.lines, f"p = {line}"]


def generate_step(generator, view, seq, writer, primitives):
    """Runs a generator with the primitives it calls recorded by `writer`."""
    import exo2.API_scheduling as S

    saved = {n: getattr(S, n) for n in primitives}

    def recording(name, fn):
        def wrapper(*args, **kwargs):
            result = fn(*args, **kwargs)
            writer.derived(name, args, kwargs, result)
            return result

        return wrapper

    for n, fn in saved.items():
        setattr(S, n, recording(n, fn))
    try:
        return generator(view, seq)
    finally:
        for n, fn in saved.items():
            setattr(S, n, fn)


def generate(args, corpus):
    """Schedules random sequences on exo2: every attempted step with its
    portable source and exo2's outcome. Returns (sequences, procedures):
    procedures[s][k] is exo2's procedure after attempt k of sequence s
    when exo2 accepted it."""
    import random

    from random_schedules.generators import GENERATORS, Sequence
    from random_schedules.navigation import View
    from random_schedules.refusals import refusal_reason
    from random_schedules.running import pick_primitive

    names = namespace(corpus)
    kernels = [
        k for k in corpus.KERNELS if not args.kernel or k.proc.name() in args.kernel
    ]
    primitives = sorted(GENERATORS)
    sequences, procedures = [], []
    attempts, number = 0, 0
    while attempts < args.steps:
        kernel = kernels[number % len(kernels)]
        sid = number // len(kernels)
        number += 1
        seq = Sequence(
            random.Random(f"{args.seed}:{kernel.proc.name()}:{sid}"), tag=f"_{sid}"
        )
        p = kernel.proc
        record = {"kernel": kernel.proc.name(), "sequence": sid, "steps": []}
        procs = {}
        accepted = 0
        for _ in range(ATTEMPTS_PER_SEQUENCE):
            if accepted == STEPS_PER_SEQUENCE or attempts >= args.steps:
                break
            name = pick_primitive(kernel, seq)
            if name in EXO2_ONLY:
                continue
            writer = Writer(p, corpus)
            try:
                step = generate_step(GENERATORS[name], View(p), seq, writer, primitives)
            except Exception as e:  # noqa: BLE001 (a generator's own failure)
                record["steps"].append(
                    {"primitive": name, "unportable": f"generator: {error_text(e)}"}
                )
                continue
            if step is None:
                continue
            try:
                lines = writer.step(step)
            except Unportable as e:
                record["steps"].append({"primitive": name, "unportable": str(e)})
                continue
            attempts += 1
            entry = {"primitive": name, "source": lines}
            try:
                after = apply_step(lines, p, names)
            except Exception as e:  # noqa: BLE001
                reason = refusal_reason(name, e)
                entry["exo2"] = {
                    "outcome": "refused" if reason else "crash",
                    "error": error_text(e),
                }
                if reason is None:
                    entry["exo2"]["trace"] = "".join(
                        traceback.format_exception(e)[-4:]
                    )[-1500:]
                record["steps"].append(entry)
                continue
            entry["exo2"] = {"outcome": "ok", "text": str(after)}
            procs[len(record["steps"])] = after
            record["steps"].append(entry)
            p = after
            accepted += 1
            if len(View(p).sites) > MAX_STATEMENTS:
                break
        sequences.append(record)
        procedures.append(procs)
    return sequences, procedures


# --------------------------------------------------------------------------- #
# Exo's side: replaying the steps


def printed(p):
    """A procedure's text, or why it cannot be printed (Exo's printer fails
    on an iterator named `for`)."""
    try:
        return str(p)
    except Exception as e:  # noqa: BLE001
        return f"(cannot be printed: {error_text(e)})"


def replay(steps_file, out_file, results_every):
    """Replays every sequence on this side (Exo), up to the first step whose
    outcome or printed text differs from exo2's; runs the kernel and the
    accepted procedures of sampled sequences."""
    corpus = load_corpus()
    names = namespace(corpus)
    by_name = {k.proc.name(): k for k in corpus.KERNELS}
    data = json.loads(Path(steps_file).read_text())
    workdir = tempfile.mkdtemp(prefix="exo2-differential-random-")
    replays = []
    for s, record in enumerate(data["sequences"]):
        kernel = by_name.get(record["kernel"])
        if isinstance(kernel.proc, RefusedKernel):
            replays.append({"kernel_refused": kernel.proc.error})
            continue
        p, outcomes, accepted, mutated = kernel.proc, [], {}, False
        for k, step in enumerate(record["steps"]):
            if "source" not in step:
                outcomes.append(None)
                continue
            given, given_text = p, printed(p)
            try:
                after = apply_step(step["source"], p, names)
            except Exception as e:  # noqa: BLE001 (Exo's refusal is data)
                outcome = {"outcome": "refused", "error": error_text(e)}
            else:
                outcome = {"outcome": "ok", "text": printed(after)}
                accepted[k] = after
                p = after
            if printed(given) != given_text:  # the primitive changed its input
                mutated = True
                outcome["mutated_input"] = text_diff(
                    given_text,
                    printed(given),
                    "the procedure given",
                    "the same procedure after the step",
                )
            outcomes.append(outcome)
            mine = step["exo2"]
            if mutated or (
                (outcome["outcome"] == "ok") != (mine["outcome"] == "ok")
                or outcome.get("text") != mine.get("text")
            ):
                break
        replay_record = {"outcomes": outcomes}
        if mutated:
            # its procedures are not what they print; later sequences start
            # from a fresh corpus
            replay_record["results"] = "not run: Exo changed a procedure in place"
            del sys.modules["random_schedules.corpus"]
            corpus = load_corpus()
            names = namespace(corpus)
            by_name = {k.proc.name(): k for k in corpus.KERNELS}
        elif s % results_every == 0:
            indices = sorted(accepted)
            results = run_sequence(
                "exo",
                [kernel.proc, *(accepted[k] for k in indices)],
                kernel.sizes,
                workdir,
            )
            replay_record["results"] = (
                results
                if isinstance(results, str)
                else {str(k): r for k, r in zip([-1, *indices], results, strict=True)}
            )
        replays.append(replay_record)
    Path(out_file).write_text(json.dumps({"replays": replays}))


# --------------------------------------------------------------------------- #
# Comparing


def same_results(a, b, tolerance=1e-3):
    if a is None or b is None or isinstance(a, str) or isinstance(b, str):
        return a == b and a is not None and not isinstance(a, str)
    return len(a) == len(b) and all(
        same_outputs(run_a, run_b, tolerance) for run_a, run_b in zip(a, b, strict=True)
    )


def _ran(r):
    return r is not None and not isinstance(r, str)


def compiles(result):
    """Whether a procedure's C compiled: True, False, or None when it was
    not tried (not sampled, a parameter this cannot give)."""
    if result is None:
        return None
    return not (isinstance(result, str) and result.startswith("does not compile"))


def kernel_results(rep, exo2_result):
    """How the two compilers' C of the kernel itself compare: "same",
    "differ" (results), "codegen" (compiles on one side only) or "not run"."""
    exo = rep.get("results")
    a = exo.get("-1") if isinstance(exo, dict) else None
    b = exo2_result.get(-1) if isinstance(exo2_result, dict) else None
    if None not in (compiles(a), compiles(b)) and compiles(a) != compiles(b):
        return "codegen"
    if not (_ran(a) and _ran(b)):
        return "not run"
    return "same" if same_results(a, b) else "differ"


def _one_line(result):
    return "compiles" if compiles(result) else " ".join(str(result).split())[:300]


def compare(sequences, replays, exo2_results):
    """One row per step compared: (sequence, attempt, class, details), and
    rows for the kernels themselves. Where the two compiled kernels already
    differ (code generation, not scheduling), a step's results are compared
    as whether each side keeps its own kernel's results, and a step that
    compiles on one side only is not reported again."""
    rows, kernel_rows, seen = [], [], set()

    def kernel_row(s, record, primitive, cls, detail):
        if (record["kernel"], primitive, cls) not in seen:
            seen.add((record["kernel"], primitive, cls))
            kernel_rows.append(
                {
                    "sequence": s,
                    "attempt": -1,
                    "primitive": primitive,
                    "class": cls,
                    "detail": detail,
                }
            )

    for s, (record, rep) in enumerate(zip(sequences, replays, strict=True)):
        if "kernel_refused" in rep:
            kernel_row(
                s, record, "proc", "exo-refuses", f"Exo: {rep['kernel_refused']}"
            )
            continue
        exo_results = rep.get("results")
        exo_results = exo_results if isinstance(exo_results, dict) else {}
        mine_results = exo2_results.get(s)
        mine_results = mine_results if isinstance(mine_results, dict) else {}
        kernels = kernel_results(rep, mine_results)
        if kernels == "differ":
            kernel_row(
                s,
                record,
                "kernel",
                "results-differ",
                "the kernel itself, compiled by each, computes different results "
                "on the same inputs",
            )
        elif kernels == "codegen":
            kernel_row(
                s,
                record,
                "kernel",
                "codegen-differs",
                f"Exo: {_one_line(exo_results.get('-1'))}\n"
                f"exo2: {_one_line(mine_results.get(-1))}",
            )
        for k, step in enumerate(record["steps"]):
            if "source" not in step:
                continue
            if k >= len(rep["outcomes"]):
                break  # after the first disagreement
            a, b = rep["outcomes"][k], step["exo2"]
            row = {"sequence": s, "attempt": k, "primitive": step["primitive"]}
            if a.get("mutated_input"):  # besides what the step itself gives
                rows.append(
                    dict(row, detail=a["mutated_input"], extra=True)
                    | {"class": "exo-mutates-input"}
                )
            if b["outcome"] == "crash":
                row["class"] = "exo2-crash"
                row["detail"] = (
                    f"exo2: {b['error']}\n{b.get('trace', '')}\n"
                    f"Exo: {a.get('error') or 'accepts'}"
                )
            elif a["outcome"] != "ok" and b["outcome"] != "ok":
                row["class"] = "both-refuse"
            elif a["outcome"] == "ok" and b["outcome"] != "ok":
                row["class"] = "exo2-refuses"
                row["detail"] = f"exo2: {b['error']}"
                row["exo_sound"] = _keeps_kernel(exo_results, str(k), "-1")
            elif a["outcome"] != "ok":
                row["class"] = "exo-refuses"
                row["detail"] = f"Exo: {a['error']}"
            else:
                ra, rb = exo_results.get(str(k)), mine_results.get(k)
                codegen = (
                    None not in (compiles(ra), compiles(rb))
                    and compiles(ra) != compiles(rb)
                    and kernels != "codegen"
                )
                if not (_ran(ra) and _ran(rb)):
                    row["results"] = "not run"
                    row["why_not_run"] = f"Exo: {str(ra)[:200]}; exo2: {str(rb)[:200]}"
                    if (
                        compiles(ra)
                        and compiles(rb)
                        and _ran(ra) != _ran(rb)
                        and None not in (ra, rb)
                    ):  # one side crashed or failed while running
                        row["results"] = "differ"
                        row["results_detail"] = (
                            f"Exo: {_one_line(ra) if not _ran(ra) else 'runs'}; "
                            f"exo2: {_one_line(rb) if not _ran(rb) else 'runs'}"
                        )
                elif kernels == "differ":
                    keeps = (
                        _keeps_kernel(exo_results, str(k), "-1"),
                        _keeps_kernel(mine_results, k, -1),
                    )
                    row["results"] = "same" if keeps[0] == keeps[1] else "differ"
                    row["results_detail"] = (
                        f"the kernels' C already differ; Exo's step {keeps[0]}, "
                        f"exo2's step {keeps[1]}"
                    )
                else:
                    row["results"] = "same" if same_results(ra, rb) else "differ"
                    row["results_detail"] = (
                        f"Exo's step {_keeps_kernel(exo_results, str(k), '-1')}, "
                        f"exo2's step {_keeps_kernel(mine_results, k, -1)}"
                    )
                if a["text"] != b["text"]:
                    row["class"] = "text-differs"
                    row["detail"] = text_diff(a["text"], b["text"])
                elif codegen:
                    row["class"] = "codegen-differs"
                    row["detail"] = f"Exo: {_one_line(ra)}\nexo2: {_one_line(rb)}"
                elif row["results"] == "differ":
                    row["class"] = "results-differ"
                    row["detail"] = (
                        f"{row['results_detail']}\nthe procedure:\n{b['text']}"
                    )
                else:
                    row["class"] = "same"
            rows.append(row)
    return rows, kernel_rows


def _keeps_kernel(results, k, kernel_key):
    mine, kernel = results.get(k), results.get(kernel_key)
    if not (_ran(mine) and _ran(kernel)):
        return "not run"
    return (
        "keeps its kernel's results"
        if same_results(mine, kernel)
        else "CHANGES its kernel's results"
    )


# --------------------------------------------------------------------------- #
# The report


def kernel_source(name):
    text = (RANDOM / "random_schedules" / "corpus.py").read_text()
    match = re.search(rf"^@proc\ndef {name}\(.*?(?=^\S|\Z)", text, re.M | re.S)
    return (
        match.group(0).rstrip()
        if match
        else f"(see random_schedules/corpus.py: {name})"
    )


def reproducer(record, attempt):
    """The accepted steps before `attempt`, then the step itself."""
    lines = [
        "from random_schedules.corpus import *  # tests/python on sys.path",
        "from exo2.API_scheduling import *",
        "from exo2.libs.memories import DRAM_STACK, DRAM_STATIC",
        f"p = {record['kernel']}",
    ]
    if attempt < 0:
        return "\n".join([*lines, "print(p)"])
    for k, step in enumerate(record["steps"][: attempt + 1]):
        if "source" not in step:
            continue
        if k < attempt and step["exo2"]["outcome"] != "ok":
            continue
        lines += step["source"]
        if k == attempt:
            lines.append("print(p)")
    return "\n".join(lines)


def key_of(row, record):
    return f"differential:random:{row['primitive']}:{row['class']}:{record['kernel']}"


def not_run_reason(row):
    why = row.get("why_not_run")
    if why is None:
        return "not sampled, or a parameter this cannot give (a memory other than DRAM)"
    exo, mine = why.split("; exo2: ", 1)
    exo = exo.removeprefix("Exo: ")
    side, text = (
        ("Exo", exo)
        if exo not in ("None",) and not exo.startswith("[")
        else ("exo2", mine)
    )
    error = re.search(r"error: (.*)", text)
    text = error.group(1) if error else text
    text = " ".join(re.sub(r"\S*/tmp\S*", "", text).split())
    return f"{side}: {text[:100]}"


def write_report(out, args, sequences, replays, rows, entries, elapsed):
    from collections import Counter

    rows, kernel_rows = rows

    counts = {c: 0 for c in ("same", "both-refuse", *CLASSES)}
    for row in rows:
        counts[row["class"]] += 1
    same_rows = [r for r in rows if r["class"] == "same"]
    results_same = sum(r.get("results") == "same" for r in same_rows)
    not_run = sum(r.get("results") == "not run" for r in same_rows)
    unportable = sum("unportable" in st for s in sequences for st in s["steps"])
    attempted = sum("source" in st for s in sequences for st in s["steps"])
    on_refused = sum(
        sum("source" in st for st in s["steps"])
        for s, r in zip(sequences, replays, strict=True)
        if "kernel_refused" in r
    )
    compared = sum(not r.get("extra") for r in rows)
    after = attempted - on_refused - compared
    lines = [
        "# Random schedules on Exo and on exo2",
        "",
        f"Seed {args.seed}, {len(sequences)} sequences, {attempted} steps attempted "
        f"({unportable} more not written portably), {compared} compared, "
        + ("(report written again); " if args.report_only else f"in {elapsed:.0f} s; ")
        + f"results run for every {args.results_every} sequence(s).",
        "",
        "| outcome | steps |",
        "|---|---:|",
        f"| both accept, same text | {counts['same']} |",
        f"| &nbsp;&nbsp;of which results run and equal | {results_same} |",
        f"| &nbsp;&nbsp;of which results not run (below: why) | {not_run} |",
        f"| both refuse | {counts['both-refuse']} |",
        f"| exo2 refuses, Exo accepts | {counts['exo2-refuses']} |",
        f"| Exo refuses, exo2 accepts | {counts['exo-refuses']} |",
        f"| both accept, printed text differs | {counts['text-differs']} |",
        f"| both accept, same text, compiles on one side only | {counts['codegen-differs']} |",
        f"| both accept, same text, results differ | {counts['results-differ']} |",
        f"| Exo changes the procedure it was given (as well as one of the above) "
        f"| {counts['exo-mutates-input']} |",
        f"| exo2 crashes (not a documented refusal) | {counts['exo2-crash']} |",
        f"| not compared: after a disagreement in their sequence | {after} |",
        f"| not compared: on a kernel Exo refuses | {on_refused} |",
        "",
    ]
    reasons = Counter(
        not_run_reason(r) for r in same_rows if r.get("results") == "not run"
    )
    if reasons:
        lines += ["Why results were not run (steps):", ""]
        lines += [f"- {n}: {reason}" for reason, n in reasons.most_common()]
        lines.append("")
    by_key, problems = {}, 0
    for row in [*kernel_rows, *rows]:
        if row["class"] in ("same", "both-refuse"):
            continue
        by_key.setdefault(key_of(row, sequences[row["sequence"]]), []).append(row)
    lines += ["## Disagreements", ""]
    if not by_key:
        lines.append("None.")
    for key, group in sorted(by_key.items()):
        listed = [find_entry(entries, key, row.get("detail", "")) for row in group]
        unlisted = sum(entry is None for entry in listed)
        reasons = {f"{e['category']}: `{e['key']}`" for e in listed if e is not None}
        status = (
            f"PROBLEM ({unlisted} not listed)"
            if unlisted
            else f"listed ({'; '.join(sorted(reasons))})"
        )
        problems += unlisted > 0
        lines += [f"### {key}: {len(group)} step(s), {status}", ""]
        first = min(
            group,
            key=lambda r: (
                len(reproducer(sequences[r["sequence"]], r["attempt"])),
                r["sequence"],
            ),
        )
        record = sequences[first["sequence"]]
        for row in group:
            extra = (
                f"; Exo's procedure {row['exo_sound']}" if "exo_sound" in row else ""
            )
            if "results" in row:
                extra += f"; results {row['results']}"
                if row.get("results_detail"):
                    extra += f" ({row['results_detail']})"
            where = "the kernel" if row["attempt"] < 0 else f"attempt {row['attempt']}"
            lines.append(
                f"- sequence {row['sequence']} "
                f"({sequences[row['sequence']]['kernel']}), {where}{extra}"
            )
        lines += [
            "",
            "Shortest reproducer:",
            "",
            "```python",
            reproducer(record, first["attempt"]),
            "```",
            "",
        ]
        if first.get("detail"):
            lines += ["```text", first["detail"].rstrip()[:3000], "```", ""]
    kernels = sorted(
        {sequences[r["sequence"]]["kernel"] for g in by_key.values() for r in g}
    )
    if kernels:
        lines += [
            "## The kernels of the reproducers (tests/python/random_schedules/corpus.py)",
            "",
        ]
        for name in kernels:
            lines += ["```python", kernel_source(name), "```", ""]
    (out / "random.md").write_text("\n".join(lines) + "\n")
    return problems, counts


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exo-python", help="the interpreter that imports exo")
    parser.add_argument(
        "--out", default=str(ROOT / "build" / "conformance" / "differential")
    )
    parser.add_argument("--expected", default=str(HERE / "expected_differences.toml"))
    parser.add_argument(
        "--seed",
        type=int,
        default=int(os.environ.get("EXO2_DIFFERENTIAL_RANDOM_SEED", "1")),
    )
    parser.add_argument(
        "--steps",
        type=int,
        default=int(os.environ.get("EXO2_DIFFERENTIAL_RANDOM_STEPS", "400")),
        help="steps attempted (portable ones) over all sequences",
    )
    parser.add_argument(
        "--results-every",
        type=int,
        default=1,
        help="run the procedures of every N-th sequence (1: all)",
    )
    parser.add_argument("--kernel", action="append", default=[])
    parser.add_argument(
        "--report-only",
        action="store_true",
        help="write the report of the run already in --out again (after "
        "editing expected_differences.toml)",
    )
    parser.add_argument(
        "--replay", nargs=2, metavar=("STEPS", "OUT"), help=argparse.SUPPRESS
    )
    args = parser.parse_args(argv)

    if args.replay:  # Exo's side, in Exo's interpreter
        install_side("exo")
        replay(*args.replay, args.results_every)
        return 0

    install_side("exo2")
    started = time.perf_counter()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.report_only:  # compare the run already in `out` again
        args.seed, *run = load_run(out)
        return compare_and_report(args, out, *run, started)
    corpus = load_corpus()
    sequences, procedures = generate(args, corpus)
    steps_file = out / "random.steps.json"
    steps_file.write_text(
        json.dumps({"seed": args.seed, "sequences": sequences}, indent=1)
    )
    exo_file = out / "random.exo.json"
    exo_file.unlink(missing_ok=True)
    result = subprocess.run(
        [
            args.exo_python,
            str(Path(__file__).resolve()),
            "--replay",
            str(steps_file),
            str(exo_file),
        ]
        + ["--results-every", str(args.results_every)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    if not exo_file.exists():
        raise SystemExit(
            f"differential_random: the Exo replay failed:\n{result.stderr[-3000:]}"
        )
    replays = json.loads(exo_file.read_text())["replays"]

    # exo2's results, for the steps both sides accepted, of sampled sequences
    by_name = {k.proc.name(): k for k in corpus.KERNELS}
    workdir = tempfile.mkdtemp(prefix="exo2-differential-random-")
    exo2_results = {}
    for s, (record, rep) in enumerate(zip(sequences, replays, strict=True)):
        if "kernel_refused" in rep or s % args.results_every:
            continue
        both = [
            k
            for k, o in enumerate(rep["outcomes"])
            if o and o["outcome"] == "ok" and k in procedures[s]
        ]
        kernel = by_name[record["kernel"]]
        results = run_sequence(
            "exo2",
            [kernel.proc, *(procedures[s][k] for k in both)],
            kernel.sizes,
            workdir,
        )
        exo2_results[s] = (
            results
            if isinstance(results, str)
            else dict(zip([-1, *both], results, strict=True))
        )
    (out / "random.exo2.json").write_text(
        json.dumps({str(k): v for k, v in exo2_results.items()})
    )
    return compare_and_report(args, out, sequences, replays, exo2_results, started)


def load_run(out):
    """The steps and both sides' outcomes of a run written in `out`."""
    steps = json.loads((out / "random.steps.json").read_text())
    sequences, seed = steps["sequences"], steps["seed"]
    replays = json.loads((out / "random.exo.json").read_text())["replays"]
    exo2_results = {
        int(s): v if isinstance(v, str) else {int(k): r for k, r in v.items()}
        for s, v in json.loads((out / "random.exo2.json").read_text()).items()
    }
    return seed, sequences, replays, exo2_results


def compare_and_report(args, out, sequences, replays, exo2_results, started):
    from report import load_expected

    rows, kernel_rows = compare(sequences, replays, exo2_results)
    entries = load_expected(args.expected)
    problems, counts = write_report(
        out,
        args,
        sequences,
        replays,
        (rows, kernel_rows),
        entries,
        time.perf_counter() - started,
    )
    print(
        f"differential_random: seed {args.seed}, "
        f"{sum(not r.get('extra') for r in rows)} steps compared "
        + ", ".join(f"{k} {v}" for k, v in counts.items())
        + f"; {problems} unlisted disagreement(s); report in {out / 'random.md'}"
    )
    print_problems(out / "random.md")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
