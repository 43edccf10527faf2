#!/usr/bin/env bash
# Run on the device from the repository root, with the wheel in .whl/ and the lists (and the
# compressed store) in the carried folder .dev1/.
# Device call 3: ten level-1 candidates through the gate one at a time (their fp64 references
# need most of the GPU), then kmut bench run on a small sample; logs packed into one file.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/logs"; L=$OUT/logs
t0=$(date +%s); stamp() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
python3 -m pip install -q --no-deps --no-compile --target /tmp/kmut-site .whl/kmut-*.whl || exit 1
export PYTHONPATH=/tmp/kmut-site:$PWD PYTHONUNBUFFERED=1 KMUT_CACHE_DIR=/tmp/kmut-cache
mapfile -t cands < .dev1/cands5.txt
stamp "gate start"
timeout -s KILL "${GATE_LIMIT:-185}" python3 -m kmut gate --jobs 1 --timeout 120 --accept "${cands[@]}" --json "$L/gate5.json" > "$L/gate5.txt" 2> "$L/gate5.err"
stamp "gate end $?"
python3 scripts/device/gate-summary.py "$L/gate5.json"
stamp "bench start"
mapfile -t bench < .dev1/bench2.txt
timeout -s INT "${BENCH_LIMIT:-165}" python3 -m kmut bench run "${bench[@]}" --max-per-rule 2 --sample 60 --seed 0 --workers-per-gpu 6 \
  > "$L/bench-run.txt" 2> "$L/bench-run.err"
stamp "bench end $?"; cat "$L/bench-run.txt"; grep -E "^(bench|run:.*now|error)" "$L/bench-run.err" | tail -n 8
tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$L"; stamp done
