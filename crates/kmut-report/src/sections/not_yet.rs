//! Sections this kmut cannot measure yet. Each says what it will show and that nothing in the
//! store measures it; replace one with its own module once its stage exists.

use super::{Rendered, Section};
use crate::html::Templates;
use crate::{ReportData, ReportError};

/// A section with nothing to show yet.
pub struct NotYet {
    pub id: &'static str,
    pub title: &'static str,
    /// What the section will show once measured.
    pub shows: &'static str,
}

pub const AUDIT: NotYet = NotYet {
    id: "audit",
    title: "Protocol audit",
    shows: "every published checker side by side on one witnessed denominator: detection rates with intervals, false kills of the original, and the decomposition of one protocol's gain over another into its inputs and its tolerance",
};

pub const SYNTHESIS: NotYet = NotYet {
    id: "synthesis",
    title: "Suite synthesis",
    shows: "the budget curve: the miss rate against the number of inputs a synthesised suite adds per problem",
};

pub const DEPTH: NotYet = NotYet {
    id: "depth",
    title: "Depth and propagation",
    shows: "the miss rate by depth quartile of the mutated layer, and how far a fault's error travels through the later layers of a pipeline",
};

impl Section for NotYet {
    fn id(&self) -> &'static str {
        self.id
    }

    fn title(&self) -> &'static str {
        self.title
    }

    fn render(&self, _data: &ReportData, _templates: &Templates) -> Result<Rendered, ReportError> {
        Ok(Rendered::NotMeasured(format!(
            "Not measured yet: this version of kmut has no stage that measures it, so the store holds nothing for it. Once measured, this section shows {}.",
            self.shows
        )))
    }
}
