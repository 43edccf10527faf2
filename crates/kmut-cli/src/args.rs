//! Command-line definitions (clap). Only parsing lives here; `commands/` does the work.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

/// Mutation analysis of the correctness checkers of GPU-kernel benchmarks.
///
/// kmut injects small realistic faults into correct CUDA implementations ("substrates") of
/// benchmark problems, runs them, and reports which faults a checking protocol misses.
#[derive(Debug, Parser)]
#[command(name = "kmut", version, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
#[expect(clippy::doc_markdown, reason = "the doc comments are --help text, not Markdown")]
pub enum Command {
    /// Verify candidate substrates against their references and accept the ones that pass.
    ///
    /// For each file: import safety, the contract of substrates/SPEC.md, NVRTC compilation,
    /// the launch descriptor on the small suite, and on a GPU every suite through
    /// allclose(ref, out, atol=1e-2, rtol=1e-2), a NaN-filled run proving every element is
    /// written, a determinism run, and the fp32 reference against its fp64 evaluation.
    /// Without a GPU the checks that need one are reported as not run, and the exit code
    /// reflects only the checks that ran.
    ///
    /// Examples:
    ///   kmut gate substrates/candidate_L1p19_relu.py
    ///   kmut gate substrates/candidate_*.py --accept
    ///   kmut gate substrates/accepted/*.py
    #[command(verbatim_doc_comment)]
    Gate(GateArgs),
}

#[derive(Debug, clap::Args)]
pub struct GateArgs {
    /// Candidate substrate files (`substrates/candidate_*.py`) or accepted ones to re-check.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// Move each candidate that passes every check to `accepted/<name>.py` beside it.
    #[arg(long)]
    pub accept: bool,

    /// NVRTC target architecture when no GPU is visible (a GPU's own is used otherwise).
    #[arg(long, default_value = "sm_90", value_name = "ARCH")]
    pub arch: String,

    /// Wall-clock limit per candidate, in seconds; a worker past it is killed.
    #[arg(long, default_value_t = 900, value_name = "SECONDS")]
    pub timeout: u64,

    /// Also write the full report (every check's status, detail and data) as JSON to PATH.
    #[arg(long, value_name = "PATH")]
    pub json: Option<PathBuf>,
}
