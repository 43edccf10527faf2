//! The held-out split: each mutant falls in one half by a hash of its id, so the split is the
//! same in every run, on every machine, and independent of the order mutants were stored in.
//! Salted splits (`Half::salted`) give the repeated cross-validation (`crossval`) other,
//! equally fixed, halves.

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
        Half::from_digest(&Sha256::digest(id.as_bytes()))
    }

    /// The half of mutant `id` in split number `salt`: split 0 is `Half::of`'s (the held-out
    /// column's own); split `k > 0` hashes `kmut-split-v1:<k>:<id>` instead, so each split is
    /// a fixed function of the id, independent of the others.
    pub fn salted(id: &str, salt: u32) -> Half {
        if salt == 0 {
            return Half::of(id);
        }
        Half::from_digest(&Sha256::digest(format!("kmut-split-v1:{salt}:{id}").as_bytes()))
    }

    /// The other half.
    #[must_use]
    pub fn other(self) -> Half {
        match self {
            Half::Dev => Half::Test,
            Half::Test => Half::Dev,
        }
    }

    fn from_digest(digest: &[u8]) -> Half {
        if digest[0] & 1 == 0 {
            Half::Dev
        } else {
            Half::Test
        }
    }
}
