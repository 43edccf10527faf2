//! `kmut gate`: run every candidate through its worker, print the verdict table, accept.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
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
        memory_fraction: GPU_SHARE / jobs as f64,
    };
    let mut reports = gate_all(&args.paths, &options, jobs, args.json.as_deref());
    retry_alone(&mut reports, &options);
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

/// Candidates the machine failed (out of memory beside the other jobs, ...) are gated again,
/// one at a time with the GPU's whole share: what fails again is an ERROR, never a FAIL.
fn retry_alone(reports: &mut [kmut_gate::CandidateReport], options: &WorkerOptions) {
    let alone = WorkerOptions { memory_fraction: GPU_SHARE, ..options.clone() };
    for r in reports.iter_mut().filter(|r| r.verdict == Verdict::Error) {
        eprintln!("gate {}: the machine failed ({}); gating it again with the GPU to itself", r.path.display(), environment_detail(r));
        let again = run_worker(&r.path, &alone);
        eprintln!("gate {}: {} in {:.1} s", r.path.display(), again.verdict.label(), again.elapsed.as_secs_f64());
        *r = again;
    }
}

fn environment_detail(r: &kmut_gate::CandidateReport) -> String {
    r.results.iter().find(|x| x.status == kmut_gate::Status::Environment).map_or_else(String::new, |x| x.detail.clone())
}

/// Run every candidate's worker, `jobs` at a time; reports come back in the order given. With
/// `json`, the report of every candidate finished so far is rewritten there as each finishes,
/// so a gate killed midway (a time limit, a lost machine) keeps what it learned.
fn gate_all(paths: &[std::path::PathBuf], options: &WorkerOptions, jobs: usize, json: Option<&Path>) -> Vec<kmut_gate::CandidateReport> {
    let next = AtomicUsize::new(0);
    let slots: Mutex<Vec<Option<kmut_gate::CandidateReport>>> = Mutex::new(vec![None; paths.len()]);
    let n = paths.len();
    std::thread::scope(|scope| {
        for _ in 0..jobs.min(n) {
            scope.spawn(|| {
                let take = || {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    paths.get(i).map(|p| (i, p))
                };
                while let Some((i, path)) = take() {
                    eprintln!("[{}/{n}] gate {}", i + 1, path.display());
                    let report = run_worker(path, options);
                    eprintln!("[{}/{n}] {} {} in {:.1} s", i + 1, path.display(), report.verdict.label(), report.elapsed.as_secs_f64());
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
