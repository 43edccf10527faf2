//! The compile stage: every source mutant (and each substrate's original) to CUBIN with NVRTC on
//! a thread pool, through a content-addressed image cache, then one classification:
//! stillborn (does not compile), equivalent (its image is the original's), duplicate (its image
//! is an earlier mutant's; the lowest id stays the representative), or live.
//!
//! Results go to the store as they arrive, so an interrupted run resumes where it stopped.

mod cache;
mod classify;
pub mod pool;
mod scope;
mod stage;

pub use cache::{source_key, CacheEntry, ImageCache};
pub use classify::{classify, Compiled};
pub use pool::{Compile, ProcessPool};
pub use scope::Scopes;
pub use stage::{longest_first, CompileStage, Reporter, SubstrateSummary, Target};

/// The file name NVRTC sees for every source: the same everywhere, so it cannot make two
/// images differ (and cached images stay valid for every stage).
pub const PROGRAM_NAME: &str = "kernel.cu";

/// The SHA-256 of `bytes` as 64 hex digits.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(bytes);
    digest.iter().fold(String::with_capacity(64), |mut s, b| {
        use std::fmt::Write as _;
        let _ = write!(s, "{b:02x}");
        s
    })
}

#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    #[error(transparent)]
    Nvrtc(#[from] kmut_nvrtc::NvrtcError),
    #[error(transparent)]
    Store(#[from] kmut_store::StoreError),
    #[error("the image cache at `{path}` could not be written")]
    Cache {
        path: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the original source of `{0}` does not compile:\n{1}")]
    OriginalStillborn(String, String),
    #[error("the compile worker failed: {0}")]
    Worker(String),
}
