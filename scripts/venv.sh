#!/usr/bin/env bash
# Creates the project-local Python environment (.venv, git-ignored) and installs pinned
# requirements files into it; re-installs only when a requirements file changed.
# Usage: scripts/venv.sh REQUIREMENTS.txt [...]
#
# The files that need it go to one pip run (one resolution), without byte-compiling every module
# (--no-compile). Into a fresh .venv, make test's two files took 42 s + 19 s as two runs, 40 s as
# one run without compiling (pip's cache warm). Then compileall writes every module's bytecode
# once (12 s, 22 s of CPU): where PYTHONDONTWRITEBYTECODE is set, as on this project's machines,
# Python never caches what it compiles, and each of the tests' hundred or so Python runs compiled
# pandas and the rest again (importing the GeoJSON readers: 2.1 s of CPU each time, 0.7 s after).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
args=()
stamps=()
for requirements in "$@"; do
  stamp="$venv/.installed-$(echo "$requirements" | tr '/' '_')"
  if [ ! -f "$stamp" ] || ! cmp -s "$requirements" "$stamp"; then
    echo "venv: installing $requirements" >&2
    args+=(-r "$requirements")
    stamps+=("$requirements" "$stamp")
  fi
done
compiled="$venv/.compiled"
[ ${#args[@]} -eq 0 ] && [ -f "$compiled" ] && exit 0
if [ ${#args[@]} -gt 0 ]; then
  rm -f "$compiled"
  "$venv/bin/pip" install -q --no-compile --disable-pip-version-check "${args[@]}"
  for ((i = 0; i < ${#stamps[@]}; i += 2)); do cp "${stamps[i]}" "${stamps[i + 1]}"; done
fi
# -j 0: every core. A file that does not compile (none did) is reported, not fatal: Python
# compiles it on import as before.
"$venv/bin/python" -m compileall -q -j 0 "$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" >&2 || true
touch "$compiled"
