//! Which mutants a witness is known for: the audit's denominator.
//!
//! The same rule as `kmut score --denominator witnessed` (`docs/scoring.md`, "Witnessed
//! mutants"): a *valid* input is one of the substrate's own suites on which the original passes
//! at the witness tolerance, or a generated column of the witness search that its validity gate
//! admitted; a mutant is witnessed when a valid input kills it (a crash, or `tau*` above the
//! tolerance; a timeout witnesses nothing). A protocol's own generated columns never witness:
//! no validity gate ran on them, and a kill past the legitimate-variance ceiling proves nothing.

use kmut_model::{Backend, Column, Inputs, Outcome, Protocol, SubstrateDescription};
use kmut_store::{Baseline, Evaluation};

/// The witness search's tolerance: `KernelBench` v0.1's, at which the search runs.
pub const WITNESS_TOLERANCE: f64 = 1e-2;

/// A substrate's witness search, as far as the store holds it.
pub struct Search {
    valid: Vec<Column>,
    /// Generated columns never prepared: whether they may witness is unknown.
    unknown: usize,
}

/// A mutant's witness status.
#[derive(Debug, Clone, PartialEq)]
pub enum Witness {
    /// The first valid column that kills it, with its `tau*` (`None`: a crash).
    By { column: Column, tau: Option<f64> },
    /// The search is complete and no valid input kills it.
    None,
    /// Part of the search has not run.
    Incomplete,
}

impl Search {
    pub fn of(desc: &SubstrateDescription, baselines: &[&Baseline], backend: Backend) -> Search {
        let official = Protocol::builtin("official").expect("the official protocol ships with kmut");
        let mut valid = Vec::new();
        let mut unknown = 0;
        for c in official.columns_for(desc, Inputs::Witness.on(backend)) {
            let base = baselines.iter().find(|b| b.suite == c.suite && b.seed == c.seed);
            if c.suite.starts_with("W:") {
                match base.and_then(|b| b.valid) {
                    Some(true) => valid.push(c),
                    Some(false) => {}
                    None => unknown += 1,
                }
            } else if !base.is_some_and(|b| !matches!(b.tau, Some(t) if t <= WITNESS_TOLERANCE)) {
                valid.push(c);
            }
        }
        Search { valid, unknown }
    }

    pub fn witness(&self, cells: &[&Evaluation]) -> Witness {
        let mut run = 0;
        for c in &self.valid {
            let Some(e) = cells.iter().find(|e| e.suite == c.suite && e.seed == c.seed) else { continue };
            run += 1;
            let kills = match e.outcome {
                Outcome::Timeout => false,
                Outcome::Crash => true,
                Outcome::Completed => e.kills_at(WITNESS_TOLERANCE),
            };
            if kills {
                return Witness::By { column: c.clone(), tau: if e.outcome == Outcome::Crash { None } else { e.tau } };
            }
        }
        if run == self.valid.len() && self.unknown == 0 {
            Witness::None
        } else {
            Witness::Incomplete
        }
    }
}
