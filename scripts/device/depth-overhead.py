#!/usr/bin/env python3
"""The per-step capture's cost (issue 16) from the stores of two `kmut run`s of the same sample,
one with the capture and one with `--no-steps`: per store, the completed evaluations, their mean
wall and kernel time, and the per-step rows written.

Usage: scripts/device/depth-overhead.py STEPS.sqlite NO_STEPS.sqlite
"""

import sqlite3
import sys


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    walls = []
    for path in sys.argv[1:]:
        db = sqlite3.connect(path)
        n, wall, kernel = db.execute("SELECT count(*), sum(wall_ms), sum(kernel_ms) FROM evaluations WHERE outcome = 'completed'").fetchone()
        rows = db.execute("SELECT count(*) FROM step_errors").fetchone()[0]
        walls.append((wall or 0) / max(n, 1))
        print(f"{path}: completed evaluations {n}, mean wall ms {walls[-1]:.1f}, mean kernel ms {(kernel or 0) / max(n, 1):.2f}, step rows {rows}")
    if walls[1] > 0:
        print(f"capture overhead (mean wall with / without): {walls[0] / walls[1]:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
