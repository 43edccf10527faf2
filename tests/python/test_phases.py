"""The workers log's `prepared` line: written by `kmut.phases.prepared_line`, read back by
`read_prepared` (footprints, the device scripts) and by the engine's Rust reader, which
`crates/kmut-exec/src/phases.rs` tests on the same fixture this file checks is what the writer
writes."""

import subprocess
import sys
from pathlib import Path

from kmut.phases import Phases, prepared_line, read_prepared, summary

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "prepared.log"


def phases(spent):
    p = Phases.__new__(Phases)
    p.spent = spent
    return p


def written_lines():
    return [
        "  [worker 773] " + prepared_line("L2p45_gemm_sigmoid_sum_logsumexp", "W:dense:1:official", 1,
                                          phases([("draw", 0.267), ("place", 0.034), ("ref", 0.659), ("original_kernels", 2.041), ("validity", 0.457)]),
                                          2048 * 2**20, 812 * 2**20, 1765081965.125),
        "run: 3 evaluations now",
        "  [worker 781] " + prepared_line("L1p19_relu", "T0_original", 42,
                                          phases([("draw", 1.733), ("ref", 0.007), ("original_kernels", 0.010)]), None, None, 1765081966.5),
    ]


def test_the_fixture_the_rust_reader_is_tested_on_is_what_the_writer_writes():
    assert FIXTURE.read_text().splitlines() == written_lines()


def test_a_prepared_line_reads_back_with_its_phases_memory_and_time_and_other_lines_do_not():
    first, other, second = map(read_prepared, written_lines())
    assert other is None
    assert (first.substrate, first.suite, first.seed) == ("L2p45_gemm_sigmoid_sum_logsumexp", "W:dense:1:official", 1)
    assert first.ms == {"draw": 267.0, "place": 34.0, "ref": 659.0, "original_kernels": 2041.0, "validity": 457.0}
    assert (first.held_mib, first.peak_mib, first.ready_at) == (812.0, 2048.0, 1765081965.125)
    assert second.held_mib is None and second.peak_mib is None and second.ready_at == 1765081966.5
    assert second.ms["draw"] == 1733.0


def test_the_summary_skips_an_earlier_call_s_columns_and_ranks_phases_by_time():
    lines = written_lines()
    assert summary(lines) == ("2 columns prepared; seconds by phase: "
                              "{'original_kernels': 2.1, 'draw': 2.0, 'ref': 0.7, 'validity': 0.5, 'place': 0.0}")
    assert summary(lines, after=1) == "1 columns prepared; seconds by phase: {'draw': 1.7, 'original_kernels': 0.0, 'ref': 0.0}"
    stored = "  [worker 9] prepared L1p1_x T0_original seed 2: draw 5 ms original_setup 3 ms original_stored 0 ms original 1 ms; ready at 1.0\n"
    assert summary([*lines, stored]).endswith("; the original's figures taken from the store on 1")
    deferred = stored.replace("original_stored", "original_deferred").replace("seed 2", "seed 3")
    assert summary([*lines, stored, deferred]).endswith("; the original's figures taken from the store on 1; the original's run deferred on 1")


def test_the_command_counts_and_sums_a_log_and_names_one_it_cannot_read(tmp_path):
    run = lambda *a: subprocess.run([sys.executable, "-m", "kmut.phases", *a], capture_output=True, text=True, check=False)  # noqa: E731
    assert run("--count", str(FIXTURE)).stdout.strip() == "2"
    assert run(str(FIXTURE), "--after", "1").stdout.startswith("1 columns prepared")
    missing = run(str(tmp_path / "nope.log"))
    assert missing.returncode == 2 and "nope.log" in missing.stderr and missing.stdout == ""
