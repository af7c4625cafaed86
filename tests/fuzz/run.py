"""The bad-input fuzzer: runs fuzz cases in child processes and reports.

    python tests/fuzz/run.py                 # the CI budget, seeds from HEAD
    python tests/fuzz/run.py --long          # 6,000 cases per mode, a table
    python tests/fuzz/run.py --cases 500 --seed 7 --jobs 4
    python tests/fuzz/run.py --repro chain:1234   # one case, in this process

Cases run in worker processes (`--worker`), many per worker for speed; a
worker that dies takes its case with it (a *crash*) and is restarted, one
that does not answer within the timeout is killed (a *hang*). Case seeds are
`base + k`; the base rotates with the commit (the first 8 hex digits of
HEAD) unless `--seed` fixes it, so CI explores new cases on every commit and
every failure prints the command that reproduces it. Exit status 1 when a
case leaked an internal exception, crashed, hung, produced C that does not
compile or changed a kernel's results (docs/errors.md).
"""

import argparse
import json
import os
import select
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from known import known_reason  # noqa: E402
from outcomes import CRASH, FAILURES, HANG, KNOWN_FAILURE, ORDER  # noqa: E402

CI_CASES = 600  # per mode
LONG_CASES = 6000  # per mode
STARTUP_TIMEOUT = 120  # seconds for a worker to import exo2 and the corpus


def base_seed():
    """The first 8 hex digits of HEAD as a number, or 0 outside git."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=HERE,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        return int(head[:8], 16)
    except (OSError, subprocess.CalledProcessError, ValueError):
        return 0


def repro_command(mode, seed):
    return f"python tests/fuzz/run.py --repro {mode}:{seed}"


# --------------------------------------------------------------------------- #
# Workers


class Worker:
    """A child process running cases, one JSON result line per case."""

    def __init__(self, env):
        self.env = env
        self.log = tempfile.TemporaryFile()
        self.process = None

    def start(self):
        self.process = subprocess.Popen(
            [sys.executable, str(HERE / "run.py"), "--worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            env=self.env,
        )
        return self._read(STARTUP_TIMEOUT) == "ready"

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process = None

    def run(self, mode, seed, timeout):
        """The result of one case; crash and hang results when the worker
        dies or does not answer."""
        if self.process is None and not self.start():
            self.stop()
            return _failure(mode, seed, CRASH, "the worker did not start")
        self.process.stdin.write(f"{mode} {seed}\n".encode())
        self.process.stdin.flush()
        line = self._read(timeout)
        if line is None:
            self.stop()
            return _failure(mode, seed, HANG, f"no answer within {timeout} s")
        if line == "":
            code = self.process.wait()
            self.process = None
            return _failure(mode, seed, CRASH, f"the worker died (status {code})")
        return json.loads(line)

    def _read(self, timeout):
        """A line without its newline; "" at end of file; None on timeout."""
        out = self.process.stdout
        ready, _, _ = select.select([out], [], [], timeout)
        if not ready:
            return None
        return out.readline().decode().rstrip("\n")


def _failure(mode, seed, outcome, message):
    return {
        "mode": mode,
        "seed": seed,
        "outcome": outcome,
        "class": "",
        "where": "",
        "message": message,
    }


def worker_main():
    """Runs cases read from stdin until it closes. Kernels' own prints and
    the C compiler's output go to /dev/null; results go to the original
    stdout."""
    results = os.fdopen(os.dup(1), "w")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    import cases
    import corpus

    corpus.load()
    results.write("ready\n")
    results.flush()
    for line in sys.stdin:
        mode, seed = line.split()
        result = cases.run_case(mode, int(seed))
        results.write(json.dumps(result) + "\n")
        results.flush()


# --------------------------------------------------------------------------- #
# Campaigns


def run_campaign(modes, cases, base, jobs, timeout, progress=None):
    """Runs `cases` cases of each mode (seeds `base + k`) on `jobs`
    workers; returns the result dicts."""
    todo = [(mode, base + k) for k in range(cases) for mode in modes]
    todo.reverse()
    results = []
    lock = threading.Lock()
    cache = tempfile.TemporaryDirectory(prefix="exo2_fuzz_cache_")
    env = {**os.environ, "EXO2_CACHE_DIR": cache.name, "PYTHONHASHSEED": "0"}

    def work():
        worker = Worker(env)
        try:
            while True:
                with lock:
                    if not todo:
                        return
                    mode, seed = todo.pop()
                result = worker.run(mode, seed, timeout)
                if result["outcome"] in FAILURES and (reason := known_reason(result)):
                    result.update(outcome=KNOWN_FAILURE, known=reason)
                with lock:
                    results.append(result)
                    if progress:
                        progress(len(results), len(modes) * cases)
        finally:
            worker.stop()

    threads = [threading.Thread(target=work) for _ in range(jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    cache.cleanup()
    return sorted(results, key=lambda r: (r["mode"], r["seed"]))


def table(results):
    """The outcome counts per mode, as text."""
    modes = sorted({r["mode"] for r in results})
    counts = {
        m: Counter(r["outcome"] for r in results if r["mode"] == m) for m in modes
    }
    width = max(len(o) for o in ORDER)
    lines = [
        f"{'outcome':<{width}}  " + "  ".join(f"{m:>8}" for m in modes) + "     total"
    ]
    for outcome in ORDER:
        row = [counts[m][outcome] for m in modes]
        lines.append(
            f"{outcome:<{width}}  "
            + "  ".join(f"{n:>8}" for n in row)
            + f"  {sum(row):>8}"
        )
    total = [sum(counts[m].values()) for m in modes]
    lines.append(
        f"{'cases':<{width}}  "
        + "  ".join(f"{n:>8}" for n in total)
        + f"  {sum(total):>8}"
    )
    return "\n".join(lines)


def error_classes(results):
    """Counter of the documented error classes the cases raised (refused
    chain steps included)."""
    return Counter(name for r in results for name in r.get("classes", []))


def failures(results):
    """The failing results, one per distinct (outcome, class, where)."""
    seen, out = set(), []
    for r in results:
        if r["outcome"] not in FAILURES:
            continue
        key = (
            r["outcome"],
            r["class"],
            r["where"],
            r["message"][:60] if not r["class"] else "",
        )
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out


def known_report(results):
    """The known failures (known.py), counted by reason."""
    counts = Counter(r["known"] for r in results if r["outcome"] == KNOWN_FAILURE)
    return "\n".join(f"  {n:>5}  {reason}" for reason, n in counts.most_common())


def failure_report(results):
    lines = []
    for r in failures(results):
        lines.append(
            f"{r['outcome']}: {r['class']} at {r['where']}: {r['message']}\n"
            f"    {r.get('what', '')}\n"
            f"    reproduce: {repro_command(r['mode'], r['seed'])}"
        )
    return "\n".join(lines)


def reproduce(case):
    """Runs one case in this process and prints everything about it."""
    import cases

    mode, seed = case.split(":")
    result = cases.run_case(mode, int(seed), verbose=True)
    if "source" in result:
        print(result.pop("source"))
    for step in result.pop("steps", []):
        print("  step:", step)
    tb = result.pop("traceback", None)
    print(json.dumps(result, indent=2))
    if tb:
        print(tb)
    return 1 if result["outcome"] in FAILURES else 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--long", action="store_true", help=f"{LONG_CASES} cases per mode"
    )
    parser.add_argument("--cases", type=int, help="cases per mode")
    parser.add_argument("--modes", default="mutate,chain")
    parser.add_argument("--seed", type=int, help="base seed (default: from HEAD)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per case")
    parser.add_argument("--repro", metavar="MODE:SEED", help="run one case here")
    parser.add_argument("--json", metavar="FILE", help="write all results")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker_main()
        return 0
    if args.repro:
        return reproduce(args.repro)
    cases = args.cases or (LONG_CASES if args.long else CI_CASES)
    base = base_seed() if args.seed is None else args.seed
    modes = args.modes.split(",")
    start = time.time()

    def progress(done, total):
        if done % 200 == 0 or done == total:
            print(
                f"  {done}/{total} cases, {time.time() - start:.0f} s", file=sys.stderr
            )

    results = run_campaign(modes, cases, base, args.jobs, args.timeout, progress)
    print(f"base seed {base}, {time.time() - start:.0f} s")
    print(table(results))
    print("\ndocumented error classes raised:")
    for name, n in error_classes(results).most_common():
        print(f"  {name:<24} {n}")
    if known := known_report(results):
        print("\nknown failures (tests/fuzz/known.py):\n" + known)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    report = failure_report(results)
    if report:
        print("\nfailures:\n" + report)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
