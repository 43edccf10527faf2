//! Where a mutation lands: the span of source a rule's matcher replaces, and the header the
//! mutated code may need.

/// One place a rule applies: replace `source[start..end]` with `text`, and where the mutated
/// code needs a header, insert `#include <include>` at the top.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Site {
    pub start: usize,
    pub end: usize,
    pub text: String,
    pub include: Option<&'static str>,
}

impl Site {
    pub fn replace(node: kmut_syntax::Node<'_>, text: impl Into<String>) -> Site {
        Site { start: node.start_byte(), end: node.end_byte(), text: text.into(), include: None }
    }

    pub fn span(start: usize, end: usize, text: impl Into<String>) -> Site {
        Site { start, end, text: text.into(), include: None }
    }

    #[must_use]
    pub fn with_include(mut self, header: &'static str) -> Site {
        self.include = Some(header);
        self
    }
}
