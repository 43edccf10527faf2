//! `kmut run`: compile, plan, evaluate on GPU workers, then print the score.

use std::io::{IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use kmut_exec::engine::Progress;
use kmut_exec::{Engine, EngineConfig, Reporter, RunSummary, SubstratePlan};
use kmut_model::{Backend, Inputs, Protocol};
use kmut_plan::{Planned, Sampling};

use crate::args::RunArgs;
use crate::commands::compile::{compile_substrates, interrupt_flag, Compiled};
use crate::commands::cores;
use crate::{Environment, ExitStatus};

#[allow(clippy::too_many_lines)] // the engine's module split (issue 21) takes this apart
pub fn run(args: &RunArgs, env: &Environment) -> anyhow::Result<ExitStatus> {
    // A budget counts from here: compiling and planning are spent inside it.
    let started = Instant::now();
    let protocol = Protocol::named(&args.protocol).map_err(anyhow::Error::msg)?;
    let backend = Backend::parse(&args.backend).map_err(anyhow::Error::msg)?;
    let budget = args.budget.as_deref().map(parse_duration).transpose()?;
    let heavy_ms = heavy_limit(args.heavy_limit, backend);
    // Fail before compiling when there is nothing to run on.
    let Machines { devices, workers, gxx } = machines(&args.gpus, args.workers_per_gpu, args.cpu_workers, backend)?;
    // Runs killed before they could clean up leave their scratch (inputs drawn into RAM, tens
    // of GiB in /dev/shm) and temporary caches behind: remove those of dead processes.
    for r in kmut_process::remove_dead_scratch(&[PathBuf::from("/dev/shm"), std::env::temp_dir()], &["kmut-run-cache-", "kmut-run-"]) {
        eprintln!("run: removed `{}` ({:.1} MiB), left by a run that was killed", r.path.display(), r.bytes as f64 / f64::from(1 << 20));
    }
    let mut compile_opts = args.compile.clone();
    let temp_cache = compile_opts.no_cache.then(|| std::env::temp_dir().join(format!("kmut-run-cache-{}", std::process::id())));
    if let Some(dir) = &temp_cache {
        // Workers load images from files, so a run always compiles through a cache; with
        // --no-cache it is a fresh one, removed at the end.
        compile_opts.no_cache = false;
        compile_opts.cache = Some(dir.clone());
    }
    let interrupt = interrupt_flag();
    let mut compiled = compile_substrates(&args.substrates, &args.select, &compile_opts, args.store.as_deref(), env, &interrupt, "run")?;
    if compiled.interrupted {
        eprintln!("interrupted while compiling: the results so far are stored; run the same command again to resume");
        return Ok(ExitStatus::Interrupted);
    }
    let inputs = Inputs::parse(&args.suites).map_err(anyhow::Error::msg)?.on(backend);
    // Under a budget the mutants' GPU images are compiled round by round, only for what runs.
    let defer = budget.is_some();
    let Planned { plans, order, notes, deferred, .. } =
        plan(&compiled, gxx.as_ref(), &protocol, inputs, Sampling { seed: args.seed, sample: args.sample }, heavy_ms, defer, &interrupt)?;
    for n in &notes {
        eprintln!("run: {n}");
    }
    let (scratch, scratch_guard) = scratch_dir(args.scratch.as_deref())?;
    let log = PathBuf::from(format!("{}.workers.log", compiled.store.path().display()));
    let setting = Setting { backend, protocol: &protocol, inputs, devices: &devices, workers, heavy_ms };
    let mut config =
        engine_config(args, &setting, worker_command(args, env, backend), scratch.clone(), log.clone(), backend.evaluation_target(&compiled.target));
    // A first round big enough to keep every worker busy; later ones are sized to the time left.
    config.round = budget.map(|_| first_round(&devices, workers, plans.len()));
    config.deadline = budget.map(|b| started + b);
    announce(args, backend, inputs, &plans, order.len(), devices.len(), workers, &log);
    let run_id = compiled.store.begin_run(&format!("run --protocol {}", protocol.name), "", &compiled.target)?;
    let reporter = RunProgress::new();
    let mut rounds = if deferred.is_empty() {
        None
    } else {
        let images = images_of(compiled.cache.as_ref(), &compiled.compiler, compiled.pool.as_ref(), &compiled.options, true)?;
        Some(kmut_plan::RoundCompiler { images, target: &compiled.target, deferred })
    };
    let mut engine = Engine::new(config, &plans, &mut compiled.store, run_id, &reporter, &interrupt);
    if let Some(r) = rounds.as_mut() {
        engine = engine.with_round_images(r);
    }
    let outcome = engine.run(&order);
    reporter.finish();
    drop(scratch_guard);
    if let Some(dir) = &temp_cache {
        let _ = std::fs::remove_dir_all(dir);
    }
    let summary = match outcome {
        Ok(s) => s,
        Err(e) => {
            compiled.store.finish_run(run_id, "failed")?;
            return Err(e.into());
        }
    };
    compiled.store.finish_run(run_id, if summary.interrupted { "interrupted" } else { "done" })?;
    print_summary(&summary);
    if args.no_score {
        return Ok(if summary.failures.is_empty() && summary.environment_errors.is_empty() { ExitStatus::Success } else { ExitStatus::Failure });
    }
    let names: Vec<String> = plans.iter().map(|p| p.name.clone()).collect();
    // A witness search is scored as the protocol's inputs over the witnessed mutants.
    let options = if inputs.is_witness() {
        kmut_score::ScoreOptions { denominator: kmut_score::Denominator::Witnessed, ..kmut_score::ScoreOptions::of(&protocol, backend) }
    } else {
        kmut_score::ScoreOptions { inputs, ..kmut_score::ScoreOptions::of(&protocol, backend) }
    };
    let score = kmut_score::score(&compiled.store, &names, &options)?;
    println!();
    super::score::print(&score);
    if summary.interrupted {
        eprintln!("interrupted: every finished evaluation is stored; run the same command again to resume");
        return Ok(ExitStatus::Interrupted);
    }
    if !summary.failures.is_empty() || !summary.environment_errors.is_empty() {
        return Ok(ExitStatus::Failure);
    }
    Ok(ExitStatus::Success)
}

/// The run's opening line: what runs, on which inputs, where.
#[allow(clippy::too_many_arguments)] // one line's worth of facts, each from a different place
fn announce(args: &RunArgs, backend: Backend, inputs: Inputs, plans: &[SubstratePlan], mutants: usize, devices: usize, workers: usize, log: &Path) {
    let columns: usize = plans.iter().map(|p| p.columns.len()).sum();
    let inputs = match inputs {
        Inputs::Small => "the small suites",
        Inputs::All => "protocol and targeted suites",
        Inputs::Protocol => "the protocol's",
        Inputs::Witness => "the witness search's: the protocol's, every suite, then generated",
        Inputs::WitnessSmall => "the witness search's on the CPU: the small suites, then generated at small sizes",
    };
    let machines = match backend {
        Backend::Gpu => format!("{devices} GPU(s) x {workers} workers"),
        Backend::Cpu => format!("the CPU backend, {workers} workers"),
    };
    eprintln!(
        "run: {mutants} live mutants of {} substrates{}, {columns} input columns ({inputs}), {} on {machines}; worker log {}",
        plans.len(),
        args.sample.map_or_else(String::new, |n| format!(" (a stratified sample of {n}, seed {})", args.seed)),
        if args.full_matrix { "full matrix" } else { "first kill" },
        log.display()
    );
}

/// Workers per GPU when `--workers-per-gpu` is not given: one per core left after two (the
/// orchestrator and the round's compiles), shared among the GPUs, from 2 to 10. A worker draws
/// its columns' inputs on the CPU (`KernelBench`'s serial `torch.rand`, about 1.3 s for an official
/// level-1 column) while the others keep the GPU busy, so on a fresh H200 host (16 cores) 10
/// workers made 7.5 evaluations/s where 6 had made 1.2 (docs/performance.md, 2026-12-03: a
/// campaign resumed on a fresh machine twice, not the same mutants, so a rough ratio); 10 is the
/// most measured, and device memory is budgeted across them either way (`kmut_exec::memory`).
pub(crate) fn default_workers_per_gpu(cores: usize, gpus: usize) -> usize {
    (cores.saturating_sub(2) / gpus.max(1)).clamp(2, 10)
}

/// Where a run's workers go: GPU indices (one "device" on the CPU backend), workers on each,
/// and g++ for the CPU backend.
pub(crate) struct Machines {
    pub devices: Vec<u32>,
    pub workers: usize,
    pub gxx: Option<kmut_cpu::Compiler>,
}

/// The run's machines from its flags (`kmut run`, `bench run`, `audit`): `--gpus` (else every
/// visible GPU) and `--workers-per-gpu` (else `default_workers_per_gpu`), or the CPU backend's
/// `--cpu-workers` (else one per core).
pub(crate) fn machines(gpus: &[u32], workers_per_gpu: Option<usize>, cpu_workers: Option<usize>, backend: Backend) -> anyhow::Result<Machines> {
    Ok(match backend {
        Backend::Gpu => {
            let devices = if gpus.is_empty() { visible_gpus()? } else { gpus.to_vec() };
            let workers = workers_per_gpu.unwrap_or_else(|| default_workers_per_gpu(cores(), devices.len())).max(1);
            Machines { devices, workers, gxx: None }
        }
        Backend::Cpu => {
            let gxx = kmut_cpu::Compiler::find().context("the CPU backend builds kernels with g++")?;
            // One "device": the workers share the machine, one core each.
            Machines { devices: vec![0], workers: cpu_workers.unwrap_or_else(cores).max(1), gxx: Some(gxx) }
        }
    })
}

/// The worker program: `python -m kmut._run_worker` (or the hidden `--worker` stand-in), with
/// `--backend cpu` on the CPU backend.
pub(crate) fn worker_command(args: &RunArgs, env: &Environment, backend: Backend) -> Vec<String> {
    let mut command = if args.worker.is_empty() { vec![env.python.display().to_string(), "-m".into(), "kmut._run_worker".into()] } else { args.worker.clone() };
    if backend == Backend::Cpu {
        command.extend(["--backend".into(), "cpu".into()]);
    }
    // The depth study's per-step capture is on unless asked off (`--no-steps`).
    command.extend(args.no_steps.then(|| "--no-steps".to_owned()));
    command
}

/// What a run evaluates on, besides its flags.
pub(crate) struct Setting<'a> {
    pub backend: Backend,
    pub protocol: &'a Protocol,
    pub inputs: Inputs,
    pub devices: &'a [u32],
    pub workers: usize,
    pub heavy_ms: Option<f64>,
}

/// Started spare workers per device: one per four workers, at least one. A GPU run of 10-12
/// workers replaced one every 3 to 5 s in the 2026-12-04 campaign (42 to 81 per call), each
/// start an interpreter, torch and a CUDA context (4-5 s): one spare was used up before the
/// next was ready. An idle spare holds a context and no column.
pub(crate) fn default_spares(workers: usize) -> usize {
    (workers / 4).max(1)
}

/// The engine's configuration from the run's flags, without a budget (one round).
pub(crate) fn engine_config(args: &RunArgs, s: &Setting<'_>, worker_command: Vec<String>, scratch: PathBuf, log: PathBuf, target: String) -> EngineConfig {
    EngineConfig {
        worker_command,
        devices: s.devices.to_vec(),
        workers_per_device: s.workers,
        spares_per_device: args.spare_workers.unwrap_or_else(|| default_spares(s.workers)),
        spare_host_reserve: kmut_exec::SPARE_HOST_RESERVE,
        scratch: Some(scratch),
        log,
        first_kill: !args.full_matrix,
        tolerance: s.protocol.tolerance(),
        timeout_factor: args.timeout_factor,
        min_timeout: Duration::from_secs_f64(args.min_timeout),
        start_timeout: Duration::from_mins(2),
        prep_timeout: Duration::from_secs_f64(args.prep_timeout),
        round: None,
        deadline: None,
        target,
        max_original_ms: s.heavy_ms,
        // A light substrate prepares a small column in a few seconds (loading it, drawing the
        // inputs, the reference, one run of the original); on a 2-core machine the heavy ones'
        // preparations were half of a 4-minute budget with a 50 s cutoff.
        heavy_prep_grace: Duration::from_secs(10),
        // The witness search's validity gate: within this much of the fp64 reference.
        validity_margin: s.inputs.is_witness().then(|| args.margin * s.protocol.tolerance()),
        steps_on_search: args.search_steps,
        advance_waves: true,
        prefetch: true,
        heavy_first: true,
        reuse_original: !args.rerun_original,
        defer_original: !args.rerun_original,
        cells_need_baseline: false,
    }
}

/// A first round big enough to keep every worker busy (and every substrate's columns open).
pub(crate) fn first_round(devices: &[u32], workers: usize, substrates: usize) -> usize {
    (64 * devices.len() * workers).max(4 * substrates)
}

/// The per-input time past which a substrate is set aside, in ms: `--heavy-limit`, else 2 s on
/// the CPU backend (large fixed weights take tens of seconds per run there) and none on a GPU.
pub(crate) fn heavy_limit(given: Option<f64>, backend: Backend) -> Option<f64> {
    match (given, backend) {
        (Some(s), _) if s > 0.0 => Some(s * 1e3),
        (Some(_), _) | (None, Backend::Gpu) => None,
        (None, Backend::Cpu) => Some(2000.0),
    }
}

/// Every GPU the driver shows, or an error saying why there is none.
pub(crate) fn visible_gpus() -> anyhow::Result<Vec<u32>> {
    let n = kmut_cuda::Driver::get()
        .and_then(|d| d.device_count())
        .map_err(|e| anyhow::anyhow!("no GPU is visible ({e}); run on the CPU backend with `kmut run --backend cpu` (small suites)"))?;
    anyhow::ensure!(n > 0, "the CUDA driver shows no GPU; run on the CPU backend with `kmut run --backend cpu` (small suites)");
    Ok((0..n as u32).collect())
}

/// Where a GPU run's images come from: the cache, filled by the compile pool where missing;
/// with `defer_mutants` the mutants' are left for a `RoundCompiler`.
fn gpu_images(compiled: &Compiled, defer_mutants: bool) -> anyhow::Result<kmut_plan::GpuImages<'_>> {
    images_of(compiled.cache.as_ref(), &compiled.compiler, compiled.pool.as_ref(), &compiled.options, defer_mutants)
}

/// `gpu_images` from the parts of `Compiled` it borrows (the store stays free for the engine).
pub(crate) fn images_of<'c>(
    cache: Option<&'c kmut_compile::ImageCache>,
    compiler: &'c kmut_nvrtc::Compiler,
    pool: Option<&'c kmut_compile::ProcessPool>,
    options: &'c kmut_nvrtc::Options,
    defer_mutants: bool,
) -> anyhow::Result<kmut_plan::GpuImages<'c>> {
    let cache = cache.context("a run needs the image cache")?;
    let service: &dyn kmut_compile::Compile = match pool {
        Some(p) => p,
        None => compiler,
    };
    let threads = cores();
    Ok(kmut_plan::GpuImages { cache, compiler, service, options, threads, defer_mutants })
}

/// The run's plan, from kmut-plan: GPU images from the cache (compiled where missing, or with
/// `defer` only the originals'), or the CPU backend's variants built with g++.
#[allow(clippy::too_many_arguments)] // the run's choices, each from a different flag
pub(crate) fn plan(
    compiled: &Compiled,
    gxx: Option<&kmut_cpu::Compiler>,
    protocol: &Protocol,
    inputs: Inputs,
    sampling: Sampling,
    heavy_ms: Option<f64>,
    defer: bool,
    interrupt: &std::sync::atomic::AtomicBool,
) -> anyhow::Result<Planned> {
    let view = kmut_plan::Compiled { store: &compiled.store, target: &compiled.target, substrates: &compiled.substrates };
    let cache = compiled.cache.as_ref().context("a run needs the image cache")?;
    Ok(match gxx {
        None => kmut_plan::plan_gpu(&view, &gpu_images(compiled, defer)?, protocol, inputs, sampling)?,
        Some(gxx) => {
            let build = kmut_cpu::BuildOptions { cache_dir: cache.dir().join("cpu"), ..kmut_cpu::BuildOptions::default() };
            eprintln!("run: building the CPU variants of the sampled mutants with g++ ({} at once) in `{}`", build.jobs, build.cache_dir.display());
            kmut_plan::plan_cpu(&view, protocol, inputs, sampling, &kmut_plan::CpuPlanOptions { gxx, build, heavy_ms, interrupt })?
        }
    })
}

/// The given folder, or a fresh one in /dev/shm (RAM) or the temporary folder, which the
/// returned guard removes when it goes (at the command's end, after an error too). The fresh
/// folder is named for this process (`kmut-run-PID`), so a later run removes it if this one is
/// killed first (`remove_dead_scratch`).
pub(crate) fn scratch_dir(given: Option<&Path>) -> anyhow::Result<(PathBuf, Option<RemoveOnDrop>)> {
    if let Some(dir) = given {
        std::fs::create_dir_all(dir).with_context(|| format!("could not create the scratch folder `{}`", dir.display()))?;
        return Ok((dir.to_path_buf(), None));
    }
    let base = Path::new("/dev/shm");
    let base = if base.is_dir() { base.to_path_buf() } else { std::env::temp_dir() };
    let dir = base.join(format!("kmut-run-{}", std::process::id()));
    let guard = RemoveOnDrop(dir.clone());
    std::fs::create_dir_all(&dir).with_context(|| format!("could not create the scratch folder `{}`", dir.display()))?;
    Ok((dir, Some(guard)))
}

/// A folder removed when the value goes: a scratch folder of drawn inputs, gigabytes of RAM in
/// /dev/shm, is gone when its command ends, on an error too.
pub(crate) struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `90`, `90s`, `8m`, `1h30m`.
pub fn parse_duration(text: &str) -> anyhow::Result<Duration> {
    let bad = || anyhow::anyhow!("`{text}` is not a duration; write e.g. 90s, 8m or 1h30m");
    let mut total = 0.0;
    let mut number = String::new();
    for ch in text.trim().chars() {
        if ch.is_ascii_digit() || ch == '.' {
            number.push(ch);
            continue;
        }
        let unit = match ch {
            's' => 1.0,
            'm' => 60.0,
            'h' => 3600.0,
            _ => return Err(bad()),
        };
        total += number.parse::<f64>().map_err(|_| bad())? * unit;
        number.clear();
    }
    if !number.is_empty() {
        total += number.parse::<f64>().map_err(|_| bad())?;
    }
    anyhow::ensure!(total > 0.0, bad());
    Ok(Duration::from_secs_f64(total))
}

pub(super) fn print_summary(s: &RunSummary) {
    let secs = s.elapsed.as_secs_f64().max(1e-9);
    let overhead = if s.kernel_ms > 0.0 { format!("{:.1}", s.wall_ms / s.kernel_ms) } else { "-".into() };
    eprintln!(
        "run: {} evaluations now ({:.1}/s; wall over kernel time {overhead}), {} reused from the store; {} crashes, {} timeouts, {} out-of-bounds writes, {} workers replaced; {}/{} mutants settled on {}",
        s.evaluations,
        s.evaluations as f64 / secs,
        s.resumed,
        s.crashes,
        s.timeouts,
        s.canaries,
        s.respawns,
        s.decided,
        s.total,
        if s.backend.is_empty() { "no backend" } else { &s.backend }
    );
    if s.respawns > 0 {
        eprintln!(
            "run: {} of the {} workers replaced took a spare (ready, or still starting); the spare pool held up to {} per device",
            s.spares_used, s.respawns, s.spares_most
        );
    }
    if s.pipeline_steps > 0 {
        eprintln!(
            "run: {} of {} pipeline steps ({:.0}%) replayed from the original's outputs instead of launched: the steps before each mutant's first changed one, \
             and {} after the last changed one in {} evaluations whose changed steps left the original's state",
            s.steps_replayed,
            s.pipeline_steps,
            100.0 * s.steps_replayed as f64 / s.pipeline_steps as f64,
            s.tail_replayed,
            s.tails
        );
    }
    let shares = s.slot_time.shares();
    if !shares.is_empty() {
        eprintln!("run: worker time ({:.0} slot-seconds): {shares}", s.slot_time.total().as_secs_f64());
    }
    if s.eval_parts.evaluations > 0 {
        eprintln!("run: evaluation time by part: {}", s.eval_parts.summary());
    }
    if s.images_made > 0 {
        eprintln!("run: {} images compiled round by round, only for the mutants evaluated, in {:.1} s of the run", s.images_made, s.image_time.as_secs_f64());
    }
    for a in &s.set_aside {
        eprintln!("run: {a}; run it on a GPU");
    }
    if s.budget_spent {
        eprintln!("run: the time budget is spent; the evaluated mutants form a stratified sample");
    }
    if s.environment_retried > 0 {
        eprintln!(
            "run: {} evaluations or columns failed for the machine's reasons (out of memory, ...) and were retried with the device to themselves",
            s.environment_retried
        );
    }
    if s.false_kill_columns > 0 {
        eprintln!(
            "run: {} columns reject the original itself under the judged bound (false kills): no mutant was run on them, they decide nothing",
            s.false_kill_columns
        );
    }
    if s.original_reused > 0 {
        eprintln!(
            "run: {} of {} column preparations took the original's figures from a stored baseline of the same image on this backend instead of running it (--rerun-original runs it)",
            s.original_reused, s.columns_prepared
        );
    }
    if s.original_deferred > 0 {
        eprintln!(
            "run: {} of {} column preparations deferred the original's run (a sibling seed of the same suite measured it here); it ran later on {} of them, at their first failing evaluation; the rest hold no baseline, since no evaluation there failed (or its worker ended before the original could run, and the column is measured when next prepared) (--rerun-original runs it)",
            s.original_deferred, s.columns_prepared, s.deferred_run
        );
    }
    if s.prefetched > 0 {
        eprintln!(
            "run: {} columns prepared ahead of their first-kill wave by otherwise idle workers, {} of them then run on (the rest were prepared for nothing)",
            s.prefetched, s.prefetch_used
        );
    }
    for f in &s.failures {
        eprintln!("error: {f}");
    }
    for e in &s.environment_errors {
        eprintln!("error: not a verdict, an error of the run: {e}");
    }
}

/// The progress line: redrawn on a terminal, every 10% otherwise; hidden with `KMUT_NO_PROGRESS`.
pub(crate) struct RunProgress {
    tty: bool,
    hidden: bool,
    last_decile: Mutex<usize>,
}

impl RunProgress {
    pub(crate) fn new() -> RunProgress {
        RunProgress { tty: std::io::stderr().is_terminal(), hidden: std::env::var_os("KMUT_NO_PROGRESS").is_some(), last_decile: Mutex::new(0) }
    }

    pub(crate) fn finish(&self) {
        if self.tty && !self.hidden {
            eprintln!();
        }
    }
}

impl Reporter for RunProgress {
    fn progress(&self, p: &Progress) {
        if self.hidden {
            return;
        }
        let secs = p.elapsed.as_secs_f64().max(1e-3);
        let rate = p.decided as f64 / secs;
        let eta = if rate > 0.0 { format!("{:.0} s", (p.total - p.decided) as f64 / rate) } else { "?".into() };
        let line = format!(
            "run: {}/{} mutants settled, {} killed; {} evaluations ({:.1}/s); {} workers; ETA {eta}",
            p.decided,
            p.total,
            p.killed,
            p.evaluations,
            p.evaluations as f64 / secs,
            p.workers
        );
        if self.tty {
            eprint!("\r{line:<110}");
            let _ = std::io::stderr().flush();
        } else {
            let decile = (p.decided * 10).checked_div(p.total).unwrap_or(10);
            let mut last = self.last_decile.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if decile > *last {
                eprintln!("{line}");
                *last = decile;
            }
        }
    }

    fn note(&self, message: &str) {
        if self.tty && !self.hidden {
            eprintln!("\r{message:<110}");
        } else {
            eprintln!("{message}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{default_workers_per_gpu, parse_duration};

    #[test]
    fn workers_follow_the_cores_left_to_them_within_the_measured_range() {
        // The H200 host: 16 cores, one GPU -> the 10 workers measured fastest; two GPUs share them.
        assert_eq!(default_workers_per_gpu(16, 1), 10);
        assert_eq!(default_workers_per_gpu(16, 2), 7);
        assert_eq!(default_workers_per_gpu(128, 8), 10);
        // Small machines keep two, the old default; never zero for an unknown core count.
        assert_eq!(default_workers_per_gpu(2, 1), 2);
        assert_eq!(default_workers_per_gpu(1, 0), 2);
        assert_eq!(default_workers_per_gpu(8, 1), 6);
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("90").unwrap().as_secs(), 90);
        assert_eq!(parse_duration("8m").unwrap().as_secs(), 480);
        assert_eq!(parse_duration("1h30m").unwrap().as_secs(), 5400);
        assert_eq!(parse_duration("1.5s").unwrap().as_millis(), 1500);
        assert!(parse_duration("8 minutes").is_err());
        assert!(parse_duration("0s").is_err());
    }
}
