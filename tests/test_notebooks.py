"""Every notebook in notebooks/ runs top to bottom (nbclient), and is committed with its outputs stripped.

The kernel is this interpreter (``sys.executable -m ipykernel_launcher``) through a kernelspec written to a
temporary JUPYTER_PATH, so the test works in a fresh ``make test`` venv without ``ipykernel install``.
"""
import json
import os
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

NB_DIR = Path(__file__).resolve().parent.parent / "notebooks"
NOTEBOOKS = sorted(NB_DIR.glob("*.ipynb"))
KERNEL = "tapejax-test-python"


@pytest.fixture(scope="module")
def kernel_name(tmp_path_factory):
    root = tmp_path_factory.mktemp("jupyter")
    spec_dir = root / "kernels" / KERNEL
    spec_dir.mkdir(parents=True)
    (spec_dir / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "tapejax tests", "language": "python"}))
    old = os.environ.get("JUPYTER_PATH")
    os.environ["JUPYTER_PATH"] = str(root) + (os.pathsep + old if old else "")
    yield KERNEL
    if old is None:
        os.environ.pop("JUPYTER_PATH", None)
    else:
        os.environ["JUPYTER_PATH"] = old


def test_the_five_notebooks_exist():
    names = [p.stem for p in NOTEBOOKS]
    for key in ("quickstart", "forward_mode", "custom_gradients", "training_loop", "inspecting"):
        assert any(key in n for n in names), (key, names)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_is_stripped(path):
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, f"{path.name}: outputs not stripped"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path, kernel_name):
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, kernel_name=kernel_name, timeout=240, startup_timeout=120,
                                     resources={"metadata": {"path": str(NB_DIR)}})
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    client.execute()  # raises CellExecutionError with the failing cell and traceback
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors
