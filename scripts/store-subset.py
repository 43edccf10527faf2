#!/usr/bin/env python3
"""A copy of a store whose results are only those of the mutants some runs evaluated, so that
`kmut score`, `kmut depth` or `kmut synth` report one campaign of a store that holds several
(the witness sample of seed 1 and the level-3 depth sample of seed 2 share the campaign store).

Usage: scripts/store-subset.py STORE OUT --runs 42,43,46,47    # the mutants these runs evaluated
       scripts/store-subset.py STORE OUT --not-runs 42,43,46,47 # the mutants no run but these did

Every evaluation and per-step row of a selected mutant is kept (whichever run made it); the
other mutants keep their compile records and classes but lose their results, so they count as
not run. Run ids are listed by `sqlite3 STORE 'select id, started_at, command from runs'`.
"""

import argparse
import shutil
import sqlite3
import sys


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("store")
    ap.add_argument("out")
    which = ap.add_mutually_exclusive_group(required=True)
    which.add_argument("--runs", help="comma-separated run ids: keep the mutants they evaluated")
    which.add_argument("--not-runs", help="comma-separated run ids: keep the mutants only other runs evaluated")
    args = ap.parse_args()
    ids = [int(x) for x in (args.runs or args.not_runs).split(",") if x.strip()]
    shutil.copyfile(args.store, args.out)
    db = sqlite3.connect(args.out)
    marks = ",".join("?" * len(ids))
    in_runs = f"SELECT DISTINCT mutant FROM evaluations WHERE run IN ({marks})"
    if args.runs:
        keep = in_runs
    else:
        keep = f"SELECT DISTINCT mutant FROM evaluations WHERE mutant NOT IN ({in_runs})"
    db.execute(f"CREATE TEMP TABLE keep AS {keep}", ids)
    kept = db.execute("SELECT count(*) FROM keep").fetchone()[0]
    dropped = db.execute("DELETE FROM evaluations WHERE mutant NOT IN (SELECT mutant FROM keep)").rowcount
    steps = db.execute("DELETE FROM step_errors WHERE mutant NOT IN (SELECT mutant FROM keep)").rowcount
    db.commit()
    db.execute("VACUUM")
    print(f"{args.out}: {kept} mutants kept; {dropped} evaluations and {steps} per-step rows of the others removed", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
