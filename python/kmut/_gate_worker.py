"""The gate's worker: every check of one candidate substrate, in its own process.

`kmut gate` (Rust) starts one worker per candidate and reads one JSON object per line from its
stdout, one per check, in the order of `CHECKS`. Human-readable progress goes to stderr. A worker
that crashes (a kernel poisoning the CUDA context, a segfault) loses nothing already reported:
the orchestrator records the checks it received and marks the rest as not run.

Statuses: pass, fail, skip (an earlier check failed), no_gpu (needs a GPU, none visible),
unrefereeable (fp64 only: the fp32 reference misses its own fp64 evaluation on T0_original),
environment (the machine failed, not the candidate: out of GPU or host memory, a full disk; the
orchestrator gates it again with the GPU to itself, and never counts it as a failure).

`--memory-fraction F` caps the worker's share of the GPU's memory, so `kmut gate --jobs N`
never oversubscribes the GPU: a candidate that needs more than its share runs out of memory in
its own process (an environment status) instead of in another job's.

With `--backend cpu` (`kmut gate --backend cpu`, an author's pre-check without a GPU) the compile
check also builds the original with kmut's CPU backend (g++), and suites, nan_fill and
determinism run on that backend over the small suites only; their results carry
`data["backend"] == "cpu"` and a "CPU backend:" detail, and the orchestrator never counts them
as a GPU pass. fp64 stays no_gpu: it is an acceptance check over every suite at official sizes.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from . import jsonlines

CHECKS = ("import", "contract", "compile", "descriptor", "small_time", "suites", "nan_fill", "determinism", "fp64")
GPU_CHECKS = ("suites", "nan_fill", "determinism", "fp64")
SMALL_SUITE_LIMIT_S = 1.0
CPU = "cpu"
# Lines of a g++ log shown in the compile check: enough for the first errors and their context.
CPU_LOG_HEAD_LINES = 40


class Reporter:
    def __init__(self) -> None:
        self.done: list[str] = []

    def emit(self, check: str, status: str, detail: str = "", **data: Any) -> None:
        self.done.append(check)
        print(jsonlines.line({"check": check, "status": status, "detail": detail, "data": data}), flush=True)

    def skip_rest(self, reason: str) -> None:
        for c in CHECKS:
            if c not in self.done:
                self.emit(c, "skip", reason)


def progress(msg: str) -> None:
    print(f"  {msg}", file=sys.stderr, flush=True)


def where_in(exc: BaseException, path: Path) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename).resolve() == path.resolve()]
    return f"{path}:{frames[-1].lineno}" if frames else str(path)


def bitwise_equal(a: Any, b: Any, torch: Any) -> bool:
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    as_int = {torch.float32: torch.int32, torch.float64: torch.int64, torch.float16: torch.int16, torch.bfloat16: torch.int16}
    if a.dtype in as_int:
        return torch.equal(a.view(as_int[a.dtype]), b.view(as_int[b.dtype]))
    return torch.equal(a, b)


def allocated_buffers(steps: list[Any], inputs: list[Any], K: Any, torch: Any) -> list[Any]:
    """Tensor arguments `launch` allocated: neither inputs, nor weights, nor K.zeros buffers."""
    owned = K.owned_storages(inputs, torch) | K.zero_init
    seen: set[int] = set()
    out = []
    for s in steps:
        for t in s.tensors:
            ptr = t.untyped_storage().data_ptr()
            if ptr not in owned and ptr not in seen:
                seen.add(ptr)
                out.append(t)
    return out


def poison(buffers: list[Any], torch: Any) -> None:
    for t in buffers:
        whole = torch.empty(0, dtype=t.dtype, device=t.device)
        whole.set_(t.untyped_storage(), 0, (t.untyped_storage().nbytes() // t.element_size(),))
        if whole.is_floating_point():
            whole.fill_(float("nan"))
        else:
            whole.fill_(-7)  # an unlikely value for an index or count


def cpu_log_head(log: str, variant: str, path: Path, offset: int | None) -> str:
    """The first lines of a g++ log, with `variant/<name>.cu:LINE` (the translation keeps the
    CUDA string's lines) pointed at the candidate file's own lines where the string is in it."""
    import re

    if offset is not None:
        log = re.sub(rf"variant/{re.escape(variant)}\.cu:(\d+)", lambda m: f"{path}:{int(m.group(1)) + offset}", log)
        log = log.replace(f"variant/{variant}.cu", str(path))
    lines = log.splitlines()
    head = "\n".join(lines[:CPU_LOG_HEAD_LINES])
    return head + (f"\n... ({len(lines) - CPU_LOG_HEAD_LINES} more lines)" if len(lines) > CPU_LOG_HEAD_LINES else "")


class Gate:
    def __init__(self, path: Path, arch: str, rep: Reporter, backend: str = "gpu", memory_fraction: float | None = None):
        self.path = path
        self.arch = arch
        self.rep = rep
        self.backend = backend
        self.memory_fraction = memory_fraction

    # --- CPU checks -------------------------------------------------------------------------

    def run(self) -> None:
        import torch

        from . import loader
        from .exceptions import SubstrateImportError
        from .validate import validate_fields

        self.torch = torch
        shown = str(self.path)
        try:
            fields, K, _module = loader.load(self.path, torch)
        except SubstrateImportError as e:
            self.rep.emit("import", "fail", str(e), phase=e.phase)
            return self.rep.skip_rest("the module did not import")
        self.rep.emit("import", "pass", "imported and registered with no GPU work, allocation or compilation")
        errors = validate_fields(fields, shown)
        if errors:
            self.rep.emit("contract", "fail", "\n".join(str(e) for e in errors), count=len(errors))
            return self.rep.skip_rest("the contract check failed")
        self.fields, self.K = fields, K
        self.names = [fields["kernel_name"]] if isinstance(fields["kernel_name"], str) else list(fields["kernel_name"])
        self.rep.emit("contract", "pass", f"{fields['name']}: level {fields['level']}, problem {fields['problem']}, "
                      f"{len(self.names)} kernel(s), {len(fields['suites'])} suites",
                      name=fields["name"], level=fields["level"], problem=fields["problem"], kernels=self.names)
        if not self.compile_check(self.arch):
            return self.rep.skip_rest("the CUDA source did not compile")
        if not self.descriptor_check():
            return self.rep.skip_rest("the launch descriptor check failed")
        if self.backend == CPU:
            return self.cpu_checks()
        if not torch.cuda.is_available():
            for c in GPU_CHECKS:
                self.rep.emit(c, "no_gpu", "needs a GPU; none is visible")
            return None
        return self.gpu_checks()

    def compile_check(self, arch: str) -> bool:
        from . import nvrtc

        source = self.fields["cuda"]
        text = self.path.read_text(encoding="utf-8")
        at = text.find(source)
        offset = text[:at].count("\n") if at >= 0 else 0
        display = str(self.path) if at >= 0 else f"{self.fields['name']}.cu"
        try:
            result = nvrtc.compile_cuda(source, f"{self.fields['name']}.cu", arch, display, offset, kernels=self.names)
        except Exception as e:  # noqa: BLE001 - NVRTC missing or broken
            self.rep.emit("compile", "fail", f"NVRTC could not run: {e}")
            return False
        if result["image"] is None:
            self.rep.emit("compile", "fail", "NVRTC rejected the source:\n" + result["rendered"])
            return False
        kernels: dict[str, list[int]] = result["kernels"]
        symbols: dict[str, str] = result["symbols"]
        missing = [n for n in self.names if symbols.get(n) not in kernels]
        if missing:
            self.rep.emit("compile", "fail", f"kernel(s) {', '.join(missing)} are not kernels of the compiled image; "
                          f"it holds {', '.join(kernels) or 'no kernel'}")
            return False
        # Parameter sizes by kernel *name*, whatever its linkage.
        self.image, self.symbols = result["image"], symbols
        self.params = {n: kernels[symbols[n]] for n in self.names}
        major, minor = result["nvrtc_version"]
        detail = f"NVRTC {major}.{minor} {' '.join(result['options'])}: {len(result['image'])} bytes"
        data: dict[str, Any] = {"nvrtc": f"{major}.{minor}", "options": result["options"], "arch": arch}
        if self.backend == CPU:
            problem = self.cpu_build(offset if at >= 0 else None)
            if problem:
                self.rep.emit("compile", "fail", f"{self.path}: NVRTC compiled it ({detail}), but {problem}", backend=CPU, **data)
                return False
            detail += f"; CPU backend: g++ built {self.fields['name']} in {self.cpu_build_s:.1f} s"
            data["backend"] = CPU
        self.rep.emit("compile", "pass", detail, **data)
        return True

    def cpu_build(self, offset: int | None) -> str | None:
        """Translate and build the original for the CPU backend (variant name = the substrate's
        name); return why it could not, or None with `self.cpu_launcher` set."""
        from . import cpu_backend
        from .exceptions import KmutError

        name = self.fields["name"]
        start = time.perf_counter()
        try:
            built = cpu_backend.build([(name, self.fields["cuda"], self.names)], jobs=1)
        except KmutError as e:  # no compiler, an unwritable cache
            return (f"the CPU backend could not build it: {e} (kmut gate --backend cpu needs a C++17 compiler: "
                    "g++ on PATH, or $KMUT_CXX)")
        self.cpu_build_s = time.perf_counter() - start
        if name not in built.libraries:
            log = built.failed.get(name, "no log")
            return f"the CPU backend's g++ rejected its C++ translation (docs/cpu-backend.md):\n{cpu_log_head(log, name, self.path, offset)}"
        self.cpu_launcher = built.launcher(name)
        return None

    def descriptor_check(self) -> bool:
        from .contract import draw_inputs
        from .exceptions import ContractError
        from .validate import check_arguments, check_step_outputs, is_pipeline, parse_descriptor

        torch, K, f = self.torch, self.K, self.fields
        small = next(s for s in f["suites"] if s.small)
        sizes = K.sizes_for(f["dims"], small)
        try:
            inputs = draw_inputs(small, small.seeds[0], sizes, torch, "cpu")
            # Build the weights first: their one-off construction is not the cost of a forward.
            like = next((t for t in inputs if isinstance(t, torch.Tensor) and t.is_floating_point()), None)
            build_start = time.perf_counter()
            for w in K.weight_sets:
                if like is not None:
                    w(like)
            build_s = time.perf_counter() - build_start
            start = time.perf_counter()
            with torch.no_grad():
                r = f["ref"](inputs, torch)
            elapsed = time.perf_counter() - start
            limit = f.get("small_limit_s") or SMALL_SUITE_LIMIT_S
            if elapsed >= limit:
                # The first call may pay torch's one-off costs (lazy kernel loading, allocator
                # warm-up) or a loaded machine's: the suite's cost is its best of two more runs.
                for _ in range(2):
                    start = time.perf_counter()
                    with torch.no_grad():
                        f["ref"](inputs, torch)
                    elapsed = min(elapsed, time.perf_counter() - start)
            K.zero_init.clear()
            steps, out = parse_descriptor(f["launch"](inputs, torch), is_pipeline(f), self.names, str(self.path), torch)
            check_arguments(steps, self.params, str(self.path))
            check_step_outputs(steps, K.owned_storages(inputs, torch), str(self.path))
            if not isinstance(r, torch.Tensor):
                raise ContractError(str(self.path), "ref", f"returned {type(r).__name__}; expected one tensor")
            if tuple(out.shape) != tuple(r.shape) or out.dtype != r.dtype:
                raise ContractError(str(self.path), "launch", f"the output buffer is {tuple(out.shape)} {out.dtype} but ref returns "
                                    f"{tuple(r.shape)} {r.dtype} (suite {small.name})")
        except ContractError as e:
            self.rep.emit("descriptor", "fail", str(e))
            return False
        except Exception as e:  # noqa: BLE001 - foreign code
            self.rep.emit("descriptor", "fail", f"{where_in(e, self.path)}: {type(e).__name__} on suite {small.name}: {e}")
            return False
        self.rep.emit("descriptor", "pass", f"{len(steps)} step(s) on {small.name} {sizes}; arguments match the compiled kernels",
                      steps=len(steps))
        ms = elapsed * 1e3
        declared = " declared by the substrate" if f.get("small_limit_s") else ""
        status = "pass" if elapsed < limit else "fail"
        self.rep.emit("small_time", status, f"ref on {small.name} takes {ms:.0f} ms on the CPU (limit {limit * 1e3:.0f} ms{declared}; "
                      f"building the weights took {build_s:.2f} s once)", ms=ms, weight_build_s=build_s, limit_s=limit)
        return status == "pass"

    # --- CPU backend checks (kmut gate --backend cpu) -----------------------------------------

    def cpu_checks(self) -> None:
        """suites, nan_fill and determinism on the CPU backend over the small suites, as a
        pre-check; fp64 stays owed to the GPU."""
        from .exceptions import KmutError

        small = [s for s in self.fields["suites"] if s.small]
        self.cpu_rows: list[dict[str, Any]] = []
        self.cpu_failing: list[str] = []
        self.nan_problems: list[str] = []
        self.det_problems: list[str] = []
        self.current = ""
        try:
            for s in small:
                self.cpu_suite(s)
        except Exception as e:  # noqa: BLE001 - foreign code; the machine's failure is no verdict
            if self.machine_failed(e, f"CPU backend: {self.current}", self.torch):
                return None
            if isinstance(e, KmutError):  # a launcher refused a launch, arguments that do not fit
                self.rep.emit("suites", "fail", f"CPU backend: {self.current}: {e}", backend=CPU)
            else:
                self.rep.emit("suites", "fail", f"CPU backend: {self.current}: {where_in(e, self.path)}: {type(e).__name__}: {e}", backend=CPU)
            return self.rep.skip_rest("the small suites could not run on the CPU backend")
        self.cpu_report()
        return None

    def cpu_run(self, inputs: list[Any], order: int, poison_first: bool = False) -> tuple[list[Any], Any]:
        from .validate import is_pipeline, parse_descriptor

        torch, K, f = self.torch, self.K, self.fields
        K.zero_init.clear()
        steps, out = parse_descriptor(f["launch"](inputs, torch), is_pipeline(f), self.names, str(self.path), torch)
        if poison_first:
            poison(allocated_buffers(steps, inputs, K, torch), torch)
        self.cpu_launcher.run(steps, torch, order)
        return steps, out

    def cpu_suite(self, s: Any) -> None:
        """Every seed of one small suite against `ref`; the NaN-filled run and the other thread
        orders on its first seed, as the GPU does them on each suite's first input."""
        from .compare import tau_star
        from .contract import draw_inputs
        from .cpu_backend import FORWARD

        torch, K, f = self.torch, self.K, self.fields
        tol = f.get("tolerance") or {"atol": K.DEFAULT_ATOL, "rtol": K.DEFAULT_RTOL}
        sizes = K.sizes_for(f["dims"], s)
        row = {"suite": s.name, "inputs": 0, "passed": 0, "max_tau": 0.0, "sizes": sizes, "seeds": list(s.seeds)}
        self.cpu_rows.append(row)
        for j, seed in enumerate(s.seeds):
            self.current = f"suite {s.name} seed {seed}"
            progress(f"CPU backend: {self.current}")
            inputs = draw_inputs(s, seed, sizes, torch, "cpu")
            with torch.no_grad():
                r = f["ref"](inputs, torch)
            steps, out = self.cpu_run(inputs, FORWARD)
            same_shape = tuple(out.shape) == tuple(r.shape)
            ok = same_shape and bool(torch.allclose(r, out, atol=tol["atol"], rtol=tol["rtol"]))
            tau = tau_star(r, out) if same_shape else math.inf
            row["inputs"] += 1
            row["passed"] += int(ok)
            row["max_tau"] = max(row["max_tau"], tau)
            if not ok:
                why = (f"allclose fails at atol={tol['atol']:g} rtol={tol['rtol']:g}, tau* {tau:.3g}" if same_shape
                       else f"output {tuple(out.shape)} vs ref {tuple(r.shape)}, tau* inf")
                self.cpu_failing.append(f"{self.path}: suite {s.name} seed {seed}: {why}")
            if j == 0:
                self.cpu_nan_fill(s.name, seed, inputs, out)
                self.cpu_determinism(s.name, seed, inputs, steps)

    def cpu_nan_fill(self, suite: str, seed: int, inputs: list[Any], out: Any) -> None:
        """Buffers `launch` allocated start as NaN: an element a kernel never writes, or reads
        before writing, shows (the normal run's `torch.empty` memory may hide it)."""
        from .cpu_backend import FORWARD

        torch = self.torch
        self.current = f"NaN-filled run on suite {suite} seed {seed}"
        steps, out2 = self.cpu_run(inputs, FORWARD, poison_first=True)
        nan_layers = [i for i, s in enumerate(steps) if s.output.is_floating_point() and bool(torch.isnan(s.output).any())]
        if not bitwise_equal(out2, out, torch) or nan_layers:
            self.nan_problems.append(f"{suite} seed {seed}: " + (f"NaN left in the output of step(s) {nan_layers}" if nan_layers
                                                                 else "the output differs from the normal run"))

    def cpu_determinism(self, suite: str, seed: int, inputs: list[Any], forward: list[Any]) -> None:
        """Blocks, warps and lanes run in reverse and in a seeded shuffle: a correct kernel's
        every layer output is bitwise equal to the forward run's; a difference witnesses a race
        (a missing __syncthreads or __syncwarp)."""
        from .cpu_backend import RANDOM, REVERSE

        torch = self.torch
        for order, label in ((REVERSE, "1 (reverse)"), (RANDOM, "2 (shuffled)")):
            self.current = f"thread order {label} on suite {suite} seed {seed}"
            steps, _ = self.cpu_run(inputs, order)
            differing = next((i for i, (a, b) in enumerate(zip(forward, steps)) if not bitwise_equal(a.output, b.output, torch)), None)
            if differing is None:
                continue
            a, b = forward[differing].output, steps[differing].output
            diff = (a.double() - b.double()).abs().nan_to_num(nan=math.inf).max().item()
            self.det_problems.append(f"{suite} seed {seed}: kernel {steps[differing].kernel} (step {differing}) differs between "
                                     f"thread orders 0 (forward) and {label} (max |diff| {diff:.3g}): a race")
            return

    def cpu_report(self) -> None:
        rows = self.cpu_rows
        tol = self.fields.get("tolerance") or {"atol": self.K.DEFAULT_ATOL, "rtol": self.K.DEFAULT_RTOL}
        total, passed = sum(r["inputs"] for r in rows), sum(r["passed"] for r in rows)
        worst = max(rows, key=lambda r: r["max_tau"])
        detail = (f"CPU backend: {len(rows)} small suite(s), {passed}/{total} inputs pass at atol={tol['atol']:g} rtol={tol['rtol']:g}; "
                  f"worst tau* {worst['max_tau']:.3g} ({worst['suite']})")
        if self.cpu_failing:
            detail += "; failing: " + "; ".join(self.cpu_failing)
        self.rep.emit("suites", "fail" if self.cpu_failing else "pass", detail, suites=rows, backend=CPU)
        self.rep.emit("nan_fill", "fail" if self.nan_problems else "pass",
                      "CPU backend: " + ("; ".join(self.nan_problems) or "every element of every layer's output is written"), backend=CPU)
        self.rep.emit("determinism", "fail" if self.det_problems else "pass",
                      "CPU backend: " + ("; ".join(self.det_problems) or "thread orders forward, reverse and shuffled give bitwise-equal "
                                         "outputs in every layer"), backend=CPU)
        self.rep.emit("fp64", "no_gpu", "needs a GPU: not run with --backend cpu (it checks every suite at official sizes)")

    def machine_failed(self, e: BaseException, current: str, torch: Any) -> bool:
        """Report `e` as the machine's failure (out of memory, a full disk) if it is one: an
        `environment` status, which the orchestrator retries with the GPU to itself and never
        counts as the candidate's failure."""
        from .machine import environment_failure

        why = environment_failure(e, torch)
        if why is None:
            return False
        share = f" (this job's share of the GPU: {self.memory_fraction:.0%})" if self.memory_fraction else ""
        self.rep.emit("suites", "environment", f"{current}: {why}{share}: the machine failed, not the candidate; no verdict",
                      memory_fraction=self.memory_fraction)
        self.rep.skip_rest("the machine failed (no verdict)")
        return True

    # --- GPU checks -------------------------------------------------------------------------

    def gpu_checks(self) -> None:
        from .bridge import Launcher
        from .compare import tau_star
        from .contract import draw_inputs
        from .exceptions import CudaError, KmutError
        from .validate import is_pipeline, parse_descriptor

        torch, K, f = self.torch, self.K, self.fields
        device = torch.device("cuda", 0)
        major, minor = torch.cuda.get_device_capability(device)
        arch = f"sm_{major}{minor}"
        if arch != self.arch:
            progress(f"recompiling for the device's {arch}")
            if not self.compile_check(arch):
                return self.rep.skip_rest("the CUDA source did not compile for the device")
        torch.cuda.init()
        if self.memory_fraction:
            torch.cuda.set_per_process_memory_fraction(min(self.memory_fraction, 1.0), device)
        launcher = Launcher(self.image, device.index, self.symbols)
        tol = f.get("tolerance") or {"atol": K.DEFAULT_ATOL, "rtol": K.DEFAULT_RTOL}
        atol, rtol = tol["atol"], tol["rtol"]
        where = str(self.path)

        def run_once(inputs: list[Any], poison_first: bool = False) -> tuple[Any, Any, list[Any]]:
            K.zero_init.clear()
            steps, out = parse_descriptor(f["launch"](inputs, torch), is_pipeline(f), self.names, where, torch)
            if poison_first:
                poison(allocated_buffers(steps, inputs, K, torch), torch)
            launcher.run(steps, torch)
            return steps, out, [s.output for s in steps]

        suites_data, nan_problems, det_problems = [], [], []
        fp64_data, unrefereeable, over_ceiling = [], [], []
        forward_ms = None
        current = ""
        try:
            for s in f["suites"]:
                sizes = K.sizes_for(f["dims"], s)
                row = {"suite": s.name, "inputs": 0, "passed": 0, "max_tau": 0.0, "sizes": sizes}
                for j, seed in enumerate(s.seeds):
                    current = f"suite {s.name} seed {seed}"
                    progress(current)
                    inputs = draw_inputs(s, seed, sizes, torch, device)
                    with torch.no_grad():
                        r = f["ref"](inputs, torch)
                    torch.cuda.synchronize()
                    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                    start.record()
                    steps, out, _ = run_once(inputs)
                    end.record()
                    torch.cuda.synchronize()
                    if s.name == "T0_original" and j == 0:
                        forward_ms = start.elapsed_time(end)
                    same_shape = tuple(out.shape) == tuple(r.shape)
                    ok = same_shape and bool(torch.allclose(r, out, atol=atol, rtol=rtol))
                    tau = tau_star(r, out) if same_shape else math.inf
                    row["inputs"] += 1
                    row["passed"] += int(ok)
                    row["max_tau"] = max(row["max_tau"], tau)
                    if not same_shape:
                        row["shape"] = f"kernel {tuple(out.shape)} vs ref {tuple(r.shape)}"
                    if j == 0:
                        current = f"NaN-filled run on {s.name}"
                        _, out2, layers = run_once(inputs, poison_first=True)
                        torch.cuda.synchronize()
                        nan_layers = [i for i, t in enumerate(layers) if t.is_floating_point() and bool(torch.isnan(t).any())]
                        if not bitwise_equal(out2, out, torch) or nan_layers:
                            nan_problems.append(f"{s.name}: " + (f"NaN left in the output of step(s) {nan_layers}" if nan_layers
                                                                else "the output differs from the normal run"))
                        del out2, layers
                        current = f"determinism run on {s.name}"
                        _, out3, _ = run_once(inputs)
                        torch.cuda.synchronize()
                        if not bitwise_equal(out3, out, torch):
                            det_problems.append(f"{s.name}: two runs differ (max |diff| "
                                                f"{(out3.double() - out.double()).abs().max().item():.3g})")
                        del out3
                        current = f"fp64 reference on {s.name}"
                        del steps, out
                        inputs64 = [t.double() if isinstance(t, torch.Tensor) and t.is_floating_point() else t for t in inputs]
                        with torch.no_grad():
                            r64 = f["ref"](inputs64, torch)
                        del inputs64
                        # tau* is measured in chunks (kmut.compare): allclose over whole fp64
                        # copies needed four more tensors of 2^31 elements, which an 8 GiB
                        # output (L1p38) cannot have beside its fp64 inputs on a 141 GB GPU.
                        tau64 = tau_star(r64, r)
                        if atol == rtol:
                            ok64 = tau64 <= atol
                        else:
                            # .double() on both: an integer output (argmax) stays integer in fp64 too.
                            ok64 = bool(torch.allclose(r64.double(), r.double(), atol=atol, rtol=rtol))
                        fp64_data.append({"suite": s.name, "tau_ref": tau64, "ok": ok64})
                        if not ok64:
                            (unrefereeable if s.name == "T0_original" else over_ceiling).append(f"{s.name} (tau* {tau64:.3g})")
                        del r64
                    del inputs, r
                    torch.cuda.empty_cache()
                suites_data.append(row)
        except Exception as e:  # noqa: BLE001 - foreign code; the machine's failure is no verdict
            if self.machine_failed(e, current, torch):
                return None
            if isinstance(e, CudaError):
                self.rep.emit("suites", "fail", f"{current}: {e}", cuda_error=e.name)
                return self.rep.skip_rest("a CUDA error poisoned the context")
            if isinstance(e, KmutError):
                self.rep.emit("suites", "fail", f"{current}: {e}")
                return self.rep.skip_rest("the suites could not run")
            self.rep.emit("suites", "fail", f"{current}: {where_in(e, self.path)}: {type(e).__name__}: {e}")
            return self.rep.skip_rest("the suites could not run")

        total = sum(r["inputs"] for r in suites_data)
        passed = sum(r["passed"] for r in suites_data)
        worst = max(suites_data, key=lambda r: r["max_tau"])
        failing = [f"{r['suite']} {r['passed']}/{r['inputs']}" + (f" ({r['shape']})" if "shape" in r else "")
                   for r in suites_data if r["passed"] < r["inputs"]]
        detail = (f"{len(suites_data)} suites, {passed}/{total} inputs pass at atol={atol:g} rtol={rtol:g}; "
                  f"worst tau* {worst['max_tau']:.3g} ({worst['suite']})")
        if failing:
            detail += "; failing: " + ", ".join(failing)
        self.rep.emit("suites", "pass" if not failing else "fail", detail, suites=suites_data, forward_ms=forward_ms)
        self.rep.emit("nan_fill", "fail" if nan_problems else "pass",
                      "; ".join(nan_problems) or "every element of every layer's output is written")
        self.rep.emit("determinism", "fail" if det_problems else "pass",
                      "; ".join(det_problems) or "repeated runs are bitwise identical")
        if unrefereeable:
            status, detail = "unrefereeable", "the fp32 reference misses its fp64 evaluation on " + ", ".join(unrefereeable + over_ceiling)
        elif over_ceiling:
            status, detail = "fail", "suite(s) exceed the legitimate-variance ceiling (fp32 ref vs fp64): " + ", ".join(over_ceiling)
        else:
            worst64 = max(fp64_data, key=lambda d: d["tau_ref"])
            status, detail = "pass", f"fp32 reference within tolerance of fp64 on every suite; worst tau* {worst64['tau_ref']:.3g} ({worst64['suite']})"
        self.rep.emit("fp64", status, detail, suites=fp64_data)
        return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kmut._gate_worker", description=__doc__)
    parser.add_argument("path", type=Path)
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("--memory-fraction", type=float, default=None,
                        help="share of the GPU's memory this worker may allocate (kmut gate --jobs N gives each 0.9/N)")
    parser.add_argument("--cpu-threads", type=int, default=None,
                        help="threads torch may use on the CPU (kmut gate --jobs N gives each the cores over N)")
    parser.add_argument("--backend", choices=("gpu", CPU), default="gpu",
                        help="where suites, nan_fill and determinism run: gpu, or the CPU backend on the small suites (a pre-check)")
    args = parser.parse_args(argv)
    rep = Reporter()
    if args.cpu_threads:
        import torch

        torch.set_num_threads(max(1, args.cpu_threads))
    try:
        Gate(args.path, args.arch, rep, args.backend, args.memory_fraction).run()
    except Exception:  # noqa: BLE001 - a bug in kmut itself: report it as the current check's failure
        pending = next((c for c in CHECKS if c not in rep.done), CHECKS[-1])
        rep.emit(pending, "fail", "internal error in the gate worker:\n" + traceback.format_exc())
        rep.skip_rest("the gate worker failed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
