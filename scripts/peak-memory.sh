#!/usr/bin/env bash
# Runs a command and reports its peak resident memory, split into anonymous memory (what the
# process allocated) and file-backed pages (the SQLite file read through its memory map, which
# the kernel can drop at any time). /usr/bin/time's "max RSS" counts both.
# Usage: scripts/peak-memory.sh COMMAND [ARG ...]
set -euo pipefail
"$@" & pid=$!
peak_anon=0 peak_file=0
while kill -0 "$pid" 2>/dev/null; do
  if read -r anon file < <(awk '/^RssAnon/ {a=$2} /^RssFile/ {f=$2} END {print a+0, f+0}' "/proc/$pid/status" 2>/dev/null); then
    (( anon > peak_anon )) && peak_anon=$anon
    (( file > peak_file )) && peak_file=$file
  fi
  sleep 0.02
done
wait "$pid"
printf 'peak anonymous memory %d MiB, file-backed %d MiB (sampled every 20 ms)\n' $((peak_anon / 1024)) $((peak_file / 1024))
