//! The substrate gate. Each candidate file is checked by a Python worker process
//! (`python -m kmut._gate_worker`), which imports it under guard, validates the contract,
//! compiles it with NVRTC, checks its launch descriptor and, on a GPU, runs every suite (or,
//! with the CPU backend, the small suites as an author's pre-check that never accepts).
//! The worker streams one JSON line per check; this crate collects them, survives workers that
//! crash or hang, classifies each candidate with one function ([`Verdict::classify`]), renders
//! the verdict table, and moves accepted candidates into `substrates/accepted/`.

mod accept;
mod check;
mod table;
mod verdict;
mod worker;

pub use accept::{accept, AcceptError};
pub use check::{Backend, Check, CheckResult, Status};
pub use table::render_table;
pub use verdict::Verdict;
pub use worker::{run_worker, CandidateReport, WorkerOptions};
