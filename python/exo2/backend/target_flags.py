"""The C compiler flags a generated library needs for the instructions it
uses (docs/compiling-and-calling.md, "CMake").

Vector instructions emit C intrinsics, which GCC and Clang compile only for
a target that has them: without `-mavx2 -mfma`, a call to
`_mm256_fmadd_ps` fails with "target specific option mismatch". Each
memory names the flags its registers need (`Memory.c_flags()`); a library
needs those of every memory that its procedures, and the procedures and
instructions they call, take arguments in or allocate.
"""


def _memories(proc, seen, found):
    """Adds to `found` the memories `proc` and its callees use."""
    from ..API_cursors import AllocCursor, CallCursor

    if proc.name() in seen:
        return
    seen.add(proc.name())
    for arg in proc.args():
        if arg.type().is_numeric():
            found.append(arg.mem())
    blocks = [proc.body()]
    while blocks:
        for stmt in blocks.pop():
            if isinstance(stmt, AllocCursor):
                found.append(stmt.mem())
            elif isinstance(stmt, CallCursor):
                _memories(stmt.subproc(), seen, found)
            for scope in ("body", "orelse"):
                block = getattr(stmt, scope, None)
                if block is not None and block():
                    blocks.append(block())


def target_flags(procs):
    """The flags (in a stable order, without repeats) that compiling the
    library of `procs` needs, e.g. `["-mavx2", "-mfma"]`; none for plain C."""
    memories = []
    seen = set()
    for proc in procs:
        _memories(proc, seen, memories)
    flags = []
    for memory in memories:
        for flag in memory.c_flags():
            if flag not in flags:
                flags.append(flag)
    return flags
