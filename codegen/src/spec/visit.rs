//! Walking a field and every field nested in it.

use crate::spec::Field;
use crate::spec::FieldType;

/// Calls `f` on a field and every field nested in it.
pub fn visit<'a>(field: &'a Field, f: &mut impl FnMut(&'a Field)) {
    f(field);
    match &field.ty {
        FieldType::Object(fields) => fields.iter().for_each(|x| visit(x, f)),
        FieldType::Array(inner) | FieldType::Map(inner) => visit(inner, f),
        FieldType::AnyOf { variants, .. } => variants.iter().for_each(|v| visit(&v.field, f)),
        _ => {}
    }
}
