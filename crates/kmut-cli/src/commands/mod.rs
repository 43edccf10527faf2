//! One module per subcommand.

mod agree;
mod audit;
mod bench;
mod bench_run;
mod ceiling;
mod compile;
mod depth;
mod gate;
mod mutate;
mod report;
mod rules;
mod run;
mod score;
mod store;
mod synth;
mod witness;

use crate::args::{BenchCommand, Cli, Command, StoreCommand};
use crate::{Environment, ExitStatus};

pub fn run(cli: Cli, env: &Environment) -> anyhow::Result<ExitStatus> {
    match cli.command {
        Command::Gate(args) => gate::run(&args, env),
        Command::Rules(args) => rules::run(&args),
        Command::Mutate(args) => mutate::run(&args, env),
        Command::Compile(args) => compile::run(&args, env),
        Command::Run(args) => run::run(&args, env),
        Command::Witness(args) => witness::run(*args, env),
        Command::Ceiling(args) => ceiling::run(&args, env),
        Command::Score(args) => score::run(&args),
        Command::Agree(args) => agree::run(&args),
        Command::Synth(args) => synth::run(&args, env),
        Command::Depth(args) => depth::run(&args),
        Command::Report(args) => report::run(&args),
        Command::Audit(args) => audit::run(&args, env),
        Command::Bench(BenchCommand::Mutate(args)) => bench::mutate(&args, env),
        Command::Bench(BenchCommand::Compile(args)) => bench::compile(&args, env),
        Command::Bench(BenchCommand::Run(args)) => bench_run::run(&args, env),
        Command::Bench(BenchCommand::Compare(args)) => bench::compare(&args, env),
        Command::Bench(BenchCommand::Draw(args)) => bench::draw(&args, env),
        Command::Bench(BenchCommand::Streams(args)) => bench::streams(&args, env),
        Command::Store(StoreCommand::Prune(args)) => store::prune(&args),
        Command::CompileWorker(args) => compile::worker(&args, env),
    }
}

/// This machine's cores (1 when it cannot tell): the default of every thread and worker count.
pub(crate) fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}
