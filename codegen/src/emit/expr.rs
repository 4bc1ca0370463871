//! A baked value's tokens read straight into syn's expression tree, in the generated code's
//! style: the tree `syn::parse2` gives for the tokens `bake::tidy` makes of them, built
//! without either. A descriptor's tokens are most of a tool module's, and syn's general
//! expression parser (with tidy's copy of every token before it) most of what emitting one
//! costs; what databake writes is a few forms only.
//!
//! Those forms: paths (`a::b::C`, `::a::B`), calls of a path (`P(x, y)`), struct literals of
//! a path (`P { a: x, b: y }`), references (`&x`), arrays (`[x, y]`), tuples and parentheses
//! (`(x, y)`, `(x,)`, `(x)`), literals and `true`/`false`, each list with or without a trailing
//! comma. [`read`] answers `None` for anything else (and for what tidy would make invalid),
//! and the caller then tidies and parses the tokens as before: what is emitted never depends
//! on which way was taken.

use proc_macro2::{Delimiter, Ident, Spacing, TokenStream, TokenTree};
use syn::punctuated::Punctuated;
use syn::{
    Expr, ExprArray, ExprCall, ExprLit, ExprParen, ExprPath, ExprReference, ExprStruct, ExprTuple,
    FieldValue, Lit, LitBool, Member, Path, PathArguments, PathSegment, Token, token,
};

use crate::emit::bake::literal_in_style;

/// The expression `tokens` (databake's, untidied) stand for, in the generated code's style;
/// `None` when they hold a form this reader does not know.
pub fn read(tokens: TokenStream) -> Option<Expr> {
    let mut cursor = Cursor::new(tokens);
    let expr = cursor.expr()?;
    cursor.at_end().then_some(expr)
}

/// Tokens read front to back, owned: a group is taken apart once read, so its stream is
/// not shared when it is iterated (proc-macro2 copies a shared one).
struct Cursor {
    /// The tokens not read yet, last first.
    rest: Vec<TokenTree>,
}

/// The paths tidy writes for a path's first segment: `alloc` → `::std`, `toolspec` →
/// `::toolspec`, `Some` and `None` → `::core::option::Option::…`.
fn tidied(first: &Ident) -> Option<&'static [&'static str]> {
    const TIDIED: [(&str, &[&str]); 4] = [
        ("alloc", &["std"]),
        ("toolspec", &["toolspec"]),
        ("Some", &["core", "option", "Option", "Some"]),
        ("None", &["core", "option", "Option", "None"]),
    ];
    TIDIED
        .iter()
        .find(|(name, _)| first == name)
        .map(|(_, path)| *path)
}

/// Whether syn reads `ident` as an identifier. databake writes the names of Rust items and
/// fields, which are never bare keywords but for the few a path may start with (those are
/// left to syn) and `true` and `false` (read as literals before this is asked).
fn plain(ident: &Ident) -> bool {
    !["crate", "self", "Self", "super", "_"]
        .iter()
        .any(|keyword| ident == keyword)
}

impl Cursor {
    fn new(tokens: TokenStream) -> Cursor {
        let mut rest: Vec<TokenTree> = tokens.into_iter().collect();
        rest.reverse();
        Cursor { rest }
    }

    /// The token `offset` places ahead.
    fn ahead(&self, offset: usize) -> Option<&TokenTree> {
        self.rest
            .len()
            .checked_sub(offset + 1)
            .map(|i| &self.rest[i])
    }

    fn peek(&self) -> Option<&TokenTree> {
        self.rest.last()
    }

    fn skip(&mut self, n: usize) {
        self.rest.truncate(self.rest.len().saturating_sub(n));
    }

    fn at_end(&self) -> bool {
        self.rest.is_empty()
    }

    /// The stream of the group next, which is then read.
    fn group(&mut self) -> Option<(Delimiter, TokenStream)> {
        match self.rest.pop()? {
            TokenTree::Group(group) => Some((group.delimiter(), group.stream())),
            _ => None,
        }
    }

    fn punct(&self, offset: usize, c: char, spacing: Spacing) -> bool {
        matches!(self.ahead(offset),
            Some(TokenTree::Punct(p)) if p.as_char() == c && p.spacing() == spacing)
    }

    /// `::` next.
    fn path_sep(&self) -> bool {
        self.punct(0, ':', Spacing::Joint) && self.punct(1, ':', Spacing::Alone)
    }

    /// A lone `:` or `,` next (not the first of a longer operator).
    fn lone(&self, c: char) -> bool {
        self.punct(0, c, Spacing::Alone) && !(c == ':' && self.punct(1, ':', Spacing::Alone))
    }

    fn ident(&mut self) -> Option<Ident> {
        match self.peek()? {
            TokenTree::Ident(ident) if plain(ident) => {}
            _ => return None,
        }
        match self.rest.pop()? {
            TokenTree::Ident(ident) => Some(ident),
            _ => None,
        }
    }

    fn expr(&mut self) -> Option<Expr> {
        match self.peek()? {
            TokenTree::Punct(p) if p.as_char() == '&' && p.spacing() == Spacing::Alone => {
                self.skip(1);
                let expr = self.expr()?;
                Some(Expr::Reference(ExprReference {
                    attrs: Vec::new(),
                    and_token: <Token![&]>::default(),
                    mutability: None,
                    expr: Box::new(expr),
                }))
            }
            TokenTree::Group(_) => {
                let (delimiter, inner) = self.group()?;
                match delimiter {
                    Delimiter::Bracket => Some(Expr::Array(ExprArray {
                        attrs: Vec::new(),
                        bracket_token: token::Bracket::default(),
                        elems: list(inner, |c| c.expr())?,
                    })),
                    Delimiter::Parenthesis => parenthesized(inner),
                    _ => None,
                }
            }
            TokenTree::Literal(literal) => {
                let TokenTree::Literal(literal) = literal_in_style(literal) else {
                    return None;
                };
                self.skip(1);
                Some(Expr::Lit(ExprLit {
                    attrs: Vec::new(),
                    lit: Lit::new(literal),
                }))
            }
            TokenTree::Ident(ident) if ident == "true" || ident == "false" => {
                let lit = LitBool::new(ident == "true", ident.span());
                self.skip(1);
                Some(Expr::Lit(ExprLit {
                    attrs: Vec::new(),
                    lit: Lit::Bool(lit),
                }))
            }
            TokenTree::Ident(_) | TokenTree::Punct(_) => self.path_expr(),
        }
    }

    /// A path, and the call or struct literal it begins.
    fn path_expr(&mut self) -> Option<Expr> {
        let path = self.path()?;
        let Some(TokenTree::Group(group)) = self.peek() else {
            return Some(Expr::Path(ExprPath {
                attrs: Vec::new(),
                qself: None,
                path,
            }));
        };
        if !matches!(group.delimiter(), Delimiter::Parenthesis | Delimiter::Brace) {
            // A group after a path that is neither: not a form of this reader.
            return None;
        }
        let (delimiter, inner) = self.group()?;
        match delimiter {
            Delimiter::Parenthesis => Some(Expr::Call(ExprCall {
                attrs: Vec::new(),
                func: Box::new(Expr::Path(ExprPath {
                    attrs: Vec::new(),
                    qself: None,
                    path,
                })),
                paren_token: token::Paren::default(),
                args: list(inner, |c| c.expr())?,
            })),
            _ => Some(Expr::Struct(ExprStruct {
                attrs: Vec::new(),
                qself: None,
                path,
                brace_token: token::Brace::default(),
                fields: list(inner, |c| c.field())?,
                dot2_token: None,
                rest: None,
            })),
        }
    }

    /// `a::b::C` or `::a::B`, with tidy's rewriting of its first segment.
    fn path(&mut self) -> Option<Path> {
        let mut leading = self.path_sep();
        if leading {
            self.skip(2);
        }
        let first = self.ident()?;
        let mut idents: Vec<Ident> = Vec::new();
        match tidied(&first).filter(|_| !leading) {
            Some(segments) => {
                leading = true;
                let span = first.span();
                idents.extend(segments.iter().map(|s| Ident::new(s, span)));
            }
            None => idents.push(first),
        }
        while self.path_sep() {
            self.skip(2);
            idents.push(self.ident()?);
        }
        let mut segments: Punctuated<PathSegment, Token![::]> = Punctuated::new();
        for ident in idents {
            segments.push(PathSegment {
                ident,
                arguments: PathArguments::None,
            });
        }
        Some(Path {
            leading_colon: leading.then(<Token![::]>::default),
            segments,
        })
    }

    /// `name: value` in a struct literal.
    fn field(&mut self) -> Option<FieldValue> {
        let member = self.ident()?;
        // Tidy rewrites these wherever they are, a field's name included.
        if tidied(&member).is_some() || !self.lone(':') {
            return None;
        }
        self.skip(1);
        Some(FieldValue {
            attrs: Vec::new(),
            member: Member::Named(member),
            colon_token: Some(<Token![:]>::default()),
            expr: self.expr()?,
        })
    }
}

/// The items of a comma-separated list, as syn keeps them (a trailing comma included).
fn list<T>(
    tokens: TokenStream,
    mut item: impl FnMut(&mut Cursor) -> Option<T>,
) -> Option<Punctuated<T, Token![,]>> {
    let mut cursor = Cursor::new(tokens);
    let mut items = Punctuated::new();
    while !cursor.at_end() {
        items.push_value(item(&mut cursor)?);
        if cursor.at_end() {
            break;
        }
        if !cursor.lone(',') {
            return None;
        }
        cursor.skip(1);
        items.push_punct(<Token![,]>::default());
    }
    Some(items)
}

/// `(x)`, or a tuple: `()`, `(x,)`, `(x, y)`.
fn parenthesized(tokens: TokenStream) -> Option<Expr> {
    let elems = list(tokens, |c| c.expr())?;
    if elems.len() == 1 && !elems.trailing_punct() {
        let expr = elems.into_iter().next()?;
        return Some(Expr::Paren(ExprParen {
            attrs: Vec::new(),
            paren_token: token::Paren::default(),
            expr: Box::new(expr),
        }));
    }
    Some(Expr::Tuple(ExprTuple {
        attrs: Vec::new(),
        paren_token: token::Paren::default(),
        elems,
    }))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use proc_macro2::TokenStream;
    use quote::quote;

    use crate::emit::bake::{baked, tidy};

    /// `expr` formatted as a static's value, as the generated code has it.
    fn formatted(expr: TokenStream) -> String {
        let item = quote! { pub static DESCRIPTOR: ::toolspec::__private::Descriptor = #expr; };
        prettyplease::unparse(&syn::parse2(item).expect("a static"))
    }

    /// Every tool of every specs folder of the workspace (the fixtures, the example store, the
    /// test and bench crates'): its descriptor is read straight into the tree syn parses from
    /// the tidied tokens, and both print alike.
    #[test]
    fn descriptors_read_as_syn_parses_their_tidied_tokens() {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
        let folders = [
            "specs",
            "codegen/tests/golden/fields/specs",
            "codegen/tests/golden/membership/specs",
            "codegen/tests/golden/shapes/specs",
            "tests/calling/specs",
            "tests/audit/specs",
            "tests/audit/specs_kept",
            "tests/query/specs",
            "tests/invoker/specs",
            "tests/invoker/specs_drop",
            "tests/adopter/specs",
            "tests/conformance/specs",
            "bench/tasks/specs",
            "bench/http/specs",
            "bench/mcp/specs",
        ];
        let mut read = 0;
        for folder in folders {
            let dir = root.join(folder);
            if !dir.is_dir() {
                continue;
            }
            let project = crate::config::Config::new()
                .load(&dir)
                .unwrap_or_else(|e| panic!("{folder}: {e}"));
            assert!(!project.has_errors(), "{folder} has errors");
            let mut descriptors: Vec<_> = project.tools.iter().map(|t| t.descriptor()).collect();
            descriptors.extend(project.builtin_descriptors());
            for descriptor in descriptors {
                let name = &descriptor.name;
                let expr = super::read(baked(&descriptor))
                    .unwrap_or_else(|| panic!("{folder}: `{name}` is read straight"));
                let parsed: syn::Expr = syn::parse2(tidy(baked(&descriptor))).expect("parses");
                assert_eq!(
                    formatted(quote! { #expr }),
                    formatted(quote! { #parsed }),
                    "{folder}: `{name}`"
                );
                read += 1;
            }
        }
        assert!(read > 50, "{read} descriptors read");
    }

    #[test]
    fn forms_it_does_not_know_are_left_to_syn() {
        let negative = -2i64;
        for tokens in [
            quote! { a + b },
            quote! { f(x).y },
            quote! { ::a::<T>::b() },
            // proc-macro2 writes a negative number as `-` and a literal (syn reads one literal).
            quote! { -1 },
            quote! { (1, #negative) },
            quote! { P { ..rest } },
            quote! { P { 0: x } },
            quote! { Q { Some: x } },
            quote! { crate::X },
            quote! { v[0] },
            quote! { [x; 2] },
            quote! { a b },
        ] {
            assert!(super::read(tokens.clone()).is_none(), "{tokens}");
        }
        for tokens in [
            quote! { (x) },
            quote! { (x,) },
            quote! { () },
            quote! { (x, y) },
            quote! { Some(alloc::X) },
            quote! { None },
            quote! { ::alloc::X },
            quote! { toolspec::X { a: [], b: (1u8, 2.5f64) } },
            quote! { &[true, "a\"b", "c"] },
        ] {
            let expr = super::read(tokens.clone()).unwrap_or_else(|| panic!("{tokens} is read"));
            let parsed: syn::Expr = syn::parse2(tidy(tokens.clone())).expect("parses");
            assert_eq!(
                formatted(quote! { #expr }),
                formatted(quote! { #parsed }),
                "{tokens}"
            );
            assert_eq!(quote! { #expr }.to_string(), quote! { #parsed }.to_string());
        }
    }
}
