//! Which mutants a witness is known for: the audit's denominator.
//!
//! The same rule as `kmut score --denominator witnessed` (`docs/scoring.md`, "Witnessed
//! mutants"): a *valid* input is one of the substrate's own suites on which the original passes
//! at the witness tolerance, or a generated column of the witness search that its validity gate
//! admitted; a mutant is witnessed when a valid input kills it (a crash, or `tau*` above the
//! tolerance; a timeout witnesses nothing). A protocol's own generated columns never witness:
//! no validity gate ran on them, and a kill past the legitimate-variance ceiling proves nothing.

use kmut_model::{Backend, Column, Outcome, Protocol, SubstrateDescription};
use kmut_score::{TimeoutPolicy, Verdict};
use kmut_store::{Baseline, Evaluation};

/// The witness search's tolerance: `KernelBench` v0.1's, at which the search runs.
pub const WITNESS_TOLERANCE: f64 = 1e-2;

/// A substrate's witness search, as far as the store holds it: the scorer's own
/// (`kmut_score::witness_search`), so the audit and `kmut score` agree on who is witnessed.
pub struct Search(kmut_score::Search);

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
        Search(kmut_score::witness_search(desc, baselines, &official, backend, WITNESS_TOLERANCE))
    }

    pub fn witness(&self, cells: &[&Evaluation]) -> Witness {
        // A timeout is a slow mutant, not an exposed fault: it witnesses nothing here.
        match self.0.verdict(cells, WITNESS_TOLERANCE, TimeoutPolicy::Exclude) {
            (Verdict::Survived, Some(column)) => {
                let cell = cells.iter().find(|e| e.suite == column.suite && e.seed == column.seed);
                let tau = cell.filter(|e| e.outcome != Outcome::Crash).and_then(|e| e.tau);
                Witness::By { column, tau }
            }
            (Verdict::PossiblyEquivalent, _) => Witness::None,
            _ => Witness::Incomplete,
        }
    }
}
