"""The CPU backend on a stratified sample of the accepted substrates (`conftest.sampled_substrates`:
the first six and ten per level; `KMUT_TEST_ALL=1` for all of them): each original, translated and compiled with g++
(all of them into a few shared libraries), runs the first seed of its small suite and must pass
`allclose(ref, out)` at the substrate's tolerance, as the gate requires on a GPU.

The runs are spread over forked worker processes (one per core, at most two), level 3 first: a
substrate's small suite can still be gigaflops of emulated work. Substrates that declare
`small_limit_s` (their fixed weights make even the small suite expensive: L3p2's 2.15 G
parameters, VGG16) run only with KMUT_CPU_HEAVY=1 (about 3 and 1 minutes of emulation alone);
they are compiled either way.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import pytest
import torch
from kmut import cpu_backend, loader
from kmut.validate import kernel_names

from .conftest import REPORTS, SAMPLED

# A sample of the corpus (conftest.sampled_substrates; KMUT_TEST_ALL=1 for every substrate).
ids = [p.stem for p in SAMPLED]
RUN_HEAVY = os.environ.get("KMUT_CPU_HEAVY") == "1"


@pytest.fixture(scope="module")
def cpu_runs(tmp_path_factory):
    sources, heavy = [], set()
    for p in SAMPLED:
        fields, _K, _ = loader.load(p, torch)
        sources.append((fields["name"], fields["cuda"], kernel_names(fields)))
        if fields.get("small_limit_s") and not RUN_HEAVY:
            heavy.add(fields["name"])
    jobs = min(2, os.cpu_count() or 1)
    start = time.perf_counter()
    build = cpu_backend.build(sources, jobs=jobs, cache_dir=tmp_path_factory.mktemp("cpu-cache"))
    build_s = time.perf_counter() - start
    # Level 3 first: the longest runs start early, the short ones fill in behind them.
    order = sorted(range(len(SAMPLED)), key=lambda i: -int(SAMPLED[i].stem[1]))
    results = {}
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("fork")) as pool:
        futures = {SAMPLED[i].stem: pool.submit(cpu_backend.check_small_suite, str(SAMPLED[i]),
                                                build.libraries[SAMPLED[i].stem], threads=1)
                   for i in order if SAMPLED[i].stem in build.libraries and SAMPLED[i].stem not in heavy}
        for name, f in futures.items():
            try:
                results[name] = f.result()
            except Exception as e:  # noqa: BLE001 - a crash or an error in one substrate fails that substrate
                results[name] = {"name": name, "ok": False, "detail": f"{type(e).__name__}: {e}", "run_s": 0.0}
    run_s = time.perf_counter() - start
    slowest = sorted(results.values(), key=lambda r: -r["run_s"])[:3]
    REPORTS.append(f"CPU backend: {len(sources)} substrates compiled in {build_s:.1f} s "
                   f"({len(build.units)} translation units, {jobs} g++ at once); small suites run in {run_s:.1f} s "
                   f"on {jobs} worker(s) ({len(heavy)} heavy skipped); slowest: " + ", ".join(f"{r['name']} {r['run_s']:.1f} s" for r in slowest))
    return build, results, heavy


def test_every_sampled_accepted_substrate_compiles_for_the_cpu(cpu_runs):
    build, _, _ = cpu_runs
    assert build.failed == {}, "\n\n".join(f"{n}:\n{log}" for n, log in build.failed.items())
    assert sorted(build.libraries) == sorted(ids)


@pytest.mark.parametrize("name", ids)
def test_substrate_small_suite_matches_ref_on_the_cpu(cpu_runs, name):
    build, results, heavy = cpu_runs
    if name in heavy:
        pytest.skip("declares small_limit_s (an expensive small suite): set KMUT_CPU_HEAVY=1 to run it")
    if name not in build.libraries:
        pytest.fail(f"{name} did not compile:\n{build.failed.get(name)}")
    r = results[name]
    assert r["ok"], f"{name}: {r['detail']}"
