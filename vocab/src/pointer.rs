//! JSON pointer tokens (RFC 6901), as both sides name places in schemas and values: the
//! compiler where a schema's integers keep their own range, the runtime where an argument is
//! wrong.

/// One token of a pointer: `~` written `~0`, `/` written `~1`.
pub fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// A token as written in a pointer, read back.
pub fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip() {
        for token in ["a/b", "~1", "x~/y", "plain", ""] {
            assert_eq!(unescape(&escape(token)), token);
        }
        assert_eq!(escape("a/b~c"), "a~1b~0c");
        assert_eq!(unescape("~01"), "~1", "`~0` is read last");
    }
}
