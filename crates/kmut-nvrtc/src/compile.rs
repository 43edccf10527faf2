//! Compiling one CUDA source to a CUBIN image.

use std::ffi::{c_char, CString};
use std::path::PathBuf;
use std::ptr;

use crate::ffi::{Api, Program};
use crate::locate::{Location, NvrtcSearch};
use crate::NvrtcError;

/// Compiler options kmut controls. Kept small and explicit: they are recorded beside every image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Target architecture, e.g. `sm_90` (H100/H200).
    pub arch: String,
    /// Extra options passed through verbatim (`-use_fast_math`, `-D...`).
    pub extra: Vec<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options { arch: "sm_90".to_owned(), extra: Vec::new() }
    }
}

impl Options {
    /// The exact argument list handed to NVRTC, include folder first.
    pub fn argv(&self, include_dir: Option<&PathBuf>) -> Vec<String> {
        let mut argv = vec![format!("-arch={}", self.arch)];
        if let Some(inc) = include_dir {
            argv.push(format!("-I{}", inc.display()));
        }
        argv.extend(self.extra.iter().cloned());
        argv
    }
}

/// The result of one compilation. `image` is `None` when the source did not compile.
#[derive(Debug, Clone)]
pub struct CompileOutput {
    pub image: Option<Vec<u8>>,
    pub log: String,
    /// `(kernel name, symbol in the image)` for every requested kernel: the name itself for an
    /// `extern "C"` kernel, the C++-mangled symbol otherwise.
    pub symbols: Vec<(String, String)>,
}

/// A loaded NVRTC, ready to compile on any number of threads.
pub struct Compiler {
    api: Api,
    location: Location,
}

impl Compiler {
    pub fn open(search: &NvrtcSearch) -> Result<Compiler, NvrtcError> {
        let location = search.locate()?;
        let api = Api::load(&location.library)?;
        Ok(Compiler { api, location })
    }

    pub fn location(&self) -> &Location {
        &self.location
    }

    /// NVRTC's (major, minor) version.
    pub fn version(&self) -> Result<(i32, i32), NvrtcError> {
        let (mut major, mut minor) = (0, 0);
        // SAFETY: two valid out-pointers.
        let rc = unsafe { (self.api.version)(&raw mut major, &raw mut minor) };
        self.api.check("nvrtcVersion", rc)?;
        Ok((major, minor))
    }

    /// Compile `source` (named `name` in diagnostics) to CUBIN.
    pub fn compile(&self, source: &str, name: &str, options: &Options) -> Result<CompileOutput, NvrtcError> {
        self.compile_kernels(source, name, options, &[])
    }

    /// Compile `source` and resolve the image symbol of each of `kernels` (so kernels need not
    /// be `extern "C"`). Every name must be a `__global__` of the source, or NVRTC rejects it.
    pub fn compile_kernels(&self, source: &str, name: &str, options: &Options, kernels: &[&str]) -> Result<CompileOutput, NvrtcError> {
        let src = CString::new(source).map_err(|_| NvrtcError::Nul)?;
        let cname = CString::new(name).map_err(|_| NvrtcError::Nul)?;
        let argv: Vec<CString> =
            options.argv(self.location.include_dir.as_ref()).into_iter().map(CString::new).collect::<Result<_, _>>().map_err(|_| NvrtcError::Nul)?;
        let arg_ptrs: Vec<*const c_char> = argv.iter().map(|a| a.as_ptr()).collect();

        let mut prog: Program = ptr::null_mut();
        // SAFETY: valid C strings; no headers are passed (counts 0, null arrays).
        let rc = unsafe { (self.api.create)(&raw mut prog, src.as_ptr(), cname.as_ptr(), 0, ptr::null(), ptr::null()) };
        self.api.check("nvrtcCreateProgram", rc)?;
        let guard = ProgramGuard { api: &self.api, prog };
        let expressions: Vec<CString> = kernels.iter().map(|k| CString::new(*k)).collect::<Result<_, _>>().map_err(|_| NvrtcError::Nul)?;
        for e in &expressions {
            // SAFETY: prog is live; e is a C string that outlives the compile.
            self.api.check("nvrtcAddNameExpression", unsafe { (self.api.add_name_expression)(guard.prog, e.as_ptr()) })?;
        }

        // SAFETY: prog is live; arg_ptrs points at argv's live C strings.
        let compiled = unsafe { (self.api.compile)(guard.prog, arg_ptrs.len() as i32, arg_ptrs.as_ptr()) };
        let log = self.read(guard.prog, self.api.log_size, self.api.log, "nvrtcGetProgramLog")?;
        let log = String::from_utf8_lossy(&log).trim_end_matches('\0').to_owned();
        if compiled != crate::ffi::NVRTC_SUCCESS {
            // A source that does not compile is an outcome, not an error.
            return Ok(CompileOutput { image: None, log, symbols: Vec::new() });
        }
        let image = self.read(guard.prog, self.api.cubin_size, self.api.cubin, "nvrtcGetCUBIN")?;
        let mut symbols = Vec::new();
        for (kernel, e) in kernels.iter().zip(&expressions) {
            let mut lowered: *const c_char = ptr::null();
            // SAFETY: prog is live and compiled; the lowered name lives as long as prog.
            self.api.check("nvrtcGetLoweredName", unsafe { (self.api.lowered_name)(guard.prog, e.as_ptr(), &raw mut lowered) })?;
            // SAFETY: NVRTC returned a NUL-terminated string owned by prog, copied here.
            let text = unsafe { std::ffi::CStr::from_ptr(lowered) }.to_string_lossy().into_owned();
            symbols.push(((*kernel).to_owned(), text));
        }
        Ok(CompileOutput { image: Some(image), log, symbols })
    }

    fn read(
        &self,
        prog: Program,
        size_fn: unsafe extern "C" fn(Program, *mut usize) -> i32,
        bytes_fn: unsafe extern "C" fn(Program, *mut c_char) -> i32,
        call: &'static str,
    ) -> Result<Vec<u8>, NvrtcError> {
        let mut size = 0usize;
        // SAFETY: prog is live; size is a valid out-pointer.
        self.api.check(call, unsafe { size_fn(prog, &raw mut size) })?;
        let mut buf = vec![0u8; size];
        if size > 0 {
            // SAFETY: buf holds exactly `size` bytes, as NVRTC reported.
            self.api.check(call, unsafe { bytes_fn(prog, buf.as_mut_ptr().cast()) })?;
        }
        Ok(buf)
    }
}

struct ProgramGuard<'a> {
    api: &'a Api,
    prog: Program,
}

impl Drop for ProgramGuard<'_> {
    fn drop(&mut self) {
        // SAFETY: prog came from nvrtcCreateProgram and is destroyed once.
        unsafe { (self.api.destroy)(&raw mut self.prog) };
    }
}
