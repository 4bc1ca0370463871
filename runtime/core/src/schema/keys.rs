//! Finding object keys fast: models send arguments in schema order nearly always, so a lookup
//! tries the position after the last key found before searching.
//!
//! Knows nothing of schemas or values: the argument plan and the sensitivity maps use it for
//! their objects' declared keys.

/// Object keys in schema order, found by name.
#[derive(Debug, Clone, Default)]
pub(crate) struct Keys {
    /// The keys, in schema order.
    names: Vec<String>,
    /// Positions in `names`, sorted by name.
    sorted: Vec<usize>,
}

impl Keys {
    pub(crate) fn new(names: Vec<String>) -> Self {
        let mut sorted: Vec<usize> = (0..names.len()).collect();
        sorted.sort_by(|&a, &b| names[a].cmp(&names[b]));
        Self { names, sorted }
    }

    /// The keys, in schema order.
    pub(crate) fn names(&self) -> &[String] {
        &self.names
    }

    /// The position of `key`, trying position `hint` first.
    pub(crate) fn find(&self, key: &str, hint: usize) -> Option<usize> {
        if self.names.get(hint).is_some_and(|name| same(name, key)) {
            return Some(hint);
        }
        self.sorted
            .binary_search_by(|&i| self.names[i].as_str().cmp(key))
            .ok()
            .map(|found| self.sorted[found])
    }
}

/// Whether two keys (or other short strings) are equal: up to 16 bytes in two overlapping word compares,
/// inline (a call of `memcmp` for each key of a call's arguments was a quarter of a check).
#[inline]
pub(crate) fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word = |bytes: &[u8], at: usize| {
        u64::from_le_bytes(bytes[at..at + 8].try_into().expect("eight bytes"))
    };
    let half = |bytes: &[u8], at: usize| {
        u32::from_le_bytes(bytes[at..at + 4].try_into().expect("four bytes"))
    };
    match n {
        0..4 => a == b,
        4..8 => half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4),
        8..=16 => word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8),
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_found_in_any_order() {
        let keys = Keys::new(vec!["b".into(), "a".into(), "c".into()]);
        assert_eq!(keys.find("b", 0), Some(0));
        assert_eq!(keys.find("a", 1), Some(1));
        assert_eq!(keys.find("a", 0), Some(1));
        assert_eq!(keys.find("c", 7), Some(2));
        assert_eq!(keys.find("d", 0), None);
        assert_eq!(Keys::new(Vec::new()).find("a", 0), None);
    }

    #[test]
    fn keys_of_every_length_compare_by_every_byte() {
        let base = "abcdefghijklmnopqrstuvwxyz";
        for n in 0..=base.len() {
            let key = &base[..n];
            assert!(same(key, key));
            for at in 0..n {
                let mut other = key.as_bytes().to_vec();
                other[at] = b'_';
                assert!(
                    !same(key, std::str::from_utf8(&other).unwrap()),
                    "{key} at {at}"
                );
            }
            assert!(!same(key, &base[..n.saturating_sub(1)]) || n == 0);
        }
    }
}
