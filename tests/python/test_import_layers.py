"""The Python package imports in one direction (docs/internals/python-package.md).

Every import statement of `python/exo2` and of the scheduling library
(`stdlib/`, installed as `exo2.stdlib`) is read from the source, at module
level and inside functions alike: an import inside a function still makes
the two modules depend on each other, it only delays the failure to the
first call. From them the test builds the graph "module A imports module B"
and fails on any cycle, naming it.

What counts as importing B:
- `import B` and `from B import name` (B itself, where `name` is not a
  submodule of B: the names B defines or re-exports);
- `from B import sub` where `B.sub` is a module: `B.sub`;
- and the packages Python runs on the way (`__init__` of each package
  between the root and B) unless A is inside them already: importing
  `exo2.platforms.cuda.jit` from `exo2.API` would run `exo2.platforms.cuda`'s
  `__init__` first. A module's own enclosing packages are not counted: they
  are running already when it runs.
`exo2._core` (the C++ module) imports nothing of the package.

A second test checks the documented layers: a module may import only from
its own layer or below.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = {"exo2": ROOT / "python" / "exo2", "exo2.stdlib": ROOT / "stdlib"}
EXTENSION_MODULES = {"exo2._core"}

# The layers of docs/internals/python-package.md, lowest first. A module
# belongs to the first layer with a prefix matching its name (a prefix
# matches the module and everything under it).
LAYERS = [
    ("core extension", ["exo2._core"]),
    ("types", ["exo2.API_types"]),
    ("errors and argument checks", ["exo2.errors", "exo2.api_arguments"]),
    (
        "language objects and frontend",
        [
            "exo2.core",
            "exo2.frontend",
            "exo2.libs",
            "exo2.backend.prec_analysis",
        ],
    ),
    ("cursors", ["exo2.API_cursors"]),
    (
        "services on procedures",
        [
            "exo2.backend",
            "exo2.jit",
            "exo2.primitives.new_expressions",
            "exo2.primitives.procedure_methods",
        ],
    ),
    ("procedures", ["exo2.API"]),
    ("primitives", ["exo2.primitives", "exo2.API_scheduling", "exo2.rewrite"]),
    ("package", ["exo2.__init__"]),
    (
        "libraries and tools",
        ["exo2.platforms", "exo2.bench", "exo2.tune", "exo2.stdlib", "exo2.main"],
    ),
]


def module_files():
    """`{module name: path}` of every module of the package."""
    modules = {}
    for package, directory in SOURCES.items():
        for path in directory.rglob("*.py"):
            parts = list(path.relative_to(directory).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join([package, *parts])] = path
    return modules


MODULES = module_files()
KNOWN = set(MODULES) | EXTENSION_MODULES


def is_package(name):
    return name in MODULES and MODULES[name].name == "__init__.py"


def absolute(module, level, target):
    """The absolute name of `from <level dots><target> import ...` in `module`."""
    if level == 0:
        return target
    base = module.split(".")
    if not is_package(module):
        base.pop()
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def entered_packages(importer, imported):
    """The packages whose `__init__` runs when `importer` imports `imported`,
    other than those `importer` is inside already."""
    parts = imported.split(".")
    for i in range(1, len(parts)):
        package = ".".join(parts[:i])
        if is_package(package) and not (importer + ".").startswith(package + "."):
            yield package


def imports_of(module):
    """`{imported module: line}` of every import statement in `module`."""
    found = {}

    def add(name, line):
        if name not in KNOWN:
            return
        for package in entered_packages(module, name):
            found.setdefault(package, line)
        if name != module:
            found.setdefault(name, line)

    for node in ast.walk(ast.parse(MODULES[module].read_text())):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            source = absolute(module, node.level, node.module)
            for alias in node.names:
                sub = f"{source}.{alias.name}"
                add(sub if sub in KNOWN else source, node.lineno)
    return found


GRAPH = {module: imports_of(module) for module in MODULES}


def cycles():
    """The strongly connected components of GRAPH with more than one module
    (Tarjan's algorithm), each sorted."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in GRAPH.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(GRAPH):
        if module not in index:
            visit(module)
    return found


def describe(component):
    members = set(component)
    return "\n".join(
        f"  {a} -> {b} ({MODULES[a].relative_to(ROOT)}:{line})"
        for a in component
        for b, line in sorted(GRAPH[a].items())
        if b in members
    )


def layer_of(module):
    """The number of `module`'s layer in LAYERS. A package whose `__init__`
    imports nothing (`exo2.primitives`) is at the bottom: entering it runs
    nothing."""
    if is_package(module) and not GRAPH[module]:
        return 0
    name = f"{module}.__init__" if module == "exo2" else module
    for number, (_, prefixes) in enumerate(LAYERS):
        if any(name == p or name.startswith(p + ".") for p in prefixes):
            return number
    raise AssertionError(f"{module} is in no layer of LAYERS")


def test_the_graph_covers_the_package():
    assert len(MODULES) > 80
    assert "exo2.API_cursors" in GRAPH["exo2.API"]
    assert "exo2.API" in GRAPH["exo2.primitives.results"]


def test_the_package_has_no_import_cycle():
    found = cycles()
    assert not found, "import cycles:\n" + "\n\n".join(map(describe, found))


def test_every_import_points_to_the_same_layer_or_below():
    upward = [
        f"{a} ({LAYERS[layer_of(a)][0]}) -> {b} ({LAYERS[layer_of(b)][0]})"
        f" at {MODULES[a].relative_to(ROOT)}:{line}"
        for a, imported in sorted(GRAPH.items())
        for b, line in sorted(imported.items())
        if layer_of(b) > layer_of(a)
    ]
    assert not upward, "imports against the layering:\n" + "\n".join(upward)


def test_the_cycle_check_finds_a_cycle():
    saved = dict(GRAPH)
    try:
        GRAPH["exo2.API_types"] = {**GRAPH["exo2.API_types"], "exo2.API": 1}
        assert any("exo2.API_types" in c and "exo2.API" in c for c in cycles())
    finally:
        GRAPH.clear()
        GRAPH.update(saved)
