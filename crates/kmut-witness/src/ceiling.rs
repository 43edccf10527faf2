//! The ceiling search: bisection in log scale over a generator's scale.

/// The generators of `python/kmut/generators.py` that take a scale (every one but `dense` and
/// `boundary`), in the order they are searched. A test checks the list against the Python side.
pub const SCALED_GENERATORS: &[&str] = &["scaled", "shifted", "signed", "negative", "sparse", "spiky", "constant", "ramp", "ties"];

/// What a search over `[lowest, highest]` found: the largest probed scale at which the probe
/// held (`ceiling`) and the smallest at which it failed (`first_invalid`). The true ceiling lies
/// between them when both are set; `ceiling: None` means it failed even at `lowest`, and
/// `first_invalid: None` that it held up to `highest`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bracket {
    pub ceiling: Option<f64>,
    pub first_invalid: Option<f64>,
}

/// Search `[lowest, highest]` with `steps` bisections of the log scale, `valid(scale)` telling
/// whether inputs at `scale` are valid. Probes `lowest`, then `highest`, then midpoints rounded to
/// two significant digits (so the probed specs read as `W:signed:320:official`, not a float's
/// seventeen digits). Validity is assumed to fall with scale once it falls: the search reports the
/// bracket it converged to, not a proof that no larger scale is valid again.
pub fn bisect<E>(lowest: f64, highest: f64, steps: u32, mut valid: impl FnMut(f64) -> Result<bool, E>) -> Result<Bracket, E> {
    assert!(lowest > 0.0 && highest > lowest, "a ceiling search needs 0 < lowest < highest");
    if !valid(lowest)? {
        return Ok(Bracket { ceiling: None, first_invalid: Some(lowest) });
    }
    if valid(highest)? {
        return Ok(Bracket { ceiling: Some(highest), first_invalid: None });
    }
    let (mut lo, mut hi) = (lowest, highest);
    for _ in 0..steps {
        let mid = round_scale((lo * hi).sqrt());
        if mid <= lo || mid >= hi {
            break; // the bracket is as narrow as two significant digits allow
        }
        if valid(mid)? {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(Bracket { ceiling: Some(lo), first_invalid: Some(hi) })
}

/// `x` rounded to two significant digits.
pub fn round_scale(x: f64) -> f64 {
    if x <= 0.0 || !x.is_finite() {
        return x;
    }
    // Divide by a power of ten rather than multiply by its inverse, so 1.8 comes out as 1.8.
    let exponent = x.log10().floor() as i32 - 1;
    if exponent >= 0 {
        (x / 10f64.powi(exponent)).round() * 10f64.powi(exponent)
    } else {
        (x * 10f64.powi(-exponent)).round() / 10f64.powi(-exponent)
    }
}

/// A scale as `python/kmut/generators.py` spells it in a spec name: an integer without a
/// decimal point, otherwise Python's `repr` of the float (which Rust's shortest round-trip
/// formatting matches for the two-digit values the search probes).
pub fn scale_text(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

#[cfg(test)]
#[allow(clippy::float_cmp)] // the probed scales are exact decimal values
mod tests {
    use super::*;

    fn search(truth: f64, steps: u32) -> (Bracket, Vec<f64>) {
        let mut probed = Vec::new();
        let b = bisect(1.0, 1e4, steps, |s| {
            probed.push(s);
            Ok::<_, ()>(s <= truth)
        })
        .unwrap();
        (b, probed)
    }

    #[test]
    fn the_bracket_holds_the_true_ceiling_and_narrows_with_steps() {
        for truth in [1.7, 30.0, 316.0, 999.0, 4500.0] {
            let (b, probed) = search(truth, 6);
            let (lo, hi) = (b.ceiling.unwrap(), b.first_invalid.unwrap());
            assert!(lo <= truth && truth < hi, "truth {truth} outside [{lo}, {hi})");
            assert!(hi / lo < 10f64.powf(4.0 / 32.0) * 1.1, "six steps narrow 4 decades to ~1.3x, got {lo}..{hi}");
            assert_eq!(probed.len(), 8, "lowest, highest and six midpoints");
        }
        let (coarse, _) = search(316.0, 2);
        assert!(coarse.first_invalid.unwrap() / coarse.ceiling.unwrap() > 5.0);
    }

    #[test]
    fn a_generator_valid_everywhere_or_nowhere_is_reported_as_such() {
        let (b, probed) = search(f64::INFINITY, 6);
        assert_eq!(b, Bracket { ceiling: Some(1e4), first_invalid: None });
        assert_eq!(probed, vec![1.0, 1e4]);
        let (b, probed) = search(0.5, 6);
        assert_eq!(b, Bracket { ceiling: None, first_invalid: Some(1.0) });
        assert_eq!(probed, vec![1.0]);
    }

    #[test]
    fn a_failed_probe_stops_the_search_with_its_error() {
        let r = bisect(1.0, 1e4, 6, |s| if s > 50.0 && s < 1e4 { Err("worker lost") } else { Ok(s < 10.0) });
        assert_eq!(r, Err("worker lost"));
    }

    #[test]
    fn probed_scales_read_as_two_significant_digits() {
        assert_eq!(round_scale(316.227_766), 320.0);
        assert_eq!(round_scale(1.778_279), 1.8);
        assert_eq!(scale_text(320.0), "320");
        assert_eq!(scale_text(1.8), "1.8");
        assert_eq!(scale_text(0.25), "0.25");
    }
}
