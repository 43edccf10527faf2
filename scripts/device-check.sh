#!/usr/bin/env bash
# All of a session's GPU checks in one call on the device machine (see docs/gpu.md).
# Expects the wheel built here (`maturin build --release -o .whl`) in the carried folder .whl/.
# Usage (on the device): bash scripts/device-check.sh [gate paths...]
set -uo pipefail
OUT=${OUT:-/tmp/kmut-out}
mkdir -p "$OUT"
# shellcheck source=scripts/device/wheel.sh
source scripts/device/wheel.sh
[ "${SKIP_INSTALL:-0}" = 1 ] || install_wheel || exit 1
export PYTHONPATH=/tmp/kmut-site:$PWD PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/device.txt"
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' | tee -a "$OUT/device.txt"
if [ "${SKIP_PYTEST:-0}" != 1 ]; then
  python3 -m pytest -q -p no:cacheprovider ${PYTEST_PATHS:-tests/python} -m gpu 2>&1 | tee "$OUT/pytest-gpu.log"
fi
# BENCH=1: the compile and generation benchmarks on this machine's cores (docs/performance.md).
if [ "${BENCH:-0}" = 1 ]; then
  python3 -m kmut bench compile substrates/accepted/*.py --sample 256 --threads "$(nproc)" 2>&1 | tee "$OUT/bench-compile.txt"
  python3 -m kmut bench mutate substrates/accepted/*.py --repeat 10 2>&1 | tee "$OUT/bench-mutate.txt"
fi
# RUN=1: the execution engine on every accepted substrate (a stratified sample of RUN_SAMPLE
# live mutants, stopped with Ctrl-C after RUN_LIMIT seconds and resumable), both protocols'
# scores, and a kill -9 of the orchestrator followed by a resume, compared with an
# uninterrupted run. A store compiled elsewhere (.device/run.sqlite, carried) saves compiling.
count_evals() { python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1], timeout=5).execute('select count(*) from evaluations').fetchone()[0])" "$1" 2>/dev/null || echo 0; }
# RUN=kill: only the kill -9 demo.
if [ "${RUN:-0}" != 0 ]; then
  export KMUT_NO_PROGRESS=1 KMUT_CACHE_DIR=/tmp/kmut-cache
fi
if [ "${RUN:-0}" = 1 ]; then
  store="$OUT/run.sqlite"
  [ -f "$store" ] || { [ -f .device/run.sqlite ] && cp .device/run.sqlite "$store"; }
  timeout -s INT "${RUN_LIMIT:-420}" python3 -m kmut run --store "$store" --sample "${RUN_SAMPLE:-280}" --seed 1 \
    --workers-per-gpu "${RUN_WORKERS:-3}" > "$OUT/run.txt" 2> "$OUT/run.err"
  echo "run exit: $?"; grep -v "^  \[worker" "$OUT/run.err" | tail -n 25; cat "$OUT/run.txt"
  python3 -m kmut score --store "$store" --protocol head > "$OUT/score-head.txt"; cat "$OUT/score-head.txt"
  mv "$store" /tmp/run.sqlite  # too large to come back
fi
if [ "${RUN:-0}" != 0 ]; then
  gemm=substrates/accepted/L2p76_gemm_add_relu.py
  for s in whole killed; do [ -f .device/run.sqlite ] && cp .device/run.sqlite "$OUT/$s.sqlite"; done
  python3 -m kmut run "$gemm" --store "$OUT/whole.sqlite" --sample 60 --full-matrix > /dev/null 2> "$OUT/whole.err"
  grep "^run:" "$OUT/whole.err"
  python3 -m kmut run "$gemm" --store "$OUT/killed.sqlite" --sample 60 --full-matrix > /dev/null 2> "$OUT/killed-1.err" &
  pid=$!
  for _ in $(seq 600); do [ "$(count_evals "$OUT/killed.sqlite")" -ge "${KILL_AT:-60}" ] && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$pid"; wait "$pid" 2>/dev/null
  echo "kill -9 of the orchestrator with $(count_evals "$OUT/killed.sqlite") evaluations stored (uninterrupted run: $(count_evals "$OUT/whole.sqlite"))"
  python3 -m kmut run "$gemm" --store "$OUT/killed.sqlite" --sample 60 --full-matrix > /dev/null 2> "$OUT/killed-2.err"
  grep "^run:" "$OUT/killed-2.err"
  echo "after the resume: $(count_evals "$OUT/killed.sqlite") evaluations"
  for s in whole killed; do python3 -m kmut score --store "$OUT/$s.sqlite" L2p76_gemm_add_relu > "$OUT/score-$s.txt"; echo "== $s"; sed -n 1,12p "$OUT/score-$s.txt"; done
  # The demo's verdict last, on one line, so a call that keeps only its output's tail keeps it
  # (2026-12-07: a `| tail` kept the score tables' headers and lost the comparison).
  same=no; cmp -s "$OUT/score-whole.txt" "$OUT/score-killed.txt" && same=yes
  echo "kill -9 demo: $(count_evals "$OUT/killed.sqlite") evaluations after the resume, $(count_evals "$OUT/whole.sqlite") uninterrupted; the two scores identical: $same"
  rm -f "$OUT/whole.sqlite" "$OUT/killed.sqlite"
fi
# STREAMS=1: issue 21's streams lever measured before it is built (`kmut bench streams`: a
# stratified sample of STREAMS_SAMPLE originals, default 24, at most STREAMS_SECONDS of timed
# passes each, default 6; k copies serially on one stream against k streams at once, and the
# kernel-time floor), no store needed; after the tests and the demos, so a call cut short keeps them.
if [ "${STREAMS:-0}" = 1 ]; then
  python3 -m kmut bench streams --sample "${STREAMS_SAMPLE:-24}" --streams 2,4,8 --seconds "${STREAMS_SECONDS:-6}" \
    > "$OUT/streams.txt" 2> "$OUT/streams-progress.txt"
  echo "bench streams exit $?"; cat "$OUT/streams.txt"
fi
# BENCH_RUN=1: the execution engine's throughput (evaluations per second, wall over kernel time)
# on a crash-heavy sample of L2p76, with and without a spare worker (docs/performance.md).
if [ "${BENCH_RUN:-0}" = 1 ]; then
  export KMUT_NO_PROGRESS=1 KMUT_CACHE_DIR=/tmp/kmut-cache
  for spares in 1 0; do
    [ -f .device/run.sqlite ] && cp .device/run.sqlite "/tmp/bench-$spares.sqlite"
    start=$(date +%s.%N)
    python3 -m kmut run substrates/accepted/L2p76_gemm_add_relu.py --store "/tmp/bench-$spares.sqlite" --sample 60 --full-matrix \
      --spare-workers "$spares" 2>&1 >/dev/null | grep -E "^run: [0-9]" | tee "$OUT/bench-run-spares-$spares.txt"
    echo "spare workers $spares: $(python3 -c "import sys,time; print(f'{time.time()-float(sys.argv[1]):.1f}')" "$start") s in all" | tee -a "$OUT/bench-run-spares-$spares.txt"
  done
fi
# AGREE=1: the CPU backend against the GPU on the same stratified sample (AGREE_SAMPLE, seed 1),
# full matrix on the small suites, both runs side by side for AGREE_BUDGET each; then `kmut
# agree` per family and the CPU run's score (docs/cpu-backend.md).
if [ "${AGREE:-0}" = 1 ]; then
  export KMUT_NO_PROGRESS=1 KMUT_CACHE_DIR=/tmp/kmut-cache
  { command -v g++ && g++ --version | head -n 1; nproc; } | tee -a "$OUT/device.txt"
  for s in gpu cpu; do cp .device/run.sqlite "/tmp/$s.sqlite"; done
  n=${AGREE_SAMPLE:-1500}; budget=${AGREE_BUDGET:-5m}
  timeout -s INT 500 python3 -m kmut run --backend cpu --sample "$n" --seed 1 --full-matrix --cpu-workers "${AGREE_CPU_WORKERS:-11}" \
    --store /tmp/cpu.sqlite --budget "$budget" > "$OUT/cpu-run.txt" 2> "$OUT/cpu-run.err" &
  cpu=$!
  timeout -s INT 500 python3 -m kmut run --suites small --sample "$n" --seed 1 --full-matrix --workers-per-gpu "${AGREE_GPU_WORKERS:-3}" \
    --store /tmp/gpu.sqlite --budget "$budget" > "$OUT/gpu-run.txt" 2> "$OUT/gpu-run.err" &
  gpu=$!
  wait "$cpu"; echo "cpu run exit: $?"; wait "$gpu"; echo "gpu run exit: $?"
  grep -h "^run:" "$OUT/cpu-run.err" "$OUT/gpu-run.err"
  python3 -m kmut agree --store /tmp/gpu.sqlite --cpu-store /tmp/cpu.sqlite | tee "$OUT/agree.txt"
  python3 -m kmut agree --store /tmp/gpu.sqlite --cpu-store /tmp/cpu.sqlite --json > "$OUT/agree.json"
  python3 -m kmut score --store /tmp/cpu.sqlite > "$OUT/score-cpu.txt"; head -n 30 "$OUT/score-cpu.txt"; tail -n 4 "$OUT/score-cpu.txt"
fi
# GATE_ACCEPTED=1: every accepted substrate through the gate again, GATE_JOBS (default 6) at
# once (issue 13: no correct substrate may fail for lack of memory), JSON rewritten as each ends.
if [ "${GATE_ACCEPTED:-0}" = 1 ]; then
  if [ -n "${ACCEPTED_LIST:-}" ]; then mapfile -t acc < "$ACCEPTED_LIST"; else acc=(substrates/accepted/*.py); fi
  timeout -s KILL "${GATE_LIMIT:-420}" python3 -m kmut gate --jobs "${GATE_JOBS:-6}" "${acc[@]}" \
    --json "$OUT/gate-accepted.json" > "$OUT/gate-accepted.txt" 2> "$OUT/gate-accepted.err"
  echo "gate accepted exit: $?"
  python3 - "$OUT/gate-accepted.json" <<'PY'
import collections, json, sys
r = json.load(open(sys.argv[1]))
print(len(r), "gated:", dict(collections.Counter(x["verdict"] for x in r)))
for x in r:
    if x["verdict"] != "PASS":
        bad = [c for c in x["checks"] if c["status"] not in ("pass",)]
        print(" ", x["name"] or x["path"], x["verdict"], "|", "; ".join(f'{c["check"]}: {c["detail"][:300]}' for c in bad[:2]))
PY
fi
# CANDIDATES=FILE: the candidates listed in FILE (one path a line, in priority order) through the
# gate with --accept, GATE_JOBS at once, stopped after GATE_LIMIT seconds; the JSON keeps every
# finished candidate (mirror acceptances here: the device's tree does not come back).
if [ -n "${CANDIDATES:-}" ]; then
  mapfile -t cands < "$CANDIDATES"
  timeout -s KILL "${GATE_LIMIT:-480}" python3 -m kmut gate --jobs "${GATE_JOBS:-8}" --timeout "${CAND_TIMEOUT:-300}" --accept "${cands[@]}" \
    --json "$OUT/gate-candidates.json" > "$OUT/gate-candidates.txt" 2> "$OUT/gate-candidates.err"
  echo "gate candidates exit: $? (137: stopped at the time limit)"
  python3 - "$OUT/gate-candidates.json" <<'PY'
import collections, json, sys
r = json.load(open(sys.argv[1]))
print(len(r), "gated:", dict(collections.Counter(x["verdict"] for x in r)))
for x in r:
    fwd = next((c["data"].get("forward_ms") for c in x["checks"] if c["check"] == "suites" and isinstance(c.get("data"), dict)), None)
    bad = [c for c in x["checks"] if c["status"] not in ("pass",)]
    print(" ", x["name"] or x["path"], x["verdict"], f'{x["elapsed_s"]:.0f}s', f"fwd {fwd:.1f} ms" if fwd else "",
          "|", "; ".join(f'{c["check"]}: {c["detail"][:240]}' for c in bad[:2]))
PY
fi
# RUN6=1: issue 13's memory check, a run with RUN_WORKERS (default 6) workers on a stratified
# sample of the accepted corpus; no out-of-memory may be stored as a verdict.
if [ "${RUN6:-0}" = 1 ]; then
  export KMUT_NO_PROGRESS=1 KMUT_CACHE_DIR=/tmp/kmut-cache
  cp .device/run.sqlite /tmp/run6.sqlite
  timeout -s INT "${RUN_LIMIT:-300}" python3 -m kmut run --store /tmp/run6.sqlite --max-per-rule 2 --sample "${RUN_SAMPLE:-600}" --seed 1 \
    --workers-per-gpu "${RUN_WORKERS:-6}" --budget "${RUN_BUDGET:-4m}" > "$OUT/run6.txt" 2> "$OUT/run6.err"
  echo "run exit: $?"
  grep -E "^(run|error|warning):" "$OUT/run6.err" | grep -v "^run: removed" | tail -n 20
  python3 - /tmp/run6.sqlite <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
print("evaluations:", db.execute("select count(*) from evaluations").fetchone()[0],
      "| by outcome:", db.execute("select outcome, count(*) from evaluations group by outcome").fetchall())
print("crash classes:", db.execute("select crash, count(*) from evaluations where outcome='crash' group by crash order by 2 desc").fetchall())
oom = db.execute("select count(*) from evaluations where lower(coalesce(crash,'') || coalesce(detail,'')) like '%out of memory%' "
                 "or coalesce(crash,'') like '%OutOfMemory%' or coalesce(crash,'') like '%MEMORY_ALLOCATION%'").fetchone()[0]
print("evaluations stored with an out-of-memory crash:", oom)
print("columns with a measured footprint:", db.execute("select count(*), max(peak_bytes) from baselines where peak_bytes is not null").fetchone())
PY
  head -n 12 "$OUT/run6.txt"
fi
# WITNESS=1: the witness campaign (issue 22) on a store compiled here (WIT_STORE, carried): a
# stratified sample of WIT_SAMPLE live mutants, first kill over the witness search's inputs, for
# WIT_BUDGET; then the witnessed and live scores. CEILING=1: `kmut ceiling` on the same store for
# CEIL_LIMIT seconds (resumable; interrupted with SIGINT). The store is far too large to come back:
# EXPORT (on by either) writes only what the runs added (evaluations, baselines, ceilings) to
# $OUT/results.sqlite.gz, which scripts/merge-device-results.py folds into the local copy.
if [ "${WITNESS:-0}" = 1 ] || [ "${CEILING:-0}" = 1 ]; then
  export KMUT_NO_PROGRESS=1 KMUT_CACHE_DIR=/tmp/kmut-cache
  wit=/tmp/wit.sqlite
  [ -f "$wit" ] || cp "${WIT_STORE:-.device/wit.sqlite}" "$wit"
fi
if [ "${WITNESS:-0}" = 1 ]; then
  # shellcheck disable=SC2086 # WIT_SELECT is a list of options
  timeout -s INT "${WIT_LIMIT:-330}" python3 -m kmut witness --store "$wit" ${WIT_SELECT:---max-per-rule 1} --sample "${WIT_SAMPLE:-1500}" --seed 1 \
    --workers-per-gpu "${RUN_WORKERS:-6}" --budget "${WIT_BUDGET:-5m}" > "$OUT/witness.txt" 2> "$OUT/witness.err"
  echo "witness exit: $?"
  grep -E "^(run|error|warning):" "$OUT/witness.err" | grep -v "^run: removed" | tail -n 12
  python3 - "$wit" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
print("evaluations:", db.execute("select count(*) from evaluations").fetchone()[0],
      "| by outcome:", db.execute("select outcome, count(*) from evaluations group by outcome").fetchall())
oom = db.execute("select count(*) from evaluations where lower(coalesce(crash,'') || coalesce(detail,'')) like '%out of memory%' "
                 "or coalesce(crash,'') like '%OutOfMemory%' or coalesce(crash,'') like '%MEMORY_ALLOCATION%'").fetchone()[0]
print("evaluations stored with an out-of-memory crash:", oom)
print("generated columns checked:", db.execute("select count(*), sum(valid) from baselines where suite like 'W:%'").fetchone())
PY
  python3 -m kmut score --store "$wit" --denominator witnessed > "$OUT/score-witnessed.txt" 2>&1; head -n 40 "$OUT/score-witnessed.txt"
  python3 -m kmut score --store "$wit" --denominator witnessed --json > "$OUT/score-witnessed.json" 2>/dev/null
  python3 -m kmut score --store "$wit" --denominator live > "$OUT/score-live.txt" 2>&1; head -n 12 "$OUT/score-live.txt"
fi
if [ "${CEILING:-0}" = 1 ]; then
  mapfile -t ceil < <(ls ${CEIL_GLOB:-substrates/accepted/L[12]p*.py})
  timeout -s INT "${CEIL_LIMIT:-120}" python3 -m kmut ceiling "${ceil[@]}" --store "$wit" --sizes "${CEIL_SIZES:-official}" \
    --workers "${CEIL_WORKERS:-8}" --steps "${CEIL_STEPS:-4}" > "$OUT/ceiling.txt" 2> "$OUT/ceiling.err"
  echo "ceiling exit: $? (130: stopped at the time limit, probes so far stored)"
  tail -n 3 "$OUT/ceiling.err"; grep -c "^L" "$OUT/ceiling.txt"
fi
if [ "${WITNESS:-0}" = 1 ] || [ "${CEILING:-0}" = 1 ]; then
  python3 - "$wit" "$OUT/results.sqlite" <<'PY'
import sqlite3, sys
src, dst = sys.argv[1], sys.argv[2]
db = sqlite3.connect(src)
db.execute("ATTACH ? AS out", (dst,))
for table in ("substrates", "runs", "evaluations", "baselines", "ceiling_points", "ceilings", "compilations", "classes"):
    db.execute(f"CREATE TABLE out.{table} AS SELECT * FROM main.{table}")
# Only the mutants compiled (the carried store has the rest); merge-device-results.py adds them.
db.execute("CREATE TABLE out.mutants AS SELECT * FROM main.mutants WHERE id IN (SELECT mutant FROM main.classes)")
db.commit()
print({t: db.execute(f"SELECT count(*) FROM out.{t}").fetchone()[0] for t in ("evaluations", "baselines", "ceiling_points", "ceilings")})
PY
  gzip -f "$OUT/results.sqlite"; ls -la "$OUT/results.sqlite.gz"
fi
# PACK=1: every file under $OUT in one logs.tgz (a device call returns at most eight files).
if [ "${PACK:-0}" = 1 ]; then
  tar czf /tmp/logs.tgz -C "$OUT" . && rm -rf "${OUT:?}"/* && mv /tmp/logs.tgz "$OUT/"
fi
[ "${SKIP_GATE:-0}" = 1 ] && exit 0
# With paths: gate them with --accept. Without: re-gate everything accepted.
paths=("$@")
[ ${#paths[@]} -gt 0 ] || paths=(substrates/accepted/*.py)
python3 -m kmut gate --jobs "${GATE_JOBS:-1}" --accept "${paths[@]}" --json "$OUT/gate.json" > "$OUT/gate-table.txt" 2> "$OUT/gate.err"
echo "gate exit: $?"
python3 - "$OUT/gate.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1])):
    print(r["name"] or r["path"], r["verdict"], f'{r["elapsed_s"]:.1f}s')
PY
cat "$OUT/gate-table.txt"; tail -n 30 "$OUT/gate.err"
