#!/usr/bin/env python3
"""Write the table of measured column footprints that `kmut run` budgets a fresh store's device
memory with (`substrates/footprints.json`, read by `kmut_plan::footprints`).

Usage: scripts/footprints.py STORE [--out substrates/footprints.json] [--min-gib 1] [--from-log LOG...]

Per substrate and size class (the official sizes, a suite's own, a generated column's sizes such
as `small` or `batch=255`; the engine's `memory::size_class`), the largest device footprint any
GPU baseline in STORE (backend `cuda:*`) measured (`baselines.peak_bytes`: what a worker held on the column). Only
classes of at least --min-gib GiB are written: a smaller column fits a worker's fair share of a
device anyway. The figures are an estimate for another machine (the allocator rounds the same
way on H100 and H200); a column that needs more still runs out of memory and is retried alone.

--from-log LOG (repeatable): a run's workers log (`kmut bench run --keep-logs`, `STORE.workers.log`),
whose `prepared SUBSTRATE SUITE seed N: ...; held H MiB of a P MiB peak` lines a newer worker
wrote. For every substrate and size class the logs measured, their largest peak replaces the
store's: the store keeps peaks from every kmut that ever ran on it, and a change that shrinks a
column (2026-12-07: the one-launch comparison, no float32 temporaries) leaves its older, larger
peaks there, which would keep a fresh run's first columns waiting for memory they no longer need.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys


def size_class(suite: str) -> str:
    """The engine's `memory::size_class`: a generated column's sizes field, `official` for the
    protocol's T0_original, any other suite its own name."""
    if suite.startswith("W:"):
        parts = suite[2:].split(":")
        return parts[2] if len(parts) > 2 else suite
    return "official" if suite == "T0_original" else suite


def largest(rows) -> dict:
    """Per substrate and size class, the largest of the (substrate, suite, peak bytes) rows."""
    peaks: dict = {}
    for substrate, suite, peak in rows:
        by_class = peaks.setdefault(substrate, {})
        cls = size_class(suite)
        by_class[cls] = max(by_class.get(cls, 0), int(peak))
    return peaks


def logged(paths: list) -> dict:
    """`largest` over the prepared columns of workers logs."""
    from kmut.phases import read_prepared  # the workers log's one reader

    rows = []
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as f:
            rows += [(c.substrate, c.suite, c.peak_mib * 2**20) for c in map(read_prepared, f) if c and c.peak_mib is not None]
    return largest(rows)


def table(db: sqlite3.Connection, min_bytes: int, newer: dict | None = None) -> dict:
    peaks = largest(db.execute("SELECT substrate, suite, peak_bytes FROM baselines WHERE backend LIKE 'cuda:%' AND peak_bytes IS NOT NULL"))
    for substrate, by_class in (newer or {}).items():
        peaks.setdefault(substrate, {}).update(by_class)
    out = {}
    for substrate in sorted(peaks):
        kept = {c: b for c, b in sorted(peaks[substrate].items()) if b >= min_bytes}
        if kept:
            out[substrate] = kept
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("store")
    ap.add_argument("--out", default="substrates/footprints.json")
    ap.add_argument("--min-gib", type=float, default=1.0)
    ap.add_argument("--about", default="", help="where the figures come from (machine, store, date)")
    ap.add_argument("--from-log", action="append", default=[], metavar="LOG",
                    help="a newer run's workers log: its peaks replace the store's for the classes it measured")
    args = ap.parse_args()
    try:
        newer = logged(args.from_log)
    except OSError as e:
        print(f"error: {e.filename}: {e.strerror}", file=sys.stderr)
        return 1
    try:
        db = sqlite3.connect(f"file:{args.store}?mode=ro", uri=True)
        substrates = table(db, int(args.min_gib * 2**30), newer)
    except sqlite3.Error as e:
        print(f"error: {args.store}: {e}", file=sys.stderr)
        return 1
    doc = {"about": args.about or f"largest GPU footprint per substrate and size class of at least {args.min_gib:g} GiB, from {args.store}",
           "substrates": substrates}
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=False)
        f.write("\n")
    print(f"{args.out}: {sum(len(v) for v in substrates.values())} footprints of {len(substrates)} substrates", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
