//! `kmut bench run`: one fixed stratified sample evaluated under a baseline configuration and
//! under the given one, each from a cold image cache into a fresh store, side by side.

use std::io::BufRead as _;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use kmut_compile::ImageCache;
use kmut_exec::{Engine, RunSummary};
use kmut_model::{Backend, Inputs, Protocol};
use kmut_plan::{Planned, Sampling};
use serde::Serialize;

use super::compile::{compile_substrates, interrupt_flag, Compiled};
use super::run::{engine_config, first_round, heavy_limit, images_of, machines, scratch_dir, worker_command, Machines, RunProgress, Setting};
use crate::args::{Baseline, BenchRunArgs, RunArgs};
use crate::{Environment, ExitStatus};

/// The sample when `--sample` is not given: large enough that worker starts and column
/// preparations do not dominate, small enough for a few minutes on one GPU.
const DEFAULT_SAMPLE: usize = 300;

/// One configuration's settings.
#[allow(clippy::struct_excessive_bools)] // each is one of the engine's levers, which a baseline turns off alone
#[derive(Debug, Clone, Serialize)]
struct Configuration {
    name: String,
    devices: Vec<u32>,
    workers_per_device: usize,
    /// Extra worker flags (the baseline's `--compare fp64`).
    worker_flags: Vec<String>,
    /// The engine's `advance_waves` (off: each first-kill column waits for its wave's end).
    advance_waves: bool,
    /// The engine's `prefetch` (off: a first-kill column is prepared once a survivor needs it).
    prefetch: bool,
    /// The engine's `heavy_first` (off: the heaviest protocol columns are taken in the usual order).
    heavy_first: bool,
    /// The engine's `reuse_original` and `defer_original` (off: the original runs on every column
    /// prepared). Each configuration has a store target of its own, so only its own earlier
    /// preparations count.
    reuse_original: bool,
}

/// What one configuration did with the sample. Every rate is over the engine's wall time
/// (worker starts included, planning not).
#[derive(Debug, Clone, Serialize)]
struct Figures {
    configuration: Configuration,
    /// Stopped (Ctrl-C, or a device call's `timeout -s INT`) before its sample was settled: its
    /// rates are over what it did, a part of the sample, and no later configuration ran.
    interrupted: bool,
    mutants: usize,
    settled: usize,
    evaluations: usize,
    seconds: f64,
    evaluations_per_s: f64,
    settled_per_s: f64,
    /// Summed evaluation wall time (request to result, in the worker) over summed kernel time.
    wall_over_kernel: Option<f64>,
    /// Summed kernel time over wall time x devices: an upper bound on the busy fraction when
    /// workers share a GPU (a kernel's measured time can include another context's time slice).
    kernel_share: Option<f64>,
    /// `nvidia-smi`'s utilization.gpu (share of time a kernel was running), averaged over the
    /// run and the devices; `None` where it is not available (the CPU backend, no nvidia-smi).
    gpu_busy: Option<f64>,
    /// GPU-busy seconds per evaluation (`gpu_busy` x wall seconds x devices / evaluations: every
    /// kernel the run launched, the columns' preparations included, charged to its evaluations),
    /// and the evaluations/s the same work would allow with the GPUs busy all the time: a run
    /// near it is bound by the GPU, and only less work per evaluation raises it. `None` without
    /// `gpu_busy` or evaluations.
    gpu_seconds_per_evaluation: Option<f64>,
    gpu_bound_per_s: Option<f64>,
    /// Images compiled (GPU, cold cache: the originals at planning, the mutants round by round)
    /// or g++ libraries built (CPU), and the seconds spent on them.
    images: usize,
    image_seconds: f64,
    images_per_s: Option<f64>,
    worker_replacements: usize,
    spares_used: usize,
    /// Where the worker slots' time went (`kmut_exec::SlotTime::shares`): what the GPU's idle
    /// time was spent on instead.
    worker_time: String,
    /// The column preparations the workers logged, by phase (`kmut_exec::PrepPhases`).
    preparation: kmut_exec::PrepPhases,
    /// The evaluations' wall time by part, as the workers reported it (`kmut_exec::EvalParts`).
    evaluation: kmut_exec::EvalParts,
    /// The mutants' kernel time by substrate, from this configuration's stored evaluations: how
    /// much of the GPU's work a few substrates hold. `None` where no evaluation was timed.
    kernel_by_substrate: Option<KernelSpread>,
    /// Pipeline steps of the evaluations, and those replayed from the original's outputs
    /// instead of launched (the steps before each mutant's first changed one, and after its
    /// last changed one where its run had left the original's state); of those, the steps
    /// after the last changed one and the evaluations they were replayed in.
    pipeline_steps: u64,
    steps_replayed: u64,
    tail_replayed: u64,
    tails: u64,
    /// Columns prepared ahead of their first-kill wave, and those a mutant then ran on.
    prefetched: usize,
    prefetch_used: usize,
    /// Columns prepared, those prepared without running the original (`reuse_original`), those
    /// whose original's run waited for a failing evaluation (`defer_original`) and the deferred
    /// runs made.
    columns_prepared: usize,
    original_reused: usize,
    original_deferred: usize,
    deferred_run: usize,
    crashes: usize,
    timeouts: usize,
    /// Substrates that failed or were set aside, and the machine's errors: a figure with any
    /// of these is over less than the whole sample.
    problems: Vec<String>,
}

/// How one run's mutant kernel seconds spread over its substrates (`Figures::kernel_by_substrate`).
#[derive(Debug, Clone, Serialize, PartialEq)]
struct KernelSpread {
    substrates: usize,
    seconds: f64,
    /// The share of `seconds` held by the `HEAVIEST` heaviest substrates (all, if fewer).
    heaviest_share: f64,
    /// Those substrates and their seconds, heaviest first.
    heaviest: Vec<(String, f64)>,
}

/// How many of the heaviest substrates `KernelSpread` names.
const HEAVIEST: usize = 10;

impl KernelSpread {
    /// From `Store::kernel_seconds_by_substrate` (heaviest first).
    fn of(by_substrate: &[(String, f64)]) -> Option<KernelSpread> {
        let seconds: f64 = by_substrate.iter().map(|(_, s)| s).sum();
        (seconds > 0.0).then(|| {
            let heaviest: Vec<(String, f64)> = by_substrate.iter().take(HEAVIEST).cloned().collect();
            let share = heaviest.iter().map(|(_, s)| s).sum::<f64>() / seconds;
            KernelSpread { substrates: by_substrate.len(), seconds, heaviest_share: share, heaviest }
        })
    }

    /// "600 s over 147 substrates; the 10 heaviest hold 41% (`L2p45_x` 9%, ...)", three named.
    fn summary(&self) -> String {
        let named: Vec<String> = self.heaviest.iter().take(3).map(|(name, s)| format!("{name} {:.0}%", 100.0 * s / self.seconds)).collect();
        let digits = if self.seconds < 10.0 { 2 } else { 0 };
        format!(
            "{:.digits$} s over {} substrates; the {} heaviest hold {:.0}% ({})",
            self.seconds,
            self.substrates,
            self.heaviest.len(),
            100.0 * self.heaviest_share,
            named.join(", ")
        )
    }
}

/// The configuration `--baseline which` compares `this` with, on `machines` (None: `none`).
fn baseline_configuration(which: Baseline, this: &Configuration, machines: &Machines, backend: Backend) -> Option<Configuration> {
    let name = which.name();
    match which {
        // Only the given configuration: where both would not fit one sitting (a device call's
        // ten minutes), commits compare through the table rows of the same sample and seed.
        Baseline::None => None,
        Baseline::OneGpu => Some(Configuration { name, devices: machines.devices[..1].to_vec(), ..this.clone() }),
        // One lever alone: the steps before a mutant's first changed one launched.
        Baseline::NoPrefix => Some(Configuration { name, worker_flags: vec!["--no-skip-prefix".into()], ..this.clone() }),
        // One lever alone: the steps after a mutant's last changed one launched, also where
        // its run left the original's state.
        Baseline::NoTail => Some(Configuration { name, worker_flags: vec!["--no-skip-tail".into()], ..this.clone() }),
        // One lever alone: each first-kill column waits for the wave before it to end.
        Baseline::Waves => Some(Configuration { name, advance_waves: false, ..this.clone() }),
        // One lever alone: the output's comparison and the column checksum by torch's
        // kernels instead of kmut's one-launch ones.
        Baseline::NoFused => Some(Configuration { name, worker_flags: vec!["--no-fused".into()], ..this.clone() }),
        // One lever alone: `launch`'s buffers moved between canaries after it returns
        // instead of allocated there.
        Baseline::Relocate => Some(Configuration { name, worker_flags: vec!["--relocate-buffers".into()], ..this.clone() }),
        // One lever alone: official inputs drawn with the twist on one thread, not every
        // thread jumped to its own run of the stream (kmut-rng's jump).
        Baseline::Twist => Some(Configuration { name, worker_flags: vec!["--draw-twist".into()], ..this.clone() }),
        // One lever alone: no column prepared ahead of its first-kill wave.
        Baseline::Prefetch => Some(Configuration { name: "no-prefetch".into(), prefetch: false, ..this.clone() }),
        // One lever alone: the heaviest protocol columns taken in the usual order.
        Baseline::HeavyFirst => Some(Configuration { name: "no-heavy-first".into(), heavy_first: false, ..this.clone() }),
        // The original run on every column prepared: neither taken from this
        // configuration's earlier preparation of the column nor deferred to a failing
        // evaluation where a sibling seed was measured (`reuse_original` turns off both).
        Baseline::RerunOriginal => Some(Configuration { name, reuse_original: false, ..this.clone() }),
        // The defaults before the throughput work: two workers per GPU, float64 throughout,
        // every pipeline step launched. `previous6` is the same engine at six workers per GPU,
        // the widest configuration measured before that work (4.6 evaluations/s on an H200,
        // 2026-12-02), so a ratio against it is not inflated by the width alone.
        Baseline::Previous | Baseline::Previous6 => Some(Configuration {
            name,
            workers_per_device: match (backend, which) {
                (Backend::Gpu, Baseline::Previous6) => 6,
                (Backend::Gpu, _) => 2,
                _ => machines.workers,
            },
            worker_flags: vec![
                "--compare".into(),
                "fp64".into(),
                "--no-skip-prefix".into(),
                "--no-skip-tail".into(),
                "--no-fused".into(),
                "--relocate-buffers".into(),
            ],
            advance_waves: false,
            prefetch: false,
            heavy_first: false,
            reuse_original: false,
            ..this.clone()
        }),
    }
}

pub fn run(args: &BenchRunArgs, env: &Environment) -> anyhow::Result<ExitStatus> {
    let run = &args.run;
    anyhow::ensure!(run.store.is_none(), "kmut bench run uses its own temporary stores; drop --store");
    anyhow::ensure!(run.budget.is_none(), "kmut bench run evaluates its whole sample; drop --budget and set --sample");
    let backend = Backend::parse(&run.backend).map_err(anyhow::Error::msg)?;
    let protocol = Protocol::named(&run.protocol).map_err(anyhow::Error::msg)?;
    let inputs = Inputs::parse(&run.suites).map_err(anyhow::Error::msg)?.on(backend);
    let machines = machines(&run.gpus, run.workers_per_gpu, run.cpu_workers, backend)?;
    let sampling = Sampling { seed: run.seed, sample: Some(run.sample.unwrap_or(DEFAULT_SAMPLE)) };
    let dir = std::env::temp_dir().join(format!("kmut-run-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| format!("could not create `{}`", dir.display()))?;
    let outcome = (|| -> anyhow::Result<Vec<Figures>> {
        let interrupt = interrupt_flag();
        let mut compiled = classify(args, &dir.join("bench.sqlite"), env, &interrupt)?;
        let this = Configuration {
            name: "this".into(),
            devices: machines.devices.clone(),
            workers_per_device: machines.workers,
            worker_flags: vec![],
            advance_waves: true,
            prefetch: true,
            heavy_first: true,
            reuse_original: !run.rerun_original,
        };
        let baseline = baseline_configuration(args.baseline, &this, &machines, backend);
        let heavy_ms = heavy_limit(run.heavy_limit, backend);
        let mut figures = Vec::new();
        for c in baseline.into_iter().chain([this]) {
            eprintln!(
                "bench run: {} ({} device(s) x {} workers{})",
                c.name,
                c.devices.len(),
                c.workers_per_device,
                if c.worker_flags.is_empty() { String::new() } else { format!(", worker {}", c.worker_flags.join(" ")) }
            );
            let setting = Setting { backend, protocol: &protocol, inputs, devices: &c.devices, workers: c.workers_per_device, heavy_ms };
            let f = measure(run, env, &mut compiled, &setting, &c, sampling, machines.gxx.as_ref(), &dir, &interrupt)?;
            let stopped = f.interrupted || interrupt.load(std::sync::atomic::Ordering::Relaxed);
            figures.push(f);
            if stopped {
                // What ran is still a measurement (a device call cut short kept nothing before).
                break;
            }
        }
        Ok(figures)
    })();
    let kept = args.keep_logs.as_deref().map(|to| keep_logs(&dir, to));
    let _ = std::fs::remove_dir_all(&dir);
    // Said before the outcome, whatever it is: a failed benchmark's logs are the ones to read.
    // A copy that failed never costs the figures of a benchmark that ran: they are printed
    // first, and the copy's failure then ends the command with an error.
    let kept = match kept {
        Some(Ok(what)) => {
            eprintln!("bench run: {what}");
            Ok(())
        }
        Some(Err(e)) => Err(e),
        None => Ok(()),
    };
    let figures = match outcome {
        Ok(figures) => figures,
        Err(e) => {
            if let Err(k) = &kept {
                eprintln!("bench run: {k:#}");
            }
            return Err(e);
        }
    };
    let interrupted = figures.iter().any(|f| f.interrupted);
    if args.json {
        let doc = serde_json::json!({"backend": run.backend, "sample": sampling.sample, "seed": sampling.seed, "protocol": protocol.name, "suites": run.suites, "configurations": figures});
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        print_table(&figures, sampling, &run.backend);
    }
    kept?;
    Ok(if interrupted { ExitStatus::Interrupted } else { ExitStatus::Success })
}

/// Read, mutate and classify the substrates into the benchmark's store at `store`, from
/// `--classes-from`'s compile records where given and the user's image cache otherwise (warm or
/// not); the images each configuration runs are compiled again into its own cold cache.
fn classify(args: &BenchRunArgs, store: &Path, env: &Environment, interrupt: &std::sync::atomic::AtomicBool) -> anyhow::Result<Compiled> {
    let run = &args.run;
    if let Some(from) = &args.classes_from {
        anyhow::ensure!(from.is_file(), "--classes-from `{}`: no such store", from.display());
        let copied = kmut_store::Store::open(store)?
            .copy_compile_records_from(from)
            .with_context(|| format!("--classes-from `{}`: could not copy its compile records", from.display()))?;
        eprintln!("bench run: {copied} compile records from `{}`: unchanged mutants are classified without an image", from.display());
    }
    let setup = Instant::now();
    let compiled = compile_substrates(&run.substrates, &run.select, &run.compile, Some(store), env, interrupt, "bench run")?;
    anyhow::ensure!(!compiled.interrupted, "interrupted while compiling");
    // Where a device call's setup goes (2026-12-06: 229 s of a 585 s call, unaccounted).
    let (now, cached, resumed) = compiled.summaries.iter().fold((0, 0, 0), |(a, b, c), s| (a + s.compiled, b + s.cached, c + s.resumed));
    eprintln!(
        "bench run: {} substrates read and their {} selected mutants classified in {:.1} s ({now} compiled now, {cached} from the cache, {resumed} from stored records)",
        compiled.substrates.len(),
        now + cached + resumed,
        setup.elapsed().as_secs_f64()
    );
    Ok(compiled)
}

/// Copy the configurations' workers logs from the benchmark's folder `dir` into `to` (created
/// if missing); says what it copied.
fn keep_logs(dir: &Path, to: &Path) -> anyhow::Result<String> {
    std::fs::create_dir_all(to).with_context(|| format!("could not create `{}` for the workers logs", to.display()))?;
    let mut kept = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("could not read `{}`", dir.display()))? {
        let path = entry?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
        if name.starts_with("workers-") && path.extension().is_some_and(|e| e == "log") {
            std::fs::copy(&path, to.join(&name)).with_context(|| format!("could not copy `{}` into `{}`", path.display(), to.display()))?;
            kept.push(name);
        }
    }
    kept.sort();
    Ok(format!("kept {} in `{}`", if kept.is_empty() { "no workers log".to_owned() } else { kept.join(", ") }, to.display()))
}

/// Plan the sample from a cold cache and run it under `c`, into the bench store under a target
/// of its own (so the configurations never reuse each other's evaluations).
#[allow(clippy::too_many_arguments)] // one measurement's inputs, each from a different place
fn measure(
    run: &RunArgs,
    env: &Environment,
    compiled: &mut Compiled,
    setting: &Setting<'_>,
    c: &Configuration,
    sampling: Sampling,
    gxx: Option<&kmut_cpu::Compiler>,
    dir: &Path,
    interrupt: &std::sync::atomic::AtomicBool,
) -> anyhow::Result<Figures> {
    let cold = ImageCache::new(dir.join(format!("cache-{}", c.name)));
    let started = Instant::now();
    let view = kmut_plan::Compiled { store: &compiled.store, target: &compiled.target, substrates: &compiled.substrates };
    let Planned { plans, order, made, deferred, .. } = match gxx {
        None => kmut_plan::plan_gpu(
            &view,
            &images_of(Some(&cold), &compiled.compiler, compiled.pool.as_ref(), &compiled.options, true)?,
            setting.protocol,
            setting.inputs,
            sampling,
        )?,
        Some(gxx) => {
            let build = kmut_cpu::BuildOptions { cache_dir: cold.dir().join("cpu"), ..kmut_cpu::BuildOptions::default() };
            let interrupt = std::sync::atomic::AtomicBool::new(false);
            kmut_plan::plan_cpu(
                &view,
                setting.protocol,
                setting.inputs,
                sampling,
                &kmut_plan::CpuPlanOptions { gxx, build, heavy_ms: setting.heavy_ms, interrupt: &interrupt },
            )?
        }
    };
    let plan_seconds = started.elapsed().as_secs_f64();
    anyhow::ensure!(!order.is_empty(), "the sample is empty: no live mutant to evaluate");
    // Where `kmut run` keeps its drawn inputs by default (`scratch_dir`: /dev/shm, RAM), so the
    // bench measures a run's preparations, not a disk's: official level-1 columns are gigabytes,
    // and a column prepared again after a worker's replacement reads them back from here.
    // Each configuration's own, removed with `_scratch_guard` when it ends: the next starts cold.
    let (scratch_root, _scratch_guard) = scratch_dir(None)?;
    let scratch = scratch_root.join(format!("bench-{}", c.name));
    std::fs::create_dir_all(&scratch).with_context(|| format!("could not create the scratch folder `{}`", scratch.display()))?;
    eprintln!("bench run: {}'s workers share drawn inputs in `{}` (removed at its end)", c.name, scratch.display());
    let mut command = worker_command(run, env, setting.backend);
    command.extend(c.worker_flags.iter().cloned());
    let target = format!("{}#bench-{}", setting.backend.evaluation_target(&compiled.target), c.name);
    let log = dir.join(format!("workers-{}.log", c.name));
    let mut config = engine_config(run, setting, command, scratch, log.clone(), target);
    config.round = Some(first_round(setting.devices, setting.workers, plans.len()));
    config.advance_waves = c.advance_waves;
    config.prefetch = c.prefetch;
    config.heavy_first = c.heavy_first;
    config.reuse_original = c.reuse_original;
    config.defer_original = c.reuse_original;
    let run_id = compiled.store.begin_run(&format!("bench run {}", c.name), "", &compiled.target)?;
    let reporter = RunProgress::new();
    let busy = (setting.backend == Backend::Gpu).then(|| BusySampler::start(setting.devices)).flatten();
    let mut rounds = (!deferred.is_empty())
        .then(|| images_of(Some(&cold), &compiled.compiler, compiled.pool.as_ref(), &compiled.options, true))
        .transpose()?
        .map(|images| kmut_plan::RoundCompiler { images, target: &compiled.target, deferred });
    let mut engine = Engine::new(config, &plans, &mut compiled.store, run_id, &reporter, interrupt);
    if let Some(r) = rounds.as_mut() {
        engine = engine.with_round_images(r);
    }
    let summary = engine.run(&order);
    reporter.finish();
    let gpu_busy = busy.and_then(BusySampler::finish);
    let summary = summary?;
    compiled.store.finish_run(run_id, if summary.interrupted { "interrupted" } else { "done" })?;
    let mut f = figures(c.clone(), &summary, order.len(), gpu_busy, made, plan_seconds);
    f.preparation = kmut_exec::PrepPhases::read(&std::fs::read_to_string(&log).unwrap_or_default());
    f.kernel_by_substrate = KernelSpread::of(&compiled.store.kernel_seconds_by_substrate(run_id)?);
    Ok(f)
}

/// GPU-busy seconds per evaluation and the evaluations/s they allow at full use (`Figures`).
fn gpu_bound(gpu_busy: Option<f64>, seconds: f64, devices: f64, evaluations: usize) -> (Option<f64>, Option<f64>) {
    let per = gpu_busy.filter(|b| *b > 0.0 && evaluations > 0).map(|b| b * seconds * devices / evaluations as f64);
    (per, per.map(|p| devices / p))
}

fn figures(configuration: Configuration, s: &RunSummary, mutants: usize, gpu_busy: Option<f64>, plan_made: usize, plan_seconds: f64) -> Figures {
    let secs = s.elapsed.as_secs_f64().max(1e-9);
    let images = plan_made + s.images_made;
    let image_seconds = plan_seconds + s.image_time.as_secs_f64();
    let devices = configuration.devices.len().max(1) as f64;
    let (gpu_seconds_per_evaluation, gpu_bound_per_s) = gpu_bound(gpu_busy, secs, devices, s.evaluations);
    let mut problems: Vec<String> = s.failures.clone();
    problems.extend(s.set_aside.iter().cloned());
    problems.extend(s.environment_errors.iter().cloned());
    Figures {
        interrupted: s.interrupted,
        mutants,
        settled: s.decided,
        evaluations: s.evaluations,
        seconds: secs,
        evaluations_per_s: s.evaluations as f64 / secs,
        settled_per_s: s.decided as f64 / secs,
        wall_over_kernel: (s.kernel_ms > 0.0).then(|| s.wall_ms / s.kernel_ms),
        kernel_share: (s.kernel_ms > 0.0).then(|| s.kernel_ms / 1e3 / (secs * devices)),
        gpu_busy,
        gpu_seconds_per_evaluation,
        gpu_bound_per_s,
        images,
        image_seconds,
        images_per_s: (images > 0 && image_seconds > 0.0).then(|| images as f64 / image_seconds),
        worker_replacements: s.respawns,
        spares_used: s.spares_used,
        worker_time: s.slot_time.shares(),
        preparation: kmut_exec::PrepPhases::default(),
        evaluation: s.eval_parts.clone(),
        kernel_by_substrate: None,
        pipeline_steps: s.pipeline_steps,
        steps_replayed: s.steps_replayed,
        tail_replayed: s.tail_replayed,
        tails: s.tails,
        prefetched: s.prefetched,
        prefetch_used: s.prefetch_used,
        columns_prepared: s.columns_prepared,
        original_reused: s.original_reused,
        original_deferred: s.original_deferred,
        deferred_run: s.deferred_run,
        crashes: s.crashes,
        timeouts: s.timeouts,
        problems,
        configuration,
    }
}

fn print_table(figures: &[Figures], sampling: Sampling, backend: &str) {
    let opt = |v: Option<f64>, digits: usize| v.map_or_else(|| "-".to_owned(), |x| format!("{x:.digits$}"));
    let rows_of = |f: &Figures| -> Vec<String> {
        vec![
            format!("{} x {}", f.configuration.devices.len(), f.configuration.workers_per_device),
            format!("{}/{}", f.settled, f.mutants),
            f.evaluations.to_string(),
            format!("{:.1}", f.seconds),
            format!("{:.2}", f.evaluations_per_s),
            format!("{:.2}", f.settled_per_s),
            opt(f.wall_over_kernel, 2),
            opt(f.kernel_share, 2),
            opt(f.gpu_busy, 2),
            match (f.gpu_seconds_per_evaluation, f.gpu_bound_per_s) {
                (Some(per), Some(bound)) => format!("{per:.3} s ({bound:.1} evaluations/s at full use)"),
                _ => "-".to_owned(),
            },
            format!("{} in {:.1} s", f.images, f.image_seconds),
            opt(f.images_per_s, 1),
            format!("{} ({} spares)", f.worker_replacements, f.spares_used),
            if f.worker_time.is_empty() { "-".to_owned() } else { f.worker_time.clone() },
            f.preparation.summary(),
            f.evaluation.summary(),
            f.kernel_by_substrate.as_ref().map_or_else(|| "-".to_owned(), KernelSpread::summary),
            if f.pipeline_steps == 0 {
                "-".to_owned()
            } else {
                format!("{} of {} ({} after the last changed step, in {} evaluations)", f.steps_replayed, f.pipeline_steps, f.tail_replayed, f.tails)
            },
            format!("{} ({} used)", f.prefetched, f.prefetch_used),
            format!("{} of {} column preparations", f.original_reused, f.columns_prepared),
            format!("{} of {} column preparations (run later at a kill on {})", f.original_deferred, f.columns_prepared, f.deferred_run),
        ]
    };
    let names = [
        "devices x workers",
        "mutants settled",
        "evaluations",
        "wall seconds",
        "evaluations/s",
        "mutants settled/s",
        "wall over kernel time",
        "kernel time / (wall x devices)",
        "GPU busy (nvidia-smi)",
        "GPU-busy time per evaluation",
        "images made",
        "images/s",
        "workers replaced",
        "worker time",
        "column preparations",
        "evaluation parts",
        "mutants' kernel time",
        "pipeline steps replayed",
        "columns prepared ahead",
        "original's run skipped",
        "original's run deferred",
    ];
    let columns: Vec<Vec<String>> = figures.iter().map(rows_of).collect();
    let rows: Vec<Vec<String>> = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let mut row = vec![(*n).to_owned()];
            row.extend(columns.iter().map(|c| c[i].clone()));
            if let [a, b] = figures {
                let ratio = match i {
                    4 => Some(b.evaluations_per_s / a.evaluations_per_s),
                    5 => Some(b.settled_per_s / a.settled_per_s),
                    _ => None,
                };
                row.push(ratio.filter(|r| r.is_finite()).map_or_else(String::new, |r| format!("{r:.2}x")));
            }
            row
        })
        .collect();
    let mut header = vec!["figure"];
    header.extend(figures.iter().map(|f| f.configuration.name.as_str()));
    if figures.len() == 2 {
        header.push("ratio");
    }
    println!("kmut bench run: a stratified sample of {} mutants, seed {}, {backend} backend", sampling.sample.unwrap_or(0), sampling.seed);
    print!("{}", crate::table::render(&header, &rows));
    for f in figures {
        if f.interrupted {
            println!(
                "{}: interrupted after {:.0} s with {} of {} mutants settled: its figures are over that part of the sample",
                f.configuration.name, f.seconds, f.settled, f.mutants
            );
        }
        for p in &f.problems {
            println!("{}: not in its figures: {p}", f.configuration.name);
        }
    }
}

/// Samples `nvidia-smi --query-gpu=utilization.gpu` (the share of the last sample period in
/// which a kernel ran) every 200 ms for the listed devices while a configuration runs.
struct BusySampler {
    child: Child,
    samples: Arc<Mutex<Vec<f64>>>,
}

impl BusySampler {
    fn start(devices: &[u32]) -> Option<BusySampler> {
        let ids: Vec<String> = devices.iter().map(ToString::to_string).collect();
        let mut child = Command::new("nvidia-smi")
            .args(["--query-gpu=utilization.gpu", "--format=csv,noheader,nounits", "-lms", "200", "-i", &ids.join(",")])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let stdout = child.stdout.take()?;
        let samples = Arc::new(Mutex::new(Vec::new()));
        let into = Arc::clone(&samples);
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Ok(v) = line.trim().parse::<f64>() {
                    into.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(v / 100.0);
                }
            }
        });
        Some(BusySampler { child, samples })
    }

    /// The mean of the samples, `None` if there were none.
    fn finish(mut self) -> Option<f64> {
        let _ = self.child.kill();
        let _ = self.child.wait();
        std::thread::sleep(Duration::from_millis(50));
        let samples = self.samples.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        (!samples.is_empty()).then(|| samples.iter().sum::<f64>() / samples.len() as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::{baseline_configuration, gpu_bound, Baseline, Configuration, KernelSpread, Machines};
    use clap::ValueEnum as _;
    use kmut_model::Backend;

    #[test]
    fn the_kernel_spread_names_the_heaviest_substrates_and_their_share() {
        let by: Vec<(String, f64)> = (0..12).map(|i| (format!("s{i}"), f64::from(12 - i))).collect();
        let spread = KernelSpread::of(&by).unwrap();
        assert_eq!((spread.substrates, spread.seconds, spread.heaviest.len()), (12, 78.0, 10));
        assert!((spread.heaviest_share - 75.0 / 78.0).abs() < 1e-12, "{spread:?}");
        assert_eq!(spread.summary(), "78 s over 12 substrates; the 10 heaviest hold 96% (s0 15%, s1 14%, s2 13%)");
        let few = KernelSpread::of(&by[..2]).unwrap();
        assert_eq!((few.heaviest.len(), few.heaviest_share), (2, 1.0));
        assert_eq!(KernelSpread::of(&[]), None, "no timed evaluation, no figure");
        assert_eq!(KernelSpread::of(&[("s".into(), 0.0)]), None);
    }

    #[test]
    fn previous6_is_previous_at_six_workers_per_gpu_and_keeps_the_cpu_backends_workers() {
        let this = Configuration {
            name: "this".into(),
            devices: vec![0],
            workers_per_device: 10,
            worker_flags: vec![],
            advance_waves: true,
            prefetch: true,
            heavy_first: true,
            reuse_original: true,
        };
        let machines = Machines { devices: vec![0], workers: 10, gxx: None };
        let gpu = |which| baseline_configuration(which, &this, &machines, Backend::Gpu).unwrap();
        let (previous, wide) = (gpu(Baseline::Previous), gpu(Baseline::Previous6));
        assert_eq!((previous.name.as_str(), previous.workers_per_device), ("previous", 2));
        assert_eq!((wide.name.as_str(), wide.workers_per_device), ("previous6", 6));
        // Only the width differs: the same engine settings and worker flags.
        assert_eq!(wide.worker_flags, previous.worker_flags);
        assert!(!wide.advance_waves && !wide.prefetch && !wide.heavy_first && !wide.reuse_original);
        let cpu = baseline_configuration(Baseline::Previous6, &this, &machines, Backend::Cpu).unwrap();
        assert_eq!(cpu.workers_per_device, 10, "the CPU backend's workers come from --cpu-workers");
        assert!(baseline_configuration(Baseline::None, &this, &machines, Backend::Gpu).is_none());
        // The names `--baseline` takes are the configurations' names in the table.
        for which in Baseline::value_variants() {
            let parsed = Baseline::from_str(&which.name(), false).unwrap();
            assert_eq!(parsed, *which);
        }
        assert_eq!(gpu(Baseline::OneGpu).name, "one-gpu");
        assert_eq!(gpu(Baseline::RerunOriginal).name, "rerun-original");
        assert_eq!(gpu(Baseline::Prefetch).name, "no-prefetch", "a lever turned off is named for its absence");
    }

    #[test]
    fn the_gpu_bound_charges_the_busy_time_to_the_evaluations_and_is_absent_without_a_busy_figure() {
        // The thirteenth session's whole-corpus bench: 0.92 busy over 219 s, 1,594 evaluations.
        let (per, bound) = gpu_bound(Some(0.92), 219.0, 1.0, 1594);
        assert!((per.unwrap() - 0.1264).abs() < 1e-3, "{per:?}");
        assert!((bound.unwrap() - 7.91).abs() < 0.01, "{bound:?}");
        // Two devices as busy for the same evaluations: twice the GPU time each, the same bound.
        let (per2, bound2) = gpu_bound(Some(0.92), 219.0, 2.0, 1594);
        assert!((per2.unwrap() - 2.0 * per.unwrap()).abs() < 1e-9 && (bound2.unwrap() - bound.unwrap()).abs() < 1e-9);
        assert_eq!(gpu_bound(None, 219.0, 1.0, 1594), (None, None), "the CPU backend has no busy figure");
        assert_eq!(gpu_bound(Some(0.9), 10.0, 1.0, 0), (None, None), "no evaluation, no figure");
    }
}
