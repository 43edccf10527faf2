"""A scripted stand-in for `kmut._run_worker`, for testing the orchestrator without a GPU.

It speaks the same protocol. What happens to a mutant is spelled by its id's prefix:
  kill-*      completes with tau* 0.5 (killed at any tolerance)
  tight-*     completes with tau* 1e-3 (survives 1e-2, killed at 1e-4)
  survive-*   completes with tau* 1e-6
  oob-*       survives, but a canary was overwritten
  late-*      survives the first column, killed (tau* 0.5) on the others
  latefatal-* survives the first column; on the others fails (tau* 0.5) and its worker exits after
              the result ("fatal", no crash: the CPU backend's canary), running no deferred original
  crash-*     a CUDA error the context survives
  fatal-*     CUDA_ERROR_ILLEGAL_ADDRESS; the worker exits, as a poisoned context forces
  hang-*      announces its first launch, then never answers
  die-*       exits abruptly mid-evaluation (exit code 139)
  segv-*      killed by SIGSEGV mid-evaluation (a CPU backend guard page)
  racy-*      run in the requested thread orders: killed in order 1 only
  slowcheck-* its kernels end at once, then its comparison takes 2 s (not a timeout)
  oom-*       out of GPU memory, every time: the machine's failure, never a verdict
  oomonce-*   out of GPU memory the first time any worker runs it on a column (with --state), then survives
  oomkill-*   the worker is killed with SIGKILL mid-evaluation (as by the OOM killer)
  bigkill-*   killed (tau* 0.5) only on a generated column of scale 1000 (`W:...:1000:...`)
A substrate whose name starts with `broken` fails to prepare any column; one whose name starts
with `heavy` reports an original taking 5 s per input; one whose name starts with `slowprep`
never finishes preparing; one whose name starts with `big` reports a column footprint of 60% of
the device (two never fit at once); one whose name starts with `peaky` reports a preparation
peak of 60% of the device but holds 10% while evaluating (`held_bytes`: a witness column whose
float64 validity copies go back after its preparation); one whose name starts with `costlyprep` reports each
column's preparation as taking 100 s (without waiting); one whose name starts with `ceiling` reports, when the request asks for the validity gate
(`margin`), every generated column of scale 1000 invalid (past the ceiling); one whose name starts
with `oomprep` runs out of memory
preparing each column the first time any worker tries it (with --state). The device reports 100 GiB.
A column whose suite contains `hugeprep` runs out of memory preparing, every time; one whose suite
contains `toolarge` is refused as too large for the machine (`retry_alone: false`). One whose suite
contains `crowded` fails to prepare only while another worker holds a column (with --holdings), as
a column that fits the machine alone but not beside another's copy: `crowdedbig` refused as too
large (`retry_alone: false`), any other `crowded` suite out of GPU memory.
A column request with "known" (the engine's stored figures) is answered with those figures and
"original_stored": true, as a single-kernel substrate's worker does. One with "defer" is answered
with no tau, the deferred kernel time and "original_deferred": true, and the first evaluation on
it that fails the comparison (tau* above the deferred tolerance) carries "original": the
original's figures there (its tau* as below), or, on a suite containing `origcrash`, its crash. On a column whose suite contains `origfail` the original's own output is off by tau* = max abs =
1e-3 (a bound tighter than that rejects the original there).
`{"op": "release"}` drops the column. Options:
  --log PATH     append every request line to PATH (tests count what was sent)
  --holdings PATH  append '<time> <pid> hold <substrate> <suite>:<seed>' and '<time> <pid> drop' as
                 columns are taken and dropped (an oomkill-* worker drops its column as it dies);
                 <time> is the system-wide monotonic clock, so the workers' lines sort together
  --prep-delay S  take S seconds to prepare each column (after logging its hold), so that two
                 workers' first preparations overlap as a real column's draw does
  --evals PATH   append '<time> <pid> eval <mutant> <suite>:<seed>' as each evaluation is received
                 (may be the --holdings file: hold, drop and eval lines then sort together)
  --crowded-oom  (with --holdings and --state) the run's first out-of-memory reply waits, before its
                 launch, until another worker holds a column (at most 20 s): its retry alone then
                 has another worker's memory to wait for
  --delay S      sleep S seconds per evaluation (tests interrupt a run midway)
  --start-delay S  take S seconds to start (before `ready`), as importing torch and creating a
                 CUDA context do
  --lose-device N  (with --state) device N is lost at its first evaluation, as a GPU falling off the bus
  --device, --scratch, --backend   accepted and ignored (the engine passes them)
"""

import argparse
import json
import os
import signal
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("--log")
parser.add_argument("--delay", type=float, default=0.0)
parser.add_argument("--start-delay", type=float, default=0.0, help="seconds before saying ready, as torch and CUDA take")
parser.add_argument("--linger", type=float, default=0.0,
                    help="after stdin closes, stay alive this long (as a worker inside a hung kernel does)")
parser.add_argument("--state", help="folder of markers shared by the workers of a run (what failed once)")
parser.add_argument("--holdings", help="append '<time> <pid> hold <substrate> <suite>:<seed>|drop' as columns are taken and dropped")
parser.add_argument("--prep-delay", type=float, default=0.0, help="seconds each column's preparation takes")
parser.add_argument("--evals", help="append '<time> <pid> eval <mutant> <suite>:<seed>' as evaluations are received")
parser.add_argument("--crowded-oom", action="store_true",
                    help="the run's first out-of-memory reply waits until another worker holds a column")
parser.add_argument("--device")
parser.add_argument("--scratch")
parser.add_argument("--backend")
parser.add_argument("--lose-device", type=int,
                    help="this device is lost at its first evaluation (answered as the machine's failure, "
                         "with --state), and no worker starts on it afterwards")
args = parser.parse_args()
log = args.log


def first_time(what):
    """True the first time any worker of this run asks (a marker file in --state)."""
    if not args.state:
        return True
    marker = os.path.join(args.state, what)
    try:
        os.close(os.open(marker, os.O_CREAT | os.O_EXCL))
        return True
    except FileExistsError:
        return False


def stamp(path, what):
    # CLOCK_MONOTONIC is system-wide: lines of different workers order as they happened.
    if path:
        with open(path, "a") as f:
            f.write(f"{time.monotonic():.6f} {os.getpid()} {what}\n")


def holding(what):
    stamp(args.holdings, what)


def others_hold():
    """Whether another worker holds a column now, from the --holdings log."""
    held = {}
    if not os.path.exists(args.holdings):
        return False  # nothing held yet
    with open(args.holdings) as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 3 and fields[2] in ("hold", "drop"):
                held[fields[1]] = fields[2] == "hold"
    return any(h for pid, h in held.items() if pid != str(os.getpid()))


def wait_for_crowd():
    """--crowded-oom: hold the run's first out-of-memory reply until another worker holds a column."""
    if not (args.crowded_oom and args.holdings and first_time("crowded-oom")):
        return
    until = time.monotonic() + 20.0
    while not others_hold() and time.monotonic() < until:
        time.sleep(0.01)


def emit(event, **data):
    print(json.dumps({"event": event, **data}), flush=True)


TOTAL = 100 << 30


def device_lost():
    return args.lose_device is not None and args.device == str(args.lose_device)


def main():
    if device_lost() and args.state and os.path.exists(os.path.join(args.state, "device-lost")):
        print("scripted: the device is lost (CUDA_ERROR_DEVICE_UNAVAILABLE)", file=sys.stderr)
        return 1
    time.sleep(args.start_delay)
    emit("ready", pid=os.getpid(), device="cuda:0", name="Scripted GPU", memory_total=TOTAL)
    column = None
    waiting = None  # the deferred tolerance while the column's original waits for a failure
    column_original = None
    for line in sys.stdin:
        if log:
            with open(log, "a") as f:
                f.write(line)
        req = json.loads(line)
        if req["op"] == "quit":
            holding("drop")
            return 0
        if req["op"] == "release":
            column = None
            holding("drop")
            emit("released")
            continue
        if req["op"] == "column":
            name = req["substrate"]["name"]
            if name.startswith("broken"):
                emit("error", detail="ValueError: scripted preparation failure", fatal=False)
                continue
            if name.startswith("oomprep") and first_time(f"prep-{name}-{req['suite']}-{req['seed']}") or "hugeprep" in req["suite"]:
                emit("error", detail="out of GPU memory: scripted", fatal=False, environment=True)
                continue
            if "crowded" in req["suite"] and args.holdings and others_hold():
                big = "crowdedbig" in req["suite"]
                emit("error", detail="out of memory: scripted, beside another worker's column", fatal=False, environment=True, retry_alone=not big)
                continue
            if "toolarge" in req["suite"]:
                emit("error", detail="out of memory before drawing: scripted", fatal=False, environment=True, retry_alone=False)
                continue
            holding("drop")
            column = (req["suite"], req["seed"])
            holding(f"hold {name} {req['suite']}:{req['seed']}")
            if name.startswith("slowprep"):
                time.sleep(3600)
            time.sleep(args.prep_delay)
            ms = 5000.0 if name.startswith("heavy") else 1.0
            peak = int(TOTAL * 0.6) if name.startswith(("big", "peaky")) else 1 << 30
            held = int(TOTAL * 0.1) if name.startswith("peaky") else peak
            validity = {}
            if req.get("margin") is not None:
                past = name.startswith("ceiling") and ":1000:" in req["suite"]
                validity = {"valid": not past, "tau64_ref": 0.2 if past else 1e-7, "tau64_orig": 0.2 if past else 1e-7}
            prep_s = 100.0 if name.startswith("costlyprep") else 0.01
            # A suite named `*origfail*`: the original's own output is off by 1e-3 there.
            off = 1e-3 if "origfail" in req["suite"] else 0.0
            known = req.get("known")
            stored = known is not None and known["sizes"] == {"n": 4}
            defer = req.get("defer") if not stored else None
            deferred = defer is not None and defer["sizes"] == {"n": 4}
            # The original's own figures on this column, for a deferred run to report.
            column_original = {"tau": off, "max_abs": off, "kernel_ms": ms}
            waiting = defer["tolerance"] if deferred else None
            if stored:
                # As a single-kernel substrate's worker does: the stored figures stand in for the run,
                # and without the original's run (nor the validity gate) the peak is lower.
                off, ms = known["tau"], known["kernel_ms"]
                peak, held = peak // 2, min(held, peak // 2)
                if req.get("margin") is not None:
                    validity = {k: known[k] for k in ("valid", "tau64_ref", "tau64_orig")}
            if deferred:
                emit("column", suite=req["suite"], seed=req["seed"], sizes={"n": 4}, kernel_ms=defer["kernel_ms"], canary=False, prep_s=prep_s,
                     peak_bytes=peak, held_bytes=held, original_deferred=True, **validity)
                continue
            emit("column", suite=req["suite"], seed=req["seed"], sizes={"n": 4}, tau=off, max_abs=off, kernel_ms=ms, canary=False, prep_s=prep_s,
                 peak_bytes=peak, held_bytes=held, original_stored=stored, **validity)
            continue
        mid = req["mutant"]
        kind = mid.split("-")[0]
        stamp(args.evals, f"eval {mid} {column[0]}:{column[1]}")
        out_of_memory = not device_lost() and (kind == "oom" or kind == "oomonce" and first_time(f"{mid}-{column[0]}-{column[1]}"))
        if out_of_memory:
            # Before `begin`: the engine's watchdog gives a launch 30 s, a running kernel 0.7 s.
            wait_for_crowd()
        emit("begin", eval=req["eval"])
        time.sleep(args.delay)
        if device_lost():
            first_time("device-lost")
            emit("result", eval=req["eval"], mutant=mid, environment="scripted: the device fell off the bus", wall_ms=1.0)
            return 1
        base = {"eval": req["eval"], "mutant": mid, "kernel_ms": 1.0, "wall_ms": 3.0, "shape_ok": True, "nonfinite": False,
                "canary": False, "inputs_restored": False}
        if kind == "hang":
            time.sleep(3600)
        if kind == "oomkill":
            holding("drop")  # the process's memory goes with it
            os.kill(os.getpid(), signal.SIGKILL)
        if out_of_memory:
            emit("result", eval=req["eval"], mutant=mid, environment="out of GPU memory: scripted", wall_ms=1.0)
            continue
        emit("end", eval=req["eval"])
        if kind == "slowcheck":
            time.sleep(2.0)
        if kind == "die":
            os._exit(139)
        if kind == "segv":
            os.kill(os.getpid(), signal.SIGSEGV)
        if kind == "fatal":
            emit("result", **base, crash="CUDA_ERROR_ILLEGAL_ADDRESS", detail="scripted", fatal=True)
            return 3
        if kind == "crash":
            emit("result", **base, crash="CUDA_ERROR_INVALID_VALUE", detail="scripted", fatal=False)
            continue
        tau = {"kill": 0.5, "tight": 1e-3, "survive": 1e-6, "oob": 1e-6}.get(kind, 1e-6)
        if kind in ("late", "latefatal"):
            tau = 1e-6 if column[1] == 1 else 0.5
        if kind == "latefatal" and tau > 0.1:
            emit("result", **base, tau=tau, max_abs=tau, max_rel=tau, fatal=True)
            return 3
        if kind == "bigkill":
            tau = 0.5 if ":1000:" in column[0] else 1e-6
        base["canary"] = kind == "oob"
        if kind == "racy":
            orders = [[o, 0.5 if o == 1 else 1e-6] for o in req.get("orders") or [0]]
            tau = max(t for _, t in orders)
            base["orders"] = orders
        if waiting is not None and tau > waiting:
            # The column's first failing evaluation runs the original its preparation deferred.
            waiting = None
            crashed = "origcrash" in column[0]
            base["original"] = {"crash": "CUDA_ERROR_LAUNCH_FAILED", "detail": "scripted"} if crashed else column_original
        emit("result", **base, tau=tau, max_abs=tau, max_rel=tau)
    return 0


if __name__ == "__main__":
    code = main()
    time.sleep(args.linger)
    sys.exit(code)
