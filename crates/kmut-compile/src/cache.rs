//! A content-addressed cache of compile results: `<dir>/<k0k1>/<key>.cubin` holds the image and
//! `<key>.log` the compiler log (a stillborn source has a log and no image). The key hashes the
//! source, the NVRTC version and the options, so any change to any of them misses.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use kmut_nvrtc::Options;

use crate::{sha256_hex, Compile, CompileError};

/// What the cache holds for one key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheEntry {
    pub image: Option<Vec<u8>>,
    pub log: String,
}

/// The cache key of `source` compiled under `target` (NVRTC version and options).
pub fn source_key(source: &str, target: &str) -> String {
    let mut bytes = Vec::with_capacity(source.len() + target.len() + 1);
    bytes.extend_from_slice(target.as_bytes());
    bytes.push(0);
    bytes.extend_from_slice(source.as_bytes());
    sha256_hex(&bytes)
}

/// A cache folder. Entries are written to a temporary file and renamed, so a reader never sees
/// half an entry and concurrent writers of the same key are harmless.
#[derive(Debug, Clone)]
pub struct ImageCache {
    dir: PathBuf,
}

impl ImageCache {
    pub fn new(dir: impl Into<PathBuf>) -> ImageCache {
        ImageCache { dir: dir.into() }
    }

    /// `$KMUT_CACHE_DIR`, else `$XDG_CACHE_HOME/kmut`, else `~/.cache/kmut`.
    pub fn default_dir() -> PathBuf {
        if let Some(d) = std::env::var_os("KMUT_CACHE_DIR") {
            return PathBuf::from(d);
        }
        if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
            return Path::new(&d).join("kmut");
        }
        let home = std::env::var_os("HOME").map_or_else(|| PathBuf::from("."), PathBuf::from);
        home.join(".cache").join("kmut")
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn paths(&self, key: &str) -> (PathBuf, PathBuf) {
        let sub = self.dir.join(&key[..2]);
        (sub.join(format!("{key}.cubin")), sub.join(format!("{key}.log")))
    }

    /// Where the image of `key` lives (whether or not it exists).
    pub fn image_path(&self, key: &str) -> PathBuf {
        self.paths(key).0
    }

    pub fn get(&self, key: &str) -> Option<CacheEntry> {
        let (image, log) = self.paths(key);
        let log = std::fs::read_to_string(log).ok()?;
        let image = std::fs::read(image).ok();
        Some(CacheEntry { image, log })
    }

    /// Compile into the cache, on `threads` threads, every source of `sources` whose image it
    /// lacks. Returns how many were compiled. A stage that finds a source classified in the
    /// store but its image gone (a store copied from another machine, a cleared cache) calls
    /// this before loading images.
    pub fn fill(&self, compiler: &dyn Compile, options: &Options, target: &str, sources: &[&str], threads: usize) -> Result<usize, CompileError> {
        let mut missing: Vec<&str> = sources.iter().copied().filter(|s| !self.image_path(&source_key(s, target)).is_file()).collect();
        missing.sort_unstable();
        missing.dedup();
        let next = AtomicUsize::new(0);
        let failure: Mutex<Option<CompileError>> = Mutex::new(None);
        std::thread::scope(|scope| {
            for _ in 0..threads.clamp(1, missing.len().max(1)) {
                scope.spawn(|| {
                    while let Some(source) = missing.get(next.fetch_add(1, Ordering::Relaxed)) {
                        let done = compiler
                            .compile(source, crate::PROGRAM_NAME, options)
                            .and_then(|out| self.put(&source_key(source, target), &CacheEntry { image: out.image, log: out.log }));
                        if let Err(e) = done {
                            failure.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get_or_insert(e);
                            break;
                        }
                    }
                });
            }
        });
        match failure.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner) {
            Some(e) => Err(e),
            None => Ok(missing.len()),
        }
    }

    pub fn put(&self, key: &str, entry: &CacheEntry) -> Result<(), CompileError> {
        let (image, log) = self.paths(key);
        let dir = image.parent().unwrap_or(&self.dir).to_path_buf();
        let wrap = |source| CompileError::Cache { path: dir.clone(), source };
        std::fs::create_dir_all(&dir).map_err(wrap)?;
        // The image first: a log without an image must mean "stillborn", never "half written".
        if let Some(bytes) = &entry.image {
            write_atomically(&image, bytes).map_err(wrap)?;
        }
        write_atomically(&log, entry.log.as_bytes()).map_err(wrap)
    }
}

fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension(format!("tmp{}-{:?}", std::process::id(), std::thread::current().id()).replace(['(', ')'], ""));
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(bytes)?;
    f.sync_all().ok();
    std::fs::rename(&tmp, path)
}
