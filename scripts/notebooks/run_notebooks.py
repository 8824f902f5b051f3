"""Executes every Notebooks/*.ipynb headless, in place, failing on the first cell error.

Usage: run_notebooks.py [--timeout SECONDS]   (per cell; default 300)
Starts from a fresh Notebooks/out/ so each run rebuilds the demo database from Data/.
The execution timestamps nbclient records are left out, and so are the memory addresses of
objects' plain-text reprs (`<… Styler at 0x7f…>`); a notebook whose outputs did not change is
not written: a run on unchanged code leaves the committed notebooks untouched.
"""
import argparse
import pathlib
import re
import shutil
import sys
import time

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

NOTEBOOKS = pathlib.Path(__file__).resolve().parents[2] / "Notebooks"
ADDRESS = re.compile(r" at 0x[0-9a-f]+")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--timeout", type=int, default=300)
    args = parser.parse_args()
    shutil.rmtree(NOTEBOOKS / "out", ignore_errors=True)
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        start = time.monotonic()
        nb = nbformat.read(path, as_version=4)
        client = NotebookClient(nb, timeout=args.timeout, kernel_name="python3",
                                resources={"metadata": {"path": str(NOTEBOOKS)}})
        try:
            client.execute()
        except CellExecutionError as error:
            print(f"notebooks: {path.name} failed:\n{error}", file=sys.stderr)
            return 1
        for cell in nb.cells:
            cell.get("metadata", {}).pop("execution", None)
            for output in cell.get("outputs", []):
                plain = output.get("data", {}).get("text/plain")
                if isinstance(plain, str):
                    output["data"]["text/plain"] = ADDRESS.sub("", plain)
        text = nbformat.writes(nb) + "\n"
        changed = text != path.read_text(encoding="utf-8")
        if changed:
            path.write_text(text, encoding="utf-8")
        print(f"notebooks: {path.name} executed in {time.monotonic() - start:.1f} s"
              f"{', outputs changed' if changed else ''}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
