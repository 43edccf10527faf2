#!/usr/bin/env bash
# Run on the device from the repository root, with the wheel in .whl/ and the compressed store
# (147 substrates compiled here with `kmut compile --max-per-rule 1`, the earlier calls' results
# merged in: docs/data/2026-12-02-witness-campaign.sqlite.gz, now superseded by the 2026-12-03 export) in the carried folder .dev1/.
# 2026-12-03: the witness campaign resumed (issue 22), the protocol audit on its mutants (issue
# 14), the ceilings (issue 22), the depth overhead (issue 16). Switches, each off unless set:
#   WIT_LIMIT/WIT_BUDGET/WIT_WORKERS  the witness run (WIT_LIMIT=0 skips it)
#   AUDIT_LIMIT/AUDIT_BUDGET          `kmut audit` of $AUDIT_PROTOCOLS over the evaluated mutants
#   CEIL_LIMIT/CEIL_ARGS/CEIL_WORKERS `kmut ceiling --sizes small` for every substrate (CEIL_ARGS: e.g. --generator signed)
#   DEPTH_LIMIT                       three level-3 networks with and without the per-step capture
#   L3_LIMIT/L3_BUDGET/L3_SAMPLE      the depth study's stratified level-3 sample (`kmut run` over every
#                                     accepted network, per-step capture on), then `kmut depth`
# CALL_LIMIT (common.sh): the call's limit; every phase is cut to leave time for the export.
# Second session of 2026-12-03: every command shares one scratch folder in /dev/shm ($SCRATCH), so
# a warm machine's later calls reuse the columns earlier calls drew (official level-1 draws cost
# about 1.3 s each on the CPU), and WIT_WORKERS sets how many draw at once.
# 2026-12-04: STEPS_TEST=1 first checks the one-launch step statistics (kmut.steps_fused) against
# the torch expression on this GPU, and turns them off (KMUT_STEP_STATS=torch) if they disagree;
# the depth overhead runs with $WIT_WORKERS workers.
# Second session of 2026-12-04 (written for the next device session; none was lent after the
# first call): FILL_LIMIT/FILL_BUDGET fill the kill matrix where a suite's choice can still change
# (`kmut run --suites witness --full-matrix --mutants-from .dev1/fill.txt`, the list written here by
# `kmut synth --fill-list`), then print the budget curve; BENCH_LIMIT runs issue 21's benchmark
# (`kmut bench run --sample $BENCH_SAMPLE --seed 0 --baseline none`); SPARES sets --spare-workers
# of every run (default: kmut's, 1 per GPU).
# 2026-12-06: PREFIX_TEST=1 checks the replayed pipeline prefix on this GPU first (KMUT_PREFIX=run if not);
# COMPILE_BENCH=1 runs `kmut bench compile` on the host's cores (issue 21's first goal).
# Fourth session of 2026-12-06: the bench's workers logs come back in logs.tgz (bench-workers/;
# `kmut bench run --keep-logs`), so its preparations and idle time can be read after the call.
# Fifth session of 2026-12-06: WIT_SAMPLE (default 1500) grows the witness sample; every prefix of
# the stratified order is itself stratified, so --sample 3000 --seed 1 extends the 1,500 already
# searched (issue 15: the held-out rate climbs about 0.6 points per doubling of the mutants per problem).
# Seventh session of 2026-12-06: the bench classifies its sample from the carried store's compile
# records (`--classes-from`): on a fresh machine its setup took 229 s, compiling 1,431 scoped originals and 7,029 mutants among it.
# WIT_SUBSTRATES (default: every accepted one) limits the search to some substrates, e.g. the levels
# 2 and 3 that hold most of the held-out misses; the stratified order restricted to them is their
# part of the whole order, so WIT_SAMPLE then counts their mutants only (pass more than they hold
# among the 1,500 already searched to extend).
set -uo pipefail
# shellcheck source=scripts/device/common.sh
source scripts/device/common.sh
# gpu_check TEST VAR VALUE WHAT [K]: run a GPU test file (only its tests matching `-k K`, if
# given); if it fails, export VAR=VALUE (the slower, proven path) so the campaign's numbers never
# rest on an unchecked fast path.
gpu_check() {
  local log
  log="$L/$(basename "$1" .py)${5:+-$5}.txt"
  if python3 -m pytest -q -p no:cacheprovider "$1" -m gpu ${5:+-k "$5"} > "$log" 2>&1; then
    stamp "$4 agree on this GPU: $(tail -n 1 "$log")"
  else
    export "$2=$3"; stamp "$4 FAILED; $2=$3"; tail -n 30 "$log"
  fi
}
# 2026-12-07: GPU_TESTS="PATH..." runs those GPU test files first (`pytest -m gpu`), for code no
# device has run yet; a failure is printed and kept in the logs but switches nothing off.
if [ -n "${GPU_TESTS:-}" ]; then
  # shellcheck disable=SC2086
  python3 -m pytest -q -p no:cacheprovider -m gpu $GPU_TESTS > "$L/gpu-tests.txt" 2>&1
  stamp "GPU tests ($GPU_TESTS): $(tail -n 1 "$L/gpu-tests.txt")"; grep -E "^(FAILED|ERROR)" "$L/gpu-tests.txt" | head -n 20
fi
[ "${STEPS_TEST:-0}" = 1 ] && gpu_check tests/python/test_steps_fused_gpu.py KMUT_STEP_STATS torch "fused step statistics and torch's"
# 2026-12-04 (second session): generated inputs are transformed on the GPU; checked against the CPU first.
[ "${TRANSFORM_TEST:-1}" = 1 ] && gpu_check tests/python/test_generators_gpu.py KMUT_TRANSFORM cpu "GPU and CPU transforms of generated inputs"
# 2026-12-06: a mutant's pipeline replays the steps before its first changed one; checked against
# launching every step (the same store to the bit) before any run relies on it.
# Seventh session of 2026-12-06: the same test covers the replayed tail; a failure turns both off.
[ "${PREFIX_TEST:-0}" = 1 ] && gpu_check tests/python/test_prefix.py KMUT_PREFIX run "pipelines with the replayed prefix and tail and fully launched"
[ "${KMUT_PREFIX:-}" = run ] && export KMUT_TAIL=run
# Sixteenth session of 2026-12-07: KMUT_BUFFERS=allocate has `launch`'s buffers allocated between
# their canaries (kmut.guards.GuardedTorch) instead of moved there, e.g. for `BENCH_BASELINE=relocate`
# (the lever alone). Checked first against moving them, cell for cell with the canary hits
# (BUFFERS_TEST, default on when asked), and turned off (KMUT_BUFFERS=relocate) if the two disagree.
if [ "${KMUT_BUFFERS:-}" = allocate ] && [ "${BUFFERS_TEST:-1}" = 1 ]; then
  gpu_check tests/python/test_run_gpu.py KMUT_BUFFERS relocate "buffers allocated between canaries and moved ones" canaries_decide
fi
# Third session of 2026-12-06: the guard against generated columns too large for the machine
# (`Worker.refuse_oversized`), checked on this device first; if it fails, the limit is lifted
# (KMUT_MAX_INPUT_BYTES huge) so no column is refused by an unchecked path.
if [ "${LIMIT_TEST:-1}" = 1 ]; then
  gpu_check tests/python/test_run_gpu.py KMUT_MAX_INPUT_BYTES $((1 << 50)) "the input limit and its test" input_limit
fi
# Tenth session of 2026-12-06: the output comparison and the column checksum are one kernel
# launch each on a GPU (kmut.compare_fused, kmut.checksum_fused); checked against torch's
# expressions on this GPU first (FUSED_TEST, default on), each turned off if it disagrees.
if [ "${FUSED_TEST:-1}" = 1 ]; then
  gpu_check tests/python/test_compare_fused_gpu.py KMUT_COMPARE torch "the one-launch comparison and torch's"
  gpu_check tests/python/test_checksum_fused_gpu.py KMUT_CHECKSUM torch "the one-launch checksum and torch's"
fi
# COMPARE_BENCH=1: both comparisons and the checksum, torch against the kernels, on 2^28-element
# tensors (two pipeline steps: sixteen such steps would take 32 GiB).
[ "${COMPARE_BENCH:-0}" = 1 ] && python3 -m kmut bench compare --elements $((1 << 28)) --steps 2 --repeat 3 2>&1 | tee "$L/bench-compare.txt"
# kmut.fastrand against torch.rand on this host's cores (the draws of every official input).
[ "${DRAW_BENCH:-1}" = 1 ] && stamp "$(python3 -m kmut bench draw --elements $((1 << 28)) --repeat 2 2>&1 | tail -n 1)"
# 2026-12-06: issue 21's compile goal on this host's cores (one thread, N threads, a pool of N NVRTC processes).
[ "${COMPILE_BENCH:-0}" = 1 ] && python3 -m kmut bench compile substrates/accepted/*.py --sample 256 --threads "$(nproc)" 2>&1 | grep -v -i warn | grep -v nn.Trans | tail -n 4
SCRATCH=${SCRATCH:-/dev/shm/kmut-scratch-campaign}; mkdir -p "$SCRATCH"
spares=(); [ -n "${SPARES:-}" ] && spares=(--spare-workers "$SPARES")
stamp "scratch $SCRATCH: $(du -sh "$SCRATCH" 2>/dev/null | cut -f1) kept from earlier calls"
if [ "${WIT_LIMIT:-0}" != 0 ]; then
  stamp "witness start"; before=$(prepared_lines "$wit.workers.log")
  nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader,nounits -lms 1000 > "$L/smi-witness.csv" 2>/dev/null &
  smi=$!
  # shellcheck disable=SC2086
  timeout -k 15 -s INT "$(cap "$WIT_LIMIT")" python3 -m kmut witness ${WIT_SUBSTRATES:-} --store "$wit" --max-per-rule 1 --sample "${WIT_SAMPLE:-1500}" --seed 1 \
    --workers-per-gpu "${WIT_WORKERS:-6}" "${spares[@]}" --scratch "$SCRATCH" --budget "${WIT_BUDGET:-300s}" > "$L/witness.txt" 2> "$L/witness.err"
  stamp "witness end $?"; kill "$smi" 2>/dev/null
  grep -v "^  \[worker" "$L/witness.err" | grep -v "^run: removed" | grep -v "pipeline steps" | tail -n 6
  grep -h "pipeline steps" "$L/witness.err"  # once: the tails above leave it out
  # The slot-time line (2026-12-07: the run's error lines pushed it out of the tail; the spare
  # pool's effect is its `starting` share) and the replacements.
  grep -h -E "^run: (worker time|[0-9]+ evaluations now)" "$L/witness.err"
  python3 - "$L/smi-witness.csv" <<'PY'
import sys
rows = [line.split(",") for line in open(sys.argv[1]) if line.strip()]
util = [float(r[0]) for r in rows if r[0].strip().replace(".", "").isdigit()]
print(f"GPU busy (nvidia-smi, 1 s samples): mean {sum(util) / max(len(util), 1):.0f}% over {len(util)} samples")
PY
  prep_phases "$wit.workers.log" "$before"
  python3 -m kmut score --store "$wit" --denominator witnessed > "$L/score-witnessed.txt" 2>&1; sed -n 1,24p "$L/score-witnessed.txt"
  python3 -m kmut score --store "$wit" --denominator witnessed --json > "$L/score-witnessed.json" 2>/dev/null
fi
if [ "${AUDIT_LIMIT:-0}" != 0 ]; then
  stamp "audit start"
  # shellcheck disable=SC2086
  timeout -k 15 -s INT "$(cap "$AUDIT_LIMIT")" python3 -m kmut audit ${AUDIT_PROTOCOLS:-official head kbv-inputs kbv-full fuzz-kbm kmut-suites} --store "$wit" \
    --workers-per-gpu "${WIT_WORKERS:-6}" --scratch "$SCRATCH" --budget "${AUDIT_BUDGET:-200s}" > "$L/audit.txt" 2> "$L/audit.err"
  stamp "audit end $?"; sed -n 1,45p "$L/audit.txt"; grep -v "^  \[worker" "$L/audit.err" | tail -n 4
fi
if [ "${CEIL_LIMIT:-0}" != 0 ]; then
  stamp "ceiling start"
  # shellcheck disable=SC2086
  timeout -k 15 -s INT "$(cap "$CEIL_LIMIT")" python3 -m kmut ceiling --store "$wit" --sizes small --workers "${CEIL_WORKERS:-6}" ${CEIL_ARGS:-} > "$L/ceiling.txt" 2> "$L/ceiling.err"
  stamp "ceiling end $?"; sed -n 1,12p "$L/ceiling.txt"; grep -v "^  \[worker" "$L/ceiling.err" | tail -n 3
fi
if [ "${DEPTH_LIMIT:-0}" != 0 ]; then
  L3=(substrates/accepted/L3p9_resnet18.py substrates/accepted/L3p1_mlp.py substrates/accepted/L3p17_squeezenet_fire.py)
  for mode in steps no-steps; do
    flag=(); [ "$mode" = no-steps ] && flag=(--no-steps)
    stamp "depth overhead: $mode"
    timeout -k 15 -s INT "$(cap "$DEPTH_LIMIT")" python3 -m kmut run "${L3[@]}" --store "/tmp/depth-$mode.sqlite" --max-per-rule 1 --sample 45 --seed 0 \
      --workers-per-gpu "${WIT_WORKERS:-6}" "${flag[@]}" > "$L/depth-$mode.txt" 2> "$L/depth-$mode.err"
    grep -E "^run: [0-9]+ evaluations now" "$L/depth-$mode.err" | tail -n 1
  done
  python3 scripts/device/depth-overhead.py /tmp/depth-steps.sqlite /tmp/depth-no-steps.sqlite
fi
if [ "${L3_LIMIT:-0}" != 0 ]; then
  stamp "level-3 sample start"
  timeout -k 15 -s INT "$(cap "$L3_LIMIT")" python3 -m kmut run substrates/accepted/L3p*.py --store "$wit" --max-per-rule 1 \
    --sample "${L3_SAMPLE:-1500}" --seed 2 --workers-per-gpu "${WIT_WORKERS:-6}" "${spares[@]}" --scratch "$SCRATCH" --budget "${L3_BUDGET:-300s}" \
    > "$L/l3.txt" 2> "$L/l3.err"
  stamp "level-3 sample end $?"; grep -v "^  \[worker" "$L/l3.err" | grep -v "^run: removed" | grep -v "pipeline steps" | tail -n 5
  grep -h "pipeline steps" "$L/l3.err"  # once: the tails above leave it out
  python3 -m kmut depth --store "$wit" > "$L/depth.txt" 2>&1; sed -n 1,30p "$L/depth.txt"
  # The published depth figures are over distinct (live) mutants: print those too.
  python3 -m kmut depth --store "$wit" --denominator live > "$L/depth-live.txt" 2>&1; grep -A6 "^survival by" "$L/depth-live.txt"
fi
if [ "${FILL_LIMIT:-0}" != 0 ]; then
  stamp "matrix fill start: $(grep -vc '^#' .dev1/fill.txt) mutants"; before=$(prepared_lines "$wit.workers.log")
  timeout -k 15 -s INT "$(cap "$FILL_LIMIT")" python3 -m kmut run --store "$wit" --max-per-rule 1 --suites witness --full-matrix \
    --mutants-from .dev1/fill.txt --workers-per-gpu "${WIT_WORKERS:-6}" "${spares[@]}" --scratch "$SCRATCH" --budget "${FILL_BUDGET:-240s}" \
    > "$L/fill.txt" 2> "$L/fill.err"
  stamp "matrix fill end $?"; grep -v "^  \[worker" "$L/fill.err" | grep -v "^run: removed" | grep -v "pipeline steps" | tail -n 6
  grep -h "pipeline steps" "$L/fill.err"  # once: the tails above leave it out
  grep -h -E "^run: (worker time|[0-9]+ evaluations now)" "$L/fill.err"
  prep_phases "$wit.workers.log" "$before"
  python3 -m kmut synth --store "$wit" > "$L/synth.txt" 2> "$L/synth.err"; sed -n 1,11p "$L/synth.txt"; grep "can still add" "$L/synth.err"
fi
if [ "${BENCH_LIMIT:-0}" != 0 ]; then
  stamp "bench run start"
  # BENCH_BASELINE (default none) and BENCH_SUBSTRATES (default: every accepted one), e.g.
  # BENCH_BASELINE=no-prefix BENCH_SUBSTRATES="substrates/accepted/L3p*.py" for the replayed prefix alone.
  # shellcheck disable=SC2086
  timeout -k 15 -s INT "$(cap "$BENCH_LIMIT")" python3 -m kmut bench run ${BENCH_SUBSTRATES:-} --max-per-rule 1 --sample "${BENCH_SAMPLE:-300}" --seed 0 \
    --baseline "${BENCH_BASELINE:-none}" --workers-per-gpu "${WIT_WORKERS:-6}" "${spares[@]}" --keep-logs "$L/bench-workers" \
    --classes-from "$wit" > "$L/bench-run.txt" 2> "$L/bench-run.err"
  stamp "bench run end $?"; cat "$L/bench-run.txt"; grep -v "^  \[worker" "$L/bench-run.err" | tail -n 4
fi
export_results
