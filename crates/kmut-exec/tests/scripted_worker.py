"""A scripted stand-in for `kmut._run_worker`, for testing the orchestrator without a GPU.

It speaks the same protocol. What happens to a mutant is spelled by its id's prefix:
  kill-*      completes with tau* 0.5 (killed at any tolerance)
  tight-*     completes with tau* 1e-3 (survives 1e-2, killed at 1e-4)
  survive-*   completes with tau* 1e-6
  oob-*       survives, but a canary was overwritten
  late-*      survives the first column, killed (tau* 0.5) on the others
  crash-*     a CUDA error the context survives
  fatal-*     CUDA_ERROR_ILLEGAL_ADDRESS; the worker exits, as a poisoned context forces
  hang-*      announces its first launch, then never answers
  die-*       exits abruptly mid-evaluation (exit code 139)
  segv-*      killed by SIGSEGV mid-evaluation (a CPU backend guard page)
  racy-*      run in the requested thread orders: killed in order 1 only
A substrate whose name starts with `broken` fails to prepare any column; one whose name starts
with `heavy` reports an original taking 5 s per input; one whose name starts with `slowprep`
never finishes preparing. Options:
  --log PATH     append every request line to PATH (tests count what was sent)
  --delay S      sleep S seconds per evaluation (tests interrupt a run midway)
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
parser.add_argument("--device")
parser.add_argument("--scratch")
parser.add_argument("--backend")
args = parser.parse_args()
log = args.log


def emit(event, **data):
    print(json.dumps({"event": event, **data}), flush=True)


def main():
    emit("ready", pid=os.getpid(), device="cuda:0", name="Scripted GPU")
    column = None
    for line in sys.stdin:
        if log:
            with open(log, "a") as f:
                f.write(line)
        req = json.loads(line)
        if req["op"] == "quit":
            return 0
        if req["op"] == "column":
            if req["substrate"]["name"].startswith("broken"):
                emit("error", detail="ValueError: scripted preparation failure", fatal=False)
                continue
            column = (req["suite"], req["seed"])
            if req["substrate"]["name"].startswith("slowprep"):
                time.sleep(3600)
            ms = 5000.0 if req["substrate"]["name"].startswith("heavy") else 1.0
            emit("column", suite=req["suite"], seed=req["seed"], sizes={"n": 4}, tau=0.0, max_abs=0.0, kernel_ms=ms, canary=False, prep_s=0.01)
            continue
        mid = req["mutant"]
        kind = mid.split("-")[0]
        emit("begin", eval=req["eval"])
        time.sleep(args.delay)
        base = {"eval": req["eval"], "mutant": mid, "kernel_ms": 1.0, "wall_ms": 3.0, "shape_ok": True, "nonfinite": False,
                "canary": False, "inputs_restored": False}
        if kind == "hang":
            time.sleep(3600)
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
        if kind == "late":
            tau = 1e-6 if column[1] == 1 else 0.5
        base["canary"] = kind == "oob"
        if kind == "racy":
            orders = [[o, 0.5 if o == 1 else 1e-6] for o in req.get("orders") or [0]]
            tau = max(t for _, t in orders)
            base["orders"] = orders
        emit("result", **base, tau=tau, max_abs=tau, max_rel=tau)
    return 0


if __name__ == "__main__":
    sys.exit(main())
