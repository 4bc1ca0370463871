//! "Did you mean …?": the closest of a list of known words.

/// The most candidates [`did_you_mean`] compares a word with.
pub const MAX_CANDIDATES: usize = 1_000;

/// "1 error", "3 errors".
pub fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// The candidate closest to `word`, for "did you mean" hints; first in candidate order on ties.
///
/// A candidate equal to `word` ignoring case and `-`/`_` wins outright. Otherwise the winner
/// has the smallest Damerau–Levenshtein distance (on the same normalized text), which must be
/// at most `max(1, len / 3)`, `len` being the length of `word` in characters. Among more than
/// [`MAX_CANDIDATES`] candidates there is no suggestion: the search costs what the spec
/// language's own lists do, however many named types a project declares.
pub fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let normalize = |s: &str| s.to_lowercase().replace('-', "_");
    let word_n = normalize(word);
    let limit = (word.chars().count() / 3).max(1);
    let word_len = word_n.chars().count();
    let candidates: Vec<&'a str> = candidates.into_iter().take(MAX_CANDIDATES + 1).collect();
    if candidates.len() > MAX_CANDIDATES {
        return None;
    }
    let mut best: Option<(usize, &'a str)> = None;
    for candidate in candidates {
        let candidate_n = normalize(candidate);
        // The difference in length is a lower bound of the distance: no need to compute it.
        if word_len.abs_diff(candidate_n.chars().count()) > limit {
            continue;
        }
        let distance = strsim::damerau_levenshtein(&word_n, &candidate_n);
        if distance == 0 {
            return Some(candidate);
        }
        if distance <= limit && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, c)| c)
}
