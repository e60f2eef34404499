"""The Python examples of README.md run as written (on the CPU)."""

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
SNIPPETS = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


@pytest.mark.parametrize("index", [i for i, s in enumerate(SNIPPETS) if "emv.Program" in s])
def test_readme_program_runs(index, monkeypatch):
    monkeypatch.setenv("GPUGRAPH_DEVICE", "cpu")
    namespace = {}
    exec(compile(SNIPPETS[index], f"README.md snippet {index}", "exec"), namespace)
    result = namespace["result"]
    assert result.stats["rounds"] > 1 and result.to_numpy("depth")[0] == 0
