//! The overview's sections, one module each, in the order [`sections`] lists them.
//!
//! To add a section: write a module with a type implementing [`Section`] (its HTML from a
//! template of its own in `templates/`, registered in `html.rs`), and put it in [`sections`]. A
//! section whose data the store lacks returns [`Rendered::NotMeasured`] with what is missing
//! and how to measure it: the page then says "not measured yet" instead of showing empty tables.

pub mod audit;
pub mod depth;
pub mod overview;
pub mod substrates;
pub mod synthesis;

use crate::templates::Templates;
use crate::{ReportData, ReportError};

/// What a section shows.
pub enum Rendered {
    /// Its HTML (a fragment inside the section's `<section>`).
    Shown(String),
    /// Nothing measured yet: why, and what would measure it (plain text).
    NotMeasured(String),
}

/// One section of the overview page.
pub trait Section {
    /// Its anchor on the page (`index.html#id`).
    fn id(&self) -> &'static str;
    fn title(&self) -> &'static str;
    fn render(&self, data: &ReportData, templates: &Templates) -> Result<Rendered, ReportError>;
}

/// Every section of the overview, in page order.
pub fn sections() -> Vec<Box<dyn Section>> {
    vec![
        Box::new(overview::Overview),
        Box::new(audit::AuditSection),
        Box::new(synthesis::SynthesisSection),
        Box::new(depth::DepthSection),
        Box::new(substrates::Substrates),
    ]
}
