"""`exo2c`: compiles the procedures of Python modules into a C library
(procedure-and-codegen.md §3)."""

import argparse
import importlib.machinery
import importlib.util
import inspect
import sys
from pathlib import Path

import exo2

from .API import Procedure, compile_procs


def main():
    """The console entry point."""
    exo2c(*sys.argv[1:], name=Path(sys.argv[0]).name)


def exo2c(*args, name="exo2c"):
    """Runs exo2c on the command-line arguments `args`."""
    sys.setrecursionlimit(10000)
    parser = argparse.ArgumentParser(prog=name, description="Compile an exo2 library.")
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

    if args.pythonpath:
        pythonpath = str(Path(args.pythonpath).resolve())
    elif len(args.source) == 1:
        pythonpath = str(Path(args.source[0]).resolve().parent)
    else:
        pythonpath = str(Path.cwd())

    outdir.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, pythonpath)
    try:
        library = [
            proc
            for mod in args.source
            for proc in get_procs_from_module(load_user_code(mod))
        ]
    finally:
        sys.path.remove(pythonpath)

    if args.target == "cuda":
        from .platforms.cuda import compile_cuda

        compile_cuda(library, outdir, stem)
        write_depfile(outdir, stem, extensions=("c", "h", "cuh", "cu"))
    else:
        compile_procs(library, outdir, f"{stem}.c", f"{stem}.h")
        write_depfile(outdir, stem)


exocc = exo2c


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
    library = []
    for sym in exported:
        if not sym.startswith("_"):
            fn = getattr(user_module, sym)
            if isinstance(fn, Procedure) and not fn.is_instr():
                library.append(fn)
    return library


def load_user_code(path):
    """Executes the Python file `path` as a module named after its stem."""
    module_path = Path(path).resolve()
    if not module_path.is_file():
        raise ValueError(f"Expected path to a file, got: {path}")
    module_name = module_path.stem
    loader = importlib.machinery.SourceFileLoader(module_name, str(module_path))
    spec = importlib.util.spec_from_loader(module_name, loader)
    user_module = importlib.util.module_from_spec(spec)
    loader.exec_module(user_module)
    return user_module


if __name__ == "__main__":
    main()
