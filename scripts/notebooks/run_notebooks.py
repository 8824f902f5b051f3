"""Executes every Notebooks/*.ipynb headless, in place, failing on the first cell error.

Usage: run_notebooks.py [--timeout SECONDS]   (per cell; default 300)
Starts from a fresh Notebooks/out/ so each run rebuilds the demo database from Data/.
"""
import argparse
import pathlib
import shutil
import sys
import time

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

NOTEBOOKS = pathlib.Path(__file__).resolve().parents[2] / "Notebooks"


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
        nbformat.write(nb, path)
        print(f"notebooks: {path.name} executed in {time.monotonic() - start:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
