//! NVRTC, loaded at run time: find the library, compile CUDA C++ to a CUBIN image, explain
//! compile errors with the offending source lines, and read the kernels out of an image.
//!
//! Nothing here needs a GPU: NVRTC is a compiler library, and a CUBIN is an ELF file. CI uses the
//! real NVRTC from `PyPI`'s `nvidia-cuda-nvrtc` wheel (`locate` finds it inside a Python
//! environment).

mod compile;
mod cubin;
mod diagnostics;
mod ffi;
mod locate;

pub use compile::{CompileOutput, Compiler, Options};
pub use cubin::{inspect_cubin, CubinError, KernelInfo};
pub use diagnostics::{render_log, Diagnostic};
pub use locate::{Location, NvrtcSearch};

/// Everything that can go wrong with NVRTC itself. A source that fails to compile is not an
/// error: it is a [`CompileOutput`] with `image: None` and the compiler's log.
#[derive(Debug, thiserror::Error)]
pub enum NvrtcError {
    #[error("NVRTC was not found; looked in:\n{}", .searched.iter().map(|p| format!("  - {p}")).collect::<Vec<_>>().join("\n"))]
    NotFound { searched: Vec<String> },
    #[error("failed to load NVRTC from `{path}`")]
    Load {
        path: String,
        #[source]
        source: libloading::Error,
    },
    #[error("NVRTC at `{path}` lacks the symbol `{symbol}`")]
    Symbol {
        path: String,
        symbol: &'static str,
        #[source]
        source: libloading::Error,
    },
    #[error("NVRTC call `{call}` failed: {message}")]
    Call { call: &'static str, message: String },
    #[error("the CUDA source or an option contains a NUL byte")]
    Nul,
}
