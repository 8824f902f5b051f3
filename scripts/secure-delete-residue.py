#!/usr/bin/env python3
"""How often SQLite's secure_delete alone leaves a deleted row's bytes in the file.

docs/RELIABILITY.md § 9.8: why a deletion still owes a rewrite (VACUUM). With secure_delete on,
SQLite zeroes the cell it frees, but a page rebuilt when a B-tree rebalanced (an earlier insert
or edit) may keep a stale copy of a row in its unused space. This builds a table like
`expenses` (20,000 rows, an index on the text, 3,000 edits), deletes 200 rows with
secure_delete on, empties the write-ahead log and scans the file for each deleted row's text.

    python3 scripts/secure-delete-residue.py [ROWS] [SEED]
"""
import os
import random
import sqlite3
import sys
import tempfile

rows = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
random.seed(seed)
path = os.path.join(tempfile.mkdtemp(), "residue.db")
c = sqlite3.connect(path, isolation_level=None)
c.execute("PRAGMA journal_mode = WAL")
c.execute("PRAGMA secure_delete = ON")
c.execute("CREATE TABLE e (pk INTEGER PRIMARY KEY, id TEXT, user TEXT, notes TEXT, UNIQUE (user, id))")
c.execute("CREATE INDEX e_notes ON e (notes)")
c.execute("BEGIN")
for i in range(rows):
    c.execute("INSERT INTO e (id, user, notes) VALUES (?, ?, ?)",
              ("id%06d" % i, "u%d" % (i % 50), "MK%06dX" % i + "y" * random.randint(10, 200)))
c.execute("COMMIT")
for i in random.sample(range(rows), rows * 3 // 20):
    c.execute("UPDATE e SET notes = ? WHERE id = ?", ("MK%06dX" % i + "z" * random.randint(10, 400), "id%06d" % i))
deleted = random.sample(range(rows), 200)
for i in deleted:
    c.execute("DELETE FROM e WHERE id = ?", ("id%06d" % i,))
c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
data = open(path, "rb").read()
left = [i for i in deleted if b"MK%06dX" % i in data or b"id%06d" % i in data]
c.execute("VACUUM")
c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
data = open(path, "rb").read()
after = [i for i in deleted if b"MK%06dX" % i in data or b"id%06d" % i in data]
print(f"SQLite {sqlite3.sqlite_version}: {len(left)} of {len(deleted)} deleted rows left bytes "
      f"with secure_delete alone; {len(after)} after VACUUM")
