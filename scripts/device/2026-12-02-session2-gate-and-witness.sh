#!/usr/bin/env bash
# Run on the device from the repository root, with the wheel in .whl/ and the lists (and the
# compressed, fully compiled store) in the carried folder .dev1/.
# Second session of 2026-12-02, device call 1: the large level-1 gates one at a time (each needs most of the
# GPU's memory for its fp64 reference, `docs/gpu.md`) in the background, while the witness
# campaign runs on few workers beside them (its columns are small: v0.1 sizes); then every
# column's preparation time and what the run added come back in one compressed store.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/logs"; L=$OUT/logs
t0=$(date +%s); stamp() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
python3 -c "import gzip,shutil; shutil.copyfileobj(gzip.open('.dev1/wit.sqlite.gz'), open('/tmp/wit.sqlite','wb'))"
python3 -m pip install -q --no-deps --no-compile --target /tmp/kmut-site .whl/kmut-*.whl || exit 1
export PYTHONPATH=/tmp/kmut-site:$PWD PYTHONUNBUFFERED=1 KMUT_CACHE_DIR=/tmp/kmut-cache
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
mapfile -t regate < .dev1/regate4.txt
mapfile -t cands < .dev1/cands6.txt
(
  stamp "regate start"
  timeout -s KILL 250 python3 -m kmut gate --jobs 1 --timeout 120 "${regate[@]}" --json "$L/regate.json" > "$L/regate.txt" 2> "$L/regate.err"
  stamp "regate end $?"
  timeout -s KILL 250 python3 -m kmut gate --jobs 1 --timeout 120 --accept "${cands[@]}" --json "$L/gate6.json" > "$L/gate6.txt" 2> "$L/gate6.err"
  stamp "gate end $?"
) > "$L/gates.log" 2>&1 &
gates=$!
stamp "witness start"
timeout -s INT "${WIT_LIMIT:-470}" python3 -m kmut witness --store /tmp/wit.sqlite --max-per-rule 1 --sample 1500 --seed 1 \
  --workers-per-gpu "${WIT_WORKERS:-4}" --budget "${WIT_BUDGET:-450s}" > "$L/witness.txt" 2> "$L/witness.err"
stamp "witness end $?"
grep -v "^  \[worker" "$L/witness.err" | tail -n 14
wait $gates; cat "$L/gates.log"
python3 scripts/device/gate-summary.py "$L/regate.json"
python3 scripts/device/gate-summary.py "$L/gate6.json"
python3 - /tmp/wit.sqlite <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
print("evaluations:", db.execute("select count(*) from evaluations").fetchone()[0], "| by outcome:", db.execute("select outcome, count(*) from evaluations group by outcome").fetchall())
print("columns prepared:", db.execute("select count(*), round(sum(prep_s),1), round(avg(prep_s),2), round(max(prep_s),1) from baselines").fetchone())
print("generated columns (checked, valid):", db.execute("select count(*), sum(valid) from baselines where suite like 'W:%'").fetchone())
PY
python3 -m kmut score --store /tmp/wit.sqlite --denominator witnessed > "$L/score-witnessed.txt" 2>&1; sed -n 1,24p "$L/score-witnessed.txt"
python3 - /tmp/wit.sqlite "$OUT/results.sqlite" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1]); db.execute("ATTACH ? AS out", (sys.argv[2],))
for t in ("substrates", "runs", "evaluations", "baselines", "ceiling_points", "ceilings", "compilations", "classes", "step_layouts", "step_errors"):
    db.execute(f"CREATE TABLE out.{t} AS SELECT * FROM main.{t}")
db.execute("CREATE TABLE out.mutants AS SELECT * FROM main.mutants WHERE id IN (SELECT mutant FROM main.classes)")
db.commit()
PY
gzip -f "$OUT/results.sqlite"
cp /tmp/wit.sqlite.workers.log "$L/" 2>/dev/null
tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$L"; ls -la "$OUT"; stamp done
