#!/usr/bin/env bash
# Run on the device from the repository root, with the wheel in .whl/ and the compressed store
# (147 substrates compiled here with `kmut compile --max-per-rule 1`) in the carried folder .dev1/.
# Fourth session of 2026-12-02: the witness campaign (issue 22) on a fresh store, in calls that
# resume it. The working store lives in .device/live/ (git-ignored, not carried), which a warm
# machine keeps between calls, so a second call resumes where the first stopped; a fresh machine
# starts again from the carried store (and the local merge of the first call's results).
# Switches: GPU_TESTS=1 (the fault demos and bridge tests first), BENCH_COMPARE=1 (`kmut bench
# compare` on the H200, issue 16), WIT_LIMIT/WIT_BUDGET (the witness run), AUDIT=1 (five
# protocols on the campaign's mutants, issue 14), DEPTH=1 (level-3 runs with and without the
# per-step capture, issue 16). Every log comes back in logs.tgz, what the runs added in
# results.sqlite.gz (the whole tables, `SELECT *`).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/logs"; L=$OUT/logs
t0=$(date +%s); stamp() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
W=.device/live; mkdir -p "$W"; wit=$W/wit.sqlite
if [ -f "$wit" ]; then stamp "resuming the store kept on this machine"; else
  python3 -c "import gzip,shutil,sys; shutil.copyfileobj(gzip.open(sys.argv[1]), open(sys.argv[2],'wb'))" .dev1/wit.sqlite.gz "$wit"
  stamp "store decompressed"
fi
python3 -m pip install -q --no-deps --no-compile --target /tmp/kmut-site .whl/kmut-*.whl || exit 1
export PYTHONPATH=/tmp/kmut-site:$PWD PYTHONUNBUFFERED=1 KMUT_CACHE_DIR=/tmp/kmut-cache KMUT_NO_PROGRESS=1
python3 -m kmut --version || { echo "the wheel does not run here"; exit 1; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
if [ "${GPU_TESTS:-0}" = 1 ]; then
  stamp "gpu tests"
  timeout -k 10 "${TEST_LIMIT:-150}" python3 -m pytest -q -p no:cacheprovider -m gpu tests/python/test_run_gpu.py tests/python/test_bridge_gpu.py \
    tests/python/test_depth_cpu.py > "$L/pytest-gpu.log" 2>&1
  stamp "gpu tests exit $?"; tail -n 4 "$L/pytest-gpu.log"
fi
if [ "${BENCH_COMPARE:-0}" = 1 ]; then
  stamp "bench compare"
  timeout -k 10 90 python3 -m kmut bench compare > "$L/bench-compare.txt" 2>&1; cat "$L/bench-compare.txt"
fi
stamp "witness start"
nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader,nounits -lms 1000 > "$L/smi-witness.csv" 2>/dev/null &
smi=$!
timeout -k 15 -s INT "${WIT_LIMIT:-400}" python3 -m kmut witness --store "$wit" --max-per-rule 1 --sample 1500 --seed 1 \
  --workers-per-gpu "${WIT_WORKERS:-6}" --budget "${WIT_BUDGET:-370s}" > "$L/witness.txt" 2> "$L/witness.err"
stamp "witness end $?"; kill "$smi" 2>/dev/null
grep -v "^  \[worker" "$L/witness.err" | grep -v "^run: removed" | tail -n 8
python3 - "$L/smi-witness.csv" <<'PY'
import sys
rows = [line.split(",") for line in open(sys.argv[1]) if line.strip()]
util = [float(r[0]) for r in rows if r[0].strip().replace(".", "").isdigit()]
print(f"GPU busy (nvidia-smi, 1 s samples): mean {sum(util) / max(len(util), 1):.0f}% over {len(util)} samples")
PY
python3 - "$wit" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
print("evaluations:", db.execute("select count(*) from evaluations").fetchone()[0], "| by outcome:", db.execute("select outcome, count(*) from evaluations group by outcome").fetchall())
oom = db.execute("select count(*) from evaluations where lower(coalesce(crash,'') || coalesce(detail,'')) like '%out of memory%' or coalesce(crash,'') like '%MEMORY_ALLOCATION%'").fetchone()[0]
print("evaluations stored with an out-of-memory crash:", oom)
print("generated columns (checked, valid):", db.execute("select count(*), sum(valid) from baselines where suite like 'W:%'").fetchone())
PY
grep -h "prepared " "$wit.workers.log" > "$L/prep-phases.txt" 2>/dev/null
python3 - "$L/prep-phases.txt" <<'PY'
import collections, re, sys
total, count = collections.Counter(), 0
for line in open(sys.argv[1]):
    count += 1
    for phase, ms in re.findall(r"(\w+) (\d+) ms", line.split(": ", 1)[-1]):
        total[phase] += int(ms)
print(f"{count} columns prepared; seconds by phase:", {k: round(v / 1e3, 1) for k, v in total.most_common()})
PY
python3 -m kmut score --store "$wit" --denominator witnessed > "$L/score-witnessed.txt" 2>&1; sed -n 1,30p "$L/score-witnessed.txt"
python3 -m kmut score --store "$wit" --denominator witnessed --json > "$L/score-witnessed.json" 2>/dev/null
python3 -m kmut score --store "$wit" --denominator live > "$L/score-live.txt" 2>&1; sed -n 1,10p "$L/score-live.txt"
if [ "${AUDIT:-0}" = 1 ]; then
  stamp "audit start"
  timeout -k 15 -s INT "${AUDIT_LIMIT:-110}" python3 -m kmut audit official head kbv-inputs fuzz-kbm backendbench --store "$wit" \
    --sample 120 --seed 0 --budget "${AUDIT_BUDGET:-90s}" > "$L/audit.txt" 2> "$L/audit.err"
  stamp "audit end $?"; sed -n 1,40p "$L/audit.txt"; tail -n 3 "$L/audit.err"
fi
if [ "${DEPTH:-0}" = 1 ]; then
  L3=(substrates/accepted/L3p9_resnet18.py substrates/accepted/L3p1_mlp.py substrates/accepted/L3p17_squeezenet_fire.py)
  for mode in steps no-steps; do
    flag=(); [ "$mode" = no-steps ] && flag=(--no-steps)
    stamp "depth overhead: $mode"
    timeout -k 15 -s INT "${DEPTH_LIMIT:-60}" python3 -m kmut run "${L3[@]}" --store "/tmp/depth-$mode.sqlite" --max-per-rule 1 --sample 45 --seed 0 \
      --workers-per-gpu 6 "${flag[@]}" > "$L/depth-$mode.txt" 2> "$L/depth-$mode.err"
    grep -E "^run: [0-9]+ evaluations now" "$L/depth-$mode.err" | tail -n 1
  done
  python3 scripts/device/depth-overhead.py /tmp/depth-steps.sqlite /tmp/depth-no-steps.sqlite
fi
stamp "export"
rm -f "$OUT/results.sqlite"
python3 - "$wit" "$OUT/results.sqlite" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1]); db.execute("ATTACH ? AS out", (sys.argv[2],))
for t in ("runs", "evaluations", "baselines", "ceiling_points", "ceilings", "step_layouts", "step_errors", "compilations", "classes"):
    db.execute(f"CREATE TABLE out.{t} AS SELECT * FROM main.{t}")
db.commit()
print({t: db.execute(f"SELECT count(*) FROM out.{t}").fetchone()[0] for t in ("evaluations", "baselines", "step_errors")})
PY
gzip -f "$OUT/results.sqlite"
cp "$wit.workers.log" "$L/" 2>/dev/null; gzip -f "$L/wit.sqlite.workers.log" 2>/dev/null
tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$L"; ls -la "$OUT"; stamp done
