"""`kmut bench compare`: the cost of kmut's two comparisons, the output's (kmut.compare) and
the per-step capture's (kmut.steps), in the fast mode (float32 first pass) against the float64
baseline, on the same tensors, on a GPU when one is visible (else the CPU).

Cases, each of float32 tensors of `--elements` elements (`--steps` of them for a pipeline):
a bit-identical output (what most steps before the mutated layer are), a surviving mutant's
output (relative noise 1e-5), a killed mutant's (noise 1e-1), and a pipeline whose fault lands
halfway (the first half identical, the rest noisy). Each figure is the median of `--repeat`
timed calls after one untimed call, synchronised, so it includes every kernel and transfer.
Output rows also time the torch first pass (`KMUT_COMPARE=torch`), which a GPU's one-launch
kernel replaced, and a last row times the column checksum with torch and with its kernel.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
import time
from collections.abc import Iterator
from typing import Any

from . import compare, guards, steps


def _cases(torch: Any, n: int, s: int, device: str) -> list[tuple[str, str, Any, Any]]:
    g = torch.Generator(device=device).manual_seed(0)
    x = torch.rand(n, generator=g, device=device)

    def noisy(level: float) -> Any:
        return x * (1 + level * torch.randn(n, generator=g, device=device))

    half = [x.clone() if i < s // 2 else noisy(1e-5) for i in range(s)]
    return [
        ("output", "identical", x, x.clone()),
        ("output", "survivor (1e-5 noise)", x, noisy(1e-5)),
        ("output", "killed (1e-1 noise)", x, noisy(1e-1)),
        ("steps", f"{s} steps, identical", [x] * s, [x.clone() for _ in range(s)]),
        ("steps", f"{s} steps, fault at step {s // 2}", [x] * s, half),
    ]


def _time(fn: Any, repeat: int, sync: Any) -> float:
    fn()
    sync()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def measure(n: int, s: int, repeat: int, device: str) -> dict[str, Any]:
    import torch  # noqa: PLC0415 - only this command needs it

    sync = torch.cuda.synchronize if device.startswith("cuda") else (lambda: None)
    rows = []
    for what, case, ref, out in _cases(torch, n, s, device):
        if what == "output":
            call = lambda ref=ref, out=out: compare.compare(ref, out, torch)  # noqa: E731
        else:
            call = lambda ref=ref, out=out: steps.step_errors(ref, out, 1e-2, 1e-2, torch)  # noqa: E731
        row = {"what": what, "case": case}
        for mode in ("fp64", "fast"):
            compare.set_mode(mode)
            try:
                row[f"{mode}_ms"] = _time(call, repeat, sync)
            finally:
                compare.set_mode("fast")
        row["speedup"] = row["fp64_ms"] / row["fast_ms"] if row["fast_ms"] > 0 else None
        # The output's torch first pass, which the one-launch kernel replaced on a GPU
        # (kmut.compare_fused); on the host it is what `fast` measured.
        if what == "output":
            with _env("KMUT_COMPARE", "torch"):
                row["first_pass_ms"] = _time(call, repeat, sync)
        rows.append(row)
    name = torch.cuda.get_device_name(device) if device.startswith("cuda") else f"CPU ({torch.get_num_threads()} threads)"
    return {"device": name, "elements": n, "steps": s, "repeat": repeat, "rows": rows, "checksum": _checksum_row(torch, n, device, repeat, sync)}


def _checksum_row(torch: Any, n: int, device: str, repeat: int, sync: Any) -> dict[str, Any]:
    """The column checksum a worker takes after every evaluation (kmut.guards.checksum), over an
    input and a reference of n float32 elements and 64 small weights (a network's): the torch
    sums against the one-launch kernel (kmut.checksum_fused; on a GPU only)."""
    g = torch.Generator(device=device).manual_seed(1)
    column = [torch.rand(n, generator=g, device=device) for _ in range(2)]
    column += [torch.rand(4096, generator=g, device=device) for _ in range(64)]
    call = lambda: guards.checksum(column, torch)  # noqa: E731
    with _env("KMUT_CHECKSUM", "torch"):
        torch_ms = _time(call, repeat, sync)
    kernel_ms = _time(call, repeat, sync) if device.startswith("cuda") else None
    return {"tensors": len(column), "torch_ms": torch_ms, "kernel_ms": kernel_ms}


@contextlib.contextmanager
def _env(name: str, value: str) -> Iterator[None]:
    old = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if old is None:
            del os.environ[name]
        else:
            os.environ[name] = old


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="kmut bench compare", description=__doc__.split("\n\n")[0])
    p.add_argument("--elements", type=int, default=1 << 22, help="elements per tensor (default 4 Mi)")
    p.add_argument("--steps", type=int, default=16, help="steps of the pipeline cases (default 16)")
    p.add_argument("--repeat", type=int, default=5, help="timed calls per figure (the median is kept)")
    p.add_argument("--device", default=None, help="cpu, or cuda[:N] (default: cuda when visible, else cpu)")
    p.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    a = p.parse_args(argv)
    if a.elements < 1 or a.steps < 2 or a.repeat < 1:
        p.error("--elements must be at least 1, --steps at least 2 and --repeat at least 1")
    import torch  # noqa: PLC0415

    device = a.device or ("cuda" if torch.cuda.is_available() else "cpu")
    result = measure(a.elements, a.steps, a.repeat, device)
    if a.json:
        print(json.dumps(result))
        return 0
    print(f"kmut bench compare: {result['device']}, float32 tensors of {a.elements:,} elements, "
          f"median of {a.repeat} calls (ms per call, kernels and transfers included)")
    print(f"{'comparison':<8} {'case':<28} {'float64':>10} {'fast':>10} {'speedup':>8} {'torch first pass':>17}")
    for r in result["rows"]:
        first = f"{r['first_pass_ms']:>17.2f}" if "first_pass_ms" in r else f"{'':>17}"
        print(f"{r['what']:<8} {r['case']:<28} {r['fp64_ms']:>10.2f} {r['fast_ms']:>10.2f} {r['speedup']:>7.2f}x {first}")
    c = result["checksum"]
    kernel = f"{c['kernel_ms']:.2f} ms with the kernel ({c['torch_ms'] / c['kernel_ms']:.2f}x)" if c["kernel_ms"] else "no kernel on the host"
    print(f"column checksum over {c['tensors']} tensors (two of {a.elements:,} elements): {c['torch_ms']:.2f} ms with torch, {kernel}")
    print("fast: what a run uses (on a GPU the output's one-launch kernel, kmut.compare_fused); torch first pass: "
          "the float32 pass it replaced (KMUT_COMPARE=torch)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
