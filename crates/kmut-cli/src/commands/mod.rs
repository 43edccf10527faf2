//! One module per subcommand.

mod gate;

use crate::args::{Cli, Command};
use crate::{Environment, ExitStatus};

pub fn run(cli: Cli, env: &Environment) -> anyhow::Result<ExitStatus> {
    match cli.command {
        Command::Gate(args) => gate::run(&args, env),
    }
}
