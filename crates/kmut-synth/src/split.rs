//! The held-out split: each mutant falls in one half by a hash of its id, so the split is the
//! same in every run, on every machine, and independent of the order mutants were stored in.

use serde::Serialize;
use sha2::{Digest, Sha256};

/// Which half of the mutants: inputs are selected on `Dev` and detection reported on `Test`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Half {
    Dev,
    Test,
}

impl Half {
    /// The half of mutant `id`: the low bit of the first byte of SHA-256(id).
    pub fn of(id: &str) -> Half {
        if Sha256::digest(id.as_bytes())[0] & 1 == 0 {
            Half::Dev
        } else {
            Half::Test
        }
    }
}
