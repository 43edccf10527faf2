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

    /// List the mutation rules: id, family and what each changes.
    ///
    /// Examples:
    ///   kmut rules
    ///   kmut rules --family precision
    ///   kmut rules --json
    ///   kmut rules --markdown > docs/rules.md
    #[command(verbatim_doc_comment)]
    Rules(RulesArgs),

    /// Generate the mutants of substrates and list them (nothing is compiled or run).
    ///
    /// Each mutant has a stable id, its rule and family, the function it is in, its layer in a
    /// pipeline, its line in the substrate file, and the original and replacement text. With
    /// --json every field is printed, the unified diff included. A per-family summary goes to
    /// stderr.
    ///
    /// Examples:
    ///   kmut mutate substrates/accepted/L1p23_softmax.py
    ///   kmut mutate substrates/accepted/*.py --family synchronization
    ///   kmut mutate substrates/accepted/L3p4_lenet5.py --rules 'boundary-guard-*' --json
    #[command(verbatim_doc_comment)]
    Mutate(MutateArgs),

    /// Compile every mutant to CUBIN with NVRTC and classify it: stillborn, equivalent,
    /// duplicate or live.
    ///
    /// Substrates are mutated (as `kmut mutate` does), their mutants stored, and every source
    /// mutant and each original compiled on a thread pool through a content-addressed image
    /// cache. A mutant is stillborn when NVRTC rejects it, equivalent when its image equals the
    /// original's, a duplicate when it equals an earlier mutant's (the lowest id represents
    /// them), live otherwise; launch mutants reuse the original image and are live. Results go
    /// to the store as they arrive: after Ctrl-C or a crash, run the same command to resume.
    ///
    /// Examples:
    ///   kmut compile                                   # every substrates/accepted/*.py
    ///   kmut compile substrates/accepted/L1p23_softmax.py --threads 8
    ///   kmut compile --store runs/h200.sqlite --arch sm_90
    #[command(verbatim_doc_comment)]
    Compile(CompileArgs),

    /// Benchmarks of kmut's own stages.
    #[command(subcommand)]
    Bench(BenchCommand),
}

#[derive(Debug, clap::Args)]
pub struct CompileArgs {
    /// Substrate files; default: every `substrates/accepted/*.py` under the working folder.
    #[arg(value_name = "SUBSTRATE")]
    pub substrates: Vec<PathBuf>,
    #[command(flatten)]
    pub compile: CompileOptions,
    /// Only rules whose id matches this glob (repeatable).
    #[arg(long, value_name = "GLOB")]
    pub rules: Vec<String>,
    /// Only rules of this family (repeatable).
    #[arg(long, value_name = "FAMILY")]
    pub family: Vec<String>,
    /// The store (`SQLite`) to write; default `$KMUT_STORE` or `kmut.sqlite` in the working folder.
    #[arg(long, value_name = "PATH")]
    pub store: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct CompileOptions {
    /// NVRTC target architecture.
    #[arg(long, default_value = "sm_90", value_name = "ARCH")]
    pub arch: String,
    /// Compiler threads; default: every core.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// The image cache folder; default `$KMUT_CACHE_DIR`, `$XDG_CACHE_HOME/kmut` or `~/.cache/kmut`.
    #[arg(long, value_name = "DIR", conflicts_with = "no_cache")]
    pub cache: Option<PathBuf>,
    /// Compile everything afresh, reading and writing no cache.
    #[arg(long)]
    pub no_cache: bool,
    /// The NVRTC library (or its folder); default `$KMUT_NVRTC`, then the `nvidia` wheel of this
    /// Python, then `$CUDA_HOME`, then `/usr/local/cuda`.
    #[arg(long, value_name = "PATH")]
    pub nvrtc: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Time generating every mutant of substrates with every rule (substrates are read once,
    /// untimed).
    Mutate(BenchMutateArgs),
    /// Time compiling mutants with NVRTC, without the cache: ms per mutant on one thread, then
    /// throughput on N threads.
    Compile(BenchCompileArgs),
}

#[derive(Debug, clap::Args)]
pub struct BenchCompileArgs {
    /// Substrate files.
    #[arg(required = true, value_name = "SUBSTRATE")]
    pub substrates: Vec<PathBuf>,
    /// How many source mutants to compile (an evenly spaced sample over all of them).
    #[arg(long, default_value_t = 64)]
    pub sample: usize,
    /// Threads for the throughput measurement; default: every core.
    #[arg(long)]
    pub threads: Option<usize>,
    /// NVRTC target architecture.
    #[arg(long, default_value = "sm_90")]
    pub arch: String,
}

#[derive(Debug, clap::Args)]
pub struct BenchMutateArgs {
    /// Substrate files.
    #[arg(required = true, value_name = "SUBSTRATE")]
    pub substrates: Vec<PathBuf>,
    /// Timed passes over all substrates.
    #[arg(long, default_value_t = 20)]
    pub repeat: u32,
}

#[derive(Debug, clap::Args)]
pub struct RulesArgs {
    /// Only rules whose id matches this glob (repeatable), e.g. 'boundary-*'.
    #[arg(long, value_name = "GLOB")]
    pub rules: Vec<String>,
    /// Only rules of this family (repeatable): arithmetic, indexing, semantic, boundary,
    /// synchronization, precision.
    #[arg(long, value_name = "FAMILY")]
    pub family: Vec<String>,
    /// Print the catalogue as JSON (version and every field of every rule).
    #[arg(long, conflicts_with = "markdown")]
    pub json: bool,
    /// Print docs/rules.md.
    #[arg(long)]
    pub markdown: bool,
}

#[derive(Debug, clap::Args)]
pub struct MutateArgs {
    /// Substrate files (`substrates/accepted/*.py` or candidates).
    #[arg(required = true, value_name = "SUBSTRATE")]
    pub substrates: Vec<PathBuf>,
    /// Only rules whose id matches this glob (repeatable).
    #[arg(long, value_name = "GLOB")]
    pub rules: Vec<String>,
    /// Only rules of this family (repeatable).
    #[arg(long, value_name = "FAMILY")]
    pub family: Vec<String>,
    /// Print the mutants as a JSON array with every field.
    #[arg(long)]
    pub json: bool,
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
