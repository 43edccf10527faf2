#!/usr/bin/env bash
# The tiled rewrites of the heaviest level-2 substrates (eighteenth session, issue 21's goal 3).
# Twenty substrates' naive kernels hold about 60% of the whole-corpus bench's mutant kernel time
# (docs/performance.md), against substrates/STYLE.md's own cost rule; their tiled rewrites wait in
# substrates/candidate_L2p*.py (same names as the accepted files they would replace). Run on the
# device from the repository root, carrying .dev1/ and .whl/.
#   PART=a  the rewrites gated on this GPU (`kmut gate`, no --accept: the acceptance is mirrored in
#           git afterwards, with its verdicts), then the whole-corpus bench (600 mutants, seed 0,
#           --baseline none) over the corpus with each passing rewrite in place of its accepted file.
#   PART=ab (one call only) the gate cut to 200 s, then the bench with the rewrites and the same
#           bench over the accepted corpus, each on BENCH_SAMPLE (default 200) mutants.
#   PART=gate (a short call) the rewrites and the accepted files they replace gated on one machine:
#           verdicts and forward times side by side, no bench.
#   PART=b  the same bench over the accepted corpus as it is (the same machine's baseline: compare
#           only rows of one machine; call it right after PART=a, while the machine is warm), then
#           in the time left the run worker's GPU tests and the accepted files the rewrites
#           replace, gated for their forward times beside the rewrites' (the gate's `fwd ms`).
# Every part ends with the working store's export (scripts/device/common.sh, through the campaign
# script), and the gate's JSON and table stay whole under $OUT.
set -uo pipefail
# shellcheck source=scripts/device/wheel.sh
source scripts/device/wheel.sh
OUT=${OUT:-/tmp/out}; export OUT; mkdir -p "$OUT"
LIMIT=${CALL_LIMIT:-585}; start=$(date +%s)
left() { echo $(( LIMIT - ($(date +%s) - start) )); }
install_wheel || exit 1
export PYTHONPATH=/tmp/kmut-site:$PWD PYTHONUNBUFFERED=1 KMUT_CACHE_DIR=/tmp/kmut-cache KMUT_NO_PROGRESS=1
echo "card: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1) (part ${PART:-a})"
# The rewrites: candidates whose name is an accepted substrate's.
rewrites=()
for c in substrates/candidate_L2p*.py; do
  [ -f "substrates/accepted/${c#substrates/candidate_}" ] && rewrites+=("$c")
done
echo "${#rewrites[@]} rewrites: ${rewrites[*]}"
# gate TAG FILE...: the gate's table and JSON under $OUT/gate-TAG.*; prints the verdict table.
gate() {
  local tag=$1; shift
  timeout -k 10 "${GATE_LIMIT:-200}" python3 -m kmut gate --jobs "${GATE_JOBS:-6}" "$@" --json "$OUT/gate-$tag.json" \
    > "$OUT/gate-$tag.txt" 2> "$OUT/gate-$tag.err"
  echo "gate ($tag) exit $?"; grep -E "^(L[0-9]|candidate|-)" "$OUT/gate-$tag.txt"
}
# bench TAG FILES [SPAN]: the whole-corpus bench over FILES within SPAN seconds (default: the rest
# of the call), its logs and export under $OUT/TAG (two benches of one call keep both).
bench() {
  local span=${3:-$(( $(left) - 5 ))}
  OUT="$OUT/$1" BENCH_SUBSTRATES="$2" BENCH_LIMIT=$(( span - 55 )) BENCH_SAMPLE=${BENCH_SAMPLE:-600} BENCH_BASELINE=none \
    WIT_WORKERS=${WIT_WORKERS:-10} FUSED_TEST=0 TRANSFORM_TEST=0 DRAW_BENCH=0 LIMIT_TEST=0 \
    CALL_LIMIT=$span bash scripts/device/2026-12-03-campaign.sh
}
# The corpus with every rewrite the gate passed in place of its accepted file. A gate cut short
# writes no JSON: then every rewrite goes in, said loudly (a throughput figure, not a verdict).
rewritten() {
  if [ -s "$OUT/gate-tiled.json" ]; then python3 scripts/rewrite-corpus.py "$OUT/gate-tiled.json"; return; fi
  echo "WARNING: the gate left no verdicts; the bench takes every rewrite, ungated" >&2
  for f in substrates/accepted/*.py; do
    c="substrates/candidate_${f#substrates/accepted/}"; if [ -f "$c" ]; then echo -n "$c "; else echo -n "$f "; fi
  done; echo
}
if [ "${PART:-a}" = a ]; then
  gate tiled "${rewrites[@]}"
  # The corpus with every rewrite that passed in place of its accepted file.
  corpus=$(rewritten)
  echo "bench corpus: $(echo "$corpus" | tr ' ' '\n' | grep -c candidate_) rewrites in place"
  bench rewrites "$corpus"
elif [ "${PART:-a}" = gate ]; then
  # The shortest call that still measures the lever: both gates on one machine, so each
  # rewrite's forward time stands beside the accepted file's (the gate's `fwd ms`).
  GATE_LIMIT=$(( ($(left) - 10) / 2 )) gate tiled "${rewrites[@]}"
  accepted=(); for c in "${rewrites[@]}"; do accepted+=("substrates/accepted/${c#substrates/candidate_}"); done
  GATE_LIMIT=$(( $(left) - 10 )) gate accepted "${accepted[@]}"
elif [ "${PART:-a}" = ab ]; then
  # Where only one call can be had: the gate cut short, then both benches on a smaller sample,
  # the rewrites first, each in half of what is left.
  GATE_LIMIT=${GATE_LIMIT:-200} gate tiled "${rewrites[@]}"
  corpus=$(rewritten)
  echo "bench corpus: $(echo "$corpus" | tr ' ' '\n' | grep -c candidate_) rewrites in place"
  export BENCH_SAMPLE=${BENCH_SAMPLE:-200}
  bench rewrites "$corpus" $(( ($(left) - 10) / 2 ))
  bench accepted "$(echo substrates/accepted/*.py)" $(( $(left) - 5 ))
else
  bench accepted "$(echo substrates/accepted/*.py)"
  # In the time left: the run worker's GPU tests (the allocated buffers' check has run on no GPU
  # yet), then the accepted files the rewrites replace, gated for their forward times.
  if [ "$(left)" -gt 120 ]; then
    timeout -k 10 $(( $(left) - 60 )) python3 -m pytest -q -p no:cacheprovider -m gpu tests/python/test_run_gpu.py > "$OUT/gpu-tests.txt" 2>&1
    echo "GPU tests (tests/python/test_run_gpu.py): $(tail -n 1 "$OUT/gpu-tests.txt")"; grep -E "^(FAILED|ERROR)" "$OUT/gpu-tests.txt" | head -n 20
  fi
  accepted=(); for c in "${rewrites[@]}"; do accepted+=("substrates/accepted/${c#substrates/candidate_}"); done
  [ "$(left)" -gt 60 ] && GATE_LIMIT=$(( $(left) - 10 )) gate accepted "${accepted[@]}"
fi
echo "call done after $(( $(date +%s) - start )) s"
