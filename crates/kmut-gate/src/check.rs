//! The checks a candidate goes through, in order, and what each can conclude.

use serde::{Deserialize, Serialize};

/// One check of the gate. The order of the variants is the order the worker runs them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Check {
    /// The module imports and registers with no GPU work, allocation or compilation.
    Import,
    /// Every field of the contract (`substrates/SPEC.md`).
    Contract,
    /// NVRTC compiles the source and every listed kernel is in the image.
    Compile,
    /// On the small suite, on the CPU: the launch descriptor's shape, arguments against the
    /// compiled kernels' parameters, and the output's shape against `ref`'s.
    Descriptor,
    /// `ref` on the small suite runs in under a second on the CPU.
    SmallTime,
    /// Every suite input passes `allclose(ref, out)` (GPU; with `--backend cpu`, the small
    /// suites on the CPU backend as a pre-check).
    Suites,
    /// With allocated buffers pre-filled with NaN, the output is unchanged (GPU).
    NanFill,
    /// Two runs are bitwise identical (GPU; on the CPU backend: thread orders forward, reverse
    /// and shuffled).
    Determinism,
    /// The fp32 reference agrees with its fp64 evaluation (GPU).
    Fp64,
}

impl Check {
    pub const ALL: [Check; 9] =
        [Check::Import, Check::Contract, Check::Compile, Check::Descriptor, Check::SmallTime, Check::Suites, Check::NanFill, Check::Determinism, Check::Fp64];

    /// The column header in the verdict table.
    pub fn label(self) -> &'static str {
        match self {
            Check::Import => "import",
            Check::Contract => "contract",
            Check::Compile => "compile",
            Check::Descriptor => "launch",
            Check::SmallTime => "small",
            Check::Suites => "suites",
            Check::NanFill => "nan-fill",
            Check::Determinism => "determ",
            Check::Fp64 => "fp64",
        }
    }

    pub fn needs_gpu(self) -> bool {
        matches!(self, Check::Suites | Check::NanFill | Check::Determinism | Check::Fp64)
    }
}

/// What one check concluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Pass,
    Fail,
    /// Not run because an earlier check failed.
    Skip,
    /// Needs a GPU and none is visible.
    NoGpu,
    /// fp64 only: the problem's own fp32 reference misses the exact result on its official inputs.
    Unrefereeable,
    /// The worker died or timed out before reporting this check.
    Lost,
    /// The machine failed, not the candidate (out of GPU or host memory, a full disk): no verdict.
    Environment,
}

impl Status {
    pub fn label(self) -> &'static str {
        match self {
            Status::Pass => "ok",
            Status::Fail => "FAIL",
            Status::Skip => "-",
            Status::NoGpu => "no gpu",
            Status::Unrefereeable => "UNREF",
            Status::Lost => "LOST",
            Status::Environment => "ENV",
        }
    }
}

/// Where the numeric checks (suites, NaN fill, determinism) run: only the GPU's can accept a
/// candidate; the CPU backend's (g++, small suites) are an author's pre-check.
pub use kmut_model::Backend;

/// One line of the worker's protocol.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckResult {
    pub check: Check,
    pub status: Status,
    #[serde(default)]
    pub detail: String,
    #[serde(default)]
    pub data: serde_json::Value,
}

impl CheckResult {
    /// Whether the worker ran this check on the CPU backend (`data.backend == "cpu"`). Such a
    /// result is evidence for a pre-check only: it can never stand in for the GPU run.
    pub fn ran_on_cpu(&self) -> bool {
        self.data.get("backend").and_then(serde_json::Value::as_str) == Some(Backend::Cpu.name())
    }

    /// The table cell: the status, marked `cpu` when the check ran on the CPU backend.
    pub fn cell(&self) -> String {
        if self.ran_on_cpu() {
            format!("cpu {}", self.status.label())
        } else {
            self.status.label().to_owned()
        }
    }
}
