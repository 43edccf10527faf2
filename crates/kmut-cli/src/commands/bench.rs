//! `kmut bench mutate`: how long generating every mutant takes; `kmut bench compile`: NVRTC's
//! cost; `kmut bench compare`: the comparisons' cost (measured in Python, `kmut.bench_compare`,
//! where the comparisons run).

use std::time::Instant;

use anyhow::Context as _;
use kmut_rules::RULES;

use crate::args::BenchMutateArgs;
use crate::{Environment, ExitStatus};

pub fn mutate(args: &BenchMutateArgs, env: &Environment) -> anyhow::Result<ExitStatus> {
    let rules: Vec<_> = RULES.iter().collect();
    let descs = args
        .substrates
        .iter()
        .map(|p| (env.describe)(p).with_context(|| format!("could not read the substrate `{}`", p.display())))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut count = 0;
    // One untimed pass warms caches and counts the mutants.
    for d in &descs {
        count += kmut_rules::mutate(d, &rules)?.mutants.len();
    }
    let repeat = args.repeat.max(1);
    let start = Instant::now();
    for _ in 0..repeat {
        for d in &descs {
            std::hint::black_box(kmut_rules::mutate(d, &rules)?);
        }
    }
    let per_pass = start.elapsed().as_secs_f64() / f64::from(repeat);
    println!(
        "generated {count} mutants of {} substrate(s) with {} rules: {:.1} ms per pass ({:.1} us per mutant), mean of {repeat} passes on one thread",
        descs.len(),
        rules.len(),
        per_pass * 1e3,
        per_pass * 1e6 / count.max(1) as f64
    );
    Ok(ExitStatus::Success)
}

/// `kmut bench compile`: NVRTC time per mutant on one thread, then throughput on N threads.
pub fn compile(args: &crate::args::BenchCompileArgs, env: &Environment) -> anyhow::Result<ExitStatus> {
    use kmut_model::{apply_edits, MutantKind};
    let opts = crate::args::CompileOptions { arch: args.arch.clone(), threads: args.threads, cache: None, no_cache: true, nvrtc: None };
    let compiler = super::compile::open_compiler(&opts, env)?;
    let rules: Vec<_> = RULES.iter().collect();
    // Every source mutant as its substrate and edits (its fault's, then the cuts to the kernels
    // it reaches, as the compile stage does); sources are written only for the sample.
    let mut cudas = Vec::new();
    let mut mutants = Vec::new();
    for p in &args.substrates {
        let d = (env.describe)(p).with_context(|| format!("could not read the substrate `{}`", p.display()))?;
        let scopes = kmut_compile::Scopes::parse(&d).unwrap_or_else(|_| kmut_compile::Scopes::whole(&d));
        for m in kmut_rules::mutate(&d, &rules)?.mutants {
            if let MutantKind::Source { edits } = &m.mutation {
                mutants.push((cudas.len(), edits.clone(), scopes.cuts(&scopes.of(&m))));
            }
        }
        cudas.push(d.cuda);
    }
    anyhow::ensure!(!mutants.is_empty(), "the substrates have no source mutants");
    let step = (mutants.len() / args.sample.max(1)).max(1);
    let picked: Vec<_> = mutants.iter().step_by(step).take(args.sample.max(1)).collect();
    let sources: Vec<String> = picked.iter().map(|(d, edits, cuts)| apply_edits(&cudas[*d], &[edits.clone(), cuts.clone()].concat())).collect();
    let sample: Vec<&str> = sources.iter().map(String::as_str).collect();
    // The distinct originals cut to the sampled mutants' scopes (what each is classified
    // against), in first-seen order: the compile stage compiles these too.
    let originals: Vec<String> = picked.iter().map(|(d, _, cuts)| apply_edits(&cudas[*d], cuts)).collect();
    let mut seen = std::collections::HashSet::new();
    let cut_originals: Vec<&str> = originals.iter().map(String::as_str).filter(|o| seen.insert(*o)).collect();
    let options = kmut_nvrtc::Options { arch: args.arch.clone(), extra: Vec::new() };
    let version = compiler.version()?;
    // Every pass counts the images it made: a pass whose compiler rejected sources the others
    // compiled measured something else (2026-12-06: a 16-process figure of 1,087 mutants/s on
    // the H100 host, 78x one thread, came from a bench that did not look).
    // The first compile of a process loads NVRTC and its builtins from disk (seconds on a
    // fresh machine); the pool's processes are warmed before their clock, so this one is too.
    let start = Instant::now();
    compiler.compile(sample[0], "kernel.cu", &options)?;
    let first = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let mut made = 0;
    for s in &sample {
        made += usize::from(compiler.compile(s, "kernel.cu", &options)?.image.is_some());
    }
    let one = start.elapsed().as_secs_f64() / sample.len() as f64;
    // The parallel passes take the longest sources first, as the compile stage does, so a
    // pass's wall time is not one large network's compile left alone at its end.
    let sample = kmut_compile::longest_first(sample, |s| s.len());
    let threads = args.threads.unwrap_or_else(crate::commands::cores);
    let threaded = parallel_pass(&compiler, &sample, threads, &options);
    // The same sample on a pool of NVRTC processes, started and warmed before the clock.
    let pool = super::compile::compile_pool(&compiler, threads.max(2), env).expect("a pool of two or more");
    let warm: Vec<&str> = sample.iter().copied().cycle().take(pool.size()).collect();
    parallel_pass(&pool, &warm, pool.size(), &options);
    let pooled = parallel_pass(&pool, &sample, pool.size(), &options);
    anyhow::ensure!(pooled.failures == 0, "the compile pool failed on some sources");
    anyhow::ensure!(
        threaded.made == made && pooled.made == made,
        "the passes made different images from the same {} sources (one thread {made}, {threads} threads {}, pool {}): \
         their rates would not measure the same work; first pool log: {}",
        sample.len(),
        threaded.made,
        pooled.made,
        pooled.first_log.unwrap_or_default().lines().take(5).collect::<Vec<_>>().join(" | ")
    );
    println!(
        "NVRTC {}.{} -arch={}: {} mutants (of {}) from {} substrate(s), {} cores; {made} images made by every pass ({} sources rejected by NVRTC in each)",
        version.0,
        version.1,
        args.arch,
        sample.len(),
        mutants.len(),
        args.substrates.len(),
        crate::commands::cores(),
        sample.len() - made
    );
    println!(
        "one thread: {:.1} ms per mutant, after a first compile of {:.0} ms that loads NVRTC, left out (published NVRTC path: 84 ms; torch extension path: about 200,000 ms)",
        one * 1e3,
        first * 1e3
    );
    let rate = |secs: f64| {
        format!(
            "{:.1} mutants/s, {:.1} ms per mutant of wall time ({:.2}x one thread)",
            sample.len() as f64 / secs,
            secs * 1e3 / sample.len() as f64,
            one * sample.len() as f64 / secs
        )
    };
    println!("{threads} threads of one process: {}", rate(threaded.secs));
    println!("{} NVRTC processes (kmut compile's pool): {}", pool.size(), rate(pooled.secs));
    originals_pass(&compiler, &pool, &cut_originals, &options)?;
    Ok(ExitStatus::Success)
}

/// The compile stage's other images: the originals cut to the sampled mutants' scopes, compiled
/// one at a time on the process's compiler (as the stage did before 2026-12-06) and side by
/// side on the pool (as it does since), longest first; both passes must make the same images.
fn originals_pass(compiler: &dyn kmut_compile::Compile, pool: &kmut_compile::ProcessPool, cut: &[&str], options: &kmut_nvrtc::Options) -> anyhow::Result<()> {
    let cut = kmut_compile::longest_first(cut.to_vec(), |s| s.len());
    let serial = parallel_pass(compiler, &cut, 1, options);
    let pooled = parallel_pass(pool, &cut, pool.size(), options);
    anyhow::ensure!(
        serial.failures == 0 && pooled.failures == 0 && serial.made == pooled.made,
        "the cut originals' passes made different images ({} one at a time, {} on the pool)",
        serial.made,
        pooled.made
    );
    println!(
        "cut originals of the sample's scopes: {} distinct ({} made); one at a time {:.1} ms each; pool of {}: {:.1} originals/s ({:.2}x one at a time)",
        cut.len(),
        serial.made,
        serial.secs * 1e3 / cut.len() as f64,
        pool.size(),
        cut.len() as f64 / pooled.secs,
        serial.secs / pooled.secs
    );
    Ok(())
}

/// What one timed parallel pass of `kmut bench compile` did.
struct Pass {
    secs: f64,
    /// Sources that gave an image.
    made: usize,
    /// Sources the compiler could not run on (not NVRTC rejecting them).
    failures: usize,
    /// NVRTC's log of the first source it rejected.
    first_log: Option<String>,
}

/// Compile `sample` on `workers` threads sharing `compiler` (one NVRTC, or the pool's
/// processes), each taking the next source in the given order.
fn parallel_pass(compiler: &dyn kmut_compile::Compile, sample: &[&str], workers: usize, options: &kmut_nvrtc::Options) -> Pass {
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
    let (next, made, failures) = (AtomicUsize::new(0), AtomicUsize::new(0), AtomicUsize::new(0));
    let first_log = std::sync::Mutex::new(None::<String>);
    let start = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                while let Some(s) = sample.get(next.fetch_add(1, Relaxed)) {
                    match compiler.compile(s, "kernel.cu", options) {
                        Ok(o) if o.image.is_some() => {
                            made.fetch_add(1, Relaxed);
                        }
                        Ok(o) => {
                            first_log.lock().expect("log lock").get_or_insert(o.log);
                        }
                        Err(_) => {
                            failures.fetch_add(1, Relaxed);
                        }
                    }
                }
            });
        }
    });
    Pass { secs: start.elapsed().as_secs_f64(), made: made.into_inner(), failures: failures.into_inner(), first_log: first_log.into_inner().expect("log lock") }
}

/// `kmut bench compare`: the comparisons run in the Python workers, so they are timed there
/// (`python -m kmut.bench_compare`); this passes the options on.
pub fn compare(args: &crate::args::BenchCompareArgs, env: &Environment) -> anyhow::Result<ExitStatus> {
    let mut cmd = std::process::Command::new(&env.python);
    cmd.args(["-m", "kmut.bench_compare"]).args([
        "--elements",
        &args.elements.to_string(),
        "--steps",
        &args.steps.to_string(),
        "--repeat",
        &args.repeat.to_string(),
    ]);
    if let Some(d) = &args.device {
        cmd.args(["--device", d]);
    }
    if args.json {
        cmd.arg("--json");
    }
    let status = cmd.status().with_context(|| format!("starting {}", env.python.display()))?;
    anyhow::ensure!(status.success(), "`python -m kmut.bench_compare` failed (its error is above)");
    Ok(ExitStatus::Success)
}

/// `kmut bench draw`: `torch.rand` against `kmut.fastrand` on the same seed, timed in Python
/// (`python -m kmut.fastrand`); this passes the options on.
pub fn draw(args: &crate::args::BenchDrawArgs, env: &Environment) -> anyhow::Result<ExitStatus> {
    let mut cmd = std::process::Command::new(&env.python);
    cmd.args(["-m", "kmut.fastrand", "--elements", &args.elements.to_string(), "--repeat", &args.repeat.to_string()]);
    if args.json {
        cmd.arg("--json");
    }
    let status = cmd.status().with_context(|| format!("starting {}", env.python.display()))?;
    anyhow::ensure!(status.success(), "`python -m kmut.fastrand` failed (its error is above)");
    Ok(ExitStatus::Success)
}

/// `kmut bench streams`: kernels on CUDA streams are launched and timed in Python
/// (`python -m kmut.bench_streams`); this passes the options on. Its exit status is the
/// module's: 1 when nothing was measured or some copy's output differed between the serial and
/// the concurrent pass, 2 without a GPU.
pub fn streams(args: &crate::args::BenchStreamsArgs, env: &Environment) -> anyhow::Result<ExitStatus> {
    let mut cmd = std::process::Command::new(&env.python);
    cmd.args(["-m", "kmut.bench_streams", "--sample", &args.sample.to_string(), "--streams", &args.streams]);
    cmd.args(["--repeat", &args.repeat.to_string(), "--memory-fraction", &args.memory_fraction.to_string()]);
    cmd.args(["--seconds", &args.seconds.to_string()]);
    if args.json {
        cmd.arg("--json");
    }
    if args.census {
        cmd.args(["--census", "--sms", &args.sms.to_string()]);
    }
    cmd.args(&args.substrates);
    let status = cmd.status().with_context(|| format!("starting {}", env.python.display()))?;
    anyhow::ensure!(status.success(), "`python -m kmut.bench_streams` failed ({status}; its error is above)");
    Ok(ExitStatus::Success)
}
