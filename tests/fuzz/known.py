"""Failures the fuzzer finds whose fixes belong to other work in progress.

Each entry names the failure by outcome and a regular expression over the
case's exception text (message and traceback), and says where its fix is
being made. A run reports these cases as `known` instead of failing; remove
an entry once its fix is merged (the run then fails again if the fix missed
a case).
"""

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Known:
    outcome: str
    pattern: str
    reason: str

    def matches(self, result):
        text = result.get("message", "") + "\n" + result.get("traceback", "")
        return result["outcome"] == self.outcome and re.search(self.pattern, text)


KNOWN = []


def known_reason(result):
    """The reason of the known failure `result` is, or None."""
    for entry in KNOWN:
        if entry.matches(result):
            return entry.reason
    return None
