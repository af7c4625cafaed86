"""`exo2c`: compiles the procedures of Python modules into a C library
(docs/compiling-and-calling.md)."""

import argparse
import importlib.machinery
import importlib.util
import inspect
import re
import sys
import traceback
from pathlib import Path

import exo2

from .API import Procedure, compile_procs
from .backend.target_flags import target_flags


class Exo2cError(ValueError):
    """A problem with exo2c's inputs or outputs: the message is one line that
    names the file and says what to change."""


class _Parser(argparse.ArgumentParser):
    """argparse, with usage errors on one line (and exit status 2)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def main():
    """The console entry point: runs exo2c; an error is one line on stderr
    (`exo2c: error: ...`) with exit status 1 (2 for usage errors)."""
    prog = Path(sys.argv[0]).name
    try:
        exo2c(*sys.argv[1:], name=prog)
    except Exception as e:
        print(f"{prog}: error: {one_line_error(e)}", file=sys.stderr)
        sys.exit(1)


def exo2c(*args, name="exo2c"):
    """Runs exo2c on the command-line arguments `args`. Usage errors exit
    with status 2 (argparse); input and output problems raise Exo2cError;
    errors in the user's modules propagate."""
    sys.setrecursionlimit(10000)
    parser = _Parser(prog=name, description="Compile an exo2 library.")
    parser.add_argument(
        "-o", "--outdir", metavar="OUTDIR", help="output directory for build artifacts"
    )
    parser.add_argument(
        "-p",
        "--pythonpath",
        metavar="PYTHONPATH",
        help="directory put first on sys.path",
    )
    parser.add_argument("-s", "--stem", help="base name for .c and .h files")
    parser.add_argument(
        "--target", choices=["c", "cuda"], default="c", help="code generator"
    )
    parser.add_argument("source", type=str, nargs="+", help="source file to compile")
    parser.add_argument(
        "-v",
        "--version",
        action="version",
        version=f"%(prog)s version {exo2.__version__}",
        help="print the version and exit",
    )
    args = parser.parse_args(args)
    srcname = Path(args.source[0]).stem

    if args.outdir:
        outdir = Path(args.outdir)
    elif len(args.source) == 1:
        outdir = Path(srcname)
    else:
        parser.error("Must provide -o when processing multiple source files.")

    if args.stem:
        stem = args.stem
    elif len(args.source) == 1:
        stem = srcname
    else:
        parser.error("Must provide --stem when processing multiple source files.")
    if not stem or Path(stem).name != stem:
        parser.error(
            f"the stem '{stem}' must be a plain file name (no directories): "
            "give the directory with -o"
        )

    if args.pythonpath:
        pythonpath = str(Path(args.pythonpath).resolve())
    elif len(args.source) == 1:
        pythonpath = str(Path(args.source[0]).resolve().parent)
    else:
        pythonpath = str(Path.cwd())

    sys.path.insert(0, pythonpath)
    try:
        library = [
            proc
            for mod in args.source
            for proc in get_procs_from_module(load_user_code(mod))
        ]
    finally:
        sys.path.remove(pythonpath)

    # The output folder is made only once the sources loaded: a failed run
    # leaves nothing behind.
    try:
        outdir.mkdir(parents=True, exist_ok=True)
        if args.target == "cuda":
            from .platforms.cuda import compile_cuda

            compile_cuda(library, outdir, stem)
            write_depfile(outdir, stem, extensions=("c", "h", "cuh", "cu"))
        else:
            compile_procs(library, outdir, f"{stem}.c", f"{stem}.h")
            flags = target_flags(library)
            if "#pragma omp" in (outdir / f"{stem}.c").read_text():  # par loops
                flags.append("-fopenmp")
            write_flags(outdir, stem, flags)
            write_depfile(outdir, stem)
    except OSError as e:
        raise Exo2cError(
            f"cannot write to the output directory {outdir}: "
            f"{e.strerror or e}; choose a writable directory with -o"
        ) from e


exocc = exo2c


def write_flags(outdir, stem, flags):
    """Writes `outdir/stem.cflags`: the compiler flags the library needs
    (its instructions' ISA, `-fopenmp` for `par` loops), one per line: a
    GCC / Clang response file, used as `@stem.cflags`; empty for plain C."""
    (Path(outdir) / f"{stem}.cflags").write_text("".join(f"{f}\n" for f in flags))


def write_depfile(outdir, stem, extensions=("c", "h")):
    """Writes the make-style depfile `outdir/stem.d` listing the files of
    every loaded module as dependencies of `outdir/stem.<ext>`."""
    modules = set()
    for mod in list(sys.modules.values()):
        try:
            modules.add(inspect.getfile(mod))
        except TypeError:
            pass  # built-in modules have no file
    outdir = Path(outdir)
    sep = " \\\n  "
    targets = " ".join(str(outdir / f"{stem}.{ext}") for ext in extensions)
    contents = f"{targets} : {sep.join(sorted(modules))}"
    (outdir / f"{stem}.d").write_text(contents)


def get_procs_from_module(user_module):
    """The public, non-instruction procedures of a module, in `__all__`
    order if it has one, else in `dir()` order."""
    symbols = dir(user_module)
    exported = user_module.__dict__["__all__"] if "__all__" in symbols else symbols
    where = getattr(user_module, "__file__", None) or user_module.__name__
    if not isinstance(exported, (list, tuple)) or not all(
        isinstance(sym, str) for sym in exported
    ):
        raise Exo2cError(f"{where}: __all__ must be a list of names (strings)")
    library = []
    for sym in exported:
        if not hasattr(user_module, sym):
            raise Exo2cError(
                f"{where}: __all__ names '{sym}', which the module does not "
                "define; define it or remove it from __all__"
            )
        if not sym.startswith("_"):
            fn = getattr(user_module, sym)
            if isinstance(fn, Procedure) and not fn.is_instr():
                library.append(fn)
    return library


def load_user_code(path):
    """Executes the Python file `path` as a module named after its stem."""
    module_path = Path(path).resolve()
    if not module_path.is_file():
        raise Exo2cError(
            f"Expected path to a file, got: {path} (no such file; check the "
            "source path)"
        )
    module_name = module_path.stem
    loader = importlib.machinery.SourceFileLoader(module_name, str(module_path))
    spec = importlib.util.spec_from_loader(module_name, loader)
    user_module = importlib.util.module_from_spec(spec)
    loader.exec_module(user_module)
    return user_module


def one_line_error(e):
    """`file:line[:col]: message (Class)` on one line, for an error raised
    by exo2c or while running the user's modules."""
    if isinstance(e, Exo2cError):
        return str(e)
    diagnostics = getattr(e, "diagnostics", None)
    if diagnostics:
        text = "; ".join(
            f"{file}:{line}:{col}: {_joined(message)}"
            for file, line, col, message in diagnostics
        )
        return f"{text} ({type(e).__name__})"
    message = _joined(str(e))
    where = None if _LOCATED.match(message) else _user_location(e)
    return f"{where + ': ' if where else ''}{message} ({type(e).__name__})"


def _joined(text):
    """The lines of `text` joined by spaces."""
    return " ".join(line.strip() for line in text.splitlines() if line.strip())


# A message that starts with its own `file:line[:col]: ` (ParseError).
_LOCATED = re.compile(r"^[^\s:]+:\d+(:\d+)?: ")


def _user_location(e):
    """`file:line[:col]` of the user's code an error is about: its report
    location, else the innermost frame outside exo2."""
    location = getattr(e, "location", None)
    if location:
        file, line, col = location
        return f"{file}:{line}" + (f":{col}" if col is not None else "")
    package = str(Path(exo2.__file__).resolve().parent)
    where = None
    for frame in traceback.extract_tb(e.__traceback__):
        if frame.filename.startswith("<"):
            continue  # frozen importlib frames
        if not str(Path(frame.filename).resolve()).startswith(package):
            where = f"{frame.filename}:{frame.lineno}"
    return where


if __name__ == "__main__":
    main()
