"""Failures the fuzzer finds whose fixes belong to other work in progress.

Each entry names the failure by outcome and a regular expression over the
case's exception text (message and traceback), and says where its fix is
being made. A run reports these cases as `known` instead of failing; remove
an entry once its fix is merged (the run then fails again if the fix missed
a case).
"""

import re
from dataclasses import dataclass

from outcomes import LEAK, UNCOMPILABLE


@dataclass(frozen=True)
class Known:
    outcome: str
    pattern: str
    reason: str

    def matches(self, result):
        text = result.get("message", "") + "\n" + result.get("traceback", "")
        return result["outcome"] == self.outcome and re.search(self.pattern, text)


KNOWN = [
    Known(
        UNCOMPILABLE,
        r"two or more data types in declaration specifiers"
        r"|expected identifier or .\(. before .(void|int|double|char)."
        r"|conflicting types for .(malloc|free|select|main|exit|abs).",
        "names that are C keywords or libc functions are not mangled in the C "
        "(issue 15, the code generation part)",
    ),
    Known(
        UNCOMPILABLE,
        r"called object .\w+. is not a function or function pointer",
        "extract_subproc names the subprocedure like a variable in scope "
        "(issue 15, the code generation part)",
    ),
    Known(
        LEAK,
        r"IndexError: unordered_map::at",
        "delete_config applied to an allocation, or inline of a callee that "
        "writes a scalar argument, leave an unbound name (issues 14 and 15)",
    ),
]


def known_reason(result):
    """The reason of the known failure `result` is, or None."""
    for entry in KNOWN:
        if entry.matches(result):
            return entry.reason
    return None
