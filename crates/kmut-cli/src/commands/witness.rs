//! `kmut witness`: the witness search (a run on the witness search's inputs), and `--replay`.

use std::path::Path;

use anyhow::Context as _;
use kmut_model::{Backend, Inputs, Protocol};
use kmut_store::{Baseline, Evaluation, Store};
use kmut_witness::Witness;

use crate::args::{RunArgs, Selection, WitnessArgs};
use crate::commands::compile::store_path;
use crate::{Environment, ExitStatus};

pub fn run(args: WitnessArgs, env: &Environment) -> anyhow::Result<ExitStatus> {
    match &args.replay {
        Some(mutant) => replay(&args.run, mutant, env),
        None => search(args.run, env),
    }
}

/// `kmut run` on the witness search's inputs, stopping each mutant at its first kill.
fn search(mut args: RunArgs, env: &Environment) -> anyhow::Result<ExitStatus> {
    "witness".clone_into(&mut args.suites);
    args.full_matrix = false;
    super::run::run(&args, env)
}

/// Where a mutant's cells are: its substrate, and the compile and evaluation targets holding them.
struct Located {
    substrate: kmut_model::SubstrateDescription,
    eval_target: String,
    /// The current original's image, which its baselines are of.
    original: Option<String>,
    cells: Vec<Evaluation>,
    baselines: Vec<Baseline>,
}

fn locate(store: &Store, mutant: &str, backend: Backend) -> anyhow::Result<Located> {
    let name = store.substrate_of(mutant)?.with_context(|| format!("the store `{}` has no mutant `{mutant}`", store.path().display()))?;
    let substrate = store.substrates()?.into_iter().find(|d| d.name == name).with_context(|| format!("the store has no description of {name}"))?;
    let compile_target = store.targets(&name)?.into_iter().next().with_context(|| format!("{name} was never compiled in this store"))?;
    let eval_target = backend.evaluation_target(&compile_target);
    let current = store.current_images(&substrate, &compile_target, backend)?;
    let image = current.mutants.get(mutant).cloned();
    let cells = store.evaluations(&name, &eval_target)?.into_iter().filter(|e| e.mutant == mutant && Some(&e.image) == image.as_ref()).collect();
    let baselines = store.baselines(&name, &eval_target)?.into_iter().filter(|b| b.image.is_some() && b.image == current.original).collect();
    Ok(Located { substrate, eval_target, original: current.original, cells, baselines })
}

/// Replay the stored witness of `mutant` in a scratch copy of the store: the witness column
/// (and any column after it in the search's order) is forgotten there, and the run evaluates
/// the original and the mutant on it again.
#[allow(clippy::print_stdout)] // the command's output
fn replay(args: &RunArgs, mutant: &str, env: &Environment) -> anyhow::Result<ExitStatus> {
    let protocol = Protocol::named(&args.protocol).map_err(anyhow::Error::msg)?;
    let backend = Backend::parse(&args.backend).map_err(anyhow::Error::msg)?;
    let tolerance = protocol.tolerance();
    let path = store_path(args.store.as_deref());
    anyhow::ensure!(path.exists(), "no store at `{}`", path.display());
    let store = Store::open(&path)?;
    let found = locate(&store, mutant, backend)?;
    let order: Vec<(String, u64)> = protocol.columns_for(&found.substrate, Inputs::Witness.on(backend)).into_iter().map(|c| (c.suite, c.seed)).collect();
    let search = kmut_score::witness_columns(&store, &found.substrate, &found.eval_target, found.original.as_deref(), &protocol, backend, tolerance)?;
    let Some(witness) = kmut_witness::witness_of(&search, &found.cells, &found.baselines, tolerance) else {
        anyhow::bail!(
            "mutant `{mutant}` ({}) has no witness in `{}`: {} of its current cells are stored and none kills on a valid input; run `kmut witness` first (a mutant that a complete search cannot kill is possibly equivalent)",
            found.substrate.name,
            path.display(),
            found.cells.len()
        );
    };
    println!("witness of {mutant} ({}): {} seed {}", found.substrate.name, witness.suite, witness.seed);
    let dir = tempfile::tempdir().context("could not make a scratch folder for the replay")?;
    let copy = dir.path().join("replay.sqlite");
    store.copy_to(&copy)?;
    drop(store);
    forget_from_witness(&copy, &found, mutant, &order, &witness)?;
    let mut run = args.clone();
    run.substrates = vec![found.substrate.path.clone().into()];
    run.store = Some(copy.clone());
    run.select = Selection { mutants: vec![mutant.to_owned()], ..Selection::default() };
    "witness".clone_into(&mut run.suites);
    run.full_matrix = false;
    run.sample = None;
    run.budget = None;
    run.no_score = true;
    let status = super::run::run(&run, env)?;
    if status == ExitStatus::Interrupted {
        return Ok(status);
    }
    let replayed = locate(&Store::open(&copy)?, mutant, backend)?;
    let cell = replayed.cells.iter().find(|e| e.suite == witness.suite && e.seed == witness.seed);
    let base = replayed.baselines.iter().find(|b| b.suite == witness.suite && b.seed == witness.seed);
    Ok(report(&witness, cell, base, tolerance))
}

/// In the copy: forget the witness column and every later one in the search's order, for this
/// mutant, so the first-kill run reaches the witness again.
fn forget_from_witness(copy: &Path, found: &Located, mutant: &str, order: &[(String, u64)], witness: &Witness) -> anyhow::Result<()> {
    let store = Store::open(copy)?;
    let from = order.iter().position(|(s, n)| *s == witness.suite && *n == witness.seed).unwrap_or(0);
    for (suite, seed) in order.iter().skip(from) {
        if *suite == witness.suite && *seed == witness.seed || found.cells.iter().any(|e| e.suite == *suite && e.seed == *seed) {
            store.forget_column(&found.substrate.name, mutant, &found.eval_target, suite, *seed)?;
        }
    }
    Ok(())
}

fn tau_text(t: Option<f64>) -> String {
    t.map_or_else(|| "none (crashed)".into(), |t| format!("{t:.6e}"))
}

/// Stored against replayed: the original must pass and the mutant must still fail.
#[allow(clippy::print_stdout)] // the command's output
fn report(witness: &Witness, cell: Option<&Evaluation>, base: Option<&Baseline>, tolerance: f64) -> ExitStatus {
    let Some(cell) = cell else {
        println!("the replay did not evaluate the mutant on the witness column (see the run's messages above)");
        return ExitStatus::Failure;
    };
    let original = base.and_then(|b| b.tau);
    let same = |a: Option<f64>, b: Option<f64>| a.map(f64::to_bits) == b.map(f64::to_bits);
    println!(
        "  original: tau* {} (stored {}){}",
        tau_text(original),
        tau_text(witness.original_tau),
        if same(original, witness.original_tau) { ", bit for bit" } else { "" }
    );
    println!(
        "  mutant:   {} tau* {} (stored {} tau* {}){}",
        cell.outcome.name(),
        tau_text(cell.tau),
        witness.outcome,
        tau_text(witness.tau),
        if same(cell.tau, witness.tau) { ", bit for bit" } else { "" }
    );
    if let Some(valid) = base.and_then(|b| b.valid) {
        println!("  validity gate: {}", if valid { "valid (the original and the fp32 reference within the margin of fp64)" } else { "INVALID now" });
    }
    let passes = original.is_some_and(|t| t <= tolerance) && base.and_then(|b| b.valid) != Some(false);
    let kills = cell.kills_at(tolerance) && cell.outcome != kmut_model::Outcome::Timeout;
    if passes && kills {
        println!("replayed: the original passes at {tolerance:e} and the mutant fails: the witness holds");
        ExitStatus::Success
    } else {
        println!("NOT replayed: {}", if passes { "the mutant passes the witness column now" } else { "the original does not pass the witness column now" });
        ExitStatus::Failure
    }
}
