//! One worker process: spawning it, sending requests, and turning its stdout into events on
//! the engine's channel. Each event carries the worker's id (unique per process), so lines from a
//! worker that has since been killed and replaced are recognised and dropped.

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::Sender;
use std::time::Instant;

use crate::protocol::{Event, Request};
use crate::ExecError;

/// What a worker said, or that it is gone.
#[derive(Debug)]
pub enum Said {
    Line(Event),
    /// Its stdout closed: it exited or was killed.
    Gone,
}

#[derive(Debug)]
pub struct Heard {
    /// The id given at spawn: the engine maps it to a slot or to the spare pool.
    pub worker: u64,
    pub said: Said,
    /// When the reader thread heard it: the engine times kernels from these instants, so a
    /// line that waits in the channel (while a round's images are made) is not counted as
    /// kernel time.
    pub at: Instant,
}

pub struct WorkerProcess {
    child: Child,
    stdin: ChildStdin,
}

impl WorkerProcess {
    /// Start `command` (program and arguments) on `device`; its stderr goes to `log`.
    pub fn spawn(command: &[String], device: u32, scratch: Option<&Path>, log: &Path, worker: u64, events: Sender<Heard>) -> Result<WorkerProcess, ExecError> {
        let spawn_err = |source| ExecError::Spawn { command: command.join(" "), source };
        let (program, args) = command.split_first().expect("a worker command");
        let mut cmd = Command::new(program);
        cmd.args(args).arg("--device").arg(device.to_string());
        if let Some(dir) = scratch {
            cmd.arg("--scratch").arg(dir);
        }
        let stderr = std::fs::OpenOptions::new().create(true).append(true).open(log).map_err(spawn_err)?;
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::from(stderr));
        // The worker must not inherit the orchestrator's Ctrl-C (the orchestrator decides when
        // it stops, finishing or abandoning the evaluation in flight), and must not outlive it.
        kmut_process::die_with_parent(&mut cmd);
        let mut child = cmd.spawn().map_err(spawn_err)?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                // A line that is not an event is the worker's bug; `Noise` shows it rather than drop it.
                if events.send(Heard { worker, said: Said::Line(Event::parse(&line)), at: Instant::now() }).is_err() {
                    return;
                }
            }
            let _ = events.send(Heard { worker, said: Said::Gone, at: Instant::now() });
        });
        Ok(WorkerProcess { child, stdin })
    }

    /// Send one request line. A worker that has died cannot be written to; its `Gone` event is
    /// already on its way, so the error is not reported here.
    pub fn send(&mut self, request: &Request<'_>) -> bool {
        writeln!(self.stdin, "{}", request.line()).and_then(|()| self.stdin.flush()).is_ok()
    }

    /// Kill it now (SIGKILL: a kernel that hangs ignores anything gentler) and reap it.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// How it ended, waiting up to a second for the exit after its output closed (the pipe
    /// closes a moment before the process is reaped, and the status names a segfault).
    pub fn exit_status(&mut self) -> Option<Exit> {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(1);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return Some(Exit::from(status)),
                Ok(None) if std::time::Instant::now() < deadline => std::thread::sleep(std::time::Duration::from_millis(5)),
                _ => return None,
            }
        }
    }

    /// Ask it to quit, then make sure it is gone.
    pub fn quit(mut self) {
        let _ = self.send(&Request::Quit);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while std::time::Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        self.kill();
    }
}

/// How a worker process ended: its exit code, or the signal that killed it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exit {
    pub code: Option<i32>,
    pub signal: Option<i32>,
}

impl Exit {
    /// Killed by a signal for a bad memory access (SIGSEGV, or SIGBUS; Linux numbering): the CPU
    /// backend's guard pages, a wild pointer.
    pub fn memory_fault(self) -> bool {
        const SIGBUS: i32 = 7;
        const SIGSEGV: i32 = 11;
        matches!(self.signal, Some(SIGSEGV | SIGBUS))
    }

    /// Killed by SIGKILL from outside (the engine's own kills are never reported): the
    /// kernel's OOM killer, an operator. Nothing a mutant's kernel can do to its host process.
    pub fn killed(self) -> bool {
        const SIGKILL: i32 = 9;
        self.signal == Some(SIGKILL)
    }
}

impl From<std::process::ExitStatus> for Exit {
    fn from(status: std::process::ExitStatus) -> Exit {
        #[cfg(unix)]
        let signal = std::os::unix::process::ExitStatusExt::signal(&status);
        #[cfg(not(unix))]
        let signal = None;
        Exit { code: status.code(), signal }
    }
}

impl std::fmt::Display for Exit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.signal, self.code) {
            (Some(sig), _) => write!(f, "killed by signal {sig}"),
            (None, Some(code)) => write!(f, "exit code {code}"),
            (None, None) => f.write_str("ended"),
        }
    }
}
