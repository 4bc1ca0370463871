//! YAML syntax errors as diagnostics, pointing where the writer can fix them.

use crate::diagnostic::Diagnostic;
use crate::diagnostic::kind::Kind;
use crate::read::yaml;
use crate::source::Span;

/// The name of the project config file at the root of the specs directory.
pub const CONFIG_FILE: &str = "toolspec.yaml";

/// A YAML error as a diagnostic. When the parser stopped inside a `[` or `{` that is never
/// closed, the diagnostic points at that bracket rather than where the parser gave up.
pub fn yaml_error(file: String, text: &str, e: &yaml::YamlError) -> Diagnostic {
    if let Some((open, span)) = unclosed_bracket(text, e.span.start) {
        let (close, what) = if open == '[' {
            (']', "list")
        } else {
            ('}', "map")
        };
        return Diagnostic::error(
            Kind::Syntax,
            file.clone(),
            Some(span),
            format!("invalid YAML: unclosed `{open}`"),
        )
        .with_label(format!("this `{open}` is never closed"))
        .with_related(
            file,
            e.span,
            format!("the parser gave up here: {}", e.message),
        )
        .with_help(format!("close the {what} with `{close}`"));
    }
    let label = if e.message.starts_with("duplicate key") {
        "duplicate key"
    } else {
        "here"
    };
    let d = Diagnostic::error(
        Kind::Syntax,
        file,
        Some(e.span),
        format!("invalid YAML: {}", e.message),
    )
    .with_label(label);
    // YAML 1.2 reads `key:[` in a flow map as one plain scalar: a space is missing.
    if e.message.contains("may not precede any of") {
        return d.with_help("put a space after the `:`, like `one_of: [a, b]`");
    }
    d
}

/// The last flow-collection bracket (`[` or `{`) before `before` in `text` that is never
/// closed, found with a light scan that skips comments, quoted scalars and block scalars.
fn unclosed_bracket(text: &str, before: crate::source::Pos) -> Option<(char, Span)> {
    let (text, base) = match text.strip_prefix('\u{feff}') {
        Some(rest) => (rest, '\u{feff}'.len_utf8()),
        None => (text, 0),
    };
    if text.replace("\r\n", "").contains('\r') {
        return None; // old Mac line ends: lines would not be counted as the parser counts them
    }
    let mut stack: Vec<(char, Span)> = Vec::new();
    let mut unclosed: Vec<(char, Span)> = Vec::new();
    let mut block_indent: Option<usize> = None;
    let mut offset = base;
    for (index, line) in text.split_inclusive('\n').enumerate() {
        let line_start = offset;
        offset += line.len();
        let line = line.trim_end_matches(['\n', '\r']);
        let indent = line.len() - line.trim_start_matches(' ').len();
        // Inside a block scalar (`|`, `>`): skip lines indented deeper than its key.
        if let Some(key_indent) = block_indent {
            if line.trim().is_empty() || indent > key_indent {
                continue;
            }
            block_indent = None;
        }
        let mut value_start = true;
        let mut quote: Option<char> = None;
        let mut chars = line.char_indices().peekable();
        let mut col = 0u32;
        while let Some((i, c)) = chars.next() {
            col += 1;
            if let Some(q) = quote {
                if c == '\\' && q == '"' {
                    chars.next();
                    col += 1;
                } else if c == q {
                    quote = None;
                }
                continue;
            }
            let next = chars.peek().map(|(_, n)| *n);
            match c {
                ' ' | '\t' => continue,
                '#' if i == 0 || line[..i].ends_with([' ', '\t']) => break,
                '\'' | '"' if value_start => quote = Some(c),
                '|' | '>' if value_start && stack.is_empty() => {
                    block_indent = Some(indent);
                    break;
                }
                '[' | '{' if value_start || !stack.is_empty() => {
                    let pos = |col, off| crate::source::Pos {
                        line: u32::try_from(index + 1).unwrap_or(u32::MAX),
                        col,
                        offset: off,
                    };
                    let span = Span {
                        start: pos(col, line_start + i),
                        end: pos(col + 1, line_start + i + 1),
                    };
                    stack.push((c, span));
                    value_start = true;
                    continue;
                }
                ']' | '}' if !stack.is_empty() => {
                    let open = if c == ']' { '[' } else { '{' };
                    if let Some(at) = stack.iter().rposition(|(o, _)| *o == open) {
                        unclosed.extend(stack.drain(at..).skip(1));
                    }
                }
                ',' if !stack.is_empty() => {
                    value_start = true;
                    continue;
                }
                ':' if next.is_none_or(|n| n == ' ' || n == '\t') || !stack.is_empty() => {
                    value_start = true;
                    continue;
                }
                '-' if value_start && next.is_none_or(|n| n == ' ' || n == '\t') => continue,
                _ => {}
            }
            value_start = false;
        }
    }
    unclosed.extend(stack);
    unclosed
        .into_iter()
        .filter(|(_, s)| (s.start.line, s.start.col) < (before.line, before.col))
        .max_by_key(|(_, s)| s.start.offset)
}
