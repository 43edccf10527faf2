//! The bridge from the Rust CLI back into Python for what only Python can read: substrate
//! modules. And `mutate_json`, the generator for Python callers.

use std::path::Path;

use pyo3::prelude::*;

use kmut_model::SubstrateDescription;

/// `kmut.describe.describe_json(path)`, parsed. Python errors (a malformed substrate) become
/// errors carrying the exception's message, which names the file.
pub fn describe(path: &Path) -> anyhow::Result<SubstrateDescription> {
    let json: String = Python::attach(|py| -> PyResult<String> {
        let module = py.import("kmut.describe")?;
        module.call_method1("describe_json", (path.to_string_lossy().into_owned(),))?.extract()
    })
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(serde_json::from_str(&json)?)
}

/// Generate mutants for a description (as JSON); returns `{"mutants": [...], "unreadable": [...]}`.
#[pyfunction]
#[pyo3(signature = (description, rules = Vec::new(), families = Vec::new()))]
#[expect(clippy::needless_pass_by_value, reason = "the Python signature")]
pub fn mutate_json(py: Python<'_>, description: &str, rules: Vec<String>, families: Vec<String>) -> PyResult<String> {
    let raise = |msg: String| crate::errors::raise(py, "KmutError", (msg,));
    let desc: SubstrateDescription = serde_json::from_str(description).map_err(|e| raise(format!("bad description: {e}")))?;
    let chosen = kmut_rules::select::select(&rules, &families).map_err(|e| raise(e.to_string()))?;
    let out = py.detach(|| kmut_rules::mutate(&desc, &chosen)).map_err(|e| raise(e.to_string()))?;
    let unreadable: Vec<serde_json::Value> =
        out.unreadable.iter().map(|u| serde_json::json!({"function": u.function, "line": u.line, "col": u.col, "snippet": u.snippet})).collect();
    serde_json::to_string(&serde_json::json!({"mutants": out.mutants, "unreadable": unreadable})).map_err(|e| raise(e.to_string()))
}
