"""exo2.platforms.x86 keeps every instruction exactly as recorded: the same
public names, and for each instruction the same printed procedure, C
template, C global text, and argument precisions and memories.

The golden file tests/python/golden/x86_instructions.json was recorded from
the hand-written module before its instruction families were generated from
descriptions (docs/platform-x86.md, "How the families are described"), so
the generator is held to the definitions it replaced. A deliberate change of
an instruction regenerates it with EXO2_REGEN_GOLDEN=1; review the diff."""

import json
import os
from pathlib import Path

import exo2.platforms.x86 as x86
import pytest
from exo2 import Procedure

GOLDEN = Path(__file__).parent / "golden" / "x86_instructions.json"


def _arg(arg):
    """`[name, type, memory]`; a size or index argument has no memory."""
    if arg.type().is_indexable():
        return [arg.name(), str(arg.type()), None]
    return [arg.name(), str(arg.type()), arg.mem().name()]


def _record(instr):
    """What an instruction is, as text that JSON can hold."""
    return {
        "proc": str(instr),
        "c_instr": instr._proc.c_instr(),
        "c_global": instr._proc.c_global(),
        "args": [_arg(arg) for arg in instr.args()],
    }


def _live():
    public = sorted(name for name in vars(x86) if not name.startswith("_"))
    instructions = {
        name: _record(value)
        for name, value in sorted(vars(x86).items())
        if not name.startswith("_")
        and isinstance(value, Procedure)
        and value.is_instr()
    }
    return {"public_names": public, "instructions": instructions}


if os.environ.get("EXO2_REGEN_GOLDEN"):
    GOLDEN.write_text(json.dumps(_live(), indent=1, sort_keys=True) + "\n")

RECORDED = json.loads(GOLDEN.read_text())
LIVE = _live()


def test_the_module_exports_the_recorded_names():
    assert LIVE["public_names"] == RECORDED["public_names"]


def test_every_recorded_instruction_is_still_an_instruction():
    assert sorted(LIVE["instructions"]) == sorted(RECORDED["instructions"])


@pytest.mark.parametrize("name", sorted(RECORDED["instructions"]))
def test_instruction_matches_its_recorded_definition(name):
    recorded = RECORDED["instructions"][name]
    live = LIVE["instructions"].get(name)
    assert live is not None, f"{name} is no longer defined"
    for field in ("proc", "c_instr", "c_global", "args"):
        assert live[field] == recorded[field], f"{name}: {field} differs"
