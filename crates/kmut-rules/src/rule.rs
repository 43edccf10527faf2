//! What a rule is: documentation a reader can check, and a matcher that finds its sites.

use kmut_model::Family;

use crate::context::Ctx;
use crate::matchers::Matcher;

/// One mutation rule of the catalogue.
pub struct Rule {
    /// Stable kebab-case id, `<family>-<fault>`, never reused for another fault.
    pub id: &'static str,
    pub family: Family,
    /// What the rule changes, in one line.
    pub description: &'static str,
    /// Why the fault is realistic: where real kernels get it wrong.
    pub rationale: &'static str,
    /// An example: statements of a kernel body before the mutation...
    pub before: &'static str,
    /// ...and after it. Tests check that the rule turns `before` into `after`, and NVRTC compiles both.
    pub after: &'static str,
    pub matcher: Matcher,
}

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

impl Rule {
    /// Every site of this rule in one function. Launch rules have none here.
    pub fn sites(&self, ctx: &Ctx<'_>) -> Vec<Site> {
        self.matcher.find(ctx)
    }

    pub fn is_launch_rule(&self) -> bool {
        matches!(self.matcher, Matcher::Launch(_))
    }
}
