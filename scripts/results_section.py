"""Replaces the text between `<!-- NAME:begin -->` and `<!-- NAME:end -->` in
Benchmarks/RESULTS.md with standard input (the benchmark scripts' generated tables).

    python3 scripts/results_section.py NAME < tables.md
"""
import sys

name = sys.argv[1]
tables = sys.stdin.read().strip()
path = "Benchmarks/RESULTS.md"
text = open(path).read()
begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
assert begin in text and end in text, f"{path} lacks the {begin} … {end} markers"
head, rest = text.split(begin, 1)
_, tail = rest.split(end, 1)
open(path, "w").write(f"{head}{begin}\n{tables}\n{end}{tail}")
