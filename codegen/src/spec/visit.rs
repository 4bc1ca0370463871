//! Walking a field and every field nested in it.

use crate::spec::field::{Field, FieldType};

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

/// Calls `f` on a field and every field nested in it, mutably (the field before its children).
pub fn visit_mut(field: &mut Field, f: &mut impl FnMut(&mut Field)) {
    f(field);
    match &mut field.ty {
        FieldType::Object(fields) => fields.iter_mut().for_each(|x| visit_mut(x, f)),
        FieldType::Array(inner) | FieldType::Map(inner) => visit_mut(inner, f),
        FieldType::AnyOf { variants, .. } => {
            variants.iter_mut().for_each(|v| visit_mut(&mut v.field, f))
        }
        _ => {}
    }
}
