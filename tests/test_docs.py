"""The user guide's Python examples run as written on the CPU, and the API reference is current.

Each page of ``docs/guide`` runs as one session: its ```` ```python ```` blocks execute in order in
one namespace, in a fresh working directory, with ``GPUGRAPH_DEVICE=cpu``. A block whose first
line is ``# not run: <reason>`` (a GPU, several GPUs) is skipped. A failing block's traceback
names the page and its line.
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
GUIDE = REPO / "docs" / "guide"
PAGES = sorted(GUIDE.glob("*.md"))
NOT_RUN = "# not run:"
_PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)
_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def python_blocks(page: Path) -> list[tuple[int, str]]:
    """``(line of the block's first code line, code)`` of every ```` ```python ```` block of ``page``."""
    text = page.read_text()
    return [(text.count("\n", 0, match.start(1)) + 1, match.group(1)) for match in _PYTHON_BLOCK.finditer(text)]


def runnable_blocks(page: Path) -> list[tuple[int, str]]:
    """The blocks of ``page`` that the test runs (all but ``# not run:`` ones)."""
    return [(line, code) for line, code in python_blocks(page) if not code.startswith(NOT_RUN)]


def test_guide_has_its_pages():
    names = {page.name for page in PAGES}
    assert {"index.md", "install.md", "quickstart.md", "formats.md", "algorithms.md", "programming-model.md",
            "multi-gpu.md", "networkx.md"} <= names


@pytest.mark.parametrize("page", PAGES, ids=[page.name for page in PAGES])
def test_guide_examples_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GPUGRAPH_DEVICE", "cpu")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    namespace = {"__name__": f"docs_guide_{page.stem.replace('-', '_')}"}
    for line, code in runnable_blocks(page):
        # Padding puts each statement on its line of the page, so tracebacks point into the Markdown.
        exec(compile("\n" * (line - 1) + code, str(page), "exec"), namespace)


@pytest.mark.parametrize("page", PAGES, ids=[page.name for page in PAGES])
def test_skipped_blocks_say_why(page):
    for line, code in python_blocks(page):
        first = code.splitlines()[0] if code.strip() else ""
        if first.startswith(NOT_RUN):
            assert first[len(NOT_RUN):].strip(), f"{page.name}:{line}: '# not run:' needs a reason"


@pytest.mark.parametrize("page", PAGES, ids=[page.name for page in PAGES])
def test_guide_links_resolve(page):
    for target in _LINK.findall(page.read_text()):
        if "://" in target:
            continue
        assert (page.parent / target).exists(), f"{page.name}: link to {target}, which does not exist"


def test_every_algorithm_has_a_running_example():
    """Each top-level algorithm of gpugraph/api.py is called in a block of algorithms.md that runs."""
    from gpugraph import api

    code = "\n".join(block for _, block in runnable_blocks(GUIDE / "algorithms.md"))
    algorithms = [name for name, function in inspect.getmembers(api, inspect.isfunction)
                  if not name.startswith("_") and function.__module__ == api.__name__]
    missing = [name for name in algorithms if f"gg.{name}(" not in code]
    assert algorithms and not missing, f"docs/guide/algorithms.md has no running example of {missing}"


def test_every_reader_format_is_described():
    from gpugraph.io.readers import FORMATS

    text = (GUIDE / "formats.md").read_text()
    missing = [name for name in (*FORMATS, "binary") if f"(`{name}`)" not in text]
    assert not missing, f"docs/guide/formats.md does not describe the formats {missing}"


def _imports(name: str) -> bool:
    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True


def test_api_reference_is_current(tmp_path, repo_script):
    """docs/api is what tools/api_reference.py writes from today's signatures and docstrings."""
    tool = repo_script("tools/api_reference.py")
    missing = [name for name in tool.OPTIONAL_PACKAGES if not _imports(name)]
    if missing:
        pytest.skip(f"{', '.join(missing)} does not import here, so its pages cannot be regenerated")
    tool.write_reference(tmp_path)
    fresh = {page.name: page.read_text() for page in tmp_path.glob("*.md")}
    committed = {page.name: page.read_text() for page in (REPO / "docs" / "api").glob("*.md")}
    stale = sorted(name for name in fresh.keys() | committed.keys() if fresh.get(name) != committed.get(name))
    assert not stale, f"docs/api is out of date ({', '.join(stale)}): run `{tool.COMMAND}` and commit docs/api"
