//! `kmut store prune`: remove stale mutants and their results, saying what goes.

use kmut_store::Store;

use crate::args::PruneArgs;
use crate::commands::compile::store_path;
use crate::ExitStatus;

pub fn prune(args: &PruneArgs) -> anyhow::Result<ExitStatus> {
    let path = store_path(args.store.as_deref());
    anyhow::ensure!(path.is_file(), "no store at `{}` (pass --store)", path.display());
    let mut store = Store::open(&path)?;
    let pruned = store.prune(&args.substrates, args.dry_run)?;
    let verb = if args.dry_run { "would remove" } else { "removed" };
    if pruned.is_empty() {
        println!("no stale mutants in `{}`: nothing to remove", path.display());
        return Ok(ExitStatus::Success);
    }
    let rows: Vec<Vec<String>> = pruned.iter().map(|p| vec![p.substrate.clone(), p.mutants.to_string(), p.evaluations.to_string()]).collect();
    print!("{}", crate::table::render(&["substrate", "stale mutants", "their evaluations"], &rows));
    let (m, e): (usize, usize) = pruned.iter().fold((0, 0), |(m, e), p| (m + p.mutants, e + p.evaluations));
    println!("{verb} {m} stale mutants and {e} evaluations of them (with their compilations and classes) from `{}`", path.display());
    Ok(ExitStatus::Success)
}
