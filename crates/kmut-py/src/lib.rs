//! `kmut._native`: what Python reaches of the Rust side. The command line (`main`), NVRTC
//! compilation (`compile_cuda`) and the launch bridge (`Module`). Errors are raised as the
//! exception classes declared once in `kmut.exceptions`.

mod bridge;
mod compile;
mod cpu;
mod describe;
mod errors;
mod rng;

use std::path::PathBuf;

use pyo3::prelude::*;

/// Run the `kmut` command line; returns the exit code. The GIL is released while it runs, so
/// the CLI's own threads and child processes never wait on Python.
#[pyfunction]
fn main(py: Python<'_>, argv: Vec<String>, python: PathBuf, site_dirs: Vec<PathBuf>) -> i32 {
    let env = kmut_cli::Environment { python, site_dirs, describe: Box::new(describe::describe) };
    py.detach(|| kmut_cli::main(argv, &env))
}

/// kmut's cache folder (`$KMUT_CACHE_DIR`, else `$XDG_CACHE_HOME/kmut`, else `~/.cache/kmut`):
/// the one resolution the image cache uses, for what Python keeps beside it.
#[pyfunction]
fn cache_dir() -> PathBuf {
    kmut_compile::ImageCache::default_dir()
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(main, m)?)?;
    m.add_function(wrap_pyfunction!(cache_dir, m)?)?;
    m.add_function(wrap_pyfunction!(compile::compile_cuda, m)?)?;
    m.add_function(wrap_pyfunction!(describe::mutate_json, m)?)?;
    m.add_function(wrap_pyfunction!(cpu::cpu_build, m)?)?;
    m.add_function(wrap_pyfunction!(rng::torch_uniform_f32, m)?)?;
    m.add_class::<bridge::Module>()?;
    Ok(())
}
