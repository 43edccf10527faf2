//! The execution engine: every live mutant on every input of a checking protocol, on isolated
//! GPU workers (`python -m kmut._run_worker`), each owning one CUDA context.
//!
//! The orchestrator never touches CUDA. It plans the work ([`plan`]), keeps several workers per
//! GPU busy ([`engine`]), holds each evaluation to a watchdog budgeted from the original's time,
//! replaces a worker whose context a fault poisoned, and writes every result to the store as it
//! arrives, so a killed run resumes without losing or repeating an evaluation.

pub mod engine;
mod images;
pub mod memory;
mod phases;
pub mod plan;
pub mod protocol;
mod steps;
pub mod worker;

pub use engine::{Engine, EngineConfig, IdleTime, Reporter, RunSummary, SlotTime, SPARE_HOST_RESERVE};
pub use images::RoundImages;
pub use phases::{EvalParts, PrepPhases};
pub use plan::{search_from, stratified_order, Candidate, SubstratePlan};

#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    #[error(transparent)]
    Store(#[from] kmut_store::StoreError),
    #[error("could not start the worker `{command}`")]
    Spawn {
        command: String,
        #[source]
        source: std::io::Error,
    },
    #[error("could not make the images of a round: {0}")]
    Images(String),
    #[error("no worker could start: {0}")]
    NoWorker(String),
}
