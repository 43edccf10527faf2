#!/usr/bin/env bash
# Run on the device from the repository root, with the wheel in .whl/ and the lists (and the
# compressed store) in the carried folder .dev1/.
# Device call 2: gate 12 level-1 candidates (2 at once) while the store's remaining mutants
# compile, then the witness campaign, then kmut bench run; every log packed into one file.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/logs"; L=$OUT/logs
t0=$(date +%s); stamp() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
python3 -c "import gzip,shutil; shutil.copyfileobj(gzip.open('.dev1/wit.sqlite.gz'), open('/tmp/wit.sqlite','wb'))"
python3 -m pip install -q --no-deps --no-compile --target /tmp/kmut-site .whl/kmut-*.whl || exit 1
export PYTHONPATH=/tmp/kmut-site:$PWD PYTHONUNBUFFERED=1 KMUT_CACHE_DIR=/tmp/kmut-cache
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
stamp "gate start"
mapfile -t cands < .dev1/cands4.txt
timeout -s KILL 170 python3 -m kmut gate --jobs 2 --timeout 160 --accept "${cands[@]}" --json "$L/gate4.json" > "$L/gate4.txt" 2> "$L/gate4.err" &
gate=$!
stamp "compile start"
( time python3 -m kmut compile --store /tmp/wit.sqlite --max-per-rule 1 ) > "$L/compile.txt" 2> "$L/compile.err"
stamp "compile end: $(tail -n 4 "$L/compile.err" | tr '\n' ' ')"
wait $gate; stamp "gate end $?"
python3 scripts/device/gate-summary.py "$L/gate4.json"
stamp "witness start"
timeout -s INT "${WIT_LIMIT:-215}" python3 -m kmut witness --store /tmp/wit.sqlite --max-per-rule 1 --sample 1500 --seed 1 \
  --workers-per-gpu 6 --budget "${WIT_BUDGET:-200s}" > "$L/witness.txt" 2> "$L/witness.err"
stamp "witness end $?"
grep -v "^  \[worker" "$L/witness.err" | tail -n 14
python3 - /tmp/wit.sqlite <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
print("evaluations:", db.execute("select count(*) from evaluations").fetchone()[0], "| by outcome:", db.execute("select outcome, count(*) from evaluations group by outcome").fetchall())
oom = db.execute("select count(*) from evaluations where lower(coalesce(crash,'') || coalesce(detail,'')) like '%out of memory%' or coalesce(crash,'') like '%MEMORY_ALLOCATION%'").fetchone()[0]
print("evaluations stored with an out-of-memory crash:", oom)
print("generated columns (checked, valid):", db.execute("select count(*), sum(valid) from baselines where suite like 'W:%'").fetchone())
PY
python3 -m kmut score --store /tmp/wit.sqlite --denominator witnessed > "$L/score-witnessed.txt" 2>&1; sed -n 1,32p "$L/score-witnessed.txt"
python3 -m kmut score --store /tmp/wit.sqlite --denominator witnessed --json > "$L/score-witnessed.json" 2>/dev/null
python3 -m kmut score --store /tmp/wit.sqlite --denominator live > "$L/score-live.txt" 2>&1; sed -n 5,9p "$L/score-live.txt"
stamp "bench start"
mapfile -t bench < .dev1/bench.txt
timeout -s INT "${BENCH_LIMIT:-160}" python3 -m kmut bench run "${bench[@]}" --max-per-rule 2 --sample 150 --seed 0 --workers-per-gpu 6 \
  > "$L/bench-run.txt" 2> "$L/bench-run.err"
stamp "bench end $?"; cat "$L/bench-run.txt"; tail -n 5 "$L/bench-run.err"
python3 - /tmp/wit.sqlite "$OUT/results.sqlite" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1]); db.execute("ATTACH ? AS out", (sys.argv[2],))
for t in ("substrates", "runs", "evaluations", "baselines", "ceiling_points", "ceilings", "compilations", "classes"):
    db.execute(f"CREATE TABLE out.{t} AS SELECT * FROM main.{t}")
# Only the mutants the device compiled (the carried store has the rest).
db.execute("CREATE TABLE out.mutants AS SELECT * FROM main.mutants WHERE id IN (SELECT mutant FROM main.classes)")
db.commit()
PY
gzip -f "$OUT/results.sqlite"
cp /tmp/wit.sqlite.workers.log "$L/" 2>/dev/null
tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$L"; ls -la "$OUT"; stamp done
