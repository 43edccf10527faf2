//! The HTML folder: the overview made of [`crate::sections`], and one page per substrate, each
//! rendered through [`crate::templates`].

use std::path::PathBuf;

use serde::Serialize;

use crate::sections::{self, Rendered};
use crate::templates::Templates;
use crate::{file_safe, ReportData, ReportError};

/// The pages of a report, as (path in the folder, text).
pub struct Pages {
    pub files: Vec<(PathBuf, String)>,
    pub not_measured: Vec<String>,
}

#[derive(Serialize)]
struct SectionView {
    id: &'static str,
    title: &'static str,
    html: Option<String>,
    not_measured: Option<String>,
}

#[derive(Serialize)]
struct Page<'a, T: Serialize> {
    title: String,
    /// The path from the page back to the folder (`""` or `"../"`).
    root: &'static str,
    kmut_version: &'a str,
    store: &'a str,
    style: &'a str,
    body: T,
}

/// Render every page of `data`.
pub fn render(data: &ReportData) -> Result<Pages, ReportError> {
    let t = Templates::new();
    let style = Templates::source("style.css").unwrap_or_default();
    let mut views = Vec::new();
    let mut not_measured = Vec::new();
    for s in sections::sections() {
        let view = match s.render(data, &t)? {
            Rendered::Shown(html) => SectionView { id: s.id(), title: s.title(), html: Some(html), not_measured: None },
            Rendered::NotMeasured(why) => {
                not_measured.push(s.title().to_owned());
                SectionView { id: s.id(), title: s.title(), html: None, not_measured: Some(why) }
            }
        };
        views.push(view);
    }
    let page = |title: String, root: &'static str| (title, root);
    let (title, root) = page(format!("kmut report: {}", data.store), "");
    let index = t.render("index.html", &Page { title, root, kmut_version: &data.kmut_version, store: &data.store, style, body: &views })?;
    let mut files = vec![(PathBuf::from("index.html"), index)];
    for (i, _) in data.substrates.iter().enumerate() {
        let body = sections::substrates::page(data, i);
        let name = &data.substrates[i].name;
        let html = t.render(
            "substrate.html",
            &Page { title: format!("{name}: kmut report"), root: "../", kmut_version: &data.kmut_version, store: &data.store, style, body },
        )?;
        files.push((PathBuf::from("substrates").join(format!("{}.html", file_safe(name))), html));
    }
    Ok(Pages { files, not_measured })
}
