#!/usr/bin/env bash
# Creates the project-local Python environment (.venv, git-ignored) and installs pinned
# requirements files into it; re-installs only when a requirements file changed.
# Usage: scripts/venv.sh REQUIREMENTS.txt [...]
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
for requirements in "$@"; do
  stamp="$venv/.installed-$(echo "$requirements" | tr '/' '_')"
  if [ ! -f "$stamp" ] || ! cmp -s "$requirements" "$stamp"; then
    echo "venv: installing $requirements" >&2
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$requirements"
    cp "$requirements" "$stamp"
  fi
done
