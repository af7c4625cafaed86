"""Every ```python block of the user guide (docs/*.md) runs as written.

Each block is a self-contained program: it is written to its own file (kernels
are parsed from their source text, so they need a real file) and imported as
a fresh module. Blocks that are not meant to run are marked ```text.
"""

import importlib.util
import pathlib
import re
import sys

import pytest

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs"
_BLOCK = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)


def python_blocks():
    """`(id, source)` of every python block in docs/*.md, in order."""
    blocks = []
    for page in sorted(DOCS.glob("*.md")):
        text = page.read_text()
        for match in _BLOCK.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            blocks.append((f"{page.name}:{line}", match.group(1)))
    return blocks


BLOCKS = python_blocks()


def test_user_guide_has_examples():
    assert (DOCS / "writing-kernels.md").exists()
    assert len([b for b in BLOCKS if b[0].startswith("writing-kernels.md")]) >= 10


@pytest.mark.parametrize("source", [b[1] for b in BLOCKS], ids=[b[0] for b in BLOCKS])
def test_docs_example_runs(source, tmp_path, capsys):
    index = len(list(tmp_path.iterdir()))
    path = tmp_path / f"docs_example_{index}.py"
    path.write_text(source)
    name = f"_docs_example_{abs(hash(str(path)))}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[name]
