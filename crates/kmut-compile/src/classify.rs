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

/// Classify mutants from their image hashes (`None`: did not compile). Launch mutants are
/// passed with `launch = true` and are always live. Mutants are considered in id order, so the
/// lowest id with a given image is the representative.
pub fn classify(original: &str, mutants: &[(String, Option<String>, bool)]) -> Vec<(String, Class)> {
    let mut order: Vec<&(String, Option<String>, bool)> = mutants.iter().collect();
    order.sort_by(|a, b| a.0.cmp(&b.0));
    let mut first: HashMap<&str, &str> = HashMap::new();
    order
        .into_iter()
        .map(|(id, image, launch)| {
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
        let m = |id: &str, h: Option<&str>| (id.to_owned(), h.map(str::to_owned), false);
        let got = classify("orig", &[m("c", Some("x")), m("a", Some("x")), m("b", None), m("d", Some("orig")), ("e".into(), Some("orig".into()), true)]);
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
