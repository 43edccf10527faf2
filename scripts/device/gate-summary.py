#!/usr/bin/env python3
"""One line per candidate of a `kmut gate --json` report: verdict, time, forward time and the
first failing checks. Usage: gate-summary.py REPORT.json"""

import collections
import json
import sys

try:
    report = json.load(open(sys.argv[1]))
except (OSError, ValueError) as e:
    print("no gate report:", e)
    sys.exit(0)
print(len(report), "gated:", dict(collections.Counter(x["verdict"] for x in report)))
for x in report:
    fwd = next((c["data"].get("forward_ms") for c in x["checks"] if c["check"] == "suites" and isinstance(c.get("data"), dict)), None)
    bad = [c for c in x["checks"] if c["status"] != "pass"]
    print(" ", x["name"] or x["path"], x["verdict"], f'{x["elapsed_s"]:.0f}s', f"fwd {fwd:.1f} ms" if fwd else "", "|",
          "; ".join(f'{c["check"]}: {c["detail"][:160]}' for c in bad[:2]))
