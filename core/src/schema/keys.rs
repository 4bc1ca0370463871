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
        if self.names.get(hint).is_some_and(|name| name == key) {
            return Some(hint);
        }
        self.sorted
            .binary_search_by(|&i| self.names[i].as_str().cmp(key))
            .ok()
            .map(|found| self.sorted[found])
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
}
