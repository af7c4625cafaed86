"""The repository stands alone: comments and docs cite only documents that are
in it (docs/README.md, "Citing documents").

Every text file of the repository is read, source and comments alike, and a
line fails when it
- carries a section sign (the sign of a section of some document: the
  repository's pages are cited by path and heading instead);
- names a path of the machine it was written on (under /work);
- cites a specification by name (`spec/x.md`, "the spec's texts", "spec
  README");
- names a Markdown document that does not exist: a `x.md` token must be a path
  from the repository root (`docs/errors.md`) or, in a Markdown page, a link
  relative to the page, except for the reports that tools of the repository
  write (GENERATED_REPORTS) and file names built in code (quoted strings).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# What is read: the tracked trees and top-level files; never build outputs or
# the virtual environment.
SCANNED_TREES = (
    ".ci",
    "benchmarks",
    "docs",
    "examples",
    "include",
    "python",
    "scripts",
    "src",
    "stdlib",
    "tests",
)
SCANNED_FILES = ("README.md", "CMakeLists.txt", "pyproject.toml")
# `results/`: what the benchmark runners write (ignored by git).
SKIPPED_DIRS = {
    "__pycache__",
    ".pytest_cache",
    "build",
    ".venv",
    "node_modules",
    "results",
}

# Reports written by the repository's own tools (the benchmark runner, the
# tuning studies, the conformance run): their names are outputs, not citations.
GENERATED_REPORTS = re.compile(
    r"(^|/)(report|differential|random|tests|level1|sgemm|tuned_gemm|[\w-]*\.efficiency)\.md$"
)

SECTION_SIGN = "\N{SECTION SIGN}"
MACHINE_PATH = re.compile(r"/" + r"work/")
SPEC_CITATION = re.compile(r"\bspec(/[\w-]+\.md|'s\b| README\b)")
MARKDOWN_NAME = re.compile(r"[\w./-]*\w\.md\b")
QUOTED = re.compile(r"""(["'])[^"'\n]*\.md\1""")
LINK_TEXT = re.compile(r"\[[^\]]*\]\(")  # `[text](target)`: the target is checked


def scanned_files():
    for name in SCANNED_FILES:
        if (ROOT / name).is_file():
            yield ROOT / name
    for tree in SCANNED_TREES:
        for path in sorted((ROOT / tree).rglob("*")):
            if path.is_file() and not SKIPPED_DIRS & set(path.relative_to(ROOT).parts):
                yield path


def text_of(path):
    try:
        return path.read_text()
    except UnicodeDecodeError:
        return None  # binary data (images, compiled objects)


def missing_document(path, line, token):
    """Whether `token`, a `x.md` name on `line` of `path`, names nothing."""
    if GENERATED_REPORTS.search(token):
        return False
    if any(token in m.group(0) for m in QUOTED.finditer(line)):
        return False
    if (ROOT / token).is_file():
        return False
    return not (path.suffix == ".md" and (path.parent / token).is_file())


def outside_references(path, text):
    """`file:line: why` for every reference of `text` to a document outside
    the repository."""
    found = []
    where = path.relative_to(ROOT)
    for number, line in enumerate(text.splitlines(), 1):
        if SECTION_SIGN in line:
            found.append(f"{where}:{number}: section sign: {line.strip()}")
        if MACHINE_PATH.search(line):
            found.append(f"{where}:{number}: machine path: {line.strip()}")
        if SPEC_CITATION.search(line):
            found.append(f"{where}:{number}: cites a specification: {line.strip()}")
        names = LINK_TEXT.sub("(", line) if path.suffix == ".md" else line
        for token in MARKDOWN_NAME.findall(names):
            if missing_document(path, line, token):
                found.append(f"{where}:{number}: no document {token}: {line.strip()}")
    return found


def test_no_reference_to_documents_outside_the_repository():
    found = []
    scanned = 0
    for path in scanned_files():
        if path == Path(__file__).resolve():
            continue  # this file spells out what it looks for
        text = text_of(path)
        if text is not None:
            scanned += 1
            found += outside_references(path, text)
    assert scanned > 500  # the whole repository was read, not an empty tree
    assert not found, "\n".join(found)


# `docs/cuda.md, "Checking a kernel"`: a page of docs/ and one of its headings.
CITED_SECTION = re.compile(r'([\w-]+\.md)[,:]? ?\(?"([^"\n]{3,80})"')


def headings_of_pages():
    """The headings of every page of docs/, by file name (a heading may be
    cited by its first words)."""
    return {
        page.name: [
            line.lstrip("#").strip().strip("`")
            for line in page.read_text().splitlines()
            if line.startswith("#")
        ]
        for page in (ROOT / "docs").rglob("*.md")
    }


def test_cited_sections_of_pages_exist():
    headings = headings_of_pages()
    found = []
    for path in scanned_files():
        text = text_of(path)
        if text is None:
            continue
        for match in CITED_SECTION.finditer(text):
            page, section = match.groups()
            if page in headings and not any(
                h.startswith(section) for h in headings[page]
            ):
                found.append(
                    f"{path.relative_to(ROOT)}: {page} has no section {section!r}"
                )
    assert not found, "\n".join(found)


def test_the_check_finds_each_kind_of_outside_reference(tmp_path):
    page = ROOT / "docs" / "errors.md"
    cases = {
        f"(primitives.md {SECTION_SIGN}4)": "section sign",
        "see /" + "work/shared/DESIGN.md": "machine path",
        "the spec's texts": "cites a specification",
        "spec/printing.md": "cites a specification",
        "(object-language.md)": "no document object-language.md",
        "[errors](errors.md) and docs/cursors.md": None,
        'ROOT / "docs" / "gone.md"': None,
        "writes OUT/report.md": None,
    }
    for line, why in cases.items():
        found = outside_references(page, line)
        if why is None:
            assert found == [], line
        else:
            assert len(found) >= 1 and why in found[0], (line, found)
