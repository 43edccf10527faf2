//! `compile_cuda`: NVRTC to CUBIN for Python callers, with the log rendered against the source.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use kmut_nvrtc::{inspect_cubin, render_log, Compiler, NvrtcSearch, Options};

use crate::errors;

/// One compiler per process, opened on first use (loading NVRTC costs tens of milliseconds).
static COMPILER: Mutex<Option<Arc<Compiler>>> = Mutex::new(None);

fn compiler(site_dirs: Vec<PathBuf>) -> Result<Arc<Compiler>, kmut_nvrtc::NvrtcError> {
    let mut slot = COMPILER.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(c) = slot.as_ref() {
        return Ok(Arc::clone(c));
    }
    let c = Arc::new(Compiler::open(&NvrtcSearch { explicit: None, site_dirs })?);
    *slot = Some(Arc::clone(&c));
    Ok(c)
}

/// Compile `source` for `arch`. Returns a dict with `image` (bytes or None), `log`, `rendered`,
/// `kernels` (image symbol -> parameter byte sizes), `symbols` (each of `kernels_wanted` -> its
/// image symbol), `nvrtc_version` and `options`.
#[pyfunction]
#[pyo3(signature = (source, name, arch, display, line_offset, site_dirs, kernels_wanted = Vec::new()))]
#[expect(clippy::too_many_arguments, clippy::needless_pass_by_value, reason = "the Python signature")]
pub fn compile_cuda<'py>(
    py: Python<'py>,
    source: &str,
    name: &str,
    arch: &str,
    display: &str,
    line_offset: usize,
    site_dirs: Vec<PathBuf>,
    kernels_wanted: Vec<String>,
) -> PyResult<Bound<'py, PyDict>> {
    let compiler = compiler(site_dirs).map_err(|e| errors::nvrtc(py, &e))?;
    let options = Options { arch: arch.to_owned(), extra: Vec::new() };
    let wanted: Vec<&str> = kernels_wanted.iter().map(String::as_str).collect();
    let out = py.detach(|| compiler.compile_kernels(source, name, &options, &wanted)).map_err(|e| errors::nvrtc(py, &e))?;
    let version = compiler.version().map_err(|e| errors::nvrtc(py, &e))?;
    let dict = PyDict::new(py);
    let kernels = PyDict::new(py);
    if let Some(image) = &out.image {
        let found = inspect_cubin(image).map_err(|e| errors::raise(py, "NvrtcError", (e.to_string(),)))?;
        for k in found {
            kernels.set_item(k.name, k.param_sizes)?;
        }
        dict.set_item("image", PyBytes::new(py, image))?;
    } else {
        dict.set_item("image", py.None())?;
    }
    dict.set_item("log", &out.log)?;
    dict.set_item("rendered", render_log(&out.log, source, display, line_offset))?;
    dict.set_item("kernels", kernels)?;
    let symbols = PyDict::new(py);
    for (kernel, symbol) in &out.symbols {
        symbols.set_item(kernel, symbol)?;
    }
    dict.set_item("symbols", symbols)?;
    dict.set_item("nvrtc_version", version)?;
    dict.set_item("options", options.argv(None))?;
    Ok(dict)
}
