//! What the studies in `examples/` share: the kill matrix loaded as `kmut synth` loads it, and
//! the pooled, per-level reading of cross-validation folds.
#![allow(dead_code)] // each example uses part of it

use std::path::Path;

use kmut_model::Protocol;
use kmut_store::Store;
use kmut_synth::{fold, load, Detection, Half, MatrixOptions, Problem};

/// The problems of the store at `path` under protocol `official` at its own tolerance and the
/// store's default backend, with a line saying what was read (problems, skipped, witnessed).
pub fn official_matrix(path: &str) -> Result<(Vec<Problem>, String), Box<dyn std::error::Error>> {
    let store = Store::open(Path::new(path))?;
    let protocol = Protocol::named("official")?;
    let backend = kmut_score::default_backend(&store)?;
    let (loaded, skipped) = load(&store, &[], &MatrixOptions::of(&protocol, backend))?;
    let witnessed: usize = loaded.iter().map(|p| p.mutants.len()).sum();
    let line = format!(
        "{} at {:e}, {backend:?} evaluations; {} problems ({} skipped), {witnessed} witnessed mutants",
        protocol.name,
        protocol.tolerance(),
        loaded.len(),
        skipped.len()
    );
    Ok((loaded, line))
}

/// Detection at each of `budgets`, pooled over the folds of `splits` salted splits each read
/// both ways (index 0 overall, 1 to 3 per benchmark level), and the mutants chosen on in all.
/// `problems(salt, choose)` gives a fold's problems with the choosing half as `Dev`; each level is
/// read by the crate's own fold (`kmut_synth::fold`), whose prior is learned per level anyway,
/// so the levels' folds are the whole fold's parts.
pub fn pooled_by_level(splits: u32, budgets: &[usize], problems: impl Fn(u32, Half) -> Vec<Problem>) -> (Vec<Vec<Detection>>, usize) {
    let mut out = vec![vec![Detection::default(); budgets.len()]; 4];
    let mut chosen_on = 0;
    for salt in 0..splits {
        for choose in [Half::Dev, Half::Test] {
            let problems = problems(salt, choose);
            chosen_on += problems.iter().map(|p| p.mask(Some(Half::Dev)).count()).sum::<usize>();
            for level in 1..=3u8 {
                let at_level: Vec<Problem> = problems.iter().filter(|p| p.level.clamp(1, 3) == level).cloned().collect();
                for (i, d) in fold(&at_level, Half::Dev, budgets, &|_: &Problem| Vec::new()).into_iter().enumerate() {
                    out[0][i] += d;
                    out[usize::from(level)][i] += d;
                }
            }
        }
    }
    (out, chosen_on)
}

/// A detection rate as the studies print it: `known%`, or `known to possible%` where cells are
/// missing.
pub fn pct(d: Detection) -> String {
    let k = 100.0 * d.known as f64 / d.total.max(1) as f64;
    let q = 100.0 * d.possible as f64 / d.total.max(1) as f64;
    if d.known == d.possible {
        format!("{k:.1}%")
    } else {
        format!("{k:.1} to {q:.1}%")
    }
}

/// `--splits N` among `args`, 5 without it.
pub fn splits(args: &[String]) -> Result<u32, Box<dyn std::error::Error>> {
    Ok(match args.iter().position(|a| a == "--splits") {
        Some(i) => args.get(i + 1).ok_or("--splits takes a number")?.parse()?,
        None => 5,
    })
}
