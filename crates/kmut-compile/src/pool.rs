//! What compiles a source: NVRTC in this process, or a pool of worker processes.
//!
//! NVRTC serialises part of its work inside one process: on the H200's 16-core host, 16 threads
//! gave 4.6x one thread while 16 processes reached about 188 compiles/s (on a 2-core machine
//! both give about 2x; `kmut bench compile` measures both). Separate processes each load their
//! own NVRTC and scale with the cores. A [`ProcessPool`] keeps up to
//! N workers (`kmut compile-worker`, started on first use and reused), and a stage with N
//! threads keeps each busy.
//!
//! The worker protocol, one request at a time: the parent writes a JSON line
//! `{"source": ..., "name": ..., "arch": ..., "extra": [...]}`; the worker answers a JSON line
//! `{"log": ..., "image": N}` followed by the N bytes of the CUBIN (`"image": null` when NVRTC
//! rejected the source), or `{"error": ...}` when NVRTC itself failed.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Condvar, Mutex};

use kmut_nvrtc::{Compiler, Options};
use serde::{Deserialize, Serialize};

use crate::CompileError;

/// One source compiled: the CUBIN, or `None` and NVRTC's log saying why not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    pub image: Option<Vec<u8>>,
    pub log: String,
}

/// Anything that compiles CUDA to CUBIN, from any number of threads at once.
pub trait Compile: Sync {
    fn compile(&self, source: &str, name: &str, options: &Options) -> Result<Output, CompileError>;
}

impl Compile for Compiler {
    fn compile(&self, source: &str, name: &str, options: &Options) -> Result<Output, CompileError> {
        let out = Compiler::compile(self, source, name, options)?;
        Ok(Output { image: out.image, log: out.log })
    }
}

#[derive(Serialize, Deserialize)]
pub struct Request {
    pub source: String,
    pub name: String,
    pub arch: String,
    pub extra: Vec<String>,
}

#[derive(Serialize, Deserialize)]
pub struct Reply {
    #[serde(default)]
    pub log: String,
    /// Bytes of CUBIN following the line; `None`: NVRTC rejected the source.
    pub image: Option<usize>,
    /// NVRTC could not run at all (not a verdict on the source).
    #[serde(default)]
    pub error: Option<String>,
}

struct Worker {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Up to `size` worker processes running `command`, each compiling one source at a time.
pub struct ProcessPool {
    command: Vec<String>,
    size: usize,
    idle: Mutex<(Vec<Worker>, usize)>,
    freed: Condvar,
}

impl ProcessPool {
    /// A pool of at most `size` workers started (on demand) from `command`, program first.
    pub fn new(command: Vec<String>, size: usize) -> ProcessPool {
        assert!(!command.is_empty(), "a worker command");
        ProcessPool { command, size: size.max(1), idle: Mutex::new((Vec::new(), 0)), freed: Condvar::new() }
    }

    pub fn size(&self) -> usize {
        self.size
    }

    fn spawn(&self) -> Result<Worker, CompileError> {
        let (program, args) = self.command.split_first().expect("a worker command");
        let mut cmd = Command::new(program);
        cmd.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit());
        // Not PR_SET_PDEATHSIG: it fires when the *thread* that spawned the child ends, and the
        // stage's threads end after every pass while the pool lives on (a run's plan compiles
        // through it later). A worker never hangs (NVRTC returns), so it ends when its stdin
        // closes: when the pool is dropped or the orchestrator dies. Its own process group keeps
        // a Ctrl-C at the terminal for the orchestrator to handle.
        kmut_process::own_process_group(&mut cmd);
        let mut child = cmd.spawn().map_err(|e| CompileError::Worker(format!("could not start `{}`: {e}", self.command.join(" "))))?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        Ok(Worker { child, stdin, stdout })
    }

    /// An idle worker, a new one while fewer than `size` exist, or the next one freed.
    fn take(&self) -> Result<Worker, CompileError> {
        let mut guard = self.idle.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        loop {
            if let Some(mut w) = guard.0.pop() {
                if matches!(w.child.try_wait(), Ok(None)) {
                    return Ok(w);
                }
                // It died while idle: forget it and make room for a fresh one.
                guard.1 -= 1;
                continue;
            }
            if guard.1 < self.size {
                guard.1 += 1;
                drop(guard);
                return self.spawn().inspect_err(|_| {
                    self.idle.lock().unwrap_or_else(std::sync::PoisonError::into_inner).1 -= 1;
                });
            }
            guard = self.freed.wait(guard).unwrap_or_else(std::sync::PoisonError::into_inner);
        }
    }

    fn put_back(&self, worker: Option<Worker>) {
        let mut guard = self.idle.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match worker {
            Some(w) => guard.0.push(w),
            None => guard.1 -= 1,
        }
        drop(guard);
        self.freed.notify_one();
    }
}

fn ask(worker: &mut Worker, request: &Request) -> Result<Output, String> {
    let line = serde_json::to_string(request).map_err(|e| e.to_string())?;
    writeln!(worker.stdin, "{line}").and_then(|()| worker.stdin.flush()).map_err(|e| format!("could not send a source: {e}"))?;
    let mut header = String::new();
    let n = worker.stdout.read_line(&mut header).map_err(|e| format!("could not read its answer: {e}"))?;
    if n == 0 {
        let status = worker.child.wait().map_or_else(|e| e.to_string(), |s| s.to_string());
        return Err(format!("the worker exited ({status})"));
    }
    let reply: Reply = serde_json::from_str(&header).map_err(|e| format!("unreadable answer {header:?}: {e}"))?;
    if let Some(e) = reply.error {
        return Err(e);
    }
    let image = match reply.image {
        Some(len) => {
            let mut bytes = vec![0; len];
            worker.stdout.read_exact(&mut bytes).map_err(|e| format!("could not read the image: {e}"))?;
            Some(bytes)
        }
        None => None,
    };
    Ok(Output { image, log: reply.log })
}

impl Compile for ProcessPool {
    fn compile(&self, source: &str, name: &str, options: &Options) -> Result<Output, CompileError> {
        let request = Request { source: source.to_owned(), name: name.to_owned(), arch: options.arch.clone(), extra: options.extra.clone() };
        // A worker that died is replaced once; a second failure is the compiler's, reported.
        let mut last = String::new();
        for _ in 0..2 {
            let mut worker = self.take()?;
            match ask(&mut worker, &request) {
                Ok(out) => {
                    self.put_back(Some(worker));
                    return Ok(out);
                }
                Err(e) => {
                    last = e;
                    self.put_back(None);
                }
            }
        }
        Err(CompileError::Worker(format!("`{}`: {last}", self.command.join(" "))))
    }
}

/// Serve the worker protocol on stdin/stdout with `compiler` until stdin closes
/// (`kmut compile-worker`).
pub fn serve(compiler: &Compiler) -> std::io::Result<()> {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let reply = match serde_json::from_str::<Request>(&line) {
            Err(e) => (Reply { log: String::new(), image: None, error: Some(format!("a malformed request: {e}")) }, None),
            Ok(r) => match compiler.compile(&r.source, &r.name, &Options { arch: r.arch, extra: r.extra }) {
                Ok(c) => (Reply { log: c.log, image: c.image.as_ref().map(Vec::len), error: None }, c.image),
                Err(e) => (Reply { log: String::new(), image: None, error: Some(e.to_string()) }, None),
            },
        };
        writeln!(out, "{}", serde_json::to_string(&reply.0).unwrap_or_default())?;
        if let Some(bytes) = reply.1 {
            out.write_all(&bytes)?;
        }
        out.flush()?;
    }
    Ok(())
}
