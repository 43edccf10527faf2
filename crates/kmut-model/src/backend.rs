//! Where mutants run, and how faithfully the CPU backend stands in for a GPU.
//!
//! The CPU backend (`crates/kmut-cpu`, docs/cpu-backend.md) runs kernels translated to C++:
//! blocks one after another, the threads of a block as fibers. Two kinds of mutant mean
//! something else there, and the issue that introduced the backend asks that this be declared,
//! not hidden:
//!
//! * **racy-on-CPU**: synchronisation and warp-level mutants. Their effect depends on how
//!   threads interleave, which the CPU only samples (a few thread orders), so their CPU
//!   verdicts are kept out of GPU-comparable statistics.
//! * **equivalent-on-CPU**: mutants that only swap an accurate function for its fast-math
//!   intrinsic. The prelude computes the intrinsics accurately, so on the CPU the mutant *is*
//!   the original; they are not run there.

use serde::{Deserialize, Serialize};

use crate::Family;

/// An execution backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// CUDA on a GPU: the protocol's own inputs at their official sizes.
    Gpu,
    /// kmut's CPU backend: the substrates' small suites.
    Cpu,
}

impl Backend {
    pub fn name(self) -> &'static str {
        match self {
            Backend::Gpu => "gpu",
            Backend::Cpu => "cpu",
        }
    }

    /// `gpu` or `cpu`, or an error saying which are known.
    pub fn parse(text: &str) -> Result<Backend, String> {
        match text {
            "gpu" | "cuda" => Ok(Backend::Gpu),
            "cpu" => Ok(Backend::Cpu),
            other => Err(format!("unknown backend `{other}`; known: gpu, cpu")),
        }
    }

    /// The `target` under which this backend's evaluations and baselines are stored. GPU
    /// evaluations share the compile target of the images they ran; CPU ones are all `cpu`,
    /// so both backends can fill one store without overwriting each other.
    pub fn evaluation_target(self, compile_target: &str) -> String {
        match self {
            Backend::Gpu => compile_target.to_owned(),
            Backend::Cpu => CPU_TARGET.to_owned(),
        }
    }
}

/// The evaluation target of the CPU backend.
pub const CPU_TARGET: &str = "cpu";

/// The thread orders a racy-on-CPU mutant runs in: forward, reverse, one seeded shuffle.
pub const RACE_ORDERS: [u32; 3] = [0, 1, 2];

/// How a mutant's CPU verdict relates to a GPU's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CpuFidelity {
    /// The CPU verdict stands for the GPU's (up to the small inputs).
    Comparable,
    /// Run in several thread orders; kept out of GPU-comparable statistics.
    RacyOnCpu,
    /// The same program as the original on the CPU; not run there.
    EquivalentOnCpu,
}

/// Rules whose mutants only replace an accurate function by its fast-math intrinsic, which the
/// CPU prelude (`crates/kmut-cpu/src/prelude.hpp`) computes accurately. `precision-tanhf-fast`
/// and `precision-erff-tanh-approx` are not here: they change the formula, not just the call.
pub const FAST_MATH_RULES: [&str; 6] =
    ["precision-expf-fast", "precision-logf-fast", "precision-powf-fast", "precision-sinf-fast", "precision-cosf-fast", "precision-fast-divide"];

/// Rules outside the synchronisation family whose effect is on warp lanes.
pub const WARP_RULES: [&str; 1] = ["index-warpsize-16"];

/// Where a mutant of `rule` in `family` stands on the CPU backend.
pub fn cpu_fidelity(family: Family, rule: &str) -> CpuFidelity {
    if FAST_MATH_RULES.contains(&rule) {
        CpuFidelity::EquivalentOnCpu
    } else if family == Family::Synchronization || WARP_RULES.contains(&rule) {
        CpuFidelity::RacyOnCpu
    } else {
        CpuFidelity::Comparable
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backends_parse_and_keep_their_evaluations_apart() {
        assert_eq!(Backend::parse("cpu"), Ok(Backend::Cpu));
        assert_eq!(Backend::parse("gpu"), Ok(Backend::Gpu));
        assert!(Backend::parse("tpu").unwrap_err().contains("gpu, cpu"));
        assert_eq!(Backend::Gpu.evaluation_target("sm_90"), "sm_90");
        assert_eq!(Backend::Cpu.evaluation_target("sm_90"), "cpu");
    }

    #[test]
    fn fast_math_swaps_are_equivalent_and_synchronisation_is_racy_on_the_cpu() {
        assert_eq!(cpu_fidelity(Family::Precision, "precision-expf-fast"), CpuFidelity::EquivalentOnCpu);
        assert_eq!(cpu_fidelity(Family::Precision, "precision-tanhf-fast"), CpuFidelity::Comparable);
        assert_eq!(cpu_fidelity(Family::Synchronization, "sync-barrier-remove"), CpuFidelity::RacyOnCpu);
        assert_eq!(cpu_fidelity(Family::Indexing, "index-warpsize-16"), CpuFidelity::RacyOnCpu);
        assert_eq!(cpu_fidelity(Family::Arithmetic, "arith-plus-to-minus"), CpuFidelity::Comparable);
    }
}
