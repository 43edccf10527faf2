//! CUDA source as a syntax tree. The only crate that imports tree-sitter: others use the
//! re-exported [`Node`] through the helpers here.
//!
//! Parsing never fails on a construct the grammar does not know: tree-sitter marks it as an
//! ERROR node. Functions whose subtree holds an error are reported as [`Unreadable`] and left
//! out; only a source in which no `__global__` or `__device__` function can be read at all is
//! a [`SyntaxError`], naming the file and the line of the first unreadable construct.

mod functions;
mod position;
mod walk;

pub use functions::{reaching_kernels, FunctionKind, GpuFunction};
pub use position::LineIndex;
pub use tree_sitter::Node;
pub use walk::{descendants, field, kind_is, named_children, operator, text};

/// A source the parser cannot read at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}:{col}: {message}")]
pub struct SyntaxError {
    pub file: String,
    pub line: usize,
    pub col: usize,
    pub message: String,
}

/// A region left unmutated because the parser could not read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable {
    /// The function it is in, if any.
    pub function: Option<String>,
    pub line: usize,
    pub col: usize,
    pub snippet: String,
}

/// A parsed CUDA source.
pub struct CudaSource {
    pub file: String,
    pub text: String,
    tree: tree_sitter::Tree,
    pub lines: LineIndex,
}

impl CudaSource {
    /// Parse `text`; `file` names it in messages.
    pub fn parse(file: &str, text: &str) -> Result<CudaSource, SyntaxError> {
        let mut parser = tree_sitter::Parser::new();
        let fail = |message: String| SyntaxError { file: file.to_owned(), line: 1, col: 1, message };
        parser.set_language(&tree_sitter_cuda::LANGUAGE.into()).map_err(|e| fail(format!("tree-sitter-cuda could not load: {e}")))?;
        let tree = parser.parse(text, None).ok_or_else(|| fail("the parser gave up".to_owned()))?;
        let src = CudaSource { file: file.to_owned(), text: text.to_owned(), lines: LineIndex::new(text), tree };
        let readable = src.functions().iter().any(|f| !f.has_error);
        if !readable {
            let (line, col, snippet) = src.first_error().map_or((1, 1, String::new()), |n| {
                let (l, c) = src.lines.line_col(n.start_byte());
                (l, c, src.snippet(n))
            });
            let message = if snippet.is_empty() {
                "no readable __global__ or __device__ function".to_owned()
            } else {
                format!("no readable __global__ or __device__ function; the parser cannot read `{snippet}`")
            };
            return Err(SyntaxError { file: file.to_owned(), line, col, message });
        }
        Ok(src)
    }

    pub fn root(&self) -> Node<'_> {
        self.tree.root_node()
    }

    /// Every `__global__` and `__device__` function definition, in source order.
    pub fn functions(&self) -> Vec<GpuFunction<'_>> {
        functions::find(self)
    }

    /// Regions the parser could not read, with the function each is in.
    pub fn unreadable(&self) -> Vec<Unreadable> {
        let funcs = self.functions();
        descendants(self.root())
            .filter(|n| n.is_error() || n.is_missing())
            .map(|n| {
                let (line, col) = self.lines.line_col(n.start_byte());
                let function = funcs.iter().find(|f| f.node.byte_range().contains(&n.start_byte())).map(|f| f.name.clone());
                Unreadable { function, line, col, snippet: self.snippet(n) }
            })
            .collect()
    }

    fn first_error(&self) -> Option<Node<'_>> {
        descendants(self.root()).find(|n| n.is_error() || n.is_missing())
    }

    /// The text of `node`.
    pub fn text(&self, node: Node<'_>) -> &str {
        &self.text[node.byte_range()]
    }

    fn snippet(&self, node: Node<'_>) -> String {
        let t = self.text(node);
        let t = t.lines().next().unwrap_or("");
        t.chars().take(40).collect()
    }
}
