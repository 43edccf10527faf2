//! `kmut gate`: run every candidate through its worker, print the verdict table, accept.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use anyhow::Context as _;
use kmut_gate::{accept, render_table, run_worker, Backend, Verdict, WorkerOptions};

use crate::args::GateArgs;
use crate::{Environment, ExitStatus};

pub fn run(args: &GateArgs, env: &Environment) -> anyhow::Result<ExitStatus> {
    for path in &args.paths {
        anyhow::ensure!(path.is_file(), "`{}` is not a file", path.display());
    }
    let backend = Backend::parse(&args.backend).map_err(anyhow::Error::msg)?;
    if backend == Backend::Cpu {
        refuse_cpu_acceptance(args.accept)?;
        find_cpu_compiler()?;
    }
    let jobs = args.jobs.max(1).min(args.paths.len().max(1));
    let options = WorkerOptions {
        python: env.python.clone(),
        arch: args.arch.clone(),
        timeout: Duration::from_secs(args.timeout),
        backend,
        // Each of the N jobs asked for starts with its share, however many candidates there are.
        memory_fraction: GPU_SHARE / args.jobs.max(1) as f64,
        cpu_threads: crate::commands::cores() / jobs,
    };
    let reports = gate_all(&args.paths, &options, jobs, args.json.as_deref());
    print!("{}", render_table(&reports));
    if let Some(path) = &args.json {
        write_atomically(path, &serde_json_report(&reports)).with_context(|| format!("could not write `{}`", path.display()))?;
    }
    if args.accept {
        for r in &reports {
            if r.verdict != Verdict::Pass {
                continue;
            }
            let name = r.name.as_deref().context("a passing candidate always has a name")?;
            let dir = accepted_dir(&r.path);
            let target = accept(&r.path, name, &dir)?;
            if target != r.path {
                eprintln!("accepted {} -> {}", r.path.display(), target.display());
            }
        }
        let owed = reports.iter().filter(|r| r.verdict == Verdict::PrecheckPass).count();
        if owed > 0 {
            eprintln!("{owed} candidate(s) passed the checks that need no GPU; --accept needs a GPU for the rest");
        }
    }
    let failed = reports.iter().any(|r| r.verdict.is_failure());
    Ok(if failed { ExitStatus::Failure } else { ExitStatus::Success })
}

/// The CPU backend's checks are a pre-check: a candidate is accepted only on GPU evidence, so
/// asking for both is a mistake to stop before any work, not after minutes of checks.
fn refuse_cpu_acceptance(accept: bool) -> anyhow::Result<()> {
    anyhow::ensure!(
        !accept,
        "--accept cannot be used with --backend cpu: acceptance needs the GPU checks; run `kmut gate --accept` (without --backend cpu) on a GPU"
    );
    Ok(())
}

/// Every candidate would fail its compile check without a C++ compiler; say so once, up front.
fn find_cpu_compiler() -> anyhow::Result<()> {
    // The error's own text names the program it tried ($KMUT_CXX, else g++) and why it failed.
    kmut_cpu::Compiler::find().map(drop).map_err(|e| {
        anyhow::anyhow!(
            "`kmut gate --backend cpu` builds kernels with a C++17 compiler and found none: {e}; install g++ (looked up on PATH) or set $KMUT_CXX to one"
        )
    })
}

/// The share of the GPU's memory the gate's jobs take together: the rest is for CUDA contexts
/// and the allocator's rounding.
const GPU_SHARE: f64 = 0.9;

fn environment_detail(r: &kmut_gate::CandidateReport) -> String {
    r.results.iter().find(|x| x.status == kmut_gate::Status::Environment).map_or_else(String::new, |x| x.detail.chars().take(200).collect())
}

/// The work left: candidates (by index) with the share of the GPU's memory they will run with,
/// the share not handed out, and the workers running.
struct Pending {
    queue: VecDeque<(usize, f64)>,
    free: f64,
    running: usize,
}

/// Run every candidate's worker, at most `jobs` at a time, each with `options.memory_fraction`
/// of the GPU's memory; reports come back in the order given. A candidate the machine failed
/// (out of memory within its share) runs again with twice the share once that much is free,
/// up to the whole `GPU_SHARE` with the GPU to itself; only then is it an ERROR. The shares
/// running at once never add up to more than `GPU_SHARE`. With `json`, the report of every
/// candidate finished so far is rewritten there as each finishes, so a gate killed midway (a
/// time limit, a lost machine) keeps what it learned.
fn gate_all(paths: &[std::path::PathBuf], options: &WorkerOptions, jobs: usize, json: Option<&Path>) -> Vec<kmut_gate::CandidateReport> {
    let n = paths.len();
    let start = options.memory_fraction.min(GPU_SHARE);
    let pending = Mutex::new(Pending { queue: (0..n).map(|i| (i, start)).collect(), free: GPU_SHARE, running: 0 });
    let changed = Condvar::new();
    let slots: Mutex<Vec<Option<kmut_gate::CandidateReport>>> = Mutex::new(vec![None; n]);
    // The next candidate whose share fits in what is free, waiting while others run.
    let take = || -> Option<(usize, f64)> {
        let mut p = pending.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        loop {
            if let Some(at) = p.queue.iter().position(|&(_, share)| share <= p.free + 1e-9) {
                let (i, share) = p.queue.remove(at).expect("found");
                p.free -= share;
                p.running += 1;
                return Some((i, share));
            }
            if p.queue.is_empty() && p.running == 0 {
                return None;
            }
            if p.queue.is_empty() {
                // Nothing left to start; a running candidate may still come back larger.
                p = changed.wait(p).unwrap_or_else(std::sync::PoisonError::into_inner);
                if p.queue.is_empty() && p.running == 0 {
                    return None;
                }
                continue;
            }
            p = changed.wait(p).unwrap_or_else(std::sync::PoisonError::into_inner);
        }
    };
    std::thread::scope(|scope| {
        for _ in 0..jobs.min(n) {
            scope.spawn(|| {
                while let Some((i, share)) = take() {
                    let path = &paths[i];
                    let again = if share > start + 1e-9 { format!(" again with {share:.0}% of the GPU", share = share * 100.0) } else { String::new() };
                    eprintln!("[{}/{n}] gate {}{again}", i + 1, path.display());
                    let report = run_worker(path, &WorkerOptions { memory_fraction: share, ..options.clone() });
                    eprintln!("[{}/{n}] {} {} in {:.1} s", i + 1, path.display(), report.verdict.label(), report.elapsed.as_secs_f64());
                    let retry = report.verdict == Verdict::Error && share < GPU_SHARE - 1e-9;
                    if retry {
                        eprintln!(
                            "[{}/{n}] {}: the machine failed ({}); it runs again with more of the GPU",
                            i + 1,
                            path.display(),
                            environment_detail(&report)
                        );
                    }
                    {
                        let mut p = pending.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                        p.free += share;
                        p.running -= 1;
                        if retry {
                            p.queue.push_back((i, (share * 2.0).min(GPU_SHARE)));
                        }
                    }
                    changed.notify_all();
                    if retry {
                        continue;
                    }
                    let mut done = slots.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                    done[i] = Some(report);
                    if let Some(path) = json {
                        let so_far: Vec<kmut_gate::CandidateReport> = done.iter().flatten().cloned().collect();
                        if let Err(e) = write_atomically(path, &serde_json_report(&so_far)) {
                            eprintln!("warning: could not write `{}`: {e}", path.display());
                        }
                    }
                }
            });
        }
    });
    slots.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner).into_iter().flatten().collect()
}

/// `substrates/accepted/` for `substrates/candidate_x.py`; the folder itself for a file already in it.
fn accepted_dir(path: &Path) -> std::path::PathBuf {
    let parent = path.parent().unwrap_or(Path::new("."));
    if parent.file_name().is_some_and(|n| n == "accepted") {
        parent.to_path_buf()
    } else {
        parent.join("accepted")
    }
}

/// Write `text` to `path` through a temporary file beside it, so a reader never sees half a report.
fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path)
}

fn serde_json_report(reports: &[kmut_gate::CandidateReport]) -> String {
    let items: Vec<serde_json::Value> = reports
        .iter()
        .map(|r| {
            serde_json::json!({
                "path": r.path.display().to_string(),
                "name": r.name,
                "verdict": r.verdict.label(),
                "backend": r.backend.name(),
                "elapsed_s": r.elapsed.as_secs_f64(),
                "checks": r.results,
            })
        })
        .collect();
    serde_json::to_string_pretty(&items).unwrap_or_default()
}
