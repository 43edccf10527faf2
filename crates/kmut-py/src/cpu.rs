//! `cpu_build`: CUDA variants to CPU shared libraries (`kmut-cpu`) for `kmut.cpu_backend`.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use kmut_cpu::{BuildOptions, Compiler, Variant};

/// Translate and compile `variants` (`(name, cuda, kernels)` triples). `jobs` 0 means one
/// compiler per core. Returns `{"libraries": {variant: path}, "failed": {variant: log},
/// "units": [{"variants", "library", "cached", "seconds", "attempts"}], "fibers": {variant:
/// [kernel, ...]}}`.
#[pyfunction]
#[pyo3(signature = (variants, jobs = 0, cache_dir = None, max_per_unit = 64))]
pub fn cpu_build(
    py: Python<'_>,
    variants: Vec<(String, String, Vec<String>)>,
    jobs: usize,
    cache_dir: Option<PathBuf>,
    max_per_unit: usize,
) -> PyResult<Bound<'_, PyDict>> {
    let raise = |e: kmut_cpu::CpuError| crate::errors::raise(py, "KmutError", (e.to_string(),));
    let variants: Vec<Variant> = variants.into_iter().map(|(name, source, kernels)| Variant { name, source, kernels }).collect();
    let mut options = BuildOptions { max_per_unit: max_per_unit.max(1), ..BuildOptions::default() };
    if jobs > 0 {
        options.jobs = jobs;
    }
    if let Some(dir) = cache_dir {
        options.cache_dir = dir;
    }
    let compiler = Compiler::find().map_err(raise)?;
    let outcome = py.detach(|| kmut_cpu::build(&compiler, &variants, &options)).map_err(raise)?;
    let fibers = PyDict::new(py);
    for v in &variants {
        if let Ok(t) = kmut_cpu::translate_variant(v) {
            fibers.set_item(&v.name, t.fibers.into_iter().collect::<Vec<_>>())?;
        }
    }
    let units = PyList::empty(py);
    for u in &outcome.units {
        let d = PyDict::new(py);
        d.set_item("variants", &u.variants)?;
        d.set_item("library", &u.library)?;
        d.set_item("cached", u.cached)?;
        d.set_item("seconds", u.seconds)?;
        d.set_item("attempts", u.attempts)?;
        units.append(d)?;
    }
    let out = PyDict::new(py);
    out.set_item("libraries", outcome.libraries)?;
    out.set_item("failed", outcome.failed)?;
    out.set_item("units", units)?;
    out.set_item("fibers", fibers)?;
    Ok(out)
}
