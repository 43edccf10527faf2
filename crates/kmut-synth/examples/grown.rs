//! What a grown witness sample buys, read on a population that did not grow (issue 15).
//!
//! A witness search settles a mutant the protocol kills at once, and a survivor only once a
//! valid input kills it or its search is complete. A sample grown by a call that stopped midway
//! therefore holds its new easy mutants and few of its new hard ones (those are still
//! `undecided`, and every rate leaves them out): read on its own, the held-out rate rises for
//! the wrong reason. This study keeps the scored population fixed: the witnessed mutants of an
//! earlier store whose searches were complete. Each fold chooses on its choosing half (every
//! witnessed mutant of GROWN in that half, or only the earlier ones) and is read on the earlier
//! store's mutants of the other half; the two rows differ only in what was chosen on.
//!
//! Folds as `kmut synth --splits` reads them (`Half::salted`, each split both ways, pooled); the
//! padding prior is learned on the choosing half, per level, as there.
//!
//! ```sh
//! cargo run --release -p kmut-synth --example grown -- GROWN_STORE EARLIER_STORE [--splits N]
//! ```
#![allow(clippy::print_stdout)]

mod common;

use std::collections::HashSet;

use common::{pct, pooled_by_level};
use kmut_synth::{Half, Problem};

const BUDGETS: [usize; 4] = [1, 2, 3, 6];

/// `p` split by `salt`, choosing on `choose`: the choosing half's mutants (all of them, or only
/// the `earlier` ones when `grown` is false) become `Dev`, the other half's earlier ones `Test`.
fn folded(p: &Problem, salt: u32, choose: Half, earlier: &HashSet<String>, grown: bool) -> Problem {
    let chosen_on = |id: &str| Half::salted(id, salt) == choose;
    let keep: Vec<usize> = (0..p.mutants.len()).filter(|&m| earlier.contains(&p.mutants[m]) || (grown && chosen_on(&p.mutants[m]))).collect();
    p.restrict(&keep, |id| if chosen_on(id) { Half::Dev } else { Half::Test })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: grown GROWN_STORE EARLIER_STORE [--splits N]";
    let (grown_path, earlier_path) = (args.first().ok_or(usage)?, args.get(1).ok_or(usage)?);
    let splits = common::splits(&args)?;
    let (loaded, read) = common::official_matrix(grown_path)?;
    let (before, read_before) = common::official_matrix(earlier_path)?;
    let earlier: HashSet<String> = before.iter().flat_map(|p| p.mutants.iter().cloned()).collect();
    let still: usize = loaded.iter().flat_map(|p| &p.mutants).filter(|m| earlier.contains(*m)).count();
    println!("grown: {read}\nearlier: {read_before}");
    println!("scored on the earlier store's witnessed mutants still witnessed in the grown one: {still} of {}", earlier.len());
    println!("{splits} splits read both ways; chosen on per problem, then held-out detection");
    let folds = (2 * splits as usize * loaded.len()).max(1) as f64;
    for (name, grown) in [("earlier mutants only", false), ("grown sample", true)] {
        let (per_level, chosen_on) =
            pooled_by_level(splits, &BUDGETS, |salt, choose| loaded.iter().map(|p| folded(p, salt, choose, &earlier, grown)).collect());
        print!("{name:>22} {:>6.2}", chosen_on as f64 / folds);
        for (d, b) in per_level[0].iter().zip(BUDGETS) {
            print!("  b={b} {}", pct(*d));
        }
        println!();
        for (level, per_b) in per_level.iter().enumerate().skip(1) {
            print!("{:>29}", format!("level {level}"));
            for (d, b) in per_b.iter().zip(BUDGETS) {
                print!("  b={b} {}", pct(*d));
            }
            println!();
        }
    }
    Ok(())
}
