"""The README's Python snippets run (in a fresh interpreter, outside the checkout)."""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).parent.parent


def test_readme_python_blocks_run(tmp_path):
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) >= 3
    code = "\n".join(b for b in blocks if "onnx.load" not in b)  # needs a model file
    code = code.replace("examples/data/sample.jpg", str(ROOT / "examples" / "data" / "sample.jpg"))
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
