//! The CPU execution backend's foundation: CUDA kernel sources (an original and its mutants)
//! translated to C++ over kmut's own prelude header, compiled with g++ into shared libraries
//! through a content-addressed cache, and launched through `extern "C"` launchers that take
//! cuLaunchKernel-style argument arrays.
//!
//! * [`translate`]: the source rewrites, one namespace per variant, the launchers.
//! * `prelude.hpp` ([`PRELUDE`]): what CUDA provides, emulated; fibers for barriers and warps.
//! * [`compile`]: g++ and the cache. [`build`]: many variants in a few parallel units.
//! * [`library`]: loading a library and launching from Rust.
//!
//! `docs/cpu-backend.md` describes the model and its fidelity limits.

pub mod build;
pub mod compile;
mod lex;
pub mod library;
pub mod translate;

use std::path::PathBuf;

pub use build::{build, BuildOptions, BuildOutcome, UnitReport};
pub use compile::{default_cache_dir, Compiled, Compiler};
pub use library::{Library, Order};
pub use translate::{launcher_symbol, params_symbol, translate, translate_variant, Translated, Variant, PRELUDE};

#[derive(Debug, thiserror::Error)]
pub enum CpuError {
    #[error("variant {variant}: {message}")]
    Translate { variant: String, message: String },
    #[error("cannot run the C++ compiler {}: {source}", program.display())]
    NoCompiler { program: PathBuf, source: std::io::Error },
    #[error("the CPU library cache at {}: {source}", path.display())]
    Cache { path: PathBuf, source: std::io::Error },
    #[error("cannot load {}: {message}", path.display())]
    Load { path: PathBuf, message: String },
    #[error("{symbol} returned {status}: {message}")]
    Launch { symbol: String, status: i32, message: &'static str },
}
