//! The `kmut` command line. `main` parses, dispatches to one module per subcommand in
//! `commands/`, and turns the outcome into an exit code; errors print as `error:` followed by
//! one `Caused by:` line per cause.
//!
//! The binary is not standalone: the `kmut` Python entry point calls [`main`] through the
//! native module, passing the interpreter that runs kmut (workers are started with it) and its
//! site directories (where NVRTC's wheel is found).
#![allow(clippy::print_stdout, clippy::print_stderr)] // this crate owns the terminal

mod args;
mod commands;
mod exit;
mod table;

use std::path::PathBuf;

use clap::Parser;

pub use exit::ExitStatus;

/// Reads a substrate file into the description the mutation stage needs. The Python side
/// implements it (substrates are Python modules); see `kmut.describe`.
pub type Describer = dyn Fn(&std::path::Path) -> anyhow::Result<kmut_model::SubstrateDescription> + Send + Sync;

/// Where kmut runs: the Python side's facts and services the CLI needs.
pub struct Environment {
    pub python: PathBuf,
    pub site_dirs: Vec<PathBuf>,
    pub describe: Box<Describer>,
}

/// Run the command line `argv` (program name first) and return the process exit code.
pub fn main(argv: Vec<String>, env: &Environment) -> i32 {
    quiet_broken_pipe();
    let cli = match args::Cli::try_parse_from(argv) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { ExitStatus::Usage as i32 } else { ExitStatus::Success as i32 };
        }
    };
    match commands::run(cli, env) {
        Ok(status) => status as i32,
        Err(err) => {
            eprintln!("error: {err}");
            for cause in err.chain().skip(1) {
                eprintln!("  Caused by: {cause}");
            }
            ExitStatus::Error as i32
        }
    }
}

/// `kmut mutate | head` closes stdout early: end quietly with the shell's SIGPIPE status (141)
/// instead of a panic and a backtrace. Python ignores SIGPIPE, so Rust's `println!` panics on
/// the closed pipe; restoring the signal's default instead would also kill the orchestrator
/// when it writes to a worker that has just died, which the engine handles as a death.
fn quiet_broken_pipe() {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let message = info.payload().downcast_ref::<String>().map(String::as_str).or_else(|| info.payload().downcast_ref::<&str>().copied());
            if message.is_some_and(|m| m.starts_with("failed printing to stdout") && m.contains("Broken pipe")) {
                std::process::exit(141);
            }
            previous(info);
        }));
    });
}
