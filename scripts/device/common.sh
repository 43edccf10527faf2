# Sourced by the scripts in scripts/device/ (run on the device machine from the repository root,
# with the wheel in .whl/): the output folders, a clock, the wheel installed, kmut's environment,
# the working store kept on a warm machine, and the export of what the runs stored.
# After sourcing: $OUT, $L (logs), stamp MESSAGE, $wit (the working store).
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/logs"; L=$OUT/logs
t0=$(date +%s); stamp() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
# CALL_LIMIT: the device call's own limit in seconds (its timeout_s, or less where less device
# time is left: the device tool says so). `cap N` is N cut to what leaves EXPORT_S for a phase's
# kill grace and the export, so a call cut short still brings back what it stored (2026-12-03: a
# call whose limit fell below its phases lost its audit cells with the unexported store).
CALL_LIMIT=${CALL_LIMIT:-590}; EXPORT_S=${EXPORT_S:-40}
cap() { local left=$(( CALL_LIMIT - EXPORT_S - ($(date +%s) - t0) )); [ "$left" -lt 1 ] && left=1; if [ "$1" -lt "$left" ]; then echo "$1"; else echo "$left"; fi; }
# The working store lives in .device/live/ (git-ignored, not carried): a warm machine keeps it
# between calls, so a second call resumes where the first stopped; a fresh machine starts again
# from the carried, compressed store in .dev1/ (scripts/pack-device-store.py: the store without its
# per-step rows, so the call's 64 MiB carry holds it beside the tracked tree and the wheel).
W=.device/live; mkdir -p "$W"; wit=$W/wit.sqlite
if [ -f "$wit" ]; then stamp "resuming the store kept on this machine"; else
  python3 -c "import gzip,shutil,sys; shutil.copyfileobj(gzip.open(sys.argv[1]), open(sys.argv[2],'wb'))" .dev1/wit.sqlite.gz "$wit" || exit 1
  stamp "store decompressed"
fi
# shellcheck source=scripts/device/wheel.sh
source scripts/device/wheel.sh; install_wheel || exit 1
export PYTHONPATH=/tmp/kmut-site:$PWD PYTHONUNBUFFERED=1 KMUT_CACHE_DIR=/tmp/kmut-cache KMUT_NO_PROGRESS=1
python3 -m kmut --version || { echo "the wheel does not run here"; exit 1; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
# Host memory every 5 s (2026-12-06): the 2026-12-04 call whose machine stopped answering left no
# trace of why; ten workers each drawing official-size inputs beside a 32 GB scratch folder in
# /dev/shm come near the host's 128 GiB, so each call records its peak (printed by export_results).
( while sleep 5; do free -m | awk -v t="$(date +%s)" '/^Mem:/ {print t, $3, $6, $7}'; done ) > "$L/host-mem.txt" 2>/dev/null &

# Seconds by preparation phase over the "prepared" lines of a workers log, after the first $2 of
# them (a warm machine's calls share one log: pass `prepared_lines LOG` taken before the phase).
prepared_lines() { python3 -m kmut.phases --count "$1" 2>/dev/null || echo 0; }
prep_phases() { python3 -m kmut.phases "$1" --after "${2:-0}" | tee "$L/prep-phases.txt"; }

# Every table of the working store into $OUT/results.sqlite.gz (`SELECT *`), the logs into
# $OUT/logs.tgz: what comes back to be merged here (scripts/merge-device-results.py).
export_results() {
  stamp "export"
  awk 'NR == 1 || $2 > peak {peak = $2; avail = $4} END {if (NR) print "host memory: peak used " peak " MiB (available then " avail " MiB) over " NR " samples"}' "$L/host-mem.txt" 2>/dev/null
  rm -f "$OUT/results.sqlite"
  python3 - "$wit" "$OUT/results.sqlite" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1]); db.execute("ATTACH ? AS out", (sys.argv[2],))
for t in ("runs", "evaluations", "baselines", "ceiling_points", "ceilings", "step_layouts", "step_errors", "compilations", "classes"):
    db.execute(f"CREATE TABLE out.{t} AS SELECT * FROM main.{t}")
db.commit()
print({t: db.execute(f"SELECT count(*) FROM out.{t}").fetchone()[0] for t in ("evaluations", "baselines", "ceiling_points", "step_errors")})
PY
  gzip -f "$OUT/results.sqlite"
  # The device brings back files of at most 16 MiB (8 files, 64 MiB): a larger export comes back in
  # parts that scripts/merge-device-results.py reads as one (2026-12-03: a 17 MiB export was lost).
  if [ "$(stat -c %s "$OUT/results.sqlite.gz")" -gt $(( 15 * 1024 * 1024 )) ]; then
    split -b 15M -d "$OUT/results.sqlite.gz" "$OUT/results.sqlite.gz.part" && rm "$OUT/results.sqlite.gz"
  fi
  cp "$wit.workers.log" "$L/" 2>/dev/null; gzip -f "$L/wit.sqlite.workers.log" 2>/dev/null
  tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$L"; ls -la "$OUT"; stamp done
}
