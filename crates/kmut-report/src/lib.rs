//! Reports of a store (`docs/report.md`): what people look at and what other tools read.
//!
//! * **HTML**: one self-contained folder (no server, no network: styles, scripts and SVG charts
//!   are inline) with an overview made of [`sections`] and a page per substrate.
//! * **JSON**: one report per protocol in Stryker's mutation-testing-report schema
//!   (`schema/`, vendored with its version), kmut's facts in its extension points ([`stryker`]).
//! * **Tables**: the mutants and the kill matrix as CSV and Parquet ([`tables`], schemas in
//!   `docs/store.md`).
//!
//! Everything is rendered from one [`ReportData`] ([`collect`]), so every output says the same.
//! A section whose data this store (or this kmut) does not have says "not measured yet"; it
//! never renders an empty table as if it were a result.

mod chart;
mod data;
mod html;
pub mod sections;
pub mod stryker;
pub mod tables;
mod templates;

use std::path::{Path, PathBuf};

pub use data::{
    collect, verdict_word, ColumnData, KernelData, MutantData, MutantVerdict, ProtocolScore, ReportData, ReportOptions, Scope, Stage, SubstrateData,
    VERDICT_WORDS,
};

#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error(transparent)]
    Score(#[from] kmut_score::ScoreError),
    #[error(transparent)]
    Store(#[from] kmut_store::StoreError),
    #[error(transparent)]
    Depth(kmut_depth::DepthError),
    #[error(transparent)]
    Synth(#[from] kmut_synth::SynthError),
    #[error(transparent)]
    Audit(kmut_audit::AuditError),
    #[error("a report needs at least one protocol")]
    NoProtocol,
    #[error("could not write `{path}`")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("`{0}` exists and is not a kmut report (no `.kmut-report` in it); pass another --out or remove it")]
    NotAReport(PathBuf),
    #[error("rendering the template `{name}` failed")]
    Template {
        name: String,
        #[source]
        source: minijinja::Error,
    },
    #[error("writing the table `{path}` failed: {message}")]
    Table { path: PathBuf, message: String },
    #[error("drawing the chart `{0}` failed: {1}")]
    Chart(String, String),
}

/// The marker file that says a folder is a report kmut wrote (and may replace).
pub const MARKER: &str = ".kmut-report";

/// What [`write`] produced, relative to the report folder.
#[derive(Debug, Clone, Default)]
pub struct Written {
    pub dir: PathBuf,
    /// HTML pages: the overview and one per substrate.
    pub pages: Vec<PathBuf>,
    pub json: Vec<PathBuf>,
    pub tables: Vec<PathBuf>,
    /// Titles of the overview's sections with nothing measured yet.
    pub not_measured: Vec<String>,
}

/// Write the whole report of `data` into the folder `out`, replacing an earlier report there.
///
/// It is built in a sibling folder first and moved into place at the end, so an error leaves
/// any earlier report whole; a folder that is not a report is never overwritten.
pub fn write(data: &ReportData, out: &Path, progress: &mut dyn FnMut(&str)) -> Result<Written, ReportError> {
    if out.exists() && !out.join(MARKER).is_file() && !is_empty_dir(out) {
        return Err(ReportError::NotAReport(out.to_path_buf()));
    }
    let name = out.file_name().map_or_else(|| "report".into(), |n| n.to_string_lossy().into_owned());
    let parent = out.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or_else(|| Path::new("."));
    let partial = parent.join(format!(".{name}.partial-{}", std::process::id()));
    if partial.exists() {
        std::fs::remove_dir_all(&partial).map_err(io_at(&partial))?;
    }
    let result = write_into(data, &partial, progress);
    let written = match result {
        Ok(w) => w,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&partial);
            return Err(e);
        }
    };
    if out.exists() {
        std::fs::remove_dir_all(out).map_err(io_at(out))?;
    }
    std::fs::rename(&partial, out).map_err(io_at(out))?;
    Ok(Written { dir: out.to_path_buf(), ..written })
}

fn write_into(data: &ReportData, dir: &Path, progress: &mut dyn FnMut(&str)) -> Result<Written, ReportError> {
    create_dir(dir)?;
    put(&dir.join(MARKER), format!("kmut {} report of {}\n", data.kmut_version, data.store).as_bytes())?;
    let mut written = Written::default();
    progress(&format!("rendering the overview and {} substrate pages", data.substrates.len()));
    let pages = html::render(data)?;
    written.not_measured = pages.not_measured;
    for (path, text) in pages.files {
        let at = dir.join(&path);
        if let Some(p) = at.parent() {
            create_dir(p)?;
        }
        put(&at, text.as_bytes())?;
        written.pages.push(path);
    }
    progress("writing the mutation-testing-report JSON, one per protocol");
    create_dir(&dir.join("json"))?;
    for (i, s) in data.scores.iter().enumerate() {
        let path = PathBuf::from("json").join(format!("mutation-testing-report.{}.json", file_safe(&s.name)));
        let report = stryker::report(data, i);
        let text = serde_json::to_string_pretty(&report).expect("a JSON value serialises");
        put(&dir.join(&path), text.as_bytes())?;
        written.json.push(path);
    }
    progress("writing the tables (CSV and Parquet)");
    create_dir(&dir.join("tables"))?;
    for table in tables::tables(data) {
        for path in [PathBuf::from("tables").join(format!("{}.csv", table.name)), PathBuf::from("tables").join(format!("{}.parquet", table.name))] {
            let at = dir.join(&path);
            if path.extension().is_some_and(|e| e == "csv") {
                tables::write_csv(&table, &at)?;
            } else {
                tables::write_parquet(&table, &at)?;
            }
            written.tables.push(path);
        }
    }
    Ok(written)
}

/// A name made safe as one file name: letters, digits, `-`, `_` and `.`; anything else `_`.
pub fn file_safe(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '_' }).collect()
}

fn is_empty_dir(p: &Path) -> bool {
    std::fs::read_dir(p).is_ok_and(|mut d| d.next().is_none())
}

fn io_at(path: &Path) -> impl FnOnce(std::io::Error) -> ReportError + '_ {
    move |source| ReportError::Write { path: path.to_path_buf(), source }
}

fn create_dir(p: &Path) -> Result<(), ReportError> {
    std::fs::create_dir_all(p).map_err(io_at(p))
}

fn put(p: &Path, bytes: &[u8]) -> Result<(), ReportError> {
    std::fs::write(p, bytes).map_err(io_at(p))
}
