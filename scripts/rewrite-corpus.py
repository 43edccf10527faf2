#!/usr/bin/env python3
"""Print the substrate files of the accepted corpus with each rewrite that passed a gate in place of
the accepted file it rewrites (scripts/device/2026-12-07-tiled.sh: issue 21's bench over the corpus
with the tiled rewrites of its heaviest substrates).

A rewrite is a candidate `substrates/candidate_<NAME>.py` whose `<NAME>.py` is accepted; the gate's
JSON (`kmut gate --json`) says which passed. A rewrite that failed, or was not gated, leaves the
accepted file in place; a passing candidate that rewrites nothing is not added (the bench compares
the same problems).

    scripts/rewrite-corpus.py GATE_JSON [--root DIR]   -> space-separated paths, relative to DIR
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

PREFIX = "candidate_"


def passed_rewrites(report: list[dict]) -> set[str]:
    """File names (`<NAME>.py`) of the candidates the gate passed."""
    names = set()
    for row in report:
        name = Path(row["path"]).name
        if row.get("verdict") == "PASS" and name.startswith(PREFIX):
            names.add(name[len(PREFIX) :])
    return names


def corpus(root: Path, passed: set[str]) -> list[str]:
    files = []
    for path in sorted((root / "substrates" / "accepted").glob("*.py")):
        rewrite = Path("substrates") / f"{PREFIX}{path.name}"
        use = rewrite if path.name in passed and (root / rewrite).is_file() else path.relative_to(root)
        files.append(str(use))
    return files


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("gate_json", type=Path)
    ap.add_argument("--root", type=Path, default=Path("."))
    args = ap.parse_args()
    try:
        report = json.loads(args.gate_json.read_text())
    except (OSError, json.JSONDecodeError) as err:
        print(f"rewrite-corpus: cannot read the gate's JSON `{args.gate_json}`: {err}", file=sys.stderr)
        return 2
    print(" ".join(corpus(args.root, passed_rewrites(report))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
