//! What a rule is: documentation a reader can check, and a matcher that finds its sites.

use kmut_model::Family;

use crate::context::Ctx;
use crate::matchers::Matcher;
use crate::site::Site;

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

impl Rule {
    /// Every site of this rule in one function. Launch rules have none here.
    pub fn sites(&self, ctx: &Ctx<'_>) -> Vec<Site> {
        self.matcher.find(ctx)
    }

    pub fn is_launch_rule(&self) -> bool {
        matches!(self.matcher, Matcher::Launch(_))
    }
}
