//! Column footprints measured by another store, shipped beside the substrates
//! (`substrates/footprints.json`, written by `scripts/footprints.py` from a campaign store):
//! the memory ledger's estimate (`kmut_exec::memory::Ledger::prior`) for a substrate whose
//! columns this run's store never measured. A fresh store otherwise budgets a first column at a
//! fair share of the device, and an official column of tens of GiB runs out of memory before
//! its footprint is known. An estimate only: a column that needs more than it says runs out of
//! memory and is retried with the device to itself, as before.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::PlanError;

/// The file's name, looked up in a substrate's folder and then its parent.
pub const FILE: &str = "footprints.json";

/// The table: per substrate, bytes per size class.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Table {
    /// Where the figures come from (machine, store, date): for people, not read.
    #[serde(default)]
    pub about: String,
    pub substrates: BTreeMap<String, BTreeMap<String, u64>>,
}

impl Table {
    pub fn parse(path: &Path, text: &str) -> Result<Table, PlanError> {
        serde_json::from_str(text).map_err(|e| PlanError::Footprints { path: path.display().to_string(), why: e.to_string() })
    }
}

/// Tables by folder, each read once for a run's many substrates.
#[derive(Debug, Default)]
pub struct Tables {
    by_dir: HashMap<PathBuf, Option<Table>>,
}

impl Tables {
    /// The prior footprints of substrate `name` at `path`, from the nearest table (its folder's,
    /// else its parent's); empty where no table is found or it does not name the substrate. A
    /// table that cannot be read is an error naming it: a silently ignored table would budget
    /// the whole run blind.
    pub fn for_substrate(&mut self, path: &Path, name: &str) -> Result<BTreeMap<String, u64>, PlanError> {
        let dir = path.parent().unwrap_or(Path::new(""));
        for d in [Some(dir), dir.parent()].into_iter().flatten() {
            if let Some(table) = self.table(d)? {
                return Ok(table.substrates.get(name).cloned().unwrap_or_default());
            }
        }
        Ok(BTreeMap::new())
    }

    fn table(&mut self, dir: &Path) -> Result<Option<&Table>, PlanError> {
        if !self.by_dir.contains_key(dir) {
            let file = dir.join(FILE);
            let table = match std::fs::read_to_string(&file) {
                Ok(text) => Some(Table::parse(&file, &text)?),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(e) => return Err(PlanError::Footprints { path: file.display().to_string(), why: e.to_string() }),
            };
            self.by_dir.insert(dir.to_owned(), table);
        }
        Ok(self.by_dir[dir].as_ref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_table_names_a_substrate_s_footprints() {
        let dir = tempfile::tempdir().unwrap();
        let accepted = dir.path().join("accepted");
        std::fs::create_dir(&accepted).unwrap();
        std::fs::write(dir.path().join(FILE), r#"{"about": "test", "substrates": {"L1p19_relu": {"official": 32000000000}}}"#).unwrap();
        let mut t = Tables::default();
        let got = t.for_substrate(&accepted.join("L1p19_relu.py"), "L1p19_relu").unwrap();
        assert_eq!(got.get("official"), Some(&32_000_000_000));
        // A substrate the table does not name: nothing known.
        assert!(t.for_substrate(&accepted.join("L1p1_x.py"), "L1p1_x").unwrap().is_empty());
        // No table anywhere near: nothing known, no error.
        let other = tempfile::tempdir().unwrap();
        assert!(Tables::default().for_substrate(&other.path().join("a.py"), "a").unwrap().is_empty());
    }

    #[test]
    fn a_malformed_table_is_an_error_naming_the_file_and_the_field() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(FILE), r#"{"substrates": {"L1p19_relu": {"official": "big"}}}"#).unwrap();
        let err = Tables::default().for_substrate(&dir.path().join("L1p19_relu.py"), "L1p19_relu").unwrap_err().to_string();
        assert!(err.contains(FILE) && err.contains("invalid type"), "{err}");
        std::fs::write(dir.path().join(FILE), r#"{"substrate": {}}"#).unwrap();
        let err = Tables::default().for_substrate(&dir.path().join("x.py"), "x").unwrap_err().to_string();
        assert!(err.contains("unknown field `substrate`"), "{err}");
    }
}
