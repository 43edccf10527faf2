//! A compiled library, loaded, and launches through its `extern "C"` launchers. Python loads the
//! same libraries with ctypes (`python/kmut/cpu_backend.py`); this is the Rust side's way in.

use std::ffi::c_void;
use std::path::{Path, PathBuf};

use crate::translate::{launcher_symbol, params_symbol};
use crate::CpuError;

/// The thread orders a launch can take: forward, reverse, or shuffled with a seed (2 and above).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    Forward,
    Reverse,
    Random(u32),
}

impl Order {
    /// The launcher's `order` argument.
    pub fn code(self) -> i32 {
        match self {
            Order::Forward => 0,
            Order::Reverse => 1,
            Order::Random(seed) => 2 + (seed % (i32::MAX as u32 - 2)) as i32,
        }
    }
}

/// What a launcher's nonzero status means.
pub fn status_message(status: i32) -> &'static str {
    match status {
        1 => "could not map the fiber stacks",
        2 => "a kernel classified barrier-free reached a barrier or warp operation (translator bug)",
        3 => "bad block or grid: a zero dimension or more than 1024 threads per block",
        _ => "unknown launcher status",
    }
}

type LaunchFn = unsafe extern "C" fn(u32, u32, u32, u32, u32, u32, *mut *mut c_void, i32) -> i32;
type ParamsFn = unsafe extern "C" fn(*mut i64, i32) -> i32;

/// A loaded library of launchers.
pub struct Library {
    lib: libloading::Library,
    path: PathBuf,
}

impl Library {
    pub fn open(path: &Path) -> Result<Library, CpuError> {
        // SAFETY: the library is one kmut compiled from its own prelude; loading runs only the
        // static initialisers of that code.
        let lib = unsafe { libloading::Library::new(path) }.map_err(|e| CpuError::Load { path: path.to_owned(), message: e.to_string() })?;
        Ok(Library { lib, path: path.to_owned() })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn symbol<T: Copy>(&self, name: &str) -> Result<T, CpuError> {
        // SAFETY: the symbol's type is fixed by the launchers the translator writes.
        let s = unsafe { self.lib.get::<T>(name.as_bytes()) }.map_err(|e| CpuError::Load { path: self.path.clone(), message: format!("{name}: {e}") })?;
        Ok(*s)
    }

    /// The byte size of each parameter of `kernel`.
    pub fn param_sizes(&self, variant: &str, kernel: &str) -> Result<Vec<usize>, CpuError> {
        let f: ParamsFn = self.symbol(&params_symbol(variant, kernel))?;
        let mut sizes = vec![0i64; 64];
        // SAFETY: the function writes at most `cap` entries.
        let n = unsafe { f(sizes.as_mut_ptr(), 64) };
        sizes.truncate(n.max(0) as usize);
        Ok(sizes.into_iter().map(|s| s as usize).collect())
    }

    /// Launch `kernel` of `variant`: `args[i]` points at the bytes of parameter i.
    ///
    /// # Safety
    /// `args` must hold one pointer per kernel parameter, each to a value of that parameter's
    /// type, and pointer parameters must point at memory the kernel may access as it does.
    pub unsafe fn launch(&self, variant: &str, kernel: &str, grid: [u32; 3], block: [u32; 3], args: &mut [*mut c_void], order: Order) -> Result<(), CpuError> {
        let symbol = launcher_symbol(variant, kernel);
        let f: LaunchFn = self.symbol(&symbol)?;
        // SAFETY: the caller's contract.
        let status = unsafe { f(grid[0], grid[1], grid[2], block[0], block[1], block[2], args.as_mut_ptr(), order.code()) };
        if status == 0 {
            Ok(())
        } else {
            Err(CpuError::Launch { symbol, status, message: status_message(status) })
        }
    }
}
