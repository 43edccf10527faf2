"""Shared fixtures. GPU tests carry the `gpu` marker and skip cleanly where CUDA is absent."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SUBSTRATES = ROOT / "substrates"
ACCEPTED = sorted((SUBSTRATES / "accepted").glob("L*.py"))


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
