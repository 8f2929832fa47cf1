//! Layer: config. "Did you mean": the known keys closest to one that is not (a typo, a key in
//! the wrong table). The loader words its unknown-key problems with it, and the sweep checker
//! (`ssdlab.sweeps.keys`) asks the same function through the bindings, so a grid axis and a
//! config file get the same suggestions.
//!
//! Similarity is the normalised Damerau-Levenshtein distance (`strsim`: a transposition such as
//! `shceduler` counts as one edit): of the last segment among the keys of the same table, of the
//! whole dotted key among the other keys of the same depth (a misspelt table, `cahce.capacity`);
//! a key whose last segment is exactly the unknown key's, at any depth, is a key written in the
//! wrong table (`count` at the top level: `workload.count`).

/// Suggestions at most.
const MOST: usize = 3;
/// The least similarity of a last segment among its table's keys (`sed` ~ `seed`: 0.75).
const SEGMENT_CUTOFF: f64 = 0.7;
/// The least similarity of a whole dotted key among keys of other tables (`difflib`'s 0.75,
/// which the sweep checker used before).
const KEY_CUTOFF: f64 = 0.75;

fn split(key: &str) -> (&str, &str) {
    key.rsplit_once('.').unwrap_or(("", key))
}

/// The known keys closest to `key`, best first (at most three; none if nothing is close).
/// `known` holds every dotted key, tables (`gc.rlgc`) and values (`gc.rlgc.alpha`).
pub fn suggest<'a>(key: &str, known: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let (parent, last) = split(key);
    let depth = key.matches('.').count();
    let mut scored: Vec<(f64, &str)> = Vec::new();
    for candidate in known {
        if candidate == key {
            continue;
        }
        let (candidate_parent, candidate_last) = split(candidate);
        let score = if candidate_last == last {
            // The same name in another table: the likeliest meaning of a key in the wrong place.
            1.0
        } else if candidate.matches('.').count() != depth {
            continue;
        } else if candidate_parent == parent {
            let score = strsim::normalized_damerau_levenshtein(last, candidate_last);
            if score < SEGMENT_CUTOFF {
                continue;
            }
            score
        } else {
            let score = strsim::normalized_damerau_levenshtein(key, candidate);
            if score < KEY_CUTOFF {
                continue;
            }
            score
        };
        scored.push((score, candidate));
    }
    // Best first; ties in the order of the names, so the message never depends on hash order.
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(MOST).map(|(_, k)| k.to_string()).collect()
}

/// `; did you mean `a` or `b`?`, or nothing: to append to a problem's reason.
pub fn did_you_mean(suggestions: &[String]) -> String {
    match suggestions {
        [] => String::new(),
        [one] => format!("; did you mean `{one}`?"),
        [first @ .., last] => {
            let first: Vec<String> = first.iter().map(|s| format!("`{s}`")).collect();
            format!("; did you mean {} or `{last}`?", first.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KNOWN: &[&str] = &[
        "seed",
        "gc",
        "gc.victim",
        "gc.scheduler",
        "gc.scope",
        "gc.rlgc",
        "gc.rlgc.alpha",
        "cache",
        "cache.capacity",
        "workload",
        "workload.count",
        "device",
        "device.page_bytes",
        "device.cell",
    ];

    fn s(key: &str) -> Vec<String> {
        suggest(key, KNOWN.iter().copied())
    }

    #[test]
    fn typos_among_the_same_table() {
        assert_eq!(s("gc.victimm"), ["gc.victim"]);
        assert_eq!(s("gc.shceduler"), ["gc.scheduler"], "a transposition is one edit");
        assert_eq!(s("sed"), ["seed"]);
        assert_eq!(s("device.page_byte"), ["device.page_bytes"]);
    }

    #[test]
    fn a_misspelt_table_and_a_key_in_the_wrong_table() {
        assert_eq!(s("cahce.capacity"), ["cache.capacity"]);
        assert_eq!(s("count"), ["workload.count"]);
        assert_eq!(s("gc.alpha"), ["gc.rlgc.alpha"]);
    }

    #[test]
    fn nothing_close_suggests_nothing() {
        assert!(s("device.colour").is_empty());
        assert!(s("bogus").is_empty());
        assert_eq!(did_you_mean(&[]), "");
        assert_eq!(did_you_mean(&["a".into(), "b".into(), "c".into()]), "; did you mean `a`, `b` or `c`?");
    }
}
