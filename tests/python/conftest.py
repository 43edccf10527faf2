"""Shared fixtures. GPU tests carry the `gpu` marker and skip cleanly where CUDA is absent."""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SUBSTRATES = ROOT / "substrates"
ACCEPTED = sorted((SUBSTRATES / "accepted").glob("L*.py"))
# The first six substrates, in every sample below.
FIRST_SIX = {"L1p19_relu", "L1p23_softmax", "L2p76_gemm_add_relu", "L2p1_conv2d_relu_biasadd", "L3p1_mlp", "L3p4_lenet5"}
SAMPLE_PER_LEVEL = 10


def sampled_substrates(per_level: int = SAMPLE_PER_LEVEL) -> list[Path]:
    """The accepted substrates a test whose cost grows with the corpus runs on: the first six and
    `per_level` more of each level, chosen by a hash of their names, so CI's time stays flat as
    the corpus grows (compiling every substrate for the CPU and every rule over all of them took
    16 of CI's 33 pytest minutes with 147). `KMUT_TEST_ALL=1` runs every substrate;
    `KMUT_TEST_SEED` draws another sample (the same one for the same seed)."""
    if os.environ.get("KMUT_TEST_ALL") == "1":
        return ACCEPTED
    seed = os.environ.get("KMUT_TEST_SEED", "0")
    by_level: dict[str, list[Path]] = {}
    for p in ACCEPTED:
        by_level.setdefault(p.stem[:2], []).append(p)
    chosen = {p for p in ACCEPTED if p.stem in FIRST_SIX}
    for paths in by_level.values():
        chosen.update(sorted(paths, key=lambda p: hashlib.sha256(f"{seed}:{p.stem}".encode()).hexdigest())[:per_level])
    return sorted(chosen)


SAMPLED = sampled_substrates()


# Reports tests want shown after the run (pytest hides test output otherwise).
REPORTS: list[str] = []


def pytest_terminal_summary(terminalreporter) -> None:  # noqa: ANN001 - pytest's hook signature
    for report in REPORTS:
        terminalreporter.write_sep("-", "kmut report")
        terminalreporter.write_line(report)


def cuda_available() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if cuda_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def kmut_command() -> list[str]:
    """The installed `kmut` command, or `python -m kmut` beside this interpreter."""
    exe = shutil.which("kmut")
    return [exe] if exe else [sys.executable, "-m", "kmut"]


@pytest.fixture
def kmut_cmd() -> list[str]:
    return kmut_command()


def workers_of(pid: int, marker: str) -> list[int]:
    """Running (not zombie) worker processes of the orchestrator `pid`: their command line names
    its scratch folder `kmut-run-<pid>` and contains `marker`."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if f"kmut-run-{pid}" in cmdline and marker in cmdline and state != "Z":
            found.append(int(proc.name))
    return found


# A worker stand-in that never starts (it sleeps): `--worker` for commands interrupted while waiting.
SLEEPING_WORKER = ["--worker", sys.executable, "-c", "import time; time.sleep(600)"]


def interrupted_at(args: list[str], marker: str, env: dict, wait: float = 300, settle: float = 1.0):
    """Run `args`, send SIGINT once `marker` appears on its stderr (and `settle` seconds more), and
    return (returncode, stdout, stderr): how a device call's `timeout -s INT` stops a command."""
    import signal
    import subprocess
    import time

    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + wait
    seen = ""
    while marker not in seen and time.monotonic() < deadline:
        line = p.stderr.readline()
        if not line:
            break
        seen += line
    if marker not in seen:
        p.kill()
        p.communicate()
        raise AssertionError(f"{marker!r} never appeared: {seen[-2000:]}")
    time.sleep(settle)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    return p.returncode, out, seen + err


def cells_and_baselines(store) -> tuple[list[tuple], dict[tuple, list]]:
    """A store's cells (sorted) and its baselines by (suite, seed): what the deferred original's
    tests compare between a run that deferred it and one that measured every column."""
    import sqlite3

    with sqlite3.connect(store) as db:
        cells = db.execute("SELECT mutant, suite, seed, outcome, crash, tau, max_abs, nonfinite, shape_ok FROM evaluations ORDER BY 1, 2, 3").fetchall()
        baselines = {(s, seed): rest for s, seed, *rest in db.execute("SELECT suite, seed, sizes, tau, max_abs, image, backend FROM baselines")}
    return cells, baselines


def assert_deferral_agrees(deferring, measuring, columns: int, what) -> tuple[list[tuple], dict[tuple, list]]:
    """The run into `deferring` (the original deferred) stored every cell of the run into
    `measuring` (`--rerun-original`, `columns` baselines), and each baseline it took is the
    measured one; a column it left without a baseline had no evaluation that failed the
    comparison (at the official 1e-2). Returns the deferring store's cells and baselines."""
    cells, taken = cells_and_baselines(deferring)
    same_cells, every = cells_and_baselines(measuring)
    assert len(cells) > 4 and cells == same_cells, what
    assert len(every) == columns and set(taken) <= set(every), (what, taken, every)
    for column, figures in taken.items():
        assert figures == every[column], (what, column)
    for suite, seed in set(every) - set(taken):
        failing = [c for c in cells if (c[1], c[2]) == (suite, seed) and c[3] == "completed" and (not c[8] or c[5] is None or c[5] > 1e-2)]
        assert not failing, (what, suite, seed, failing)
    return cells, taken
