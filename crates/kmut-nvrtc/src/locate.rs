//! Where NVRTC lives. Search order: an explicit path, `KMUT_NVRTC`, the `nvidia` wheels of the
//! given Python site directories (pip's `nvidia-cuda-nvrtc` 13.x), `CUDA_HOME` / `CUDA_PATH`,
//! `/usr/local/cuda`, and last the system loader's own search for the bare soname.

use std::env;
use std::path::{Path, PathBuf};

/// The soname of the NVRTC major version kmut pins (13.0, what torch 2.11 uses).
pub const NVRTC_SONAME: &str = "libnvrtc.so.13";
/// NVRTC 13 dlopens its builtins library by soname; preloading it from the same folder makes a
/// wheel install work without `LD_LIBRARY_PATH`.
pub const BUILTINS_SONAME: &str = "libnvrtc-builtins.so.13.0";

/// Where to look for NVRTC and the CUDA headers.
#[derive(Debug, Clone, Default)]
pub struct NvrtcSearch {
    /// `--nvrtc PATH`: a library file, or a folder holding it.
    pub explicit: Option<PathBuf>,
    /// Python `site-packages` folders (from `sys.path` of the interpreter running kmut).
    pub site_dirs: Vec<PathBuf>,
}

/// A found NVRTC: the library file and, where one was found beside it, the CUDA include folder.
#[derive(Debug, Clone)]
pub struct Location {
    pub library: PathBuf,
    pub include_dir: Option<PathBuf>,
}

impl NvrtcSearch {
    /// Site directories of the active virtual environment (`VIRTUAL_ENV`), for callers that run
    /// outside Python, such as `cargo test`.
    #[must_use]
    pub fn from_environment() -> Self {
        let mut site_dirs = Vec::new();
        if let Some(venv) = env::var_os("VIRTUAL_ENV") {
            let lib = Path::new(&venv).join("lib");
            if let Ok(entries) = std::fs::read_dir(&lib) {
                for entry in entries.flatten() {
                    let site = entry.path().join("site-packages");
                    if site.is_dir() {
                        site_dirs.push(site);
                    }
                }
            }
        }
        NvrtcSearch { explicit: None, site_dirs }
    }

    /// The candidates in search order, each a library path, with a label for error messages.
    fn candidates(&self) -> Vec<(PathBuf, String)> {
        let mut out = Vec::new();
        if let Some(p) = &self.explicit {
            out.push((as_library(p), format!("--nvrtc {}", p.display())));
        }
        if let Some(p) = env::var_os("KMUT_NVRTC") {
            let p = PathBuf::from(p);
            out.push((as_library(&p), format!("KMUT_NVRTC={}", p.display())));
        }
        for site in &self.site_dirs {
            let lib = site.join("nvidia").join("cu13").join("lib").join(NVRTC_SONAME);
            out.push((lib, format!("Python site directory {}", site.display())));
        }
        for var in ["CUDA_HOME", "CUDA_PATH"] {
            if let Some(root) = env::var_os(var) {
                let lib = Path::new(&root).join("lib64").join(NVRTC_SONAME);
                out.push((lib, format!("{var}={}", Path::new(&root).display())));
            }
        }
        out.push((PathBuf::from("/usr/local/cuda/lib64").join(NVRTC_SONAME), "/usr/local/cuda".to_owned()));
        out
    }

    /// Find the library. The bare soname (the system loader's search) is the last resort and is
    /// returned as a relative path for `dlopen` to resolve.
    pub fn locate(&self) -> Result<Location, crate::NvrtcError> {
        let mut searched = Vec::new();
        for (lib, label) in self.candidates() {
            if lib.is_file() {
                return Ok(Location { include_dir: include_beside(&lib, &self.site_dirs), library: lib });
            }
            searched.push(format!("{label} (no {})", lib.display()));
        }
        if system_loader_has(NVRTC_SONAME) {
            return Ok(Location { library: PathBuf::from(NVRTC_SONAME), include_dir: self.site_include() });
        }
        searched.push(format!("the system library path (no {NVRTC_SONAME})"));
        searched.push("hint: `pip install nvidia-cuda-nvrtc==13.0.88`, or set KMUT_NVRTC".to_owned());
        Err(crate::NvrtcError::NotFound { searched })
    }

    fn site_include(&self) -> Option<PathBuf> {
        self.site_dirs.iter().map(|s| s.join("nvidia").join("cu13").join("include")).find(|p| p.join("cuda_fp16.h").is_file())
    }
}

fn as_library(p: &Path) -> PathBuf {
    if p.is_dir() {
        p.join(NVRTC_SONAME)
    } else {
        p.to_path_buf()
    }
}

/// The include folder of a toolkit or wheel layout next to `lib`: `<root>/include` holding
/// `cuda_fp16.h` (the runtime wheel installs it into the same `nvidia/cu13` tree).
fn include_beside(lib: &Path, site_dirs: &[PathBuf]) -> Option<PathBuf> {
    let root = lib.parent()?.parent()?;
    let inc = root.join("include");
    if inc.join("cuda_fp16.h").is_file() {
        return Some(inc);
    }
    site_dirs.iter().map(|s| s.join("nvidia").join("cu13").join("include")).find(|p| p.join("cuda_fp16.h").is_file())
}

fn system_loader_has(soname: &str) -> bool {
    // SAFETY: loading NVRTC runs no user code beyond its own initialisers.
    unsafe { libloading::Library::new(soname) }.is_ok()
}
