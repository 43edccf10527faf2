//! The engine's units of work: a substrate's column (`UnitKey`) with its queue of pending
//! mutants (`Unit`), and what the run knows of each mutant (`MutantState`). Shared by the rounds
//! that fill the queues and the worker pool that drains them.

use std::collections::{BTreeSet, VecDeque};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct UnitKey {
    pub(super) sub: usize,
    pub(super) col: usize,
}

pub(super) struct Unit {
    pub(super) pending: VecDeque<usize>,
    pub(super) in_flight: usize,
}

pub(super) struct MutantState {
    pub(super) killed: bool,
    pub(super) evaluated: BTreeSet<usize>,
}

impl MutantState {
    /// Whether column `col` is still to run for this mutant.
    pub(super) fn needs(&self, col: usize, first_kill: bool) -> bool {
        !(self.evaluated.contains(&col) || first_kill && self.killed)
    }
}
