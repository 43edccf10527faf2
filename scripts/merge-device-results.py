#!/usr/bin/env python3
"""Fold what a device run added (a results.sqlite.gz of scripts/device-check.sh: runs, evaluations,
baselines, ceiling points and ceilings, per-step layouts and errors, and where present the substrates, mutants, compilations
and classes it made) into the local store that was carried there. Substrates and mutants are only
added, never replaced (a replaced substrate row would take its mutants with it); every other row is
inserted or replaced by primary key, so the device's compile records (its NVRTC's image hashes,
which its evaluations are labelled with) become the current ones. Run ids are kept as they are
(the carried store's runs come back with them).

Usage: scripts/merge-device-results.py RESULTS.sqlite.gz|RESULTS.sqlite.xz STORE.sqlite

A results file over the device's 16 MiB per file comes back split (scripts/device/common.sh):
pass RESULTS.sqlite.gz as named and its parts RESULTS.sqlite.gz.part00, .part01, ... beside it are
read in order.
"""

import glob
import os

import gzip
import lzma
import shutil
import sqlite3
import sys
import tempfile


def joined(results: str):
    """The results file, or its split parts read as one stream."""
    if os.path.exists(results):
        return results
    parts = sorted(glob.glob(glob.escape(results) + ".part*"))
    if not parts:
        sys.exit(f"merge: neither {results} nor its parts {results}.partNN exist")
    return _Concat(parts)


class _Concat:
    """The parts of a split file as one readable binary file."""

    def __init__(self, parts):
        self.files = [open(p, "rb") for p in parts]

    def read(self, n=-1):
        out = b""
        while self.files and (n < 0 or len(out) < n):
            chunk = self.files[0].read(-1 if n < 0 else n - len(out))
            if not chunk:
                self.files.pop(0).close()
                continue
            out += chunk
        return out


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    results, store = sys.argv[1], sys.argv[2]
    with tempfile.NamedTemporaryFile(suffix=".sqlite") as tmp:
        # A device call's export is gzip; the merged campaign committed under docs/data/ is xz
        # (2026-12-06: 15 MB instead of 26, inside the device call's 64 MiB carry).
        opener = lzma.open if results.endswith(".xz") else gzip.open
        with opener(joined(results), "rb") as src:
            shutil.copyfileobj(src, tmp)
        tmp.flush()
        db = sqlite3.connect(store)
        db.execute("ATTACH ? AS dev", (tmp.name,))
        counts = {}
        for table in ("substrates", "mutants", "runs", "compilations", "classes", "evaluations", "baselines", "ceiling_points", "ceilings", "step_layouts", "step_errors"):
            cols = [r[1] for r in db.execute(f"PRAGMA dev.table_info({table})")]
            if not cols:
                continue
            names = ", ".join(cols)
            before = db.execute(f"SELECT count(*) FROM main.{table}").fetchone()[0]
            verb = "INSERT OR IGNORE" if table in ("substrates", "mutants") else "INSERT OR REPLACE"
            db.execute(f"{verb} INTO main.{table} ({names}) SELECT {names} FROM dev.{table}")
            counts[table] = db.execute(f"SELECT count(*) FROM main.{table}").fetchone()[0] - before
        db.commit()
    print("rows added:", counts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
