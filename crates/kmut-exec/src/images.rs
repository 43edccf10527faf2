//! Images made round by round: a budgeted run compiles only the mutants it is about to run,
//! when their round starts, so compile time is spent inside the budget and never on a mutant
//! the budget leaves out.

use crate::plan::SubstratePlan;

/// What makes the images of a round's candidates (kmut-plan's compiler for GPU CUBINs; the
/// tests' stand-ins). The engine calls it when a round starts, with only the candidates that
/// still need an evaluation, before any of them is sent to a worker.
pub trait RoundImages {
    /// Make every image `round` needs that is missing. Returns how many were made now; an
    /// error stops the run (nothing of the round has been sent yet).
    fn make(&mut self, plans: &[SubstratePlan], round: &[(usize, usize)]) -> Result<usize, String>;
}
