//! g++ to a shared library, through a content-addressed cache: `<dir>/<k0k1>/<key>.so` holds the
//! library, `<key>.log` the compiler's output (a log without a library is a failed compile) and
//! `<key>.cpp` the translation unit. The key hashes the compiler's identity, the flags and the
//! translation unit (prelude included), so a change to any of them misses.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use sha2::{Digest, Sha256};

use crate::CpuError;

/// Flags for every translation unit. `-fno-strict-aliasing` and `-fwrapv` give GPU code the
/// semantics nvcc gives it in practice (type punning through pointers, wrapping signed
/// overflow); `-ffp-contract=off` keeps a*b+c two roundings (the GPU contracts to FMA: see
/// docs/cpu-backend.md); the prelude's context switch needs no CET shadow stack. Not
/// `-mtls-dialect=gnu2`: 20% faster fibers, but glibc before 2.39 lets the first TLS access of a
/// dlopen'ed library clobber vector registers under TLS descriptors (wrong results, seen here).
pub const FLAGS: &[&str] = &[
    "-std=c++17",
    "-O2",
    "-shared",
    "-fPIC",
    "-fvisibility=hidden",
    "-fno-exceptions",
    "-fno-rtti",
    "-fno-strict-aliasing",
    "-fwrapv",
    "-fno-math-errno",
    "-ffp-contract=off",
    "-fcf-protection=none",
    "-fno-stack-protector",
    "-w",
];

/// A C++ compiler: `$KMUT_CXX`, else `g++`.
#[derive(Debug, Clone)]
pub struct Compiler {
    pub program: PathBuf,
    /// The first line of `--version`, part of every cache key.
    pub identity: String,
}

/// One compile: the library if it succeeded, and the log either way.
#[derive(Debug, Clone)]
pub struct Compiled {
    pub library: Option<PathBuf>,
    pub log: String,
    pub cached: bool,
    pub seconds: f64,
}

impl Compiler {
    /// The compiler `$KMUT_CXX` names, else `g++` from `PATH`.
    pub fn find() -> Result<Compiler, CpuError> {
        let program = std::env::var_os("KMUT_CXX").map_or_else(|| PathBuf::from("g++"), PathBuf::from);
        Compiler::at(program)
    }

    pub fn at(program: PathBuf) -> Result<Compiler, CpuError> {
        let out = Command::new(&program).arg("--version").output().map_err(|source| CpuError::NoCompiler { program: program.clone(), source })?;
        let identity = String::from_utf8_lossy(&out.stdout).lines().next().unwrap_or_default().to_owned();
        Ok(Compiler { program, identity })
    }

    /// The cache key of `unit`.
    pub fn key(&self, unit: &str) -> String {
        let mut h = Sha256::new();
        h.update(self.identity.as_bytes());
        h.update([0]);
        h.update(FLAGS.join(" ").as_bytes());
        h.update([0]);
        h.update(unit.as_bytes());
        h.finalize().iter().fold(String::with_capacity(64), |mut s, b| {
            use std::fmt::Write as _;
            let _ = write!(s, "{b:02x}");
            s
        })
    }

    /// Compile `unit` into a shared library in `cache` (or find it there).
    pub fn compile(&self, unit: &str, cache: &Path) -> Result<Compiled, CpuError> {
        let start = Instant::now();
        let key = self.key(unit);
        let dir = cache.join(&key[..2]);
        let (so, log, cpp) = (dir.join(format!("{key}.so")), dir.join(format!("{key}.log")), dir.join(format!("{key}.cpp")));
        if let Ok(text) = std::fs::read_to_string(&log) {
            let library = so.is_file().then_some(so);
            return Ok(Compiled { library, log: text, cached: true, seconds: start.elapsed().as_secs_f64() });
        }
        let wrap = |source| CpuError::Cache { path: dir.clone(), source };
        std::fs::create_dir_all(&dir).map_err(wrap)?;
        write_atomically(&cpp, unit.as_bytes()).map_err(wrap)?;
        let tmp = unique_tmp(&so);
        let out = Command::new(&self.program)
            .args(FLAGS)
            .arg(&cpp)
            .arg("-o")
            .arg(&tmp)
            .output()
            .map_err(|source| CpuError::NoCompiler { program: self.program.clone(), source })?;
        let mut text = String::from_utf8_lossy(&out.stderr).into_owned();
        text.push_str(&String::from_utf8_lossy(&out.stdout));
        let library = if out.status.success() {
            std::fs::rename(&tmp, &so).map_err(wrap)?;
            Some(so)
        } else {
            std::fs::remove_file(&tmp).ok();
            if text.is_empty() {
                text = format!("{} exited with {}", self.program.display(), out.status);
            }
            None
        };
        // The library first: a log without a library must mean "failed", never "half written".
        write_atomically(&log, text.as_bytes()).map_err(wrap)?;
        Ok(Compiled { library, log: text, cached: false, seconds: start.elapsed().as_secs_f64() })
    }
}

/// `$KMUT_CACHE_DIR/cpu`, else `$XDG_CACHE_HOME/kmut/cpu`, else `~/.cache/kmut/cpu` (beside the
/// compile stage's CUBIN cache).
pub fn default_cache_dir() -> PathBuf {
    let base = if let Some(d) = std::env::var_os("KMUT_CACHE_DIR") {
        PathBuf::from(d)
    } else if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        Path::new(&d).join("kmut")
    } else {
        let home = std::env::var_os("HOME").map_or_else(|| PathBuf::from("."), PathBuf::from);
        home.join(".cache").join("kmut")
    };
    base.join("cpu")
}

fn unique_tmp(path: &Path) -> PathBuf {
    path.with_extension(format!("tmp{}-{:?}", std::process::id(), std::thread::current().id()).replace(['(', ')'], ""))
}

fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = unique_tmp(path);
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(bytes)?;
    std::fs::rename(&tmp, path)
}
