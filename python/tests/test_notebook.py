"""The example notebook executes (nbclient), shows Figure 2, leaves no
temporary files, and is committed without outputs."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).resolve().parents[2] / "examples" / "notebooks" / "table3_figure2.ipynb"


def test_notebook_committed_without_outputs() -> None:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, cell.source[:60]


def test_notebook_executes(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # Without LIMBO_EXPORT the notebook simulates into a temporary
    # directory, which it removes: the kernel's TMPDIR is ours to inspect.
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel's inline backend shows figures
    monkeypatch.delenv("LIMBO_EXPORT", raising=False)
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert [o for o in outputs if o.output_type == "error"] == []
    text = "".join(o.get("text", "") for o in outputs)
    assert "Table 3 first row: gpt-6-astra" in text
    # Figure 2 is shown (an image), not only drawn.
    assert any("image/png" in o.get("data", {}) for o in outputs), "Figure 2 is not displayed"
    left = [p.name for p in tmp.iterdir() if p.name.startswith(("limbo-nb-", "limbo-read-"))]
    assert left == [], f"the notebook left {left} in TMPDIR"
