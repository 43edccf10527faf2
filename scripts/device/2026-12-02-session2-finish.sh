#!/usr/bin/env bash
# Run on the device from the repository root, with the wheel in .whl/ and the compressed
# campaign store (call 2's results merged in) in the carried folder .dev1/.
# Second session of 2026-12-02, device call 3: re-gate L1p38 alone (its fp64 check now
# chunked), resume the witness campaign, audit five protocols on its witnessed mutants, and
# measure what the per-step capture of kmut depth costs on level-3 runs (with and without
# --no-steps, same sample). What the runs added comes back in one compressed store.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/logs"; L=$OUT/logs
t0=$(date +%s); stamp() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
python3 -c "import gzip,shutil; shutil.copyfileobj(gzip.open('.dev1/wit.sqlite.gz'), open('/tmp/wit.sqlite','wb'))"
python3 -m pip install -q --no-deps --no-compile --target /tmp/kmut-site .whl/kmut-*.whl || exit 1
export PYTHONPATH=/tmp/kmut-site:$PWD PYTHONUNBUFFERED=1 KMUT_CACHE_DIR=/tmp/kmut-cache
mapfile -t regate < .dev1/regate1.txt
stamp "regate start"
timeout -s KILL 110 python3 -m kmut gate --jobs 1 --timeout 100 "${regate[@]}" --json "$L/regate.json" > "$L/regate.txt" 2> "$L/regate.err"
stamp "regate end $?"
python3 scripts/device/gate-summary.py "$L/regate.json"
stamp "witness resume"
timeout -k 15 -s INT "${WIT_LIMIT:-120}" python3 -m kmut witness --store /tmp/wit.sqlite --max-per-rule 1 --sample 1500 --seed 1 \
  --workers-per-gpu 6 --budget "${WIT_BUDGET:-100s}" > "$L/witness.txt" 2> "$L/witness.err"
stamp "witness end $?"; grep -E "^run: [0-9]+ evaluations now|settled on" "$L/witness.err" | tail -n 2
stamp "audit start"
timeout -k 15 -s INT "${AUDIT_LIMIT:-110}" python3 -m kmut audit official head kbv-inputs fuzz-kbm backendbench --store /tmp/wit.sqlite \
  --sample 120 --seed 0 --budget "${AUDIT_BUDGET:-90s}" > "$L/audit.txt" 2> "$L/audit.err"
stamp "audit end $?"; sed -n 1,40p "$L/audit.txt"; tail -n 3 "$L/audit.err"
L3=(substrates/accepted/L3p9_resnet18.py substrates/accepted/L3p1_mlp.py substrates/accepted/L3p17_squeezenet_fire.py)
for mode in steps no-steps; do
  flag=(); [ "$mode" = no-steps ] && flag=(--no-steps)
  stamp "depth overhead: $mode"
  timeout -k 15 -s INT 60 python3 -m kmut run "${L3[@]}" --store "/tmp/depth-$mode.sqlite" --max-per-rule 1 --sample 45 --seed 0 \
    --workers-per-gpu 6 "${flag[@]}" > "$L/depth-$mode.txt" 2> "$L/depth-$mode.err"
  grep -E "^run: [0-9]+ evaluations now" "$L/depth-$mode.err" | tail -n 1
done
python3 - /tmp/depth-steps.sqlite /tmp/depth-no-steps.sqlite <<'PY'
import sqlite3, sys
for p in sys.argv[1:]:
    db = sqlite3.connect(p)
    n, w, k = db.execute("select count(*), sum(wall_ms), sum(kernel_ms) from evaluations where outcome='completed'").fetchone()
    print(p, "completed evaluations", n, "mean wall ms %.1f" % (w / max(n, 1)), "mean kernel ms %.2f" % (k / max(n, 1)),
          "step rows", db.execute("select count(*) from step_errors").fetchone()[0])
PY
python3 - /tmp/wit.sqlite "$OUT/results.sqlite" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1]); db.execute("ATTACH ? AS out", (sys.argv[2],))
for t in ("runs", "evaluations", "baselines", "ceiling_points", "ceilings", "step_layouts", "step_errors", "compilations", "classes"):
    db.execute(f"CREATE TABLE out.{t} AS SELECT * FROM main.{t} WHERE rowid > 0")
db.commit()
PY
gzip -f "$OUT/results.sqlite"
tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$L"; ls -la "$OUT"; stamp done
