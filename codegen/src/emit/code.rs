//! Rust source written as text, laid out as it is written: lines at a depth of indentation,
//! doc comments, string literals. What the generated code's items are is decided by the
//! emitters (`tool`, `types`); this only spells and indents them, so that a tool's module is
//! written once instead of built as tokens, parsed and printed again.

use crate::emit::literal::string;

/// Source text being written.
#[derive(Default)]
pub struct Code {
    out: String,
    depth: usize,
}

/// The width a macro call is kept on one line within.
const WIDTH: usize = 100;

impl Code {
    pub fn new() -> Self {
        Self::default()
    }

    /// `text` on a line of its own, at the current depth.
    pub fn line(&mut self, text: &str) {
        if !text.is_empty() {
            for _ in 0..self.depth {
                self.out.push_str("    ");
            }
            self.out.push_str(text);
        }
        self.out.push('\n');
    }

    /// `text` (ending in an opening brace) on a line; what follows one level deeper.
    pub fn open(&mut self, text: &str) {
        self.line(text);
        self.depth += 1;
    }

    /// One level back; then `text` (a closing brace) on a line.
    pub fn close(&mut self, text: &str) {
        self.depth = self.depth.saturating_sub(1);
        self.line(text);
    }

    /// Every line of `text` (already written), at the current depth.
    pub fn block(&mut self, text: &str) {
        for line in text.lines() {
            self.line(line);
        }
    }

    /// A doc comment of `text`, a `///` line each (nothing for `None`).
    pub fn doc(&mut self, text: Option<&str>) {
        let Some(text) = text else { return };
        for line in text.trim_end().lines() {
            if line.contains('\r') {
                // A doc comment cannot hold a bare carriage return; the attribute can.
                self.line(&format!("#[doc = {}]", string(&format!(" {line}"))));
            } else if line.is_empty() {
                self.line("///");
            } else {
                self.line(&format!("/// {line}"));
            }
        }
    }

    /// `callee!(name { entry, … });` on one line when it fits, else an entry a line, each
    /// followed by a comma.
    pub fn macro_call(&mut self, callee: &str, name: &str, entries: &[String]) {
        let flat = match entries {
            [] => format!("{callee}!({name} {{}});"),
            _ => format!("{callee}!({name} {{ {} }});", entries.join(", ")),
        };
        if self.depth * 4 + flat.len() <= WIDTH {
            self.line(&flat);
            return;
        }
        self.open(&format!("{callee}!({name} {{"));
        for entry in entries {
            self.line(&format!("{entry},"));
        }
        self.close("});");
    }

    pub fn finish(self) -> String {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn docs_blocks_and_macro_calls_are_indented() {
        let mut code = Code::new();
        code.doc(Some("First.\n\nThird with a\rreturn."));
        code.open("pub mod a {");
        code.block("fn f() {\n    1\n}\n");
        code.macro_call("m", "E", &["A = \"a\"".into()]);
        let long: Vec<String> = (0..10)
            .map(|i| format!("Variant{i} = \"value {i}\""))
            .collect();
        code.macro_call("m", "E", &long[..2]);
        code.macro_call("m", "E", &long);
        code.macro_call("m", "E", &[]);
        code.close("}");
        let expected = "/// First.\n///\n#[doc = \" Third with a\\rreturn.\"]\npub mod a {\n    fn f() {\n        1\n    }\n    m!(E { A = \"a\" });\n    m!(E { Variant0 = \"value 0\", Variant1 = \"value 1\" });\n    m!(E {\n";
        let written = code.finish();
        assert!(written.starts_with(expected), "{written}");
        assert!(
            written.ends_with("        Variant9 = \"value 9\",\n    });\n    m!(E {});\n}\n"),
            "{written}"
        );
    }
}
