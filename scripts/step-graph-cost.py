#!/usr/bin/env python3
"""Time the run worker's step-graph functions (kmut.steps.rewritten_later, kmut.steps.producers,
kmut.replay.launch_key) on substrates' official-size launch descriptors, on the CPU: the
per-column and per-evaluation Python cost a pipeline's step count brings, apart from its kernels.

    .venv/bin/python scripts/step-graph-cost.py substrates/accepted/L3p38_lstm_bidirectional.py [...]

Prints one line per substrate: its steps, then each function's median seconds over --repeat calls.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import torch

from kmut import steps as depth
from kmut.contract import draw_inputs
from kmut.loader import load
from kmut.replay import launch_key
from kmut.validate import is_pipeline, kernel_names, parse_descriptor


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("substrates", nargs="+", type=Path)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    timed = {"rewritten_later": depth.rewritten_later, "producers": depth.producers,
             "launch_keys": lambda seq: [launch_key(s) for s in seq]}
    for path in args.substrates:
        fields, K, _ = load(path, torch)
        suite = next(s for s in fields["suites"] if s.name == "T0_original")
        inputs = draw_inputs(suite, suite.seeds[0], K.sizes_for(fields["dims"], suite), torch)
        seq, _ = parse_descriptor(fields["launch"](inputs, torch), is_pipeline(fields), kernel_names(fields), str(path), torch)
        cells = []
        for name, fn in timed.items():
            runs = []
            for _ in range(args.repeat):
                t = time.perf_counter()
                fn(seq)
                runs.append(time.perf_counter() - t)
            cells.append(f"{name} {statistics.median(runs):.4f} s")
        print(f"{path.stem}: {len(seq)} steps; " + ", ".join(cells))


if __name__ == "__main__":
    main()
