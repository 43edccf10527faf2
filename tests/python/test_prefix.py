"""A mutant's pipeline replays the steps before its first changed one from the original's kept
outputs instead of launching them (`python/kmut/replay.py`, `prefix_steps`), and the steps
after its last changed one where its changed steps left the original's state (`tail_from`,
`converged`): end to end on the CPU backend (and on a GPU, `-m gpu`), the store must be the same
to the bit with the replays and without them (`KMUT_PREFIX=run KMUT_TAIL=run`), every verdict and
every per-step row, while the run says how many steps it replayed. Real g++, NVRTC, torch and
SQLite.

The mutants are the value-changing families (semantic, precision): a mutant that leaves part of
an output unwritten reads whatever `torch.empty` recycled there, which differs between any two
runs of the same command (kmut's own full runs disagree on about a third of such cells on these
two substrates), so only mutants whose result is a function of their inputs can be compared.
"""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess

import pytest

from .conftest import ROOT, kmut_command

ACCEPTED = ROOT / "substrates" / "accepted"
CPU = [ROOT / "tests" / "fixtures" / "L3p1_depth_demo.py", ACCEPTED / "L3p17_squeezenet_fire.py"]
# On a GPU, at the official sizes: a 3-step module, a 7-step CNN and a 17-step MLP.
GPU = [ACCEPTED / "L3p17_squeezenet_fire.py", ACCEPTED / "L3p4_lenet5.py", ACCEPTED / "L3p1_mlp.py"]
RULES = ["--rules", "semantic-*", "--rules", "precision-*"]
# On a GPU `torch.empty` hands out memory other work just freed, so a guard mutant (`semantic-or-
# to-and` on `i < n || ...`) that leaves outputs unwritten reads whatever was there: only rules
# that change values, never which elements are written.
GPU_RULES = ["--rules", "precision-*", "--rules", "semantic-acc-*", "--rules", "semantic-constant-scale-10pct",
             "--rules", "semantic-float-gt-to-ge"]
REPLAYED = re.compile(r"run: (\d+) of (\d+) pipeline steps \(\d+%\) replayed.* and (\d+) after the last changed one in (\d+) evaluations")
LAUNCH_ALL = {"KMUT_PREFIX": "run", "KMUT_TAIL": "run"}


def run(base, name, substrates, machine, rules=RULES, **env):
    store = base / f"{name}.sqlite"
    out = subprocess.run(
        [*kmut_command(), "run", *map(str, substrates), *machine, *rules, "--store", str(store),
         "--cache", str(base / "cache")],
        capture_output=True, text=True, timeout=900, env=dict(os.environ, KMUT_NO_PROGRESS="1", **env), check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    [(replayed, total, tail, tails)] = REPLAYED.findall(out.stderr)
    with sqlite3.connect(store) as db:
        evals = {r[:3]: r[3:] for r in db.execute(
            "SELECT mutant, suite, seed, outcome, crash, tau, max_abs, max_rel, nonfinite, shape_ok, canary FROM evaluations")}
        steps = {r[:4]: r[4:] for r in db.execute("SELECT mutant, suite, seed, step, tau, rel_l2, frac_off FROM step_errors")}
    return int(replayed), int(total), evals, steps, int(tail), int(tails)


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    base = tmp_path_factory.mktemp("prefix")
    machine = ["--backend", "cpu", "--cpu-workers", "2", "--full-matrix"]
    return run(base, "replayed", CPU, machine), run(base, "launched", CPU, machine, **LAUNCH_ALL)


def same_store(both, at_least):
    (_, _, evals, steps, _, _), (_, _, full_evals, full_steps, _, _) = both
    assert len(evals) >= at_least and evals.keys() == full_evals.keys()
    assert {k: v for k, v in evals.items() if v != full_evals[k]} == {}
    assert steps.keys() == full_steps.keys() and len(steps) > len(evals)
    assert {k: v for k, v in steps.items() if v != full_steps[k]} == {}


def test_the_replay_changes_no_verdict_and_no_step_row(both):
    same_store(both, 100)


@pytest.mark.gpu
def test_on_a_gpu_the_replay_changes_no_verdict_and_no_step_row(tmp_path):
    # First kill (a mutant's later columns run only if the earlier ones missed it): the same cells
    # in both runs exactly when their verdicts agree, in a fraction of a device call.
    machine = ["--workers-per-gpu", "4", "--max-per-rule", "1"]
    both = run(tmp_path, "replayed", GPU, machine, GPU_RULES), run(tmp_path, "launched", GPU, machine, GPU_RULES, **LAUNCH_ALL)
    same_store(both, 10)
    assert 0 < both[0][0] < both[0][1] and both[1][0] == both[1][4] == 0


def test_the_run_reports_the_steps_it_replayed(both):
    (replayed, total, evals, _, tail, tails), (full_replayed, full_total, _, _, full_tail, _) = both
    assert full_replayed == full_tail == 0, "KMUT_PREFIX=run KMUT_TAIL=run launches every step"
    assert total == full_total > 0
    # Faults sit in every layer but the first of each network's steps only: some, never all.
    assert 0 < replayed < total
    # Mutants whose changed steps computed the original's values (a guard no element reaches,
    # a precision change that rounds the same) replay the steps after them: some, in fewer
    # evaluations than there are, each replaying at least one step.
    assert 0 < tails < len(evals) and tails <= tail < replayed
