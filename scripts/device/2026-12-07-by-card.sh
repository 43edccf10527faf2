#!/usr/bin/env bash
# One device call whose work depends on the card lent (2026-12-07, fourteenth session). A plain
# ask may bring an H100 or an H200, and issue 21's figures are owed on the H200, while the H100's
# were measured on 2026-12-07 (7.28 evaluations/s): so the call spends its time where the card
# adds something. Run on the device from the repository root, carrying .dev1/ and .whl/.
#   PART=a  (first call, fresh machine)
#     H200: the run worker's GPU tests (hang, out of bounds, crash), the whole-corpus bench of 600
#           mutants (issue 21's goal 3; the same command as the H100's 7.28/s), then the kill -9
#           demo in the time left.
#     other cards: the GPU tests, the kill -9 demo, then the witness search grown over level 1
#           (issue 15) in the time left.
#   PART=b  (second call, warm): on an H200 the compile benchmark first (issue 21's goal 1, on the
#           host's 16 cores), then the level-1 witness growth for the rest of the call.
# DEMOS=0 skips the GPU tests and the kill -9 demo on a card other than the H200 (they passed on
# the H100 on 2026-12-07), so the whole call goes to the growth.
# OTHER=bench (sixteenth session) sends a card other than the H200 to the H200's first part without
# the kill -9 demo: the GPU tests, then the whole-corpus bench, comparable with the H100's 7.28/s
# (the deferred original's first measurement needs the card of its baseline, not the H200).
# GROWTH picks the levels the growth searches: L1 (default; the fourteenth session ran it: level 1
# went from 6.3 to 15.4 witnessed mutants per problem) or L23 (levels 2 and 3, WIT_SAMPLE default
# 4500: the 3,000 of the 2026-12-06 growth, extended).
# Every part ends with the working store's export (scripts/device/common.sh), and the demo's
# output stays whole under $OUT/demo (2026-12-07: a `| tail` lost its comparison line).
set -uo pipefail
# shellcheck source=scripts/device/wheel.sh
source scripts/device/wheel.sh
OUT=${OUT:-/tmp/out}; export OUT
LIMIT=${CALL_LIMIT:-585}; start=$(date +%s)
left() { echo $(( LIMIT - ($(date +%s) - start) )); }
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
echo "card: $card (part ${PART:-a})"
h200=0; case "$card" in *H200*) h200=1 ;; esac
# Issue 15's growth: level 1 holds the fewest witnessed mutants per problem (6.3), and the
# stratified order restricted to it extends the 1,500 already searched (docs/synth.md).
growth() {
  local subs sample
  if [ "${GROWTH:-L1}" = L23 ]; then
    subs="$(echo substrates/accepted/L2p*.py substrates/accepted/L3p*.py)"; sample=${WIT_SAMPLE:-4500}
  else
    subs="$(echo substrates/accepted/L1p*.py)"; sample=${WIT_SAMPLE:-1500}
  fi
  WIT_LIMIT=$1 WIT_BUDGET="$(( $1 - 80 ))s" WIT_WORKERS=10 WIT_SAMPLE=$sample \
    WIT_SUBSTRATES="$subs" FUSED_TEST=0 TRANSFORM_TEST=0 DRAW_BENCH=0 LIMIT_TEST=0 \
    CALL_LIMIT=$(( $1 + 45 )) bash scripts/device/2026-12-03-campaign.sh
}
demo() {
  mkdir -p "$OUT/demo"
  SKIP_PYTEST=1 RUN=kill OUT="$OUT/demo" timeout "$1" bash scripts/device-check.sh > "$OUT/demo/demo.txt" 2>&1
  echo "kill -9 demo exit $?"; grep -v "^  \[worker" "$OUT/demo/demo.txt"
}
gpu_tests() {
  mkdir -p "$OUT"
  install_wheel || exit 1
  PYTHONPATH=/tmp/kmut-site:$PWD python3 -m pytest -q -p no:cacheprovider -m gpu tests/python/test_run_gpu.py > "$OUT/gpu-tests.txt" 2>&1
  echo "GPU tests (tests/python/test_run_gpu.py): $(tail -n 1 "$OUT/gpu-tests.txt")"; grep -E "^(FAILED|ERROR)" "$OUT/gpu-tests.txt" | head -n 20
  # The allocated buffers' check (KMUT_BUFFERS=allocate against moved buffers) ran among them:
  # the campaign need not run it again, and if it failed no later phase allocates them.
  export BUFFERS_TEST=0
  if grep -qE "^(FAILED|ERROR).*canaries_decide" "$OUT/gpu-tests.txt"; then export KMUT_BUFFERS=relocate; echo "KMUT_BUFFERS=relocate"; fi
}
if [ "${PART:-a}" = b ]; then
  if [ "$h200" = 1 ]; then
    install_wheel || exit 1
    PYTHONPATH=/tmp/kmut-site:$PWD python3 -m kmut bench compile substrates/accepted/*.py --sample 256 --threads "$(nproc)" 2>&1 \
      | grep -v -i warn | grep -v nn.Trans | tail -n 4
  fi
  growth $(( $(left) - 50 ))
elif [ "$h200" = 1 ] || [ "${OTHER:-growth}" = bench ]; then
  gpu_tests
  # On the H200 the kill -9 demo takes the call's last 225 s; elsewhere the bench takes them.
  keep=10; [ "$h200" = 1 ] && keep=225
  BENCH_LIMIT=330 BENCH_SAMPLE=600 BENCH_BASELINE=none WIT_WORKERS=10 FUSED_TEST=0 TRANSFORM_TEST=0 \
    DRAW_BENCH=0 LIMIT_TEST=0 CALL_LIMIT=$(( $(left) - keep )) bash scripts/device/2026-12-03-campaign.sh
  [ "$h200" = 1 ] && demo $(( $(left) - 10 ))
else
  if [ "${DEMOS:-1}" = 1 ]; then gpu_tests; demo 220; fi
  growth $(( $(left) - 50 ))
fi
echo "call done after $(( $(date +%s) - start )) s"
