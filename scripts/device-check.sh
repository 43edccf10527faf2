#!/usr/bin/env bash
# All of a session's GPU checks in one call on the device machine (see docs/gpu.md).
# Expects the wheel built here (`maturin build --release -o .whl`) in the carried folder .whl/.
# Usage (on the device): bash scripts/device-check.sh [gate paths...]
set -uo pipefail
OUT=${OUT:-/tmp/kmut-out}
mkdir -p "$OUT"
python3 -m pip install -q --no-deps --no-compile --target /tmp/kmut-site .whl/kmut-*.whl || exit 1
export PYTHONPATH=/tmp/kmut-site:$PWD PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/device.txt"
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' | tee -a "$OUT/device.txt"
if [ "${SKIP_PYTEST:-0}" != 1 ]; then
  python3 -m pytest -q -p no:cacheprovider tests/python -m gpu 2>&1 | tee "$OUT/pytest-gpu.log"
fi
# BENCH=1: the compile and generation benchmarks on this machine's cores (docs/performance.md).
if [ "${BENCH:-0}" = 1 ]; then
  python3 -m kmut bench compile substrates/accepted/*.py --sample 256 --threads "$(nproc)" 2>&1 | tee "$OUT/bench-compile.txt"
  python3 -m kmut bench mutate substrates/accepted/*.py --repeat 10 2>&1 | tee "$OUT/bench-mutate.txt"
fi
# RUN=1: the execution engine on every accepted substrate (a stratified sample of RUN_SAMPLE
# live mutants), both protocols' scores, and a kill -9 of the orchestrator followed by a resume
# compared with an uninterrupted run.
if [ "${RUN:-0}" = 1 ]; then
  export KMUT_NO_PROGRESS=1 KMUT_CACHE_DIR=/tmp/kmut-cache
  python3 -m kmut run --store "$OUT/run.sqlite" --sample "${RUN_SAMPLE:-540}" --seed 1 --workers-per-gpu "${RUN_WORKERS:-2}" \
    > "$OUT/run.txt" 2> "$OUT/run.err"
  echo "run exit: $?"; tail -n 25 "$OUT/run.err"; cat "$OUT/run.txt"
  python3 -m kmut score --store "$OUT/run.sqlite" --protocol head > "$OUT/score-head.txt"; cat "$OUT/score-head.txt"
  gemm=substrates/accepted/L2p76_gemm_add_relu.py
  python3 -m kmut run "$gemm" --store "$OUT/whole.sqlite" --sample 80 --full-matrix > /dev/null 2> "$OUT/whole.err"
  python3 -m kmut run "$gemm" --store "$OUT/killed.sqlite" --sample 80 --full-matrix > /dev/null 2> "$OUT/killed-1.err" &
  pid=$!; sleep "${KILL_AFTER:-20}"; kill -9 "$pid"; wait "$pid" 2>/dev/null
  echo "killed after ${KILL_AFTER:-20}s: $(sqlite3 "$OUT/killed.sqlite" 'select count(*) from evaluations' 2>/dev/null || python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from evaluations').fetchone()[0])" "$OUT/killed.sqlite") evaluations stored"
  python3 -m kmut run "$gemm" --store "$OUT/killed.sqlite" --sample 80 --full-matrix > /dev/null 2> "$OUT/killed-2.err"
  tail -n 3 "$OUT/killed-2.err"
  for s in whole killed; do python3 -m kmut score --store "$OUT/$s.sqlite" > "$OUT/score-$s.txt"; echo "== $s"; sed -n 1,8p "$OUT/score-$s.txt"; done
fi
[ "${SKIP_GATE:-0}" = 1 ] && exit 0
# With paths: gate them with --accept. Without: re-gate everything accepted.
paths=("$@")
[ ${#paths[@]} -gt 0 ] || paths=(substrates/accepted/*.py)
python3 -m kmut gate --accept "${paths[@]}" --json "$OUT/gate.json" > "$OUT/gate-table.txt" 2> "$OUT/gate.err"
echo "gate exit: $?"
python3 - "$OUT/gate.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1])):
    print(r["name"] or r["path"], r["verdict"], f'{r["elapsed_s"]:.1f}s')
PY
cat "$OUT/gate-table.txt"; tail -n 30 "$OUT/gate.err"
