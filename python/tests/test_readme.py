"""The README's "Use from Python" example runs (from the repository root, as the README shows it)."""
import os
import re

import pytest

from conftest import ROOT


def test_readme_python_example(shared, monkeypatch, capsys):
    blocks = re.findall(r"## Use from Python\n.*?```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert blocks, "README.md has no python block under '## Use from Python'"
    if not (ROOT.parent / "shared" / "vocab").is_dir():
        pytest.skip("the README example reads ../shared/vocab beside the repository")
    monkeypatch.chdir(ROOT)
    exec(compile(blocks[0], "README.md", "exec"), {})
    assert "[15339, 1917]" in capsys.readouterr().out
