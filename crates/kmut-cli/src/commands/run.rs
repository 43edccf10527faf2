//! `kmut run`: compile, plan, evaluate on GPU workers, then print the score.

use std::collections::BTreeMap;
use std::io::{IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use kmut_compile::{source_key, Scopes};
use kmut_exec::engine::Progress;
use kmut_exec::{stratified_order, Candidate, Engine, EngineConfig, Reporter, RunSummary, SubstratePlan};
use kmut_model::{cpu_fidelity, Backend, CpuFidelity, Inputs, MutantKind, Protocol, RACE_ORDERS};

use crate::args::RunArgs;
use crate::commands::compile::{compile_substrates, interrupt_flag, Compiled};
use crate::{Environment, ExitStatus};

pub fn run(args: &RunArgs, env: &Environment) -> anyhow::Result<ExitStatus> {
    let protocol = Protocol::named(&args.protocol).map_err(anyhow::Error::msg)?;
    let backend = Backend::parse(&args.backend).map_err(anyhow::Error::msg)?;
    let budget = args.budget.as_deref().map(parse_duration).transpose()?;
    let heavy_ms = heavy_limit(args.heavy_limit, backend);
    // Fail before compiling when there is nothing to run on.
    let (devices, workers, gxx) = match backend {
        Backend::Gpu => (if args.gpus.is_empty() { visible_gpus()? } else { args.gpus.clone() }, args.workers_per_gpu.max(1), None),
        Backend::Cpu => {
            let gxx = kmut_cpu::Compiler::find().context("the CPU backend builds kernels with g++")?;
            // One "device": the workers share the machine, one core each.
            (vec![0], args.cpu_workers.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from)).max(1), Some(gxx))
        }
    };
    let mut compile_opts = args.compile.clone();
    let temp_cache = compile_opts.no_cache.then(|| std::env::temp_dir().join(format!("kmut-run-cache-{}", std::process::id())));
    if let Some(dir) = &temp_cache {
        // Workers load images from files, so a run always compiles through a cache; with
        // --no-cache it is a fresh one, removed at the end.
        compile_opts.no_cache = false;
        compile_opts.cache = Some(dir.clone());
    }
    let interrupt = interrupt_flag();
    let mut compiled = compile_substrates(&args.substrates, &args.rules, &args.family, &compile_opts, args.store.as_deref(), env, &interrupt, "run")?;
    if compiled.interrupted {
        eprintln!("interrupted while compiling: the results so far are stored; run the same command again to resume");
        return Ok(ExitStatus::Interrupted);
    }
    let inputs = Inputs::parse(&args.suites).map_err(anyhow::Error::msg)?.on(backend);
    let (plans, order) = match &gxx {
        None => plan(&compiled, &protocol, inputs, args.seed, args.sample)?,
        Some(gxx) => plan_cpu(&compiled, gxx, &protocol, args.seed, args.sample, heavy_ms, &interrupt)?,
    };
    let (scratch, own_scratch) = scratch_dir(args.scratch.as_deref())?;
    let log = PathBuf::from(format!("{}.workers.log", compiled.store.path().display()));
    let mut worker_command =
        if args.worker.is_empty() { vec![env.python.display().to_string(), "-m".into(), "kmut._run_worker".into()] } else { args.worker.clone() };
    if backend == Backend::Cpu {
        worker_command.extend(["--backend".into(), "cpu".into()]);
    }
    let config = EngineConfig {
        worker_command,
        devices: devices.clone(),
        workers_per_device: workers,
        spares_per_device: args.spare_workers.unwrap_or(match backend {
            Backend::Gpu => 1,
            Backend::Cpu => (workers / 4).max(1),
        }),
        scratch: Some(scratch.clone()),
        log: log.clone(),
        first_kill: !args.full_matrix,
        tolerance: protocol.tolerance(),
        timeout_factor: args.timeout_factor,
        min_timeout: Duration::from_secs_f64(args.min_timeout),
        start_timeout: Duration::from_mins(2),
        prep_timeout: Duration::from_secs_f64(args.prep_timeout),
        // A first round big enough to keep every worker busy; later ones are sized to the time left.
        round: budget.map(|_| (64 * devices.len() * workers).max(4 * plans.len())),
        deadline: budget.map(|b| Instant::now() + b),
        target: backend.evaluation_target(&compiled.target),
        max_original_ms: heavy_ms,
        // A light substrate prepares a small column in a few seconds (loading it, drawing the
        // inputs, the reference, one run of the original); on a 2-core machine the heavy ones'
        // preparations were half of a 4-minute budget with a 50 s cutoff.
        heavy_prep_grace: Duration::from_secs(10),
    };
    announce(args, backend, inputs, &plans, order.len(), devices.len(), workers, &log);
    let run_id = compiled.store.begin_run(&format!("run --protocol {}", protocol.name), "", &compiled.target)?;
    let reporter = RunProgress::new();
    let outcome = Engine::new(config, &plans, &mut compiled.store, run_id, &reporter, &interrupt).run(&order);
    reporter.finish();
    if own_scratch {
        let _ = std::fs::remove_dir_all(&scratch);
    }
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
    let names: Vec<String> = plans.iter().map(|p| p.name.clone()).collect();
    let score = kmut_score::score(&compiled.store, &names, &protocol, protocol.tolerance(), inputs, backend)?;
    println!();
    super::score::print(&score);
    if summary.interrupted {
        eprintln!("interrupted: every finished evaluation is stored; run the same command again to resume");
        return Ok(ExitStatus::Interrupted);
    }
    if !summary.failures.is_empty() {
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

/// The per-input time past which a substrate is set aside, in ms: `--heavy-limit`, else 2 s on
/// the CPU backend (large fixed weights take tens of seconds per run there) and none on a GPU.
fn heavy_limit(given: Option<f64>, backend: Backend) -> Option<f64> {
    match (given, backend) {
        (Some(s), _) if s > 0.0 => Some(s * 1e3),
        (Some(_), _) | (None, Backend::Gpu) => None,
        (None, Backend::Cpu) => Some(2000.0),
    }
}

/// Every GPU the driver shows, or an error saying why there is none.
fn visible_gpus() -> anyhow::Result<Vec<u32>> {
    let n = kmut_cuda::Driver::get()
        .and_then(|d| d.device_count())
        .map_err(|e| anyhow::anyhow!("no GPU is visible ({e}); run on the CPU backend with `kmut run --backend cpu` (small suites)"))?;
    anyhow::ensure!(n > 0, "the CUDA driver shows no GPU; run on the CPU backend with `kmut run --backend cpu` (small suites)");
    Ok((0..n as u32).collect())
}

/// `(substrate, candidate)` positions, in the order mutants are taken.
type Order = Vec<(usize, usize)>;

/// Each substrate's columns, original image and live candidates (of `sample`, when given:
/// only their images need to be in the cache).
fn plan(compiled: &Compiled, protocol: &Protocol, inputs: Inputs, seed: u64, sample: Option<usize>) -> anyhow::Result<(Vec<SubstratePlan>, Order)> {
    let cache = compiled.cache.as_ref().context("a run needs the image cache")?;
    let mut plans = Vec::new();
    let mut originals = Vec::new();
    // The source each candidate's image is compiled from (none for launch mutants).
    let mut candidate_sources: Vec<Vec<Option<String>>> = Vec::new();
    for (desc, mutants) in &compiled.substrates {
        let scopes = Scopes::parse(desc).unwrap_or_else(|_| Scopes::whole(desc));
        let all = scopes.all();
        let original_source = scopes.original_source(&desc.cuda, &all);
        let original_hash = compiled
            .store
            .original(&desc.name, &compiled.target, &Scopes::key(&all))?
            .and_then(|r| r.image_hash)
            .with_context(|| format!("{} has no compiled original in the store", desc.name))?;
        let records = compiled.store.compilations(&desc.name, &compiled.target)?;
        let mut candidates = Vec::new();
        let mut sources = Vec::new();
        for m in live(compiled, desc, mutants)? {
            let (candidate, source) = match &m.mutation {
                MutantKind::Launch { transform } => {
                    let image_id = format!("launch:{original_hash}");
                    (
                        Candidate {
                            id: m.id.clone(),
                            family: m.family,
                            image: None,
                            image_id,
                            scope: all.clone(),
                            transform: Some(transform.clone()),
                            variant: None,
                            orders: vec![],
                        },
                        None,
                    )
                }
                MutantKind::Source { .. } => {
                    let (scope, source) = scopes.mutant_source(&desc.cuda, m).expect("a source mutant");
                    let image = cache.image_path(&source_key(&source, &compiled.target));
                    let image_id = records.get(&m.id).and_then(|r| r.image_hash.clone()).unwrap_or_default();
                    (
                        Candidate { id: m.id.clone(), family: m.family, image: Some(image), image_id, scope, transform: None, variant: None, orders: vec![] },
                        Some(source),
                    )
                }
            };
            candidates.push(candidate);
            sources.push(source);
        }
        plans.push(SubstratePlan {
            name: desc.name.clone(),
            level: desc.level,
            path: desc.path.clone(),
            original_image: cache.image_path(&source_key(&original_source, &compiled.target)),
            symbols: BTreeMap::new(),
            original_variant: None,
            columns: protocol.columns_for(desc, inputs),
            candidates,
        });
        originals.push(original_source);
        candidate_sources.push(sources);
    }
    let order = order(&plans, seed, sample);
    // The originals' and the chosen mutants' images, compiled where the cache lacks them (a
    // store copied from another machine, a cleared cache).
    let mut wanted: Vec<&str> = originals.iter().map(String::as_str).collect();
    wanted.extend(order.iter().filter_map(|&(s, c)| candidate_sources[s][c].as_deref()));
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let compiled_now = cache.fill(&compiled.compiler, &compiled.options, &compiled.target, &wanted, threads)?;
    if compiled_now > 0 {
        eprintln!("run: compiled {compiled_now} images missing from the cache `{}`", cache.dir().display());
    }
    for ((p, original_source), (desc, _)) in plans.iter_mut().zip(&originals).zip(&compiled.substrates) {
        p.symbols = symbols(compiled, &p.original_image, original_source, &desc.kernels).with_context(|| format!("the kernels of {}", p.name))?;
    }
    Ok((plans, order))
}

/// The CPU backend's plan: each substrate's small-suite columns, its original and the chosen
/// mutants built as CPU variants (g++, many per library). The order is a GPU run's with the
/// equivalent-on-CPU mutants taken out, so the same seed and sample give the same mutants on
/// both backends; racy-on-CPU ones run in every order of `RACE_ORDERS`. A mutant g++ cannot build is left
/// out of the run (it stays undetermined) and said so.
fn plan_cpu(
    compiled: &Compiled,
    gxx: &kmut_cpu::Compiler,
    protocol: &Protocol,
    seed: u64,
    sample: Option<usize>,
    heavy_ms: Option<f64>,
    interrupt: &std::sync::atomic::AtomicBool,
) -> anyhow::Result<(Vec<SubstratePlan>, Order)> {
    let mut plans = Vec::new();
    let mut variants: Vec<kmut_cpu::Variant> = Vec::new();
    let mut equivalent = std::collections::HashSet::new();
    for (desc, mutants) in &compiled.substrates {
        let scopes = Scopes::parse(desc).unwrap_or_else(|_| Scopes::whole(desc));
        let all = scopes.all();
        let original = variant(scopes.original_source(&desc.cuda, &all), &all);
        let live = live(compiled, desc, mutants)?;
        for (i, m) in live.iter().enumerate() {
            if cpu_fidelity(m.family, &m.rule) == CpuFidelity::EquivalentOnCpu {
                // Kept in the plan so the sampling order is the GPU's; taken out of it below.
                equivalent.insert((plans.len(), i));
            }
        }
        let (candidates, mine) = cpu_candidates(&scopes, desc, &live, &original.name);
        variants.extend(mine);
        plans.push(SubstratePlan {
            name: desc.name.clone(),
            level: desc.level,
            path: desc.path.clone(),
            original_image: PathBuf::new(),
            symbols: BTreeMap::new(),
            original_variant: Some(original.name.clone()),
            columns: protocol.columns_for(desc, Inputs::Small),
            candidates,
        });
        variants.push(original);
    }
    // The same stratified order (and sample) as a GPU run, less the equivalent-on-CPU mutants.
    let mut order = order(&plans, seed, sample);
    let sampled = order.len();
    order.retain(|at| !equivalent.contains(at));
    if order.len() < sampled {
        eprintln!("run: {} fast-math mutants are equivalent on the CPU (its intrinsics are the accurate functions) and are not run", sampled - order.len());
    }
    let heavy = known_heavy(compiled, &plans, heavy_ms)?;
    order.retain(|(s, _)| !heavy.contains(s));
    // Build only what runs: the originals and the chosen mutants, each distinct source once.
    let chosen: std::collections::HashSet<&str> = plans
        .iter()
        .filter_map(|p| p.original_variant.as_deref())
        .chain(order.iter().filter_map(|&(s, c)| plans[s].candidates[c].variant.as_deref()))
        .collect();
    let mut wanted: Vec<kmut_cpu::Variant> = Vec::new();
    let mut distinct = std::collections::HashSet::new();
    for v in variants {
        if chosen.contains(v.name.as_str()) && distinct.insert(v.name.clone()) {
            wanted.push(v);
        }
    }
    anyhow::ensure!(!interrupt.load(std::sync::atomic::Ordering::Relaxed), "interrupted before the CPU build");
    let built = build_cpu(compiled, gxx, &wanted)?;
    for p in &mut plans {
        let name = p.original_variant.clone().expect("set above");
        let library = built.libraries.get(&name).with_context(|| {
            format!("{}: its original does not build for the CPU backend:\n{}", p.name, log_head(built.failed.get(&name).map_or("", String::as_str)))
        })?;
        p.original_image.clone_from(library);
        for c in &mut p.candidates {
            if let Some(lib) = c.variant.as_ref().and_then(|v| built.libraries.get(v)) {
                c.image = Some(lib.clone());
            }
        }
    }
    let before = order.len();
    let unbuilt: Vec<String> = order
        .iter()
        .filter_map(|&(s, c)| {
            let cand = &plans[s].candidates[c];
            let v = cand.variant.as_ref()?;
            built.failed.get(v).map(|log| format!("{}: {}", cand.id, log_head(log).lines().next().unwrap_or("")))
        })
        .collect();
    order.retain(|&(s, c)| plans[s].candidates[c].variant.is_none() || plans[s].candidates[c].image.is_some());
    if !unbuilt.is_empty() {
        eprintln!(
            "run: {} of {before} mutants do not build for the CPU backend and are left out (they stay undetermined); first: {}",
            unbuilt.len(),
            unbuilt.first().map_or("", String::as_str)
        );
    }
    Ok((plans, order))
}

/// A substrate's live mutants (by the compile stage's classes).
fn live<'a>(compiled: &Compiled, desc: &kmut_model::SubstrateDescription, mutants: &'a [kmut_model::Mutant]) -> anyhow::Result<Vec<&'a kmut_model::Mutant>> {
    let classes = compiled.store.classes(&desc.name, &compiled.target)?;
    Ok(mutants.iter().filter(|m| classes.get(&m.id).is_some_and(|c| c.class == "live")).collect())
}

/// Substrates an earlier CPU run of this store measured above the limit (their stored baselines):
/// set aside at once, without paying for a column preparation again.
fn known_heavy(compiled: &Compiled, plans: &[SubstratePlan], heavy_ms: Option<f64>) -> anyhow::Result<std::collections::HashSet<usize>> {
    let mut heavy = std::collections::HashSet::new();
    let Some(limit) = heavy_ms else { return Ok(heavy) };
    for (i, p) in plans.iter().enumerate() {
        let slowest = compiled.store.baselines(&p.name, kmut_model::CPU_TARGET)?.iter().filter_map(|b| b.kernel_ms).fold(0.0_f64, f64::max);
        if slowest > limit {
            eprintln!(
                "run: {}: set aside: an earlier CPU run measured its original at {:.1} s per input (limit {:.1} s; --heavy-limit 0 runs it anyway); run it on a GPU",
                p.name,
                slowest / 1e3,
                limit / 1e3
            );
            heavy.insert(i);
        }
    }
    Ok(heavy)
}

/// One substrate's live mutants as CPU candidates, and the variants to build for them. An
/// equivalent-on-CPU mutant gets a placeholder without image or variant (it never runs).
fn cpu_candidates(
    scopes: &Scopes,
    desc: &kmut_model::SubstrateDescription,
    live: &[&kmut_model::Mutant],
    original: &str,
) -> (Vec<Candidate>, Vec<kmut_cpu::Variant>) {
    let all = scopes.all();
    let mut candidates = Vec::new();
    let mut variants = Vec::new();
    for m in live {
        let fidelity = cpu_fidelity(m.family, &m.rule);
        let orders = if fidelity == CpuFidelity::RacyOnCpu { RACE_ORDERS.to_vec() } else { vec![] };
        let mut c =
            Candidate { id: m.id.clone(), family: m.family, image: None, image_id: String::new(), scope: vec![], transform: None, variant: None, orders };
        match &m.mutation {
            _ if fidelity == CpuFidelity::EquivalentOnCpu => {}
            MutantKind::Launch { transform } => {
                c.image_id = format!("launch:cpu:{original}");
                c.scope.clone_from(&all);
                c.transform = Some(transform.clone());
            }
            MutantKind::Source { .. } => {
                let (scope, source) = scopes.mutant_source(&desc.cuda, m).expect("a source mutant");
                let v = variant(source, &scope);
                c.image_id = format!("cpu:{}", v.name);
                c.scope = scope;
                c.variant = Some(v.name.clone());
                variants.push(v);
            }
        }
        candidates.push(c);
    }
    (candidates, variants)
}

/// A CPU variant named by a hash of its source and kernels: identical mutants share one.
fn variant(source: String, kernels: &[String]) -> kmut_cpu::Variant {
    let key = source_key(&source, &format!("cpu:{}", kernels.join(",")));
    kmut_cpu::Variant { name: format!("v{}", &key[..16]), source, kernels: kernels.to_vec() }
}

/// Build `variants` with g++ into the CPU library cache (beside the image cache), saying how long it took.
fn build_cpu(stage: &Compiled, gxx: &kmut_cpu::Compiler, variants: &[kmut_cpu::Variant]) -> anyhow::Result<kmut_cpu::BuildOutcome> {
    let mut options = kmut_cpu::BuildOptions::default();
    if let Some(cache) = &stage.cache {
        options.cache_dir = cache.dir().join("cpu");
    }
    let start = Instant::now();
    eprintln!(
        "run: building {} CPU variants with g++ ({} at once, up to {} per library) in `{}`",
        variants.len(),
        options.jobs,
        options.max_per_unit,
        options.cache_dir.display()
    );
    let built = kmut_cpu::build(gxx, variants, &options)?;
    let cached = built.units.iter().filter(|u| u.cached).count();
    eprintln!(
        "run: built {} CPU variants in {:.1} s ({} libraries, {cached} from the cache)",
        built.libraries.len(),
        start.elapsed().as_secs_f64(),
        built.units.len()
    );
    Ok(built)
}

/// The first lines of a compiler log.
fn log_head(log: &str) -> String {
    log.lines().take(12).collect::<Vec<_>>().join("\n")
}

/// Each kernel's symbol in the original image: its own name for `extern "C"` kernels, read
/// from the image; only a source with C++-linkage kernels is compiled again (with NVRTC name
/// expressions) to learn their mangled names.
fn symbols(compiled: &Compiled, image: &Path, source: &str, kernels: &[String]) -> anyhow::Result<BTreeMap<String, String>> {
    let bytes = std::fs::read(image).with_context(|| format!("could not read `{}`", image.display()))?;
    let present: Vec<String> = kmut_nvrtc::inspect_cubin(&bytes)?.into_iter().map(|k| k.name).collect();
    if kernels.iter().all(|k| present.contains(k)) {
        return Ok(kernels.iter().map(|k| (k.clone(), k.clone())).collect());
    }
    let names: Vec<&str> = kernels.iter().map(String::as_str).collect();
    Ok(compiled.compiler.compile_kernels(source, kmut_compile::PROGRAM_NAME, &compiled.options, &names)?.symbols.into_iter().collect())
}

/// `(substrate, candidate)` positions in the stratified order, cut to `sample`.
fn order(plans: &[SubstratePlan], seed: u64, sample: Option<usize>) -> Vec<(usize, usize)> {
    let mut positions = Vec::new();
    let mut items = Vec::new();
    for (s, p) in plans.iter().enumerate() {
        for (c, cand) in p.candidates.iter().enumerate() {
            positions.push((s, c));
            items.push((p.name.as_str(), cand.family, cand.id.as_str()));
        }
    }
    let mut order: Vec<(usize, usize)> = stratified_order(&items, seed).into_iter().map(|i| positions[i]).collect();
    if let Some(n) = sample {
        order.truncate(n);
    }
    order
}

/// The given folder, or a fresh one in /dev/shm (RAM) or the temporary folder, which the run
/// removes at the end.
fn scratch_dir(given: Option<&Path>) -> anyhow::Result<(PathBuf, bool)> {
    if let Some(dir) = given {
        std::fs::create_dir_all(dir).with_context(|| format!("could not create the scratch folder `{}`", dir.display()))?;
        return Ok((dir.to_path_buf(), false));
    }
    let base = Path::new("/dev/shm");
    let base = if base.is_dir() { base.to_path_buf() } else { std::env::temp_dir() };
    let dir = base.join(format!("kmut-run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| format!("could not create the scratch folder `{}`", dir.display()))?;
    Ok((dir, true))
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

fn print_summary(s: &RunSummary) {
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
    for a in &s.set_aside {
        eprintln!("run: {a}; run it on a GPU");
    }
    if s.budget_spent {
        eprintln!("run: the time budget is spent; the evaluated mutants form a stratified sample");
    }
    for f in &s.failures {
        eprintln!("error: {f}");
    }
}

/// The progress line: redrawn on a terminal, every 10% otherwise; hidden with `KMUT_NO_PROGRESS`.
struct RunProgress {
    tty: bool,
    hidden: bool,
    last_decile: Mutex<usize>,
}

impl RunProgress {
    fn new() -> RunProgress {
        RunProgress { tty: std::io::stderr().is_terminal(), hidden: std::env::var_os("KMUT_NO_PROGRESS").is_some(), last_decile: Mutex::new(0) }
    }

    fn finish(&self) {
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
    use super::parse_duration;

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
