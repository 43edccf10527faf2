#!/usr/bin/env python3
"""Markdown table of every substrate's legitimate-variance ceilings, from `kmut ceiling --json`.

Usage: kmut ceiling --store STORE --no-run --sizes small --json | scripts/ceiling-table.py > docs/ceilings.md

One row per substrate, one column per generator. A cell is the largest probed scale at which every
seed stayed valid and the first scale found invalid (`13 / 18`), `>= 1e4` when the whole range
stayed valid, or `< 1` when the lowest scale was already invalid.
"""

import json
import sys


def cell(c: dict) -> str:
    if c["ceiling"] is None:
        return f"< {c['lowest']:g}"
    if c["first_invalid"] is None:
        return f">= {c['ceiling']:g}"
    return f"{c['ceiling']:g} / {c['first_invalid']:g}"


def main() -> None:
    rows = json.load(sys.stdin)
    generators = sorted({r["generator"] for r in rows})
    by_sub: dict[str, dict[str, str]] = {}
    sizes = {r["sizes"] for r in rows}
    for r in rows:
        by_sub.setdefault(r["substrate"], {})[r["generator"]] = cell(r)
    limited = sum(1 for r in rows if r["ceiling"] is None or r["first_invalid"] is not None)
    print("| substrate | " + " | ".join(generators) + " |")
    print("| --- |" + " --- |" * len(generators))
    for sub in sorted(by_sub, key=lambda s: (s[:2], int("".join(ch for ch in s.split("_")[0][3:] if ch.isdigit()) or 0))):
        print(f"| {sub} | " + " | ".join(by_sub[sub].get(g, "not measured") for g in generators) + " |")
    print()
    print(f"{len(by_sub)} substrates, {len(rows)} ceilings at sizes {', '.join(sorted(sizes))}; "
          f"{limited} end inside the probed range (the others stay valid throughout).")


if __name__ == "__main__":
    main()
