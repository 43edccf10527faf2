//! What the studies in `examples/` share: the kill matrix loaded as `kmut synth` loads it.

use std::path::Path;

use kmut_model::Protocol;
use kmut_store::Store;
use kmut_synth::{load, MatrixOptions, Problem};

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
