//! The held-out rate against how many mutants each problem's inputs are chosen on (issue 15).
//!
//! Greedy chooses a problem's inputs from its own witnessed mutants, and a small sample leaves
//! the choosing half with a few of them: what the test half needs and the choosing half never
//! showed is missed. This study thins the choosing half and watches the held-out rate: if the
//! rate still climbs at the full half, a larger sample per problem would raise it further.
//!
//! For each of `--splits` salted splits (`Half::salted`, split 0 the held-out column's own),
//! read both ways, and each fraction f, the choosing half keeps the mutants whose salted hash
//! (`kmut-learning-v1:<split>:<id>`, uniform in [0, 1)) falls below f. The kept sets are nested
//! (a larger f keeps a superset), the scored half is always whole, and the padding prior is
//! learned on the kept mutants only. Detection is pooled over every fold, as `kmut synth
//! --splits` pools it (f = 1 reproduces its cross-validated column). At f = 1 it also prints the
//! pooled rates per level.
//!
//! ```sh
//! cargo run --release -p kmut-synth --example learning -- STORE [--splits N]
//! ```
#![allow(clippy::print_stdout)]

mod common;

use common::{pct, pooled_by_level};
use kmut_synth::{Half, Problem};
use sha2::{Digest, Sha256};

const BUDGETS: [usize; 4] = [1, 2, 3, 6];
const FRACTIONS: [f64; 5] = [0.125, 0.25, 0.5, 0.75, 1.0];

/// Where mutant `id` falls in [0, 1) for split `salt`: the first eight bytes of a salted SHA-256.
fn draw(id: &str, salt: u32) -> f64 {
    let d = Sha256::digest(format!("kmut-learning-v1:{salt}:{id}").as_bytes());
    let mut b = [0u8; 8];
    b.copy_from_slice(&d[..8]);
    (u64::from_be_bytes(b) >> 11) as f64 / (1u64 << 53) as f64
}

/// `p` (already split by `salt`) with its `choose` half thinned to fraction `f`: kept choosing
/// mutants become `Dev`, the whole other half `Test`.
fn thinned(p: &Problem, choose: Half, salt: u32, f: f64) -> Problem {
    let keep: Vec<usize> = (0..p.mutants.len()).filter(|&m| p.halves[m] != choose || draw(&p.mutants[m], salt) < f).collect();
    let chosen_on = |id: &str| Half::salted(id, salt) == choose;
    p.restrict(&keep, |id| if chosen_on(id) { Half::Dev } else { Half::Test })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.first().ok_or("usage: learning STORE [--splits N]")?;
    let splits = common::splits(&args)?;
    let (loaded, read) = common::official_matrix(path)?;
    println!("{read}; {splits} splits read both ways");
    print!("{:>9} {:>22}", "fraction", "chosen on per problem");
    for b in BUDGETS {
        print!(" {:>16}", format!("held out, b={b}"));
    }
    println!();
    let folds = (2 * splits as usize * loaded.len()).max(1) as f64;
    let mut whole = Vec::new();
    for f in FRACTIONS {
        let (pooled, chosen_on) = pooled_by_level(splits, &BUDGETS, |salt, choose| loaded.iter().map(|p| thinned(&p.resplit(salt), choose, salt, f)).collect());
        print!("{f:>9} {:>22.2}", chosen_on as f64 / folds);
        for d in &pooled[0] {
            print!(" {:>16}", pct(*d));
        }
        println!();
        whole = pooled;
    }
    // Where the held-out misses are, at f = 1: per level, with the witnessed mutants per problem.
    println!("\nat f = 1, per level:");
    for (level, per_b) in whole.iter().enumerate().skip(1) {
        let problems = loaded.iter().filter(|p| p.level.clamp(1, 3) as usize == level).count();
        let witnessed: usize = loaded.iter().filter(|p| p.level.clamp(1, 3) as usize == level).map(|p| p.mutants.len()).sum();
        print!("  level {level}: {problems} problems, {:.1} witnessed per problem", witnessed as f64 / problems.max(1) as f64);
        for (d, b) in per_b.iter().zip(BUDGETS) {
            print!(", b={b} {}", pct(*d));
        }
        println!();
    }
    Ok(())
}
