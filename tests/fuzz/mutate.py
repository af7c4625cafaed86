"""Source mutations of valid kernels.

`mutant(seed)` picks a corpus kernel and applies one to three random edits
to its text: delete, duplicate or swap tokens; replace a number by a random
one (huge, negative, zero, fractional); replace a name by another name of
the kernel, a random or reserved one; swap a type for another type or a
memory for another memory; swap an operator; delete, duplicate or swap
lines. Only mutants that are still Python are kept (a mutant Python itself
rejects says nothing about exo2); the edits stay inside the kernel's
definition, so every failure comes from exo2.
"""

import ast
import io
import random
import tokenize
from dataclasses import dataclass

import corpus

TYPES = ["f16", "f32", "f64", "i8", "ui8", "ui16", "i32", "R", "size", "index",
         "bool", "stride", "int", "barrier"]  # fmt: skip
MEMORIES = ["DRAM", "DRAM_STATIC", "DRAM_STACK", "NOPE", "Knobs", "relu", "seq"]
NUMBERS = ["0", "1", "-1", "2", "3", "7", "8", "1024", "0.5", "-0.0", "1e400",
           "2147483648", "9223372036854775807", "9223372036854775808",
           "18446744073709551620", "True", "False", "None", "'s'"]  # fmt: skip
NAMES = ["seq", "par", "stride", "Knobs", "Knobs.k", "Knobs.flag", "helper",
         "copy_one", "noop", "relu", "select", "sqrt", "DRAM", "nope", "x",
         "i", "n", "int", "double", "malloc", "self", "python", "_"]  # fmt: skip
OPERATORS = ["+", "-", "*", "/", "%", "//", "<", ">", "<=", ">=", "==", "!=",
             "and", "or", "not", "@", "**"]  # fmt: skip
MAX_TRIES = 50


@dataclass
class Mutant:
    kernel: str  # the corpus kernel's key
    original: str  # its source
    source: str  # the mutated source
    edits: list  # descriptions of the edits


def mutant(seed):
    """A random mutant of a random corpus kernel that is still Python."""
    rng = random.Random(seed)
    units = {**corpus.KERNELS, **corpus.DEFINITIONS}
    key = rng.choice(sorted(units))
    original = units[key].strip() + "\n"
    for _ in range(MAX_TRIES):
        text, edits = original, []
        for _ in range(rng.choice([1, 1, 1, 2, 2, 3])):
            text, edit = _edit(rng, text)
            edits.append(edit)
        if text != original and _is_python(text):
            return Mutant(key, original, text, edits)
    return Mutant(key, original, original, ["(no mutation found)"])


def _is_python(text):
    """Whether `text` is Python that defines one decorated function and
    does nothing else (a line moved out of the function would run as
    module code)."""
    try:
        compile(text, "<mutant>", "exec", dont_inherit=True)
        body = ast.parse(text).body
    except (SyntaxError, ValueError):
        return False
    if len(body) != 1 or not isinstance(
        body[0], (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    ):
        return False
    if isinstance(body[0], ast.ClassDef):
        # Python runs a class body when the class is defined: only
        # statements that cannot fail (annotations are not evaluated).
        return (
            len(body[0].decorator_list) == 1
            and not body[0].bases
            and not body[0].keywords
            and all(_runs_safely(stmt) for stmt in body[0].body)
        )
    fdef = body[0]
    # Python evaluates default values when the `def` runs, before exo2 sees
    # the function: only literals, which exo2 then refuses.
    defaults = fdef.args.defaults + [d for d in fdef.args.kw_defaults if d]
    return len(fdef.decorator_list) == 1 and all(
        isinstance(d, ast.Constant) for d in defaults
    )


def _runs_safely(stmt):
    """Whether Python can run the class-body statement `stmt` without error."""
    if isinstance(stmt, ast.AnnAssign):
        return isinstance(stmt.target, ast.Name) and (
            stmt.value is None or isinstance(stmt.value, ast.Constant)
        )
    if isinstance(stmt, ast.Assign):
        return all(isinstance(t, ast.Name) for t in stmt.targets) and isinstance(
            stmt.value, ast.Constant
        )
    if isinstance(stmt, ast.Expr):
        return isinstance(stmt.value, ast.Constant)
    return isinstance(stmt, ast.Pass)


def _tokens(text):
    """The editable tokens of the kernel text after the decorator line:
    `(kind, string, start offset, end offset)`."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    out = []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return []  # an earlier edit broke the text; this mutant is dropped
    for tok in tokens:
        if tok.start[0] < 2 or tok.type in (
            tokenize.NEWLINE,
            tokenize.NL,
            tokenize.INDENT,
            tokenize.DEDENT,
            tokenize.ENDMARKER,
            tokenize.COMMENT,
        ):
            continue
        begin = starts[tok.start[0] - 1] + tok.start[1]
        end = starts[tok.end[0] - 1] + tok.end[1]
        out.append((tok.type, tok.string, begin, end))
    return out


def _replace(text, tok, new):
    return text[: tok[2]] + new + text[tok[3] :]


def _edit(rng, text):
    """One random edit of `text` and its description."""
    tokens = _tokens(text)
    if not tokens:
        return text, "(no tokens)"
    kind = rng.choice(
        [
            "delete",
            "duplicate",
            "swap",
            "number",
            "name",
            "type",
            "memory",
            "operator",
            "line",
        ]  # fmt: skip
    )
    tok = rng.choice(tokens)
    if kind == "delete":
        return _replace(text, tok, ""), f"delete {tok[1]!r}"
    if kind == "duplicate":
        return _replace(text, tok, tok[1] + " " + tok[1]), f"duplicate {tok[1]!r}"
    if kind == "swap":
        other = rng.choice(tokens)
        a, b = sorted([tok, other], key=lambda t: t[2])
        if a[3] > b[2]:
            return text, "swap (overlap)"
        swapped = text[: a[2]] + b[1] + text[a[3] : b[2]] + a[1] + text[b[3] :]
        return swapped, f"swap {a[1]!r} and {b[1]!r}"
    if kind == "number":
        numbers = [t for t in tokens if t[0] == tokenize.NUMBER] or [tok]
        tok = rng.choice(numbers)
        new = rng.choice(NUMBERS + [str(rng.randint(-20, 20))])
        return _replace(text, tok, new), f"number {tok[1]!r} -> {new}"
    if kind == "name":
        names = [t for t in tokens if t[0] == tokenize.NAME]
        tok = rng.choice(names)
        pool = sorted({t[1] for t in names}) + NAMES
        new = rng.choice(pool)
        return _replace(text, tok, new), f"name {tok[1]!r} -> {new}"
    if kind == "type":
        typed = [t for t in tokens if t[1] in TYPES] or [tok]
        tok = rng.choice(typed)
        new = rng.choice(TYPES)
        return _replace(text, tok, new), f"type {tok[1]!r} -> {new}"
    if kind == "memory":
        return _memory_edit(rng, text, tokens)
    if kind == "operator":
        ops = [t for t in tokens if t[1] in OPERATORS] or [tok]
        tok = rng.choice(ops)
        new = rng.choice(OPERATORS)
        return _replace(text, tok, new), f"operator {tok[1]!r} -> {new}"
    return _line_edit(rng, text)


def _memory_edit(rng, text, tokens):
    """Swaps a memory, or adds one to a declaration (`x: f32[n] @ M`)."""
    memories = [t for t in tokens if t[1] in MEMORIES]
    new = rng.choice(MEMORIES)
    if memories and rng.random() < 0.5:
        tok = rng.choice(memories)
        return _replace(text, tok, new), f"memory {tok[1]!r} -> {new}"
    declared = [t for t in tokens if t[1] in TYPES and t[1] not in ("size", "index")]
    if not declared:
        return text, "memory (no declaration)"
    tok = rng.choice(declared)
    lines = text.splitlines(keepends=True)
    offset, line_no = 0, 0
    for k, line in enumerate(lines):
        if offset + len(line) > tok[2]:
            line_no = k
            break
        offset += len(line)
    line = lines[line_no]
    # Annotate the declaration the type belongs to: up to the end of the
    # line for an allocation, up to the next ',' or ')' for a parameter.
    rest = line[tok[2] - offset :]
    cut = min(
        [p for p in (rest.find(","), rest.find(")")) if p >= 0] or [len(rest.rstrip())]
    )
    position = tok[2] + cut
    return text[:position] + f" @ {new}" + text[position:], f"annotate @ {new}"


def _line_edit(rng, text):
    lines = text.splitlines(keepends=True)
    if len(lines) < 3:
        return text, "line (too short)"
    k = rng.randrange(2, len(lines))
    action = rng.choice(["delete", "duplicate", "swap", "dedent", "indent"])
    if action == "delete":
        del lines[k]
    elif action == "duplicate":
        lines.insert(k, lines[k])
    elif action == "swap":
        j = rng.randrange(2, len(lines))
        lines[k], lines[j] = lines[j], lines[k]
    elif action == "dedent":
        lines[k] = lines[k][4:] if lines[k].startswith("    ") else lines[k]
    else:
        lines[k] = "    " + lines[k]
    return "".join(lines), f"line {k + 1} {action}"
