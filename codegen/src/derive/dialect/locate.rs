//! Where a path through a tool's schema is written in the specs, for diagnostics.

use serde_json::Value;

use crate::schema_tree::Seg;
use crate::source::Span;
use crate::spec::{Field, FieldType, ToolSpec, Types};

/// Where a path through a tool's input schema is written in the specs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// Display path of the file.
    pub file: String,
    /// The field's key (None: the whole tool).
    pub span: Option<Span>,
    /// How the field is named in messages (`lines[].sku`, `Address.zip`).
    pub display: String,
}

/// Whether a nullable field's schema is wrapped as `anyOf: [SCHEMA, {type: null}]` (see
/// `schema::field_schema`) rather than given a `["T", "null"]` type.
fn wrapped(field: &Field) -> bool {
    if !field.nullable {
        return false;
    }
    match &field.ty {
        FieldType::AnyOf { .. } | FieldType::Named(_) => true,
        FieldType::Shape { schema, .. } => !matches!(schema.get("type"), Some(Value::String(_))),
        _ => false,
    }
}

/// Maps a path through `spec`'s canonical input schema back to the field it came from.
pub fn locate(spec: &ToolSpec, types: &Types, path: &[Seg]) -> Location {
    locate_in(&spec.file, &spec.expects, types, path)
}

/// Maps a path through the schema of the fields `roots` (written in `file`), or from a
/// definition (a path starting with [`Seg::Def`]), back to the field it came from.
pub fn locate_in(file: &str, roots: &[Field], types: &Types, path: &[Seg]) -> Location {
    struct State<'a> {
        file: String,
        display: String,
        field: Option<&'a Field>,
        pending: bool,
    }
    impl<'a> State<'a> {
        fn enter(&mut self, field: &'a Field) {
            self.field = Some(field);
            self.pending = wrapped(field);
        }
        fn extend(&mut self, seg: &Seg) {
            match seg {
                Seg::Prop(name) if self.display.is_empty() => self.display = name.clone(),
                Seg::Prop(name) => self.display = format!("{}.{name}", self.display),
                Seg::Items => self.display.push_str("[]"),
                Seg::Values => self.display.push_str(".*"),
                _ => {}
            }
        }
    }
    let mut state = State {
        file: file.to_owned(),
        display: String::new(),
        field: None,
        pending: false,
    };
    for seg in path {
        if let Seg::Def(name) = seg {
            if let Some(named) = types.get(name) {
                state.file = named.file.clone();
                state.display = name.clone();
                state.enter(&named.field);
            }
            continue;
        }
        if let Seg::Keyword(_) = seg {
            state.pending = false;
            continue;
        }
        let Some(mut field) = state.field else {
            state.extend(seg);
            if let Seg::Prop(name) = seg
                && let Some(f) = roots.iter().find(|f| !f.ambient && f.name == *name)
            {
                state.enter(f);
            }
            continue;
        };
        if state.pending {
            state.pending = false;
            if matches!(seg, Seg::Branch(_)) {
                continue;
            }
        }
        // Step into named types (a `$ref` site continues with the type's own schema).
        let mut hops = 0;
        while let FieldType::Named(name) = &field.ty
            && let Some(named) = types.get(name)
            && hops < 64
        {
            hops += 1;
            state.file = named.file.clone();
            state.display = name.clone();
            field = &named.field;
        }
        state.field = Some(field);
        if wrapped(field) && matches!(seg, Seg::Branch(_)) && hops > 0 {
            continue;
        }
        state.extend(seg);
        match (seg, &field.ty) {
            (Seg::Prop(name), FieldType::Object(fields)) => {
                if let Some(f) = fields.iter().find(|f| f.name == *name) {
                    state.enter(f);
                }
            }
            (Seg::Items, FieldType::Array(inner)) | (Seg::Values, FieldType::Map(inner)) => {
                state.enter(inner)
            }
            (Seg::Branch(i), FieldType::AnyOf { variants, .. }) => {
                if let Some(v) = variants.get(*i) {
                    state.enter(&v.field);
                }
            }
            _ => {}
        }
    }
    Location {
        file: state.file,
        span: state.field.map(|f| f.span),
        display: state.display,
    }
}
