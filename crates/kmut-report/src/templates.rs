//! The report's templates (minijinja, HTML auto-escaping), compiled into the binary from
//! `templates/`: the one thing every section and page renders through.

use minijinja::value::Serde;
use minijinja::Environment;
use serde::Serialize;

use crate::ReportError;

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

    /// The text of template `name` as compiled in (the stylesheet is inlined into each page).
    pub fn source(name: &str) -> Option<&'static str> {
        TEMPLATES.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
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
