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

    /// Run every live mutant on the inputs of a checking protocol, on GPU workers, and store
    /// the kill matrix.
    ///
    /// Substrates are compiled first (as `kmut compile`, through the image cache). Then worker
    /// processes (--workers-per-gpu on each of --gpus) evaluate each live mutant on each input:
    /// the official protocol's five T0_original trials, plus every targeted suite with
    /// --suites all. Each evaluation stores tau* (the smallest passing allclose tolerance), the
    /// max abs and rel errors, NaN/Inf, shape, the crash class, an out-of-bounds flag from
    /// canaries around every buffer, the kernel time and the wall time. A hang is killed after
    /// max(--timeout-factor x the original's kernel time, --min-timeout); a CUDA error that
    /// poisons a context ends its worker and a fresh one takes over.
    ///
    /// By default a mutant stops at its first kill (--full-matrix runs every input). --sample N
    /// or --budget (e.g. 8m) runs a stratified sample across substrates and families; `kmut
    /// score` then reports confidence intervals. Results are stored as they arrive: after
    /// Ctrl-C or kill -9, run the same command to resume.
    ///
    /// Without a GPU, --backend cpu runs the same engine on kmut's CPU backend: kernels
    /// translated to C++ and built with g++, on each substrate's small suites, one worker per
    /// core. Fast-math mutants are equivalent there and not run; synchronisation and warp
    /// mutants run in three thread orders and are scored apart (docs/cpu-backend.md).
    ///
    /// Examples:
    ///   kmut run                                         # every substrates/accepted/*.py
    ///   kmut run substrates/accepted/L1p23_softmax.py --suites all --full-matrix
    ///   kmut run --sample 500 --seed 1 --workers-per-gpu 3
    ///   kmut run --budget 8m
    ///   kmut run --backend cpu --sample 300             # no GPU needed
    #[command(verbatim_doc_comment)]
    Run(Box<RunArgs>),

    /// Search a witness for every live mutant the protocol misses: an input, valid for the
    /// problem, on which the mutant fails.
    ///
    /// The same engine as `kmut run` (and its options) with the witness search's inputs: the
    /// protocol's own first (a mutant they kill is witnessed by them), then each substrate's
    /// targeted suites, then inputs generated from its T0_original generator (kmut.generators:
    /// boundary sizes just off the block sizes, scaled, shifted, sign-mixed, negative, sparse,
    /// spiky, constant, ramp and tied values, at small sizes first, then official ones), each
    /// mutant stopping at its first kill. A generated input is used only when valid: the
    /// original kernel and the fp32 reference within --margin of the tolerance of the fp64
    /// reference; one that is not (past the legitimate-variance ceiling) is skipped for every
    /// mutant. A mutant no valid input kills is `possibly equivalent`. Resumable like `kmut run`;
    /// on the CPU backend only the small sizes run. `kmut score --denominator witnessed` then
    /// counts misses over witnessed mutants.
    ///
    /// Examples:
    /// --replay MUTANT runs a stored witness again: the column is re-drawn from its spec and
    /// seed, the original and the mutant run on it, and both verdicts are compared with the
    /// stored ones (the store itself is not changed).
    ///
    /// Examples:
    ///   kmut witness --sample 1500 --seed 1 --budget 1h
    ///   kmut witness substrates/accepted/L1p23_softmax.py --backend cpu
    ///   kmut witness --replay 3f9c2a1b7d4e5f60 --store runs/h200.sqlite
    #[command(verbatim_doc_comment)]
    Witness(Box<WitnessArgs>),

    /// Find each input generator's legitimate-variance ceiling: the largest scale at which a
    /// correct kernel still passes.
    ///
    /// For every scaled generator of the witness search (scaled, shifted, signed, negative,
    /// sparse, spiky, constant, ramp, ties) and each substrate, the scale is bisected in log
    /// scale between --lowest and --highest: at each probed scale the original kernel and the
    /// fp32 reference must both stay within --margin of the tolerance of the fp64 reference,
    /// with nothing NaN or infinite where fp64 is finite, on every --seed. Past the ceiling a
    /// correct kernel fails too, so no input there may witness a mutant. Every probe is stored
    /// (the tau* curve) and reused by a later search; `--json` prints the points.
    ///
    /// Examples:
    ///   kmut ceiling substrates/accepted/L1p47_sum.py
    ///   kmut ceiling --sizes small --backend cpu --generator signed --generator shifted
    ///   kmut ceiling --store runs/h200.sqlite --json > ceilings.json
    ///   kmut ceiling --store runs/h200.sqlite --no-run    # what was measured, on any machine
    #[command(verbatim_doc_comment)]
    Ceiling(Box<CeilingArgs>),

    /// Score the stored evaluations under a checking protocol: miss rates overall and by
    /// family, level and substrate.
    ///
    /// Nothing is run. Only cells of each mutant's current image count, and an input on which
    /// the original itself fails decides nothing for its substrate. A live mutant is killed
    /// when any scored input crashed, changed the output's shape, or has tau* above the
    /// tolerance; it survives when every scored input was run and passed. A mutant run on only
    /// some inputs and killed by none is `undecided`; one run on none is `not run`. Timeouts
    /// have their own column, outside the denominator unless --timeouts kill. The HEAD protocol
    /// (1e-4) is scored from the same evaluations as the official one (1e-2). Where only a
    /// sample was evaluated, rates are stratified estimates with 95% intervals that also cover
    /// what is unknown (docs/scoring.md).
    ///
    /// Examples:
    ///   kmut score
    ///   kmut score --protocol head
    ///   kmut score --suites all --json
    #[command(verbatim_doc_comment)]
    Score(ScoreArgs),

    /// Choose, per problem, the fewest valid inputs that detect the most witnessed mutants.
    ///
    /// Candidates: the protocol's trial inputs, the substrate's suites and every generated
    /// column the witness search's validity gate admitted. Greedy maximum coverage at each
    /// budget (ties to the earliest candidate: official, suites, generated in search order),
    /// the exact optimum with --exact (an integer program, microlp), and a held-out estimate:
    /// mutants split in halves by a hash of their id, inputs chosen on dev, detection read on
    /// test. Cells never run (a first-kill witness search leaves most) never count as kills:
    /// rates show what they could add. Fill them with `kmut run --suites witness --full-matrix`.
    ///
    /// Examples:
    ///   kmut synth
    ///   kmut synth --exact --out synth.json --svg synth.svg --module synth_inputs.py
    ///   kmut synth L1p23_softmax --budget 1 2 --with-official --json
    #[command(verbatim_doc_comment)]
    Synth(SynthArgs),

    /// How far a fault travels through a pipeline's layers: survival by the mutated layer's
    /// depth quartile, propagation curves by layer kind, masking, and the every-layer checker.
    ///
    /// Nothing is run. Verdicts are the score's (the same options as `kmut score`; the witnessed
    /// denominator once a witness search has run, live otherwise, said in the header); the
    /// curves, masking and what-if read the per-step rows `kmut run` captures for pipelines
    /// (each step's output against the original's). docs/depth.md says what each number counts.
    ///
    /// Examples:
    ///   kmut depth
    ///   kmut depth L3p9_resnet18 L3p12_vgg19 --svg depth-plots
    ///   kmut depth --json > depth.json
    #[command(verbatim_doc_comment)]
    Depth(DepthArgs),

    /// Write a report of the store: an HTML folder to browse, Stryker JSON, CSV and Parquet tables.
    ///
    /// Nothing is run. Into --out (default kmut-report/): index.html (miss rates by protocol,
    /// level and family with their 95% intervals, SVG charts; the audit, the synthesis budget
    /// curve and the depth analysis, each saying what to run where not measured yet) and
    /// substrates/NAME.html (kernels, inputs, every mutant with its rule, family,
    /// layer, diff, verdict under each protocol, witness, and its result on every input,
    /// filterable by family and verdict); json/mutation-testing-report.PROTOCOL.json (Stryker's
    /// mutation-testing-report schema, kmut's facts in its extension points); tables/ with the
    /// mutants, the kill matrix and the input columns as CSV and Parquet (docs/store.md). The
    /// folder opens from disk with no server and no network. An earlier report in --out is
    /// replaced; a folder that is not a report is never overwritten (docs/report.md).
    ///
    /// Examples:
    ///   kmut report
    ///   kmut report --store campaign.sqlite --out campaign-report --open
    ///   kmut report --protocol official
    #[command(verbatim_doc_comment)]
    Report(ReportArgs),

    /// Audit checking protocols side by side: what each misses and what it wrongly rejects, on
    /// the same mutants.
    ///
    /// PROTOCOL is a shipped protocol (protocols/*.json: official, head, kbv-inputs, kbv-full,
    /// fuzz-kbm, illusion, robust-kbench, robust-kbench-cli, backendbench, kmut-suites) or a
    /// protocol file's path (docs/protocols.md has the schema; a malformed file is refused
    /// naming the field).
    ///
    /// First, unless --no-run, the engine of `kmut run` evaluates what the protocols need that
    /// the store lacks: each protocol's inputs (and, for the decomposition, its inputs at the
    /// first protocol's tolerance) for every witnessed mutant not yet decided under it, each
    /// mutant stopping at its first kill at that tolerance, every stored cell reused; --budget
    /// and --sample bound it, and the same command resumes it. Then, on the unified denominator (mutants a valid input exposes, decided under every protocol): the
    /// detection rate of each protocol overall, by family and by level with 95% intervals;
    /// false kills (inputs on which a protocol rejects the original, per problem, never
    /// counted as detections); each protocol's gain over the first split into inputs and
    /// tolerance; and the mutants every protocol misses that a witness exposes. Run
    /// `kmut witness` first: only witnessed mutants are audited.
    ///
    /// Examples:
    ///   kmut audit official kbv-inputs kbv-full fuzz-kbm --budget 2h
    ///   kmut audit official head --no-run --json
    ///   kmut audit official my-protocol.json --backend cpu
    #[command(verbatim_doc_comment)]
    Audit(Box<AuditArgs>),

    /// Compare the CPU backend's verdicts with a GPU's on the same mutants and inputs, by family.
    ///
    /// Run the same sample on both, on equal inputs and every cell: `kmut run --backend cpu
    /// --sample N --seed S --full-matrix` and, on a GPU, `kmut run --suites small --sample N
    /// --seed S --full-matrix`. Only (mutant, input) cells present on both count; a mutant is
    /// killed on a backend when any shared cell kills it at the tolerance. Racy-on-CPU mutants
    /// (synchronisation and warp) are reported apart from the GPU-comparable figure.
    ///
    /// Examples:
    ///   kmut agree --store gpu.sqlite --cpu-store cpu.sqlite
    ///   kmut agree --store both.sqlite --json
    #[command(verbatim_doc_comment)]
    Agree(AgreeArgs),

    /// Benchmarks of kmut's own stages.
    #[command(subcommand)]
    Bench(BenchCommand),

    /// Maintain the store: remove what no longer belongs to the current substrates.
    #[command(subcommand)]
    Store(StoreCommand),

    /// One NVRTC worker of a compile pool: compiles the sources it reads on stdin (internal).
    #[command(hide = true)]
    CompileWorker(CompileWorkerArgs),
}

#[derive(Debug, clap::Args)]
pub struct CompileWorkerArgs {
    /// The NVRTC library to load (the parent's).
    #[arg(long, value_name = "PATH")]
    pub nvrtc: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum StoreCommand {
    /// Delete the stale mutants (no longer generated from their substrate's current source)
    /// with their compilations, classes and evaluations.
    ///
    /// `kmut compile` and `kmut run` never delete: after a substrate's source is edited, the
    /// mutants whose sites moved or vanished are marked stale, keep their results, and are left
    /// out of every run and score. This removes them, saying what goes, per substrate.
    ///
    /// Examples:
    ///   kmut store prune --dry-run
    ///   kmut store prune L1p23_softmax
    #[command(verbatim_doc_comment)]
    #[expect(clippy::doc_markdown, reason = "the doc comment is --help text, not Markdown")]
    Prune(PruneArgs),
}

#[derive(Debug, clap::Args)]
pub struct PruneArgs {
    /// Only these substrates (names); default: every one in the store.
    #[arg(value_name = "NAME")]
    pub substrates: Vec<String>,
    /// Say what would be removed, remove nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// The store (`SQLite`); default `$KMUT_STORE` or `kmut.sqlite` in the working folder.
    #[arg(long, value_name = "PATH")]
    pub store: Option<PathBuf>,
}

#[allow(clippy::struct_excessive_bools)] // command-line switches are each a yes or no
#[derive(Debug, Clone, clap::Args)]
pub struct RunArgs {
    /// Substrate files; default: every `substrates/accepted/*.py` under the working folder.
    #[arg(value_name = "SUBSTRATE")]
    pub substrates: Vec<PathBuf>,
    /// The checking protocol whose inputs are run (`official`: `KernelBench` v0.1; `head`; any
    /// shipped protocol or protocol file with one `atol = rtol` tolerance, `docs/protocols.md`).
    #[arg(long, default_value = "official", value_name = "NAME")]
    pub protocol: String,
    /// `official`: only the protocol's inputs; `all`: every suite of each substrate as well;
    /// `small`: only the small suites (what the CPU backend always runs; on a GPU, to compare
    /// the two backends on equal inputs); `witness`: the witness search (`kmut witness`).
    #[arg(long, default_value = "official", value_parser = ["official", "all", "small", "witness"], value_name = "WHICH")]
    pub suites: String,
    /// The witness search's validity gate: a generated input may witness only when the original
    /// kernel and the fp32 reference are both within this fraction of the tolerance of the fp64
    /// reference.
    #[arg(long, default_value_t = 0.5, value_name = "FRACTION")]
    pub margin: f64,
    /// Set aside a substrate whose original takes longer than this per input, in seconds
    /// (default: 2 on the CPU backend, where problems with large fixed weights crawl; no limit
    /// on a GPU). 0: no limit.
    #[arg(long, value_name = "SECONDS")]
    pub heavy_limit: Option<f64>,
    /// Run every mutant on every input, even after a kill (default: stop at the first kill).
    #[arg(long)]
    pub full_matrix: bool,
    /// Do not capture each pipeline step's output against the original's (the per-step rows
    /// `kmut depth` reads); for measuring what the capture costs (docs/depth.md).
    #[arg(long)]
    pub no_steps: bool,
    /// With the witness search's inputs: capture the per-step rows on its generated columns
    /// too, so a pipeline mutant's witness shows where along the network its fault appears
    /// (by default only the protocol's own columns are captured, as `kmut depth` reads).
    #[arg(long, conflicts_with = "no_steps")]
    pub search_steps: bool,
    /// Evaluate a stratified sample of N live mutants (by substrate and family); with
    /// --budget, stop when either is reached.
    #[arg(long, value_name = "N")]
    pub sample: Option<usize>,
    /// Evaluate a stratified sample for this long (e.g. 90s, 8m, 1h), then stop.
    #[arg(long, value_name = "DURATION")]
    pub budget: Option<String>,
    /// Seed of the sampling order.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Where mutants run. `gpu`: CUDA, on the protocol's own inputs at their official sizes.
    /// `cpu`: kmut's CPU backend (kernels translated to C++ and built with g++) on each
    /// substrate's small suites, at the protocol's tolerance; for machines without a GPU
    /// (docs/cpu-backend.md says what it can and cannot stand in for).
    #[arg(long, default_value = "gpu", value_parser = ["gpu", "cpu"], value_name = "BACKEND")]
    pub backend: String,
    /// CPU backend: worker processes, one core each; default: every core.
    #[arg(long, value_name = "N")]
    pub cpu_workers: Option<usize>,
    /// GPU indices (comma-separated); default: every visible GPU.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub gpus: Vec<u32>,
    /// Worker processes per GPU; default: one per core left after two for kmut itself, shared
    /// among the GPUs, between 2 and 10 (each worker draws its columns' inputs on one core).
    #[arg(long, value_name = "N")]
    pub workers_per_gpu: Option<usize>,
    /// Started workers kept ready per GPU to replace one lost to a crash or hang at once
    /// (default one per four workers, at least one: faults end workers every few seconds).
    /// The least kept: while workers are lost faster than spares start, up to half the workers.
    #[arg(long, value_name = "N")]
    pub spare_workers: Option<usize>,
    /// Watchdog: an evaluation may take this many times the original's kernel time ...
    #[arg(long, default_value_t = 20.0, value_name = "X")]
    pub timeout_factor: f64,
    /// ... and never less than this many seconds.
    #[arg(long, default_value_t = 2.0, value_name = "SECONDS")]
    pub min_timeout: f64,
    /// Limit for preparing one input column (drawing inputs, the reference), in seconds.
    #[arg(long, default_value_t = 900.0, value_name = "SECONDS")]
    pub prep_timeout: f64,
    /// Run the original on every column prepared. By default a column whose original's figures
    /// (tau*, kernel time, the validity gate's verdict) the store holds for the same original
    /// image on this backend, from an earlier run or this run's first preparation of it, is
    /// prepared without running the original again, unless its mutants need the original's
    /// outputs (a pipeline's kept steps); and a column of a suite whose other seed this run
    /// measured (the official trials) runs the original only after its first evaluation that
    /// fails the comparison, which is when its tau* decides anything.
    #[arg(long)]
    pub rerun_original: bool,
    /// Folder where workers share drawn inputs; default: a fresh folder in /dev/shm or the
    /// temporary folder, removed at the end.
    #[arg(long, value_name = "DIR")]
    pub scratch: Option<PathBuf>,
    /// The store (`SQLite`); default `$KMUT_STORE` or `kmut.sqlite` in the working folder.
    #[arg(long, value_name = "PATH")]
    pub store: Option<PathBuf>,
    #[command(flatten)]
    pub compile: CompileOptions,
    #[command(flatten)]
    pub select: Selection,
    /// The worker program (for tests): replaces `PYTHON -m kmut._run_worker`.
    #[arg(long, hide = true, value_name = "COMMAND", num_args = 1.., allow_hyphen_values = true)]
    pub worker: Vec<String>,
    /// Print no score at the end (a replay prints its own verdict).
    #[arg(skip)]
    pub no_score: bool,
}

#[derive(Debug, clap::Args)]
pub struct WitnessArgs {
    #[command(flatten)]
    pub run: RunArgs,
    /// Replay this mutant's stored witness instead of searching (exit 0 when it still kills and
    /// the original still passes).
    #[arg(long, value_name = "MUTANT")]
    pub replay: Option<String>,
}

#[derive(Debug, clap::Args)]
pub struct CeilingArgs {
    /// Substrate files; default: every `substrates/accepted/*.py` under the working folder.
    #[arg(value_name = "SUBSTRATE")]
    pub substrates: Vec<PathBuf>,
    /// The protocol whose tolerance the validity margin is a fraction of.
    #[arg(long, default_value = "official", value_name = "NAME")]
    pub protocol: String,
    /// Valid: the original and the fp32 reference within this fraction of the tolerance of fp64.
    #[arg(long, default_value_t = 0.5, value_name = "FRACTION")]
    pub margin: f64,
    /// The generators to search (repeatable); default: every scaled one.
    #[arg(long, value_name = "NAME")]
    pub generator: Vec<String>,
    /// `official` (the declared sizes; the default on a GPU), `small` (the small suite's; the
    /// CPU backend's only choice) or `dim=value,...` over the small sizes.
    #[arg(long, value_name = "SIZES")]
    pub sizes: Option<String>,
    /// The search's range of scales, and how many bisections narrow it.
    #[arg(long, default_value_t = 1.0, value_name = "SCALE")]
    pub lowest: f64,
    #[arg(long, default_value_t = 10000.0, value_name = "SCALE")]
    pub highest: f64,
    #[arg(long, default_value_t = 5, value_name = "N")]
    pub steps: u32,
    /// Seeds drawn at each probed scale (comma-separated); all must be valid.
    #[arg(long, default_value = "1,2", value_delimiter = ',', value_name = "LIST")]
    pub seeds: Vec<u64>,
    /// `gpu` or `cpu` (kmut's CPU backend, small sizes).
    #[arg(long, default_value = "gpu", value_parser = ["gpu", "cpu"], value_name = "BACKEND")]
    pub backend: String,
    /// Substrates searched at once per GPU (one worker each); on the CPU backend, in all.
    #[arg(long, default_value_t = 4, value_name = "N")]
    pub workers: usize,
    /// GPU indices (comma-separated); default: every visible GPU.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub gpus: Vec<u32>,
    /// Limit for one probe (drawing the inputs, both references, one run of the original), in s.
    #[arg(long, default_value_t = 600.0, value_name = "SECONDS")]
    pub prep_timeout: f64,
    /// Print every ceiling and its probes as JSON.
    #[arg(long)]
    pub json: bool,
    /// Run nothing: print the ceilings the store holds (of the named substrates, or all), as
    /// measured, on any machine (no GPU, no compiler needed).
    #[arg(long)]
    pub no_run: bool,
    /// The store (`SQLite`); default `$KMUT_STORE` or `kmut.sqlite` in the working folder.
    #[arg(long, value_name = "PATH")]
    pub store: Option<PathBuf>,
    #[command(flatten)]
    pub compile: CompileOptions,
    /// The worker program (for tests): replaces `PYTHON -m kmut._run_worker`.
    #[arg(long, hide = true, value_name = "COMMAND", num_args = 1.., allow_hyphen_values = true)]
    pub worker: Vec<String>,
}

#[allow(clippy::struct_excessive_bools)] // command-line switches are each a yes or no
#[derive(Debug, clap::Args)]
pub struct SynthArgs {
    /// Only these substrates (names, e.g. `L1p23_softmax`); default: every one in the store.
    #[arg(value_name = "SUBSTRATE")]
    pub substrates: Vec<String>,
    /// Budgets of the curve: inputs per problem (beyond the official trials with --with-official).
    /// The per-problem choice and the export use the largest.
    #[arg(long, num_args = 1.., default_values_t = kmut_synth::DEFAULT_BUDGETS, value_name = "B")]
    pub budget: Vec<usize>,
    /// The mutants the per-problem choice and the export are chosen on: `none` (every witnessed
    /// mutant), `dev` or `test` (one half). The curve always shows the full pool and dev->test.
    #[arg(long, default_value = "none", value_parser = ["dev", "test", "none"], value_name = "HALF")]
    pub split: String,
    /// Take the protocol's trial inputs first; budgets count the inputs added to them.
    #[arg(long)]
    pub with_official: bool,
    /// Also solve the exact optimum (integer program) at every budget.
    #[arg(long)]
    pub exact: bool,
    /// The exact solver's time limit per problem, in seconds (its best choice then, never worse
    /// than greedy, is marked not proven).
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS")]
    pub time_limit: f64,
    /// The protocol whose tolerance judges kills and whose inputs are "official".
    #[arg(long, default_value = "official", value_name = "NAME")]
    pub protocol: String,
    /// Whose evaluations: `gpu`, `cpu`, or `auto` (the GPU's where the store has any).
    #[arg(long, default_value = "auto", value_parser = ["auto", "gpu", "cpu"], value_name = "BACKEND")]
    pub backend: String,
    /// Write the chosen inputs as a protocol file (JSON).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Write the budget curve as an SVG plot.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Write a self-contained Python module that draws the chosen inputs (no kmut needed to import it).
    #[arg(long, value_name = "FILE")]
    pub module: Option<PathBuf>,
    /// Write the ids of the witnessed mutants whose missing cells can still add kills (those
    /// each problem's first input misses), one per line, for `kmut run --suites witness
    /// --full-matrix --mutants-from FILE`: the matrix filled where a choice can change.
    #[arg(long, value_name = "FILE")]
    pub fill_list: Option<PathBuf>,
    /// Count every missing cell as a kill: the curve a filled matrix could reach at most (is
    /// the goal within reach of a `--full-matrix` run?), printed as upper bounds; writes nothing.
    #[arg(long)]
    pub assume_missing_kill: bool,
    /// Cross-validate the held-out column: N salted 50/50 splits of the mutants (the first is
    /// the held-out column's own), each read both ways (chosen on one half, read on the other),
    /// pooled, with the lowest and highest fold. One split's reading moves by a point or two
    /// with the split alone; the pooled rate does not. 0 turns it off.
    #[arg(long, default_value_t = kmut_synth::DEFAULT_SPLITS, value_name = "N")]
    pub splits: u32,
    /// Print the whole synthesis as JSON.
    #[arg(long)]
    pub json: bool,
    /// The store (`SQLite`); default `$KMUT_STORE` or `kmut.sqlite` in the working folder.
    #[arg(long, value_name = "PATH")]
    pub store: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct AuditArgs {
    /// Protocols: shipped names or protocol files (`.json`); the first is the one the others'
    /// gains are decomposed against (unless --baseline).
    #[arg(value_name = "PROTOCOL", required = true)]
    pub protocols: Vec<String>,
    /// Decompose every other protocol's gain over this one (a PROTOCOL's name); default: the first.
    #[arg(long, value_name = "NAME")]
    pub baseline: Option<String>,
    /// Only these substrate files (repeat); default: every `substrates/accepted/*.py` (when
    /// running) or every substrate in the store (with --no-run).
    #[arg(long = "substrate", value_name = "PATH")]
    pub substrates: Vec<PathBuf>,
    /// Run nothing: audit the cells the store holds (what is missing is counted as undecided).
    #[arg(long)]
    pub no_run: bool,
    /// Print the audit as JSON.
    #[arg(long)]
    pub json: bool,
    /// Examples shown per family of the mutants every protocol misses.
    #[arg(long, default_value_t = 3, value_name = "N")]
    pub examples: usize,
    /// Audit at most N witnessed mutants (the first of the stratified order of --seed).
    #[arg(long, value_name = "N")]
    pub sample: Option<usize>,
    /// Stop starting new evaluations after this long (e.g. 90s, 8m, 1h); resumable.
    #[arg(long, value_name = "DURATION")]
    pub budget: Option<String>,
    /// Seed of the sampling order.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Whose evaluations: `gpu` (the protocols' inputs at official sizes) or `cpu` (kmut's CPU
    /// backend: small suites and generated inputs at small sizes).
    #[arg(long, default_value = "gpu", value_parser = ["gpu", "cpu"], value_name = "BACKEND")]
    pub backend: String,
    /// Set aside a substrate whose original takes longer than this per input, in seconds
    /// (default: 2 on the CPU backend, no limit on a GPU). 0: no limit.
    #[arg(long, value_name = "SECONDS")]
    pub heavy_limit: Option<f64>,
    /// CPU backend: worker processes, one core each; default: every core.
    #[arg(long, value_name = "N")]
    pub cpu_workers: Option<usize>,
    /// GPU indices (comma-separated); default: every visible GPU.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub gpus: Vec<u32>,
    /// Worker processes per GPU; default: one per core left after two for kmut itself, shared
    /// among the GPUs, between 2 and 10 (each worker draws its columns' inputs on one core).
    #[arg(long, value_name = "N")]
    pub workers_per_gpu: Option<usize>,
    /// Started workers kept ready per GPU (default one per four workers, at least one; more, up
    /// to half the workers, while workers are lost faster than spares start).
    #[arg(long, value_name = "N")]
    pub spare_workers: Option<usize>,
    /// Watchdog: an evaluation may take this many times the original's kernel time ...
    #[arg(long, default_value_t = 20.0, value_name = "X")]
    pub timeout_factor: f64,
    /// ... and never less than this many seconds.
    #[arg(long, default_value_t = 2.0, value_name = "SECONDS")]
    pub min_timeout: f64,
    /// Limit for preparing one input column (drawing inputs, the reference), in seconds.
    #[arg(long, default_value_t = 900.0, value_name = "SECONDS")]
    pub prep_timeout: f64,
    /// Run the original on every column prepared. By default a column whose original's figures
    /// (tau*, kernel time, the validity gate's verdict) the store holds for the same original
    /// image on this backend, from an earlier run or this run's first preparation of it, is
    /// prepared without running the original again, unless its mutants need the original's
    /// outputs (a pipeline's kept steps).
    #[arg(long)]
    pub rerun_original: bool,
    /// Folder where workers share drawn inputs; default: a fresh folder in /dev/shm or the
    /// temporary folder, removed at the end.
    #[arg(long, value_name = "DIR")]
    pub scratch: Option<PathBuf>,
    /// The store (`SQLite`); default `$KMUT_STORE` or `kmut.sqlite` in the working folder.
    #[arg(long, value_name = "PATH")]
    pub store: Option<PathBuf>,
    #[command(flatten)]
    pub compile: CompileOptions,
    #[command(flatten)]
    pub select: Selection,
    /// The worker program (for tests): replaces `PYTHON -m kmut._run_worker`.
    #[arg(long, hide = true, value_name = "COMMAND", num_args = 1.., allow_hyphen_values = true)]
    pub worker: Vec<String>,
}

#[derive(Debug, clap::Args)]
pub struct ScoreArgs {
    /// Only these substrates (names, e.g. `L1p23_softmax`); default: every one in the store.
    #[arg(value_name = "NAME")]
    pub substrates: Vec<String>,
    /// The checking protocol: `official` (`KernelBench` v0.1, 1e-2), `head` (1e-4), or any
    /// shipped protocol or protocol file (a `.json` path, `kmut synth --out`'s too) with one
    /// `atol = rtol` tolerance (`docs/protocols.md`; the others: `kmut audit`).
    #[arg(long, default_value = "official", value_name = "NAME")]
    pub protocol: String,
    /// Score at this tolerance instead of the protocol's (atol = rtol).
    #[arg(long, value_name = "TOL")]
    pub tolerance: Option<f64>,
    /// `official`: the protocol's inputs; `all`: every suite counts as a trial input; `small`:
    /// only the small suites (the CPU backend's inputs, always used for its evaluations).
    #[arg(long, default_value = "official", value_parser = ["official", "all", "small"], value_name = "WHICH")]
    pub suites: String,
    /// Whose evaluations to score: `gpu`, `cpu`, or `auto` (the GPU's where the store has any,
    /// else the CPU backend's).
    #[arg(long, default_value = "auto", value_parser = ["auto", "gpu", "cpu"], value_name = "BACKEND")]
    pub backend: String,
    /// How the watchdog's stops count: `exclude` (their own column, outside the miss rate's
    /// denominator: the audited protocols' limits of minutes would not fail a merely slow
    /// kernel) or `kill`.
    #[arg(long, default_value = "exclude", value_parser = ["exclude", "kill"], value_name = "POLICY")]
    pub timeouts: String,
    /// What the miss rate is over: `witnessed` (mutants some valid input kills, found by `kmut
    /// witness`), `live` (every live mutant), or `auto` (witnessed once a witness search has run).
    #[arg(long, default_value = "auto", value_parser = ["auto", "live", "witnessed"], value_name = "WHICH")]
    pub denominator: String,
    /// Print the whole score as JSON.
    #[arg(long)]
    pub json: bool,
    /// The store (`SQLite`); default `$KMUT_STORE` or `kmut.sqlite` in the working folder.
    #[arg(long, value_name = "PATH")]
    pub store: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct DepthArgs {
    #[command(flatten)]
    pub score: ScoreArgs,
    /// Also write the plots as SVG files into this folder (quartiles.svg, propagation.svg, kinds.svg).
    #[arg(long, value_name = "DIR")]
    pub svg: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// The store (default: `$KMUT_STORE`, else kmut.sqlite).
    #[arg(long, value_name = "PATH")]
    pub store: Option<PathBuf>,
    /// The report folder (replaced if it holds an earlier report).
    #[arg(long, default_value = "kmut-report", value_name = "DIR")]
    pub out: PathBuf,
    /// The protocols scored side by side, repeatable (default: official and head; any shipped
    /// protocol judged by one tolerance).
    #[arg(long = "protocol", value_name = "NAME")]
    pub protocols: Vec<String>,
    /// Whose evaluations: `gpu`, `cpu`, or `auto` (the GPU's where the store has any).
    #[arg(long, default_value = "auto", value_parser = ["auto", "gpu", "cpu"], value_name = "BACKEND")]
    pub backend: String,
    /// Which mutants the pages, the Stryker JSON and the tables list one by one: `run` (those
    /// with a stored evaluation) or `all` (every mutant, the rest as `not-run`). Counts and
    /// scores are over every mutant either way.
    #[arg(long, default_value = "run", value_parser = ["run", "all"], value_name = "SCOPE")]
    pub scope: String,
    /// Print the file:// address of the overview to open in a browser.
    #[arg(long)]
    pub open: bool,
}

#[derive(Debug, clap::Args)]
pub struct AgreeArgs {
    /// The store holding the GPU evaluations; default `$KMUT_STORE` or `kmut.sqlite`.
    #[arg(long, value_name = "PATH")]
    pub store: Option<PathBuf>,
    /// The store holding the CPU backend's evaluations; default: the same store.
    #[arg(long, value_name = "PATH")]
    pub cpu_store: Option<PathBuf>,
    /// The protocol whose tolerance decides a kill.
    #[arg(long, default_value = "official", value_name = "NAME")]
    pub protocol: String,
    /// Decide kills at this tolerance instead (atol = rtol).
    #[arg(long, value_name = "TOL")]
    pub tolerance: Option<f64>,
    /// Print the agreement as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, clap::Args)]
pub struct CompileArgs {
    /// Substrate files; default: every `substrates/accepted/*.py` under the working folder.
    #[arg(value_name = "SUBSTRATE")]
    pub substrates: Vec<PathBuf>,
    #[command(flatten)]
    pub compile: CompileOptions,
    #[command(flatten)]
    pub select: Selection,
    /// The store (`SQLite`) to write; default `$KMUT_STORE` or `kmut.sqlite` in the working folder.
    #[arg(long, value_name = "PATH")]
    pub store: Option<PathBuf>,
}

/// Which mutants a compile or run takes. Every mutant of each substrate is still generated
/// and stored (a selection never deletes anything); only the selected ones are compiled and run.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct Selection {
    /// Only rules whose id matches this glob (repeatable).
    #[arg(long, value_name = "GLOB")]
    pub rules: Vec<String>,
    /// Only rules of this family (repeatable).
    #[arg(long, value_name = "FAMILY")]
    pub family: Vec<String>,
    /// At most K mutants of each rule per substrate, chosen by a seeded hash of their ids
    /// (the same K always gives the same mutants): a quick pass over every rule and substrate.
    #[arg(long, value_name = "K")]
    pub max_per_rule: Option<usize>,
    /// At most N mutants of each rule over all the substrates together, chosen the same way: a
    /// pass over every rule whose cost does not grow with the corpus.
    #[arg(long, value_name = "N")]
    pub sample_per_rule: Option<usize>,
    /// Only the mutant with this id (repeatable), as `kmut mutate` and `kmut score --json` print it.
    #[arg(long = "mutant", value_name = "ID")]
    pub mutants: Vec<String>,
    /// Only the mutants whose ids this file lists, one per line (blank lines and `#` comments
    /// are skipped), beside any --mutant: `kmut synth --fill-list` writes one.
    #[arg(long = "mutants-from", value_name = "FILE")]
    pub mutants_from: Option<PathBuf>,
}

#[derive(Debug, Clone, clap::Args)]
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
    /// throughput on N threads of one process and on a pool of N NVRTC processes.
    Compile(BenchCompileArgs),
    /// Evaluate one fixed stratified sample twice, under a baseline configuration and under
    /// the given one, each in a fresh store with a cold image cache; print their throughput
    /// side by side (evaluations/s, mutants settled/s, wall over kernel time, GPU busy, compile
    /// images/s, worker replacements).
    Run(Box<BenchRunArgs>),
    /// Time the output comparison and the per-step comparison (`kmut depth`'s rows) in the
    /// fast mode (exact float32 first pass) against the float64 baseline, on the same tensors,
    /// on a GPU when one is visible: ms per call and the speedup, per case.
    Compare(BenchCompareArgs),
    /// Time `torch.rand` on the CPU (how `KernelBench` draws official inputs) against kmut's
    /// native draw of the same values (`kmut.fastrand`, what the run worker uses), checking
    /// both give the same tensor: ms per draw and the speedup.
    Draw(BenchDrawArgs),
    /// Time a sample of substrates' original kernels at the official sizes, k copies one after
    /// another on one CUDA stream against k copies on k streams at once in one context (the
    /// headroom for several mutants' kernels in flight per worker), checking every copy's
    /// output is the same bits both ways. Needs a GPU, but `--census` (the launches'
    /// geometry and how much of the device each can fill) does not.
    Streams(BenchStreamsArgs),
}

#[derive(Debug, clap::Args)]
pub struct BenchStreamsArgs {
    /// Substrate files; default every `substrates/accepted/L*.py`.
    pub substrates: Vec<PathBuf>,
    /// Substrates measured, stratified by level (0: every one given).
    #[arg(long, default_value_t = 24)]
    pub sample: u32,
    /// Copies in flight at once, comma-separated (each at least 2).
    #[arg(long, default_value = "2,4,8")]
    pub streams: String,
    /// Timed passes per figure (the median is kept).
    #[arg(long, default_value_t = 3)]
    pub repeat: u32,
    /// The share of the device's free memory the copies may take; a count of copies that would
    /// not fit is left out for that substrate.
    #[arg(long, default_value_t = 0.5)]
    pub memory_fraction: f64,
    /// Seconds of timed passes per substrate: fewer passes, or none, for a k that would run
    /// past them (a large network's copy at the official sizes may take seconds).
    #[arg(long, default_value_t = 10.0)]
    pub seconds: f64,
    /// Print the figures as one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
    /// No GPU and no timing: each substrate's launches at the official sizes (built over meta
    /// tensors) and the share of the device each launch's first wave can fill, from its blocks
    /// and threads alone. `--sample` still applies; `--sample 0` for every substrate.
    #[arg(long)]
    pub census: bool,
    /// Multiprocessors the census assumes (132: H100 SXM and H200).
    #[arg(long, default_value_t = 132, requires = "census")]
    pub sms: u32,
}

#[derive(Debug, clap::Args)]
pub struct BenchDrawArgs {
    /// Elements per draw (float32).
    #[arg(long, default_value_t = 1 << 28)]
    pub elements: u64,
    /// Timed draws per figure (the median is kept, after one untimed draw).
    #[arg(long, default_value_t = 3)]
    pub repeat: u32,
    /// Print the figures as one JSON object instead of a line.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, clap::Args)]
pub struct BenchCompareArgs {
    /// Elements per tensor.
    #[arg(long, default_value_t = 1 << 22)]
    pub elements: u64,
    /// Steps of the pipeline cases (at least 2).
    #[arg(long, default_value_t = 16)]
    pub steps: u32,
    /// Timed calls per figure (the median is kept, after one untimed call).
    #[arg(long, default_value_t = 5)]
    pub repeat: u32,
    /// `cpu` or `cuda[:N]`; default: the GPU when one is visible, else the CPU.
    #[arg(long)]
    pub device: Option<String>,
    /// Print the figures as one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, clap::Args)]
pub struct BenchRunArgs {
    /// What the given configuration is compared with: `previous` (the settings before the
    /// throughput work: 2 workers per GPU, float64-only comparison, every pipeline step
    /// launched, each first-kill column waiting for its wave's end), `previous6` (the same at 6
    /// workers per GPU, the widest run measured before that work), `one-gpu` (the same settings
    /// on the first GPU only), `no-prefix` (the same settings with the steps before each
    /// mutant's first changed one launched: the replayed prefix alone), `no-tail` (the same
    /// settings with the steps after its last changed one launched, also where its run had
    /// left the original's state: the replayed tail alone), `waves` (the same settings with each first-kill column
    /// opened only when the wave before it ended: idle workers carrying survivors on, alone),
    /// `prefetch` (the same settings with no column prepared ahead of its first-kill wave),
    /// `heavy-first` (the same settings with the heaviest protocol columns taken in the usual
    /// order instead of first),
    /// `no-fused` (the same settings with the output's comparison and the column checksum by
    /// torch's kernels instead of kmut's one-launch ones), `relocate` (the same settings with each
    /// buffer `launch` allocates moved between canaries after it returns, a copy: the default, so
    /// it compares only a configuration run with `KMUT_BUFFERS=allocate`), `twist` (the same settings with
    /// official inputs drawn with the generator's twist on one thread instead of every thread
    /// jumped to its own blocks: the same values), `rerun-original` (the same settings with the
    /// original run on every column prepared, also a column this configuration had prepared
    /// before, as on another worker before a replacement) or `none` (the
    /// given configuration alone, for a sample too large to run twice in one sitting; compare
    /// with an earlier row of the same sample and seed).
    #[arg(long, value_enum, default_value_t = Baseline::Previous, value_name = "WHICH")]
    pub baseline: Baseline,
    /// Print the figures as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Start from the compile records of this store (a store of the same substrates, such as the
    /// one `kmut compile` or a campaign filled): every mutant whose source is unchanged is taken
    /// as compiled for classifying (stillborn, equivalent, duplicate, live), so the sample is
    /// drawn without compiling the originals and every selected mutant into the user's image
    /// cache first (229 s of a fresh device's 585 s call on 2026-12-06). The configurations still compile the
    /// images they run into cold caches of their own; no result of the store is read.
    #[arg(long, value_name = "STORE")]
    pub classes_from: Option<PathBuf>,
    /// Copy each configuration's workers log (`workers-<configuration>.log`: every column's
    /// preparation phases, every worker's start and exit) into this folder before the
    /// temporary stores are removed, also when the benchmark is interrupted.
    #[arg(long, value_name = "DIR")]
    pub keep_logs: Option<PathBuf>,
    /// Every `kmut run` option; `--sample` defaults to 300 here, and `--store` and `--budget`
    /// are refused (the benchmark uses its own temporary stores and runs the whole sample).
    #[command(flatten)]
    pub run: RunArgs,
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

    /// Candidates checked at once, each in its own worker (they share the GPU; mind its memory).
    #[arg(long, short = 'j', default_value_t = 1, value_name = "N")]
    pub jobs: usize,

    /// Wall-clock limit per candidate, in seconds; a worker past it is killed.
    #[arg(long, default_value_t = 900, value_name = "SECONDS")]
    pub timeout: u64,

    /// Also write the full report (every check's status, detail and data) as JSON to PATH.
    #[arg(long, value_name = "PATH")]
    pub json: Option<PathBuf>,

    /// Where the numeric checks run: `gpu` (acceptance) or `cpu` (an author's pre-check).
    ///
    /// `gpu`, the default: every suite, the NaN fill, determinism and fp64 on a GPU; the only
    /// way to PASS and to --accept. `cpu`: for a machine without a GPU. After import, contract,
    /// NVRTC compile and launch, kmut's CPU backend (CUDA translated to C++ and built with g++,
    /// or `$KMUT_CXX`) runs every seed of each small suite (`small=True`) against `ref` at the
    /// substrate's tolerance, then the first seed again with every buffer `launch` allocated
    /// filled with NaN, and in thread orders reverse and shuffled, which must match forward
    /// bit for bit (a difference is a race: a missing barrier). fp64 and the GPU forward time
    /// are not run; the best verdict is PRECHECK OK, and --accept is refused.
    #[arg(long, default_value = "gpu", value_parser = ["gpu", "cpu"], value_name = "BACKEND")]
    pub backend: String,
}

/// What `kmut bench run` compares the given configuration with (`--baseline`; each is described
/// in the option's help and built by `commands::bench_run::baseline_configuration`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Baseline {
    Previous,
    Previous6,
    OneGpu,
    NoPrefix,
    NoTail,
    Waves,
    Prefetch,
    HeavyFirst,
    NoFused,
    Relocate,
    Twist,
    RerunOriginal,
    None,
}

impl Baseline {
    /// The name `--baseline` takes, also the configuration's name in the table.
    pub fn name(self) -> String {
        use clap::ValueEnum;
        self.to_possible_value().map(|v| v.get_name().to_string()).unwrap_or_default()
    }
}
