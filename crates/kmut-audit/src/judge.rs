//! One comparison applied to one set of columns: a protocol as it judges a substrate's mutants
//! from their stored cells.

use kmut_model::{Bound, Column, Filter, Outcome, Protocol, SubstrateDescription};
use kmut_store::{Baseline, Evaluation};
use serde::Serialize;

/// A protocol's columns for one substrate and how it judges them.
#[derive(Debug, Clone)]
pub struct Judge {
    pub columns: Vec<Column>,
    pub bound: Bound,
    /// Columns whose original output is non-finite are dropped (the protocol's validity filter,
    /// or `equal_nan`, which stored cells cannot apply) instead of judged.
    pub drop_nonfinite: bool,
}

impl Judge {
    /// `inputs`' columns (and validity filter) under `comparison`'s bound: the protocol itself
    /// when both are the same, else the decomposition's intermediate.
    pub fn new(inputs: &Protocol, comparison: &Protocol, desc: &SubstrateDescription, backend: kmut_model::Backend) -> Judge {
        Judge {
            columns: inputs.own_columns(desc, backend),
            bound: comparison.bound_for(&desc.name),
            drop_nonfinite: inputs.validity.reference_nonfinite == Filter::Drop || comparison.tolerance.equal_nan,
        }
    }

    /// Whether a completed cell (or a crash) fails this comparison.
    pub fn kills(&self, e: &Evaluation) -> bool {
        match e.outcome {
            Outcome::Crash => true,
            Outcome::Timeout => false,
            Outcome::Completed => !e.shape_ok || self.bound.fails(e.tau, e.max_abs),
        }
    }

    /// What each column is for this judge, from the current original's baselines.
    pub fn statuses(&self, baselines: &[&Baseline]) -> Vec<ColumnStatus> {
        self.columns
            .iter()
            .map(|c| match baselines.iter().find(|b| b.suite == c.suite && b.seed == c.seed) {
                None => ColumnStatus::Missing,
                Some(b) if self.drop_nonfinite && !b.tau.is_some_and(f64::is_finite) => ColumnStatus::Dropped,
                Some(b) if self.bound.fails(b.tau, b.max_abs) => ColumnStatus::FalseKill { tau: b.tau, max_abs: b.max_abs },
                Some(_) => ColumnStatus::Decisive,
            })
            .collect()
    }

    /// A mutant's verdict from its current cells, on the columns that decide (`statuses`).
    pub fn verdict(&self, statuses: &[ColumnStatus], cells: &[&Evaluation]) -> Verdict {
        let mut missing = false;
        let mut timed_out = false;
        for (c, status) in self.columns.iter().zip(statuses) {
            if !matches!(status, ColumnStatus::Decisive | ColumnStatus::Missing) {
                continue;
            }
            match cells.iter().find(|e| e.suite == c.suite && e.seed == c.seed) {
                None => missing = true,
                Some(e) if self.kills(e) => return Verdict::Killed,
                Some(e) => timed_out |= e.outcome == Outcome::Timeout,
            }
        }
        if timed_out {
            Verdict::TimedOut
        } else if missing {
            Verdict::Undecided
        } else {
            Verdict::Survived
        }
    }
}

/// What one column is for a judge.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "status")]
pub enum ColumnStatus {
    /// The original passes: a kill here is a detection.
    Decisive,
    /// The original fails: the protocol rejects the correct kernel here (a false kill), and no
    /// kill on it counts as a detection.
    FalseKill { tau: Option<f64>, max_abs: Option<f64> },
    /// The protocol's validity filter drops it (or stored cells cannot judge it).
    Dropped,
    /// Not prepared yet: no original run, so no mutant cell either.
    Missing,
}

/// A mutant under one judge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Killed,
    Survived,
    /// Not killed, and stopped by the watchdog on some column: outside the denominator.
    TimedOut,
    /// Not killed, and not run on some deciding column.
    Undecided,
}

impl Verdict {
    pub fn decided(self) -> bool {
        matches!(self, Verdict::Killed | Verdict::Survived)
    }
}
