#!/usr/bin/env python3
"""Measure the CPU backend's costs (docs/cpu-backend.md): compile time per mutant when 1, 8 and 32
variants (an original and its mutants) share one translation unit, and the speed of a naive GEMM
(fast path, no barriers) and of a shared-memory tiled GEMM (one fiber per thread) on one core.

    source .venv/bin/activate && python scripts/cpu-costs.py [substrate.py]
"""

from __future__ import annotations

import ctypes
import json
import sys
import tempfile
import time
from pathlib import Path

import torch
from kmut import _native, cpu_backend, describe, loader
from kmut.validate import Step, kernel_names

ROOT = Path(__file__).resolve().parents[1]

GEMMS = r"""
extern "C" __global__ void naive_gemm(const float* A, const float* B, float* C, int n) {
    int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n || col >= n) return;
    float acc = 0.0f;
    for (int k = 0; k < n; ++k) acc += A[row * n + k] * B[k * n + col];
    C[row * n + col] = acc;
}
#define T 16
extern "C" __global__ void tiled_gemm(const float* A, const float* B, float* C, int n) {
    __shared__ float As[T][T], Bs[T][T];
    int ty = threadIdx.y, tx = threadIdx.x, row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += T) {
        As[ty][tx] = A[row * n + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < T; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * n + col] = acc;
}
"""


def mutant_sources(path: Path, count: int) -> tuple[list[str], str]:
    """The CUDA of the first `count` source mutants of `path` (edits are byte offsets)."""
    desc = describe.describe(path)
    cuda = desc["cuda"]
    mutants = json.loads(_native.mutate_json(json.dumps(desc)))["mutants"]
    out = []
    for m in mutants:
        if m["mutation"]["kind"] != "source":
            continue
        b = cuda.encode()
        for e in sorted(m["mutation"]["edits"], key=lambda e: -e["start"]):
            b = b[:e["start"]] + e["text"].encode() + b[e["end"]:]
        out.append(b.decode())
        if len(out) == count:
            break
    return out, cuda


def compile_costs(path: Path) -> None:
    fields, _K, _ = loader.load(path, torch)
    names = kernel_names(fields)
    mutants, cuda = mutant_sources(path, 31)
    print(f"compile: {fields['name']} ({len(cuda.splitlines())} lines of CUDA, {len(names)} kernel(s)), g++ -O2, one process")
    for n in (1, 8, 32):
        sources = [cuda] + mutants[: n - 1]
        variants = [(f"v{i}", s, names) for i, s in enumerate(sources)]
        with tempfile.TemporaryDirectory() as cache:
            start = time.perf_counter()
            b = cpu_backend.build(variants, jobs=1, cache_dir=cache, max_per_unit=n)
            s = time.perf_counter() - start
        failed = f", {len(b.failed)} failed" if b.failed else ""
        print(f"  {n:2d} variant(s) in one unit: {s:6.2f} s, {1e3 * s / n:6.0f} ms per variant{failed}")


def gemm_costs(n: int = 512) -> None:
    torch.manual_seed(0)
    a, bm = torch.randn(n, n), torch.randn(n, n)
    with tempfile.TemporaryDirectory() as cache:
        lib = cpu_backend.build([("g", GEMMS, ["naive_gemm", "tiled_gemm"])], jobs=1, cache_dir=cache).launcher("g")
        want = a @ bm
        for kernel in ("naive_gemm", "tiled_gemm"):
            c = torch.empty(n, n)
            step = Step(kernel, (n // 16, n // 16, 1), (16, 16, 1), [a, bm, c], [(ctypes.c_int, n)])
            start = time.perf_counter()
            lib.run([step])
            s = time.perf_counter() - start
            err = (c - want).abs().max().item()
            path = "fast path" if kernel == "naive_gemm" else "fibers, 2 barriers per 16-wide k step"
            print(f"gemm {n}^3 {kernel} ({path}): {s:.2f} s, {2 * n**3 / s / 1e9:.2f} GFLOP/s on one core (max |err| {err:.1e})")


def main() -> int:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "substrates" / "accepted" / "L2p76_gemm_add_relu.py"
    torch.set_num_threads(1)
    compile_costs(path)
    gemm_costs()
    return 0


if __name__ == "__main__":
    sys.exit(main())
