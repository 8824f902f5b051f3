"""The notebooks' bridge to the `geospend` CLI: run it, read its JSON and GeoJSON.

No analytics live here or in the notebooks: every figure comes from geospend itself.
`make notebooks` builds the binary and sets GEOSPEND_BIN; the default is the debug build.
"""
import json
import os
import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parent.parent
BIN = os.environ.get("GEOSPEND_BIN", str(ROOT / ".build" / "debug" / "geospend"))
OUT = ROOT / "Notebooks" / "out"  # git-ignored: databases and exported layers
DB = OUT / "demo.sqlite"


def geospend(*args):
    """Runs `geospend ARGS --db Notebooks/out/helsinki.sqlite` and returns its stdout."""
    result = subprocess.run([BIN, *map(str, args), "--db", str(DB)], capture_output=True, text=True, cwd=ROOT)
    if result.returncode != 0:
        raise RuntimeError(f"geospend {' '.join(map(str, args))} failed ({result.returncode}): {result.stderr}")
    return result.stdout


def geospend_json(*args):
    """Runs a command with `--format json` and parses the result."""
    return json.loads(geospend(*args, "--format", "json"))


def export(layer, name, *args):
    """Exports a GeoJSON layer to Notebooks/out/NAME.geojson and returns the path."""
    path = OUT / f"{name}.geojson"
    geospend("export", layer, *args, "--out", path)
    return path


def demo_database():
    """Builds `make demo`'s database once, with the same script (scripts/demo-database.sh: the
    places of Data/, 12,000 generated expenses of 40 users, snapped to their stores). Returns
    its path."""
    OUT.mkdir(exist_ok=True)
    if not DB.exists():
        result = subprocess.run(["bash", str(ROOT / "scripts" / "demo-database.sh"), BIN, str(DB)],
                                capture_output=True, text=True, cwd=ROOT)
        if result.returncode != 0:
            raise RuntimeError(f"scripts/demo-database.sh failed ({result.returncode}): {result.stderr}")
    return DB
