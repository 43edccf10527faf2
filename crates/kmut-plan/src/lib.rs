//! Run planning: from what the compile stage stored, which live mutants a run evaluates, on
//! which input columns, from which images, and in which order.
//!
//! The engine (`kmut-exec`) runs a plan and never decides what to run. Planning decides:
//!
//! * the **candidates**: each substrate's live mutants (by the stored compile classes) among
//!   those the run selected, each labelled with the image it runs (`Store::current_images`,
//!   the label its stored evaluations carry, so a resumed run reuses exactly the cells of
//!   the current images);
//! * the **columns**: the protocol's inputs, every suite, or the small suites;
//! * the **order**: a stratified order over (substrate, family), cut to `--sample`, identical
//!   on both backends for one seed so their verdicts can be compared mutant for mutant;
//! * the **images**: the GPU's CUBINs are compiled into the cache where missing (only the
//!   originals' and the sampled mutants'); the CPU backend's variants are built with g++.

mod cpu;
pub mod footprints;
mod gpu;
mod order;

use kmut_exec::SubstratePlan;
use kmut_model::{Class, Mutant, SubstrateDescription};
use kmut_store::Store;

pub use cpu::{plan_cpu, CpuPlanOptions};
pub use gpu::{plan_gpu, Deferred, GpuImages, RoundCompiler};
pub use order::{order, Order};

#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    #[error(transparent)]
    Store(#[from] kmut_store::StoreError),
    #[error(transparent)]
    Compile(#[from] kmut_compile::CompileError),
    #[error(transparent)]
    Nvrtc(#[from] kmut_nvrtc::NvrtcError),
    #[error(transparent)]
    Cubin(#[from] kmut_nvrtc::CubinError),
    #[error(transparent)]
    Cpu(#[from] kmut_cpu::CpuError),
    #[error("{substrate} has no compiled original in the store for `{target}`; run `kmut compile` first")]
    NoOriginal { substrate: String, target: String },
    #[error("could not read the image `{path}`")]
    Image {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{substrate}: its original does not build for the CPU backend:\n{log}")]
    OriginalUnbuilt { substrate: String, log: String },
    #[error("interrupted before the CPU build")]
    Interrupted,
    #[error("{path}: {why} (the table of measured column footprints, `scripts/footprints.py` writes it)")]
    Footprints { path: String, why: String },
}

/// What the compile stage left for a run: the store, the compile target, and each substrate
/// with the mutants the run selected.
pub struct Compiled<'a> {
    pub store: &'a Store,
    pub target: &'a str,
    pub substrates: &'a [(SubstrateDescription, Vec<Mutant>)],
}

/// How a run samples: the seed of the stratified order and, optionally, how many mutants.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sampling {
    pub seed: u64,
    pub sample: Option<usize>,
}

/// A planned run: each substrate's plan, the order mutants are taken in, and what planning
/// has to say (mutants left out and why), for the caller to show.
#[derive(Debug, Clone, Default)]
pub struct Planned {
    pub plans: Vec<SubstratePlan>,
    pub order: Order,
    pub notes: Vec<String>,
    /// Images compiled (GPU) or built (CPU) by planning, not found in the cache.
    pub made: usize,
    /// GPU images left to compile round by round (`GpuImages::defer_mutants`); empty otherwise.
    pub deferred: Deferred,
}

/// The live mutants among `mutants`, by the compile classes stored for `target`.
pub fn live<'m>(store: &Store, desc: &SubstrateDescription, target: &str, mutants: &'m [Mutant]) -> Result<Vec<&'m Mutant>, PlanError> {
    let classes = store.classes(&desc.name, target)?;
    Ok(mutants.iter().filter(|m| classes.get(&m.id).is_some_and(|c| c.class == Class::Live)).collect())
}
