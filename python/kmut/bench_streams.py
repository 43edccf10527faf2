"""`kmut bench streams`: how much faster k runs of a substrate's kernels finish when they are in
flight at once on k CUDA streams of one context than one after another on one stream.

Issue 21's next lever is several mutants' kernels in flight in one worker's context. Ten worker
processes take turns on the GPU (without MPS their contexts never run kernels at the same
time), and a KernelBench substrate's naive kernels may leave most of the device's SMs idle while
they run; only kernels of one context can fill them. Whether that headroom exists is a property
of the kernels, so it is measured before the lever is built: for each sampled substrate, the
original's launch descriptor at the official sizes (`T0_original`, its first seed) is built k
times over the same inputs and weights, as k mutants on one column would be (each with its own
outputs and intermediates), and its steps are launched

* **serially**: every copy on one stream, one copy after the other (what one context does now);
* **concurrently**: copy j on stream j, issued step by step in turn, so every stream has work.

Each figure is the median of `--repeat` timed passes (fresh buffers before each, built
untimed), from the first launch to the end of the last kernel, Python's issue loop included in
both. After the concurrent pass every copy's output is compared bit for bit with the serial
pass's: kernels of one context on separate streams must compute what they compute alone, or
the lever could not share a context.

What the ratio leaves out: the comparison, canary checks and checksums that follow each
evaluation, the preparation of columns, and the cost of containment (a fault poisons every
evaluation in flight in the context, each then re-run alone). It bounds the kernels' share of
a run's gain; it is not a run's throughput.
"""

from __future__ import annotations

import argparse
import gc
import json
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from .guards import bits

LEVEL = re.compile(r"^L(\d+)p")


def level_of(path: Path) -> int | None:
    """A substrate's KernelBench level, from its file name (`L<level>p<problem>_...`)."""
    m = LEVEL.match(path.name)
    return int(m.group(1)) if m else None


def pick(paths: list[Path], n: int) -> list[Path]:
    """`n` substrates stratified by level: each level's share of `n` in proportion to its count
    (at least one per level while n allows), evenly spaced through that level's sorted names,
    so the same files give the same sample on every machine. `n` of 0, or at least the number
    of paths, keeps them all."""
    paths = sorted(paths)
    if n <= 0 or n >= len(paths):
        return paths
    by_level: dict[int | None, list[Path]] = {}
    for p in paths:
        by_level.setdefault(level_of(p), []).append(p)
    levels = sorted(by_level, key=lambda lv: (lv is None, lv or 0))
    share = {lv: max(1, round(n * len(by_level[lv]) / len(paths))) for lv in levels}
    # Rounding may overshoot or undershoot n: take from (or give to) the largest levels.
    while sum(share.values()) > n:
        lv = max((lv for lv in levels if share[lv] > 1), key=lambda lv: share[lv], default=None)
        if lv is None:
            break
        share[lv] -= 1
    while sum(share.values()) < n:
        lv = max((lv for lv in levels if share[lv] < len(by_level[lv])), key=lambda lv: len(by_level[lv]) - share[lv])
        share[lv] += 1
    chosen: list[Path] = []
    for lv in levels:
        group, k = by_level[lv], min(share[lv], len(by_level[lv]))
        chosen.extend(group[(i * len(group)) // k] for i in range(k))
    return sorted(chosen)


def pooled(rows: list[dict[str, Any]], ks: list[int]) -> dict[str, dict[str, Any]]:
    """Per k, over every substrate measured at k: the summed serial time over the summed
    concurrent time (a ratio of totals, so long substrates weigh as the GPU time they take),
    the lowest and highest substrate's ratio, and how many were measured; for all levels and
    for each level. A substrate left out at k (its copies would not fit, or it failed) counts
    in neither sum."""
    out: dict[str, dict[str, Any]] = {}
    groups: dict[str, list[dict[str, Any]]] = {"all": rows}
    for r in rows:
        groups.setdefault(f"L{r['level']}", []).append(r)
    for name, group in groups.items():
        per_k: dict[str, Any] = {}
        for k in ks:
            measured = [r["k"][str(k)] for r in group if str(k) in r.get("k", {})]
            if not measured:
                continue
            serial = sum(m["serial_ms"] for m in measured)
            concurrent = sum(m["concurrent_ms"] for m in measured)
            ratios = [m["serial_ms"] / m["concurrent_ms"] for m in measured if m["concurrent_ms"] > 0]
            per_k[str(k)] = {
                "substrates": len(measured),
                "speedup": serial / concurrent if concurrent > 0 else None,
                "lowest": min(ratios) if ratios else None,
                "highest": max(ratios) if ratios else None,
                "agree": all(m["outputs_agree"] for m in measured),
            }
        out[name] = per_k
    return out


def floor(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The kernel time an evaluation costs at least, if it ran the original's kernels alone on
    the GPU: the mean single-copy time over the measured substrates, each weighing the same
    (as in `kmut bench run`'s sample, stratified over substrates), overall and per level, and the
    evaluations per second that time allows with one kernel at a time on the device. Mutants
    that crash early or replay steps cost less, the comparison and preparation more: a yardstick
    for issue 21's 15/s, not a measured rate."""
    ones = [r["one_ms"] for r in rows]
    levels: dict[str, list[float]] = {}
    for r in rows:
        levels.setdefault(f"L{r['level']}", []).append(r["one_ms"])
    mean = sum(ones) / len(ones) if ones else None
    return {"substrates": len(ones), "mean_one_ms": mean, "per_s": 1e3 / mean if mean else None,
            "levels": {lv: sum(v) / len(v) for lv, v in sorted(levels.items())}}


def official(path: Path, fields: dict[str, Any], K: Any) -> tuple[Any, dict[str, int]]:
    """A substrate's `T0_original` suite (KernelBench's own inputs) and its sizes: what both the
    timed probe and the census run at."""
    suite = next((s for s in fields["suites"] if s.name == "T0_original"), None)
    if suite is None:
        raise LookupError(f"{path}: no T0_original suite")
    return suite, K.sizes_for(fields["dims"], suite)


class Substrate:
    """One substrate's original, loaded and compiled for the device, with its official inputs."""

    def __init__(self, path: Path, torch: Any, device: Any):
        from . import loader, nvrtc
        from .bridge import Launcher
        from .contract import draw_inputs
        from .fastrand import Drawing
        from .validate import is_pipeline, kernel_names

        self.torch, self.device, self.path = torch, device, path
        fields, K, _ = loader.load(path, torch)
        self.fields, self.K, self.names = fields, K, kernel_names(fields)
        self.pipeline = is_pipeline(fields)
        major, minor = torch.cuda.get_device_capability(device)
        result = nvrtc.compile_cuda(fields["cuda"], f"{fields['name']}.cu", f"sm_{major}{minor}", kernels=self.names)
        if result["image"] is None:
            raise RuntimeError(f"{path}: NVRTC rejected the original:\n{result['rendered']}")
        self.launcher = Launcher(result["image"], device.index, result["symbols"])
        suite, sizes = official(path, fields, K)
        self.inputs = draw_inputs(suite, suite.seeds[0], sizes, Drawing(torch), device=device, on=device)

    def build(self) -> tuple[list[tuple[str, Any, Any, list[bytes]]], Any]:
        """One copy's launches (symbol, grid, block, packed arguments) and its output, on
        buffers of its own: the descriptor `launch` returns for the column's inputs."""
        from .validate import parse_descriptor

        torch, K = self.torch, self.K
        K.zero_init.clear()
        steps, out = parse_descriptor(self.fields["launch"](self.inputs, torch), self.pipeline, self.names, str(self.path), torch)
        launches = [(self.launcher.symbol(s.kernel), s.grid, s.block, s.launch_args()) for s in steps]
        # The launches hold raw pointers: keep the steps (their tensors) alive beside them.
        return launches, (out, steps)

    def run(self, copies: list[Any], streams: list[Any]) -> float:
        """Launch every copy's steps, copy j on `streams[j % len(streams)]`, step i of every copy
        before step i+1 of any; the wall milliseconds until the device is done."""
        torch, module = self.torch, self.launcher.module
        handles = [s.cuda_stream for s in streams]
        torch.cuda.synchronize(self.device)
        start = time.perf_counter()
        if len(handles) == 1:
            for launches, _ in copies:
                for sym, grid, block, args in launches:
                    module.launch(sym, grid, block, args, handles[0])
        else:
            for i in range(len(copies[0][0])):
                for j, (launches, _) in enumerate(copies):
                    sym, grid, block, args = launches[i]
                    module.launch(sym, grid, block, args, handles[j % len(handles)])
        torch.cuda.synchronize(self.device)
        return (time.perf_counter() - start) * 1e3


def passes_for(k: int, one_ms: float, repeat: int, seconds_left: float) -> int:
    """How many timed passes at k copies fit in what is left of a substrate's time: `repeat`
    if they all do, else as many as fit (a pass is at most 2k copies' time: k serially, then k
    at once), else 0 (k is left out). 3 passes at k = 2, 4 and 8 are 84 copies' time, and the
    original's run on one VGG19 column took about 7 s in a 2026-12-06 workers log (its per-step
    capture included)."""
    per_pass = 2 * k * one_ms / 1e3
    if per_pass <= 0:
        return repeat
    return max(0, min(repeat, int(seconds_left // per_pass)))


def measure(path: Path, ks: list[int], repeat: int, fraction: float, torch: Any, device: Any,
            seconds: float = 10.0) -> dict[str, Any]:
    """One substrate's row: its serial time for one copy, and per k its serial and concurrent
    medians, the speedup and whether the outputs agree. A k whose copies would not fit in
    `fraction` of the device's free memory, or whose one pass would not fit in what is left of
    `seconds` (counted from the first timed pass), is listed in `skipped` with the reason."""
    start = time.perf_counter()
    sub = Substrate(path, torch, device)
    main = torch.cuda.current_stream(device)
    # A first copy, run once and dropped: it builds the weights on the device (shared by every
    # copy, so not a copy's bytes) and loads the module's kernels.
    warm = sub.build()
    sub.run([warm], [main])
    steps = len(warm[0])
    del warm
    before = torch.cuda.memory_allocated(device)
    one = [sub.build()]
    per_copy = max(1, torch.cuda.memory_allocated(device) - before)
    clock = time.perf_counter()
    times = [sub.run(one, [main])]
    # More single passes only within a third of the substrate's seconds.
    while len(times) < repeat and (time.perf_counter() - clock) + times[-1] / 1e3 < seconds / 3:
        times.append(sub.run(one, [main]))
    single = statistics.median(times)
    del one
    free = torch.cuda.mem_get_info(device)[0]
    fits = int(free * fraction // per_copy)
    row: dict[str, Any] = {"substrate": sub.fields["name"], "level": sub.fields["level"], "steps": steps,
                           "copy_bytes": per_copy, "one_ms": single, "k": {}, "skipped": {}}
    for k in ks:
        passes = passes_for(k, single, repeat, seconds - (time.perf_counter() - clock))
        if k > fits or passes == 0:
            row["skipped"][str(k)] = "memory" if k > fits else "time"
            continue
        streams = [torch.cuda.Stream(device) for _ in range(k)]
        serial, concurrent, agree = [], [], True
        for _ in range(passes):
            copies = [sub.build() for _ in range(k)]
            serial.append(sub.run(copies, [main]))
            want = [bits(out, torch).clone() for _, (out, _steps) in copies]
            del copies  # before the next k copies are built: never 2k at once
            copies = [sub.build() for _ in range(k)]
            concurrent.append(sub.run(copies, streams))
            agree = agree and all(torch.equal(w, bits(out, torch)) for w, (_, (out, _steps)) in zip(want, copies))
            del copies, want
        s, c = statistics.median(serial), statistics.median(concurrent)
        row["k"][str(k)] = {"serial_ms": s, "concurrent_ms": c, "speedup": s / c if c > 0 else None, "outputs_agree": agree,
                            "passes": passes}
    row["secs"] = time.perf_counter() - start
    # The substrate's weights live in its K (closures and caches may hold cycles): collected
    # before the next substrate, so 24 substrates' weights never sit on the device at once.
    del sub
    gc.collect()
    torch.cuda.empty_cache()
    return row


def wave_fill(blocks: int, threads: int, sms: int) -> float:
    """The share of the device one launch's first wave can occupy, from its geometry alone:
    its blocks over the blocks `sms` multiprocessors hold at once when threads are the only
    limit (2,048 threads and 32 blocks per SM, as on sm_80 and sm_90), capped at 1. Registers
    and shared memory can only lower the blocks an SM holds, so the true share is at least this:
    a launch below one half leaves at least half of the SMs without a block of it for its whole
    run, room that only another kernel in flight at the same time can use."""
    resident = max(1, min(32, 2048 // max(1, threads)))
    return min(1.0, blocks / (sms * resident))


def geometry(path: Path, torch: Any) -> list[tuple[int, int]]:
    """Every launch of a substrate's original at the official sizes (`T0_original`): (blocks,
    threads per block). `launch`'s descriptor is built over meta tensors, which have shapes and
    no storage, so the census needs no GPU and allocates nothing."""
    from . import loader
    from .validate import is_pipeline, kernel_names, parse_descriptor

    fields, K, _ = loader.load(path, torch)
    suite, sizes = official(path, fields, K)
    with torch.device("meta"):
        inputs = [t.to("meta") if isinstance(t, torch.Tensor) else t for t in suite.gen(torch, sizes)]
    K.zero_init.clear()
    steps, _out = parse_descriptor(fields["launch"](inputs, torch), is_pipeline(fields), kernel_names(fields), str(path), torch)
    return [(s.grid[0] * s.grid[1] * s.grid[2], s.block[0] * s.block[1] * s.block[2]) for s in steps]


def census_row(path: Path, launches: list[tuple[int, int]], sms: int) -> dict[str, Any]:
    fills = [wave_fill(b, t, sms) for b, t in launches]
    return {"substrate": path.stem, "level": level_of(path), "launches": len(launches),
            "under_half": sum(1 for f in fills if f < 0.5), "mean_fill": sum(fills) / len(fills) if fills else None,
            "least_blocks": min((b for b, _ in launches), default=None)}


def census_table(rows: list[dict[str, Any]], sms: int) -> str:
    w = max([43] + [len(r["substrate"]) for r in rows])
    head = f"{'substrate':<{w}} launches  under half  mean fill  least blocks"
    lines = [f"kmut bench streams --census: each original's launches at the official sizes, on {sms} SMs "
             "(a wave's share of the device from blocks and threads alone: at least this)", head, "-" * len(head)]
    for r in rows:
        if "error" in r:
            lines.append(f"{r['substrate']:<{w}} failed: {r['error']}")
            continue
        lines.append(f"{r['substrate']:<{w}} {r['launches']:>8}  {r['under_half']:>10}  {r['mean_fill']:>9.2f}  {r['least_blocks']:>12}")
    lines.append("")
    ok = [r for r in rows if "error" not in r]
    for lv in sorted({r["level"] for r in ok}, key=lambda v: (v is None, v or 0)):
        group = [r for r in ok if r["level"] == lv]
        full = sum(1 for r in group if r["under_half"] == 0)
        share = sum(r["under_half"] / r["launches"] for r in group if r["launches"]) / len(group)
        lines.append(f"  {'L' + str(lv) if lv is not None else 'no level'}: {full} of {len(group)} substrates have every launch filling at least half the device; "
                     f"on average {share:.1%} of a substrate's launches fill less")
    lines.append("What this leaves out: how long each launch runs (a small grid may last microseconds or most of the "
                 "run), and what fills an SM besides blocks. Which launches could share the device; the timed probe says what it gains.")
    return "\n".join(lines)


def census(paths: list[Path], sms: int, as_json: bool) -> int:
    import torch

    rows = []
    for path in paths:
        try:
            rows.append(census_row(path, geometry(path, torch), sms))
        except Exception as e:  # noqa: BLE001 - one substrate's failure is reported, not fatal
            rows.append({"substrate": path.stem, "level": level_of(path), "error": f"{type(e).__name__}: {str(e)[:300]}"})
    print(json.dumps({"sms": sms, "rows": rows}) if as_json else census_table(rows, sms))
    return 0 if any("error" not in r for r in rows) else 1


def parse_ks(text: str) -> list[int]:
    try:
        ks = sorted({int(x) for x in text.split(",") if x.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(f"--streams takes counts separated by commas, like 2,4,8; got {text!r}") from None
    if not ks or ks[0] < 2:
        raise argparse.ArgumentTypeError(f"--streams needs counts of at least 2 (one stream is the serial pass); got {text!r}")
    return ks


def table(result: dict[str, Any]) -> str:
    ks = result["streams"]
    lines = [f"kmut bench streams on {result['device']}: the original's kernels at the official sizes, k copies serially on one "
             f"stream against k streams at once (median of {result['repeat']} passes each)"]
    head = "substrate                                   steps  one copy ms  " + "  ".join(f"k={k:<3} speedup" for k in ks)
    lines += [head, "-" * len(head)]
    for r in result["rows"]:
        if "error" in r:
            lines.append(f"{r['substrate']:<43} failed: {r['error']}")
            continue
        cells = []
        for k in ks:
            m = r["k"].get(str(k))
            why = {"memory": "(no room)", "time": "(no time)"}.get(r["skipped"].get(str(k), ""), "-")
            cells.append(f"{why:<13}" if m is None else f"{m['speedup']:>6.2f}x{'' if m['outputs_agree'] else ' DIFF':<6}")
        lines.append(f"{r['substrate']:<43} {r['steps']:>5}  {r['one_ms']:>11.2f}  " + "  ".join(f"{c:<13}" for c in cells))
    lines.append("")
    lines.append("pooled (summed serial time over summed concurrent time; lowest to highest substrate):")
    for group, per_k in result["pooled"].items():
        cells = [f"k={k}: {v['speedup']:.2f}x over {v['substrates']} ({v['lowest']:.2f}-{v['highest']:.2f})"
                 f"{'' if v['agree'] else ', outputs DIFFER'}" for k, v in per_k.items() if v["speedup"] is not None]
        lines.append(f"  {group:<4} " + ("; ".join(cells) or "nothing measured"))
    f = result["floor"]
    if f["mean_one_ms"]:
        by_level = ", ".join(f"{lv} {ms:.1f} ms" for lv, ms in f["levels"].items())
        lines.append(f"one copy at a time: {f['mean_one_ms']:.1f} ms on average over {f['substrates']} substrates ({by_level}): "
                     f"at most {f['per_s']:.1f} evaluations/s if each ran the original's kernels, one kernel on the device at a time")
    lines.append("What this leaves out: each evaluation's comparison and checks, column preparation, and containment "
                 "(a fault poisons every evaluation in flight in the context). A bound on the kernels' share, not a run's throughput.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="kmut bench streams", description=__doc__.split("\n\n")[0])
    p.add_argument("substrates", nargs="*", type=Path, help="substrate files (default: substrates/accepted/L*.py)")
    p.add_argument("--sample", type=int, default=24, help="substrates measured, stratified by level (0: all given; default 24)")
    p.add_argument("--streams", type=parse_ks, default=[2, 4, 8], help="copies in flight at once, comma-separated (default 2,4,8)")
    p.add_argument("--repeat", type=int, default=3, help="timed passes per figure, the median kept (default 3)")
    p.add_argument("--memory-fraction", type=float, default=0.5,
                   help="the share of the device's free memory the copies may take (default 0.5)")
    p.add_argument("--seconds", type=float, default=10.0,
                   help="timed passes per substrate stop at about this many seconds; a k that no longer fits is left out (default 10)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    p.add_argument("--census", action="store_true",
                   help="no GPU and no timing: every given substrate's launch geometry at the official sizes and the share "
                        "of the device each launch can fill (--sample still applies)")
    p.add_argument("--sms", type=int, default=132, help="multiprocessors assumed by --census (default 132: H100 SXM and H200)")
    args = p.parse_args(argv)
    if args.repeat < 1 or not 0 < args.memory_fraction <= 1 or args.seconds <= 0:
        p.error("--repeat and --seconds must be positive and --memory-fraction in (0, 1]")
    paths = args.substrates or sorted(Path("substrates/accepted").glob("L*.py"))
    missing = [str(x) for x in paths if not x.is_file()]
    if missing:
        p.error(f"no such substrate file: {', '.join(missing)}")
    if not paths:
        p.error("no substrates given, and none in substrates/accepted/")
    if args.census:
        if args.sms < 1:
            p.error("--sms must be positive")
        return census(pick(paths, args.sample), args.sms, args.json)
    import torch

    if not torch.cuda.is_available():
        print("kmut bench streams: needs a CUDA GPU (it times kernels on CUDA streams); none is visible", file=sys.stderr)
        return 2
    device = torch.device("cuda", torch.cuda.current_device())
    chosen = pick(paths, args.sample)
    rows = []
    for i, path in enumerate(chosen, 1):
        print(f"[{i}/{len(chosen)}] {path.name}", file=sys.stderr, flush=True)
        try:
            rows.append(measure(path, args.streams, args.repeat, args.memory_fraction, torch, device, args.seconds))
        except Exception as e:  # noqa: BLE001 - one substrate's failure (out of memory, a broken file) is reported, not fatal
            rows.append({"substrate": path.stem, "level": level_of(path), "error": f"{type(e).__name__}: {str(e)[:300]}"})
            gc.collect()
            torch.cuda.empty_cache()
    ok = [r for r in rows if "error" not in r]
    result = {"device": torch.cuda.get_device_name(device), "streams": args.streams, "repeat": args.repeat, "rows": rows,
              "pooled": pooled(ok, args.streams), "floor": floor(ok)}
    print(json.dumps(result) if args.json else table(result))
    agree = all(v["agree"] for per_k in result["pooled"].values() for v in per_k.values())
    return 0 if ok and agree else 1


if __name__ == "__main__":
    raise SystemExit(main())
