//! The one classifier of compile outcomes.

use std::collections::HashMap;

use kmut_model::Class;
use kmut_store::ClassRecord;

/// One mutant's compile outcome, as the classifier needs it.
#[derive(Debug, Clone)]
pub struct Compiled {
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
pub fn classify(mutants: &[Compiled]) -> Vec<ClassRecord> {
    let mut order: Vec<&Compiled> = mutants.iter().collect();
    order.sort_by(|a, b| a.id.cmp(&b.id));
    let mut first: HashMap<&str, &str> = HashMap::new();
    order
        .into_iter()
        .map(|Compiled { id, image, original, launch }| {
            let (class, duplicate_of) = if *launch {
                (Class::Live, None)
            } else {
                match image.as_deref() {
                    None => (Class::Stillborn, None),
                    Some(h) if h == original => (Class::Equivalent, None),
                    Some(h) => {
                        if let Some(rep) = first.get(h) {
                            (Class::Duplicate, Some((*rep).to_owned()))
                        } else {
                            first.insert(h, id);
                            (Class::Live, None)
                        }
                    }
                }
            };
            ClassRecord { mutant: id.clone(), class, duplicate_of }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_outcome_gets_its_class_and_the_lowest_id_represents_duplicates() {
        let m = |id: &str, h: Option<&str>, launch| Compiled { id: id.into(), image: h.map(str::to_owned), original: "orig".into(), launch };
        let got = classify(&[m("c", Some("x"), false), m("a", Some("x"), false), m("b", None, false), m("d", Some("orig"), false), m("e", Some("orig"), true)]);
        let r = |id: &str, class, of: Option<&str>| ClassRecord { mutant: id.into(), class, duplicate_of: of.map(str::to_owned) };
        assert_eq!(
            got,
            [
                r("a", Class::Live, None),
                r("b", Class::Stillborn, None),
                r("c", Class::Duplicate, Some("a")),
                r("d", Class::Equivalent, None),
                r("e", Class::Live, None),
            ]
        );
    }
}
