//! The HTML folder: templates (minijinja, HTML auto-escaping, in `templates/`), the overview
//! made of [`crate::sections`], and one page per substrate.

use std::path::PathBuf;

use minijinja::value::Serde;
use minijinja::Environment;
use serde::Serialize;

use crate::sections::{self, Rendered};
use crate::{file_safe, ReportData, ReportError};

/// The report's templates, each compiled into the binary.
pub struct Templates {
    env: Environment<'static>,
}

const TEMPLATES: [(&str, &str); 11] = [
    ("layout.html", include_str!("../templates/layout.html")),
    ("index.html", include_str!("../templates/index.html")),
    ("substrate.html", include_str!("../templates/substrate.html")),
    ("overview.html", include_str!("../templates/overview.html")),
    ("audit.html", include_str!("../templates/audit.html")),
    ("synthesis.html", include_str!("../templates/synthesis.html")),
    ("depth.html", include_str!("../templates/depth.html")),
    ("substrates.html", include_str!("../templates/substrates.html")),
    ("rates_table.html", include_str!("../templates/rates_table.html")),
    ("not_measured.html", include_str!("../templates/not_measured.html")),
    ("style.css", include_str!("../templates/style.css")),
];

impl Templates {
    pub fn new() -> Templates {
        let mut env = Environment::new();
        for (name, source) in TEMPLATES {
            env.add_template(name, source).expect("the report's templates parse (tested)");
        }
        Templates { env }
    }

    /// Render the template `name` with `context` (anything serialisable).
    pub fn render<S: Serialize>(&self, name: &str, context: &S) -> Result<String, ReportError> {
        let fail = |source| ReportError::Template { name: name.to_owned(), source };
        self.env.get_template(name).map_err(fail)?.render(Serde(context)).map_err(fail)
    }
}

impl Default for Templates {
    fn default() -> Templates {
        Templates::new()
    }
}

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
    let style = TEMPLATES.iter().find(|(n, _)| *n == "style.css").map(|(_, s)| *s).unwrap_or_default();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_parses_and_escapes_html() {
        let t = Templates::new();
        for (name, _) in TEMPLATES {
            assert!(t.env.get_template(name).is_ok(), "{name}");
        }
        let mut env = Environment::new();
        env.add_template("x.html", "{{ v }}").unwrap();
        assert_eq!(env.get_template("x.html").unwrap().render(minijinja::context! { v => "<b>&" }).unwrap(), "&lt;b&gt;&amp;");
    }
}
