#!/usr/bin/env python3
"""Fold what a device run added (scripts/device-check.sh's results.sqlite.gz: runs, evaluations,
baselines, ceiling points and ceilings) into a local store that holds the same substrates and
mutants (the store that was carried there). Rows are inserted or replaced by primary key; run ids
are kept as they are (the carried store's runs come back with them).

Usage: scripts/merge-device-results.py RESULTS.sqlite.gz STORE.sqlite
"""

import gzip
import shutil
import sqlite3
import sys
import tempfile


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    results, store = sys.argv[1], sys.argv[2]
    with tempfile.NamedTemporaryFile(suffix=".sqlite") as tmp:
        with gzip.open(results, "rb") as src:
            shutil.copyfileobj(src, tmp)
        tmp.flush()
        db = sqlite3.connect(store)
        db.execute("ATTACH ? AS dev", (tmp.name,))
        counts = {}
        for table in ("runs", "evaluations", "baselines", "ceiling_points", "ceilings"):
            cols = [r[1] for r in db.execute(f"PRAGMA dev.table_info({table})")]
            if not cols:
                continue
            names = ", ".join(cols)
            before = db.execute(f"SELECT count(*) FROM main.{table}").fetchone()[0]
            db.execute(f"INSERT OR REPLACE INTO main.{table} ({names}) SELECT {names} FROM dev.{table}")
            counts[table] = db.execute(f"SELECT count(*) FROM main.{table}").fetchone()[0] - before
        db.commit()
    print("rows added:", counts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
