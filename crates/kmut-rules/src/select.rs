//! Choosing rules: `--rules GLOB` over ids and `--family F`.

use globset::Glob;
use kmut_model::Family;

use crate::{Rule, RULES};

#[derive(Debug, thiserror::Error)]
pub enum SelectError {
    #[error("`{0}` is not a valid rule glob")]
    Glob(String, #[source] globset::Error),
    #[error("unknown family `{0}`; the families are arithmetic, indexing, semantic, boundary, synchronization, precision")]
    Family(String),
    #[error("no rule matches `{0}`; `kmut rules` lists them")]
    Empty(String),
}

/// Rules whose id matches any of `globs` (all when empty) and whose family is in `families`
/// (all when empty).
pub fn select(globs: &[String], families: &[String]) -> Result<Vec<&'static Rule>, SelectError> {
    let matchers =
        globs.iter().map(|g| Glob::new(g).map(|g| g.compile_matcher()).map_err(|e| SelectError::Glob(g.clone(), e))).collect::<Result<Vec<_>, _>>()?;
    let fams = families.iter().map(|f| Family::parse(f).ok_or_else(|| SelectError::Family(f.clone()))).collect::<Result<Vec<_>, _>>()?;
    let chosen: Vec<&'static Rule> = RULES
        .iter()
        .filter(|r| matchers.is_empty() || matchers.iter().any(|m| m.is_match(r.id)))
        .filter(|r| fams.is_empty() || fams.contains(&r.family))
        .collect();
    if chosen.is_empty() {
        return Err(SelectError::Empty(format!("{} {}", globs.join(","), families.join(",")).trim().to_owned()));
    }
    Ok(chosen)
}
