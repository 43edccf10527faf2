#!/usr/bin/env bash
# Run on the device from the repository root, with the wheel in .whl/ and the compressed, fully
# compiled store in the carried folder .dev1/.
# Second session of 2026-12-02, device call 2: the witness campaign on the whole GPU (search
# columns side by side, the shorter ladder), the GPU's utilisation sampled beside it; the score;
# what the run added comes back in one compressed store, the logs in one archive.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/logs"; L=$OUT/logs
t0=$(date +%s); stamp() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
python3 -c "import gzip,shutil; shutil.copyfileobj(gzip.open('.dev1/wit.sqlite.gz'), open('/tmp/wit.sqlite','wb'))"
python3 -m pip install -q --no-deps --no-compile --target /tmp/kmut-site .whl/kmut-*.whl || exit 1
export PYTHONPATH=/tmp/kmut-site:$PWD PYTHONUNBUFFERED=1 KMUT_CACHE_DIR=/tmp/kmut-cache
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
python3 -m kmut --version
nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv,noheader -lms 1000 > "$L/gpu-util.csv" 2>/dev/null &
smi=$!
stamp "witness start"
timeout -s INT "${WIT_LIMIT:-450}" python3 -m kmut witness --store /tmp/wit.sqlite --max-per-rule 1 --sample 1500 --seed 1 \
  --workers-per-gpu "${WIT_WORKERS:-6}" --budget "${WIT_BUDGET:-400s}" > "$L/witness.txt" 2> "$L/witness.err"
stamp "witness end $?"
kill $smi 2>/dev/null
grep -v "^  \[worker" "$L/witness.err" | tail -n 16
python3 - "$L/gpu-util.csv" <<'PY'
import sys
u = [float(l.split(",")[1].split()[0]) for l in open(sys.argv[1]) if l.count(",") >= 2 and l.split(",")[1].strip()[0].isdigit()]
print(f"GPU utilisation over {len(u)} one-second samples: mean {sum(u)/max(len(u),1):.1f}%")
PY
python3 - /tmp/wit.sqlite <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
print("evaluations:", db.execute("select count(*) from evaluations").fetchone()[0], "| by outcome:", db.execute("select outcome, count(*) from evaluations group by outcome").fetchall())
print("columns prepared (n, sum prep_s, mean, max):", db.execute("select count(*), round(sum(prep_s),1), round(avg(prep_s),2), round(max(prep_s),1) from baselines").fetchone())
print("generated columns (checked, valid):", db.execute("select count(*), sum(valid) from baselines where suite like 'W:%'").fetchone())
print("step rows:", db.execute("select count(*) from step_errors").fetchone()[0])
PY
python3 -m kmut score --store /tmp/wit.sqlite --denominator witnessed > "$L/score-witnessed.txt" 2>&1; sed -n 1,30p "$L/score-witnessed.txt"
python3 -m kmut score --store /tmp/wit.sqlite --denominator live > "$L/score-live.txt" 2>&1; sed -n 1,12p "$L/score-live.txt"
python3 - /tmp/wit.sqlite "$OUT/results.sqlite" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1]); db.execute("ATTACH ? AS out", (sys.argv[2],))
for t in ("runs", "evaluations", "baselines", "ceiling_points", "ceilings", "step_layouts", "step_errors", "compilations", "classes"):
    db.execute(f"CREATE TABLE out.{t} AS SELECT * FROM main.{t}")
db.commit()
PY
gzip -f "$OUT/results.sqlite"
cp /tmp/wit.sqlite.workers.log "$L/" 2>/dev/null
tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$L"; ls -la "$OUT"; stamp done
