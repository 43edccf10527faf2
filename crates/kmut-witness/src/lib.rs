//! The witness search's parts that are not a run of the kill matrix.
//!
//! * [`ceiling`]: the **legitimate-variance ceiling** of each input generator of a substrate:
//!   the largest scale at which a correct kernel still passes (the original kernel and the fp32
//!   reference both within the validity margin of the fp64 reference, on every seed), found by
//!   bisection in log scale. Past it a correct kernel fails the tolerance too, so no input there
//!   may witness a mutant (published example: a K=4096 reduction with sign-mixed inputs x300).
//! * [`driver`]: probing scales on run workers (`python -m kmut._run_worker`, the same column
//!   preparation and validity gate a witness run uses), several substrates at once.
//! * [`replay`]: which stored cell is a mutant's witness, so `kmut witness --replay` can run it
//!   again.

pub mod ceiling;
pub mod driver;
pub mod replay;

pub use ceiling::{bisect, Bracket, SCALED_GENERATORS};
pub use driver::{probe_ceilings, CeilingJob, DriverConfig, JobOutcome};
pub use replay::{witness_of, Witness};
