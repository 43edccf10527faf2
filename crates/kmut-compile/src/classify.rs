//! The one classifier of compile outcomes.

use std::collections::HashMap;

/// A mutant's compile class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Class {
    /// Does not compile; the log says why.
    Stillborn,
    /// Compiles to the original's image: no behaviour can differ.
    Equivalent,
    /// Compiles to the image of the mutant `of` (the lowest id with that image).
    Duplicate { of: String },
    /// A distinct image (or a launch mutant, which reuses the original image).
    Live,
}

impl Class {
    pub fn name(&self) -> &'static str {
        match self {
            Class::Stillborn => "stillborn",
            Class::Equivalent => "equivalent",
            Class::Duplicate { .. } => "duplicate",
            Class::Live => "live",
        }
    }
}

/// One mutant's compile outcome, as the classifier needs it.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub id: String,
    /// The image hash, `None` when the source did not compile.
    pub image: Option<String>,
    /// The image hash of the original compiled in the same kernel scope.
    pub original: String,
    /// A launch mutant: it reuses the original image and is always live.
    pub launch: bool,
}

/// Classify mutants from their image hashes. Mutants are considered in id order, so the lowest
/// id with a given image is the representative.
pub fn classify(mutants: &[Outcome]) -> Vec<(String, Class)> {
    let mut order: Vec<&Outcome> = mutants.iter().collect();
    order.sort_by(|a, b| a.id.cmp(&b.id));
    let mut first: HashMap<&str, &str> = HashMap::new();
    order
        .into_iter()
        .map(|Outcome { id, image, original, launch }| {
            let class = if *launch {
                Class::Live
            } else {
                match image.as_deref() {
                    None => Class::Stillborn,
                    Some(h) if h == original => Class::Equivalent,
                    Some(h) => {
                        if let Some(rep) = first.get(h) {
                            Class::Duplicate { of: (*rep).to_owned() }
                        } else {
                            first.insert(h, id);
                            Class::Live
                        }
                    }
                }
            };
            (id.clone(), class)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_outcome_gets_its_class_and_the_lowest_id_represents_duplicates() {
        let m = |id: &str, h: Option<&str>, launch| Outcome { id: id.into(), image: h.map(str::to_owned), original: "orig".into(), launch };
        let got = classify(&[m("c", Some("x"), false), m("a", Some("x"), false), m("b", None, false), m("d", Some("orig"), false), m("e", Some("orig"), true)]);
        assert_eq!(
            got,
            [
                ("a".into(), Class::Live),
                ("b".into(), Class::Stillborn),
                ("c".into(), Class::Duplicate { of: "a".into() }),
                ("d".into(), Class::Equivalent),
                ("e".into(), Class::Live),
            ]
        );
    }
}
