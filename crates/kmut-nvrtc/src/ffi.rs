//! The raw NVRTC entry points kmut uses, resolved from a library loaded at run time.
//! cudarc's safe NVRTC wrapper yields PTX only; CUBIN needs `nvrtcGetCUBIN`, so the few calls
//! are declared here.

use std::ffi::{c_char, c_int, CStr};
use std::path::Path;

use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_NOW};

use crate::NvrtcError;

pub type Program = *mut std::ffi::c_void;
pub type NvrtcResult = c_int;
pub const NVRTC_SUCCESS: NvrtcResult = 0;

type VersionFn = unsafe extern "C" fn(*mut c_int, *mut c_int) -> NvrtcResult;
type CreateFn = unsafe extern "C" fn(*mut Program, *const c_char, *const c_char, c_int, *const *const c_char, *const *const c_char) -> NvrtcResult;
type CompileFn = unsafe extern "C" fn(Program, c_int, *const *const c_char) -> NvrtcResult;
type SizeFn = unsafe extern "C" fn(Program, *mut usize) -> NvrtcResult;
type BytesFn = unsafe extern "C" fn(Program, *mut c_char) -> NvrtcResult;
type DestroyFn = unsafe extern "C" fn(*mut Program) -> NvrtcResult;
type AddNameFn = unsafe extern "C" fn(Program, *const c_char) -> NvrtcResult;
type LoweredNameFn = unsafe extern "C" fn(Program, *const c_char, *mut *const c_char) -> NvrtcResult;
type ErrorStringFn = unsafe extern "C" fn(NvrtcResult) -> *const c_char;

/// A loaded NVRTC. The function pointers stay valid as long as `_lib` lives.
pub struct Api {
    _builtins: Option<Library>,
    _lib: Library,
    pub version: VersionFn,
    pub create: CreateFn,
    pub compile: CompileFn,
    pub log_size: SizeFn,
    pub log: BytesFn,
    pub cubin_size: SizeFn,
    pub cubin: BytesFn,
    pub destroy: DestroyFn,
    pub add_name_expression: AddNameFn,
    pub lowered_name: LoweredNameFn,
    error_string: ErrorStringFn,
}

// SAFETY: NVRTC's API is thread-safe for distinct programs (documented by NVIDIA); the struct
// only holds function pointers and library handles.
unsafe impl Send for Api {}
unsafe impl Sync for Api {}

impl Api {
    pub fn load(path: &Path) -> Result<Api, NvrtcError> {
        let shown = path.display().to_string();
        // Preload the builtins library from the same folder, globally, so NVRTC's own dlopen of
        // it by soname succeeds without LD_LIBRARY_PATH.
        let builtins = path
            .parent()
            .map(|dir| dir.join(crate::locate::BUILTINS_SONAME))
            .filter(|p| p.is_file())
            // SAFETY: loading a shared library runs only its initialisers.
            .and_then(|p| unsafe { Library::open(Some(&p), RTLD_NOW | RTLD_GLOBAL) }.ok());
        // SAFETY: as above.
        let lib = unsafe { Library::open(Some(path), RTLD_NOW | RTLD_GLOBAL) }.map_err(|source| NvrtcError::Load { path: shown.clone(), source })?;
        macro_rules! sym {
            ($name:literal) => {{
                // SAFETY: the type matches NVRTC's published prototype for this symbol.
                let s =
                    unsafe { lib.get(concat!($name, "\0").as_bytes()) }.map_err(|source| NvrtcError::Symbol { path: shown.clone(), symbol: $name, source })?;
                *s
            }};
        }
        Ok(Api {
            version: sym!("nvrtcVersion"),
            create: sym!("nvrtcCreateProgram"),
            compile: sym!("nvrtcCompileProgram"),
            log_size: sym!("nvrtcGetProgramLogSize"),
            log: sym!("nvrtcGetProgramLog"),
            cubin_size: sym!("nvrtcGetCUBINSize"),
            cubin: sym!("nvrtcGetCUBIN"),
            destroy: sym!("nvrtcDestroyProgram"),
            add_name_expression: sym!("nvrtcAddNameExpression"),
            lowered_name: sym!("nvrtcGetLoweredName"),
            error_string: sym!("nvrtcGetErrorString"),
            _lib: lib,
            _builtins: builtins,
        })
    }

    pub fn message(&self, code: NvrtcResult) -> String {
        // SAFETY: nvrtcGetErrorString returns a static NUL-terminated string for any code.
        let ptr = unsafe { (self.error_string)(code) };
        if ptr.is_null() {
            return format!("NVRTC error {code}");
        }
        // SAFETY: non-null, NUL-terminated, static.
        unsafe { CStr::from_ptr(ptr) }.to_string_lossy().into_owned()
    }

    pub fn check(&self, call: &'static str, code: NvrtcResult) -> Result<(), NvrtcError> {
        if code == NVRTC_SUCCESS {
            Ok(())
        } else {
            Err(NvrtcError::Call { call, message: self.message(code) })
        }
    }
}
