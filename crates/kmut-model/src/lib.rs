//! Shared vocabulary of kmut's stages: what a mutant is, where it sits, how it is named.
//!
//! Kept small and dependency-light so every stage (rules, compilation, execution, analysis,
//! reports) speaks the same types.

mod backend;
mod family;
mod mutant;
mod outcome;
mod protocol;
mod substrate;

pub use backend::{cpu_fidelity, Backend, CpuFidelity, CPU_TARGET, FAST_MATH_RULES, RACE_ORDERS, WARP_RULES};
pub use family::Family;
pub use mutant::{apply_edits, mutant_id, Edit, LaunchTransform, Mutant, MutantKind};
pub use outcome::{Class, ClassCounts, Outcome};
pub use protocol::{
    Bound, Cast, Column, Filter, Generated, Inputs, Precision, ProblemBound, Protocol, ProtocolInputs, Raises, Reference, Seeds, ShapeRule, Tolerance,
    Validity, Weights, GENERATORS,
};
pub use substrate::{CdivCall, LaunchStep, SubstrateDescription, SuiteDescription, GENERATED_SEEDS};
