//! One worker process per candidate: started, read line by line, killed when it overruns.
//!
//! Isolation is the point: a candidate's kernel may fault and poison its CUDA context, segfault
//! the interpreter, or spin forever. None of that may touch the orchestrator or the next
//! candidate, and every check already reported survives.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use crate::check::{Backend, Check, CheckResult, Status};
use crate::verdict::Verdict;

/// How to run a worker.
#[derive(Debug, Clone)]
pub struct WorkerOptions {
    /// The Python interpreter that has kmut and torch.
    pub python: PathBuf,
    /// NVRTC target when no GPU tells otherwise.
    pub arch: String,
    /// Wall-clock limit for one candidate.
    pub timeout: Duration,
    /// Where the numeric checks run (the worker's `--backend`).
    pub backend: Backend,
    /// Share of the GPU's memory the worker may allocate (`torch.cuda.set_per_process_memory_fraction`):
    /// the jobs of one gate together never oversubscribe the GPU; one that needs more runs out
    /// of memory in its own process, and is retried with the GPU to itself.
    pub memory_fraction: f64,
    /// Threads the worker's torch may use on the CPU (`torch.set_num_threads`): the cores over
    /// the jobs, so N jobs' CPU checks (the small-suite time among them) do not fight for cores.
    pub cpu_threads: usize,
}

/// Everything the gate learned about one candidate.
#[derive(Debug, Clone)]
pub struct CandidateReport {
    pub path: PathBuf,
    pub results: Vec<CheckResult>,
    pub verdict: Verdict,
    /// The substrate's `name` field, once the contract check passed.
    pub name: Option<String>,
    pub elapsed: Duration,
    /// The backend the numeric checks were asked to run on.
    pub backend: Backend,
}

impl CandidateReport {
    pub fn result(&self, check: Check) -> Option<&CheckResult> {
        self.results.iter().find(|r| r.check == check)
    }
}

enum Line {
    Result(Box<CheckResult>),
    Garbage(String),
}

/// Run the worker on `path` and collect its report. Never fails: a worker that cannot start,
/// crashes or times out yields `Lost` results carrying the reason.
pub fn run_worker(path: &Path, options: &WorkerOptions) -> CandidateReport {
    let start = Instant::now();
    let mut results = Vec::new();
    let mut stray = Vec::new();
    let failure = match spawn_and_collect(path, options, &mut results, &mut stray) {
        Ok(status) if status.success() => None,
        Ok(status) => Some(describe_exit(status)),
        Err(reason) => Some(reason),
    };
    if let Some(reason) = failure {
        let mut reason = reason;
        if !stray.is_empty() {
            reason.push_str("; it printed: ");
            reason.push_str(&stray.join(" | "));
        }
        for check in Check::ALL {
            if !results.iter().any(|r: &CheckResult| r.check == check) {
                results.push(CheckResult { check, status: Status::Lost, detail: reason.clone(), data: serde_json::Value::Null });
            }
        }
    }
    results.sort_by_key(|r| r.check);
    let name = results
        .iter()
        .find(|r| r.check == Check::Contract && r.status == Status::Pass)
        .and_then(|r| r.data.get("name"))
        .and_then(|v| v.as_str())
        .map(str::to_owned);
    let verdict = Verdict::classify(&results);
    CandidateReport { path: path.to_path_buf(), results, verdict, name, elapsed: start.elapsed(), backend: options.backend }
}

fn spawn_and_collect(path: &Path, options: &WorkerOptions, results: &mut Vec<CheckResult>, stray: &mut Vec<String>) -> Result<ExitStatus, String> {
    let mut command = Command::new(&options.python);
    command
        .args(["-m", "kmut._gate_worker"])
        .arg(path)
        .args(["--arch", &options.arch])
        .args(["--backend", options.backend.name()])
        .args(["--memory-fraction", &format!("{:.4}", options.memory_fraction)])
        .args(["--cpu-threads", &options.cpu_threads.max(1).to_string()])
        .env("PYTHONUNBUFFERED", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    // A gate killed mid-way must not leave workers on the GPU.
    kmut_process::die_with_parent(&mut command);
    let mut child = command.spawn().map_err(|e| format!("could not start the worker `{} -m kmut._gate_worker`: {e}", options.python.display()))?;
    let stdout = child.stdout.take().expect("stdout was piped");
    let (tx, rx) = mpsc::channel();
    let reader = thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let parsed = match serde_json::from_str::<CheckResult>(&line) {
                Ok(r) => Line::Result(Box::new(r)),
                Err(_) => Line::Garbage(line),
            };
            if tx.send(parsed).is_err() {
                break;
            }
        }
    });
    let deadline = Instant::now() + options.timeout;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(Line::Result(r)) => results.push(*r),
            Ok(Line::Garbage(text)) => stray.push(text),
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("the worker was killed after the {} s time limit", options.timeout.as_secs()));
            }
        }
    }
    let _ = reader.join();
    child.wait().map_err(|e| format!("could not wait for the worker: {e}"))
}

fn describe_exit(status: ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("the worker died with signal {signal}");
        }
    }
    format!("the worker exited with {status}")
}
