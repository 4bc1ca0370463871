//! Checking values against a tool's canonical schemas (`jsonschema`, compiled once per tool),
//! with every failing field named by its JSON pointer and described in words that quote the
//! value only in part, and never a `sensitive` one.
//!
//! Patterns run on the `regex` crate's engine, in time linear in the input: a pattern that
//! needs backtracking (backreferences, lookaround) is refused when the schema compiles, as
//! the compiler refuses it in the spec.
//!
//! Every `integer` is checked against the range of `i64`, which generated types hold it in,
//! where the schema leaves the range open (the published schemas state only a spec's own
//! bounds): an integer past it fails the check, named by its pointer, with the range in words.
//!
//! A [`Checker`] asks the fast check (`fast`) first and compiles the validator only for what
//! that cannot prove valid: the validator's verdict and words for every value it sees, and no
//! validator at all in a process whose values are all proved.
//!
//! Only the check: screening and coercion happen before (`plan`), the wording of each error is
//! `report`'s.

use std::sync::OnceLock;

use jsonschema::error::ValidationErrorKind;
use serde_json::Value;
use toolspec_vocab::pointer;

use crate::model::limits::Limits;
use crate::model::report::{
    Errors, FieldError, Place, REQUIRED, Report, UNQUOTED, bounded, pointer_tokens, quote, shorten,
};
use crate::pipeline::checks::fast::{FastCheck, PATTERN_SIZE_LIMIT};
use crate::schema::integers::{INTEGER_MAX, INTEGER_MIN, bound_to_i64};
use crate::schema::sensitive::Sensitivity;

/// How many unexpected keys a message names.
const MAX_NAMED_KEYS: usize = 5;

/// One schema's check: the [`FastCheck`] of the schema given the `i64` range (see
/// [`bound_to_i64`]), and its validator, compiled when first needed — at once when the schema
/// has no fast check.
#[derive(Debug)]
pub(crate) struct Checker {
    fast: Option<FastCheck>,
    /// The schema the validator is compiled from when first needed (`Null` when it was
    /// compiled at once).
    schema: Value,
    validator: OnceLock<Result<jsonschema::Validator, String>>,
}

impl Checker {
    /// The check of `schema`, holding every `integer` but those below the JSON pointers
    /// `own_ranges` to `i64`; an error (for the developer) when its validator must be compiled
    /// now and does not compile.
    pub(crate) fn new<S: AsRef<str>>(schema: &Value, own_ranges: &[S]) -> Result<Self, String> {
        let schema = in_i64_range(schema, own_ranges);
        match FastCheck::compile(&schema) {
            Some(fast) => Ok(Self {
                fast: Some(fast),
                schema,
                validator: OnceLock::new(),
            }),
            None => {
                let validator = build(&schema).map_err(|e| e.to_string())?;
                Ok(Self {
                    fast: None,
                    schema: Value::Null,
                    validator: OnceLock::from(Ok(validator)),
                })
            }
        }
    }

    /// The errors of `instance` (see [`errors`]); an error (for the developer) when the
    /// validator, compiled now, does not compile — which the fast check's own compile of the
    /// same keywords rules out.
    pub(crate) fn errors(
        &self,
        instance: &Value,
        limits: &Limits,
        sensitivity: &Sensitivity,
    ) -> Result<Errors, String> {
        if self
            .fast
            .as_ref()
            .is_some_and(|fast| fast.accepts(instance))
        {
            return Ok(Errors::default());
        }
        let compiled = || build(&self.schema).map_err(|e| e.to_string());
        match self.validator.get_or_init(compiled) {
            Ok(validator) => Ok(errors(validator, instance, limits, sensitivity)),
            Err(e) => Err(e.clone()),
        }
    }
}

/// The fast check and the validator of `schema` as a `Checker` builds them (every `integer`
/// held to `i64`), side by side for the tests and the fuzzer that pit one against the other;
/// `None` when either has none.
pub fn fast_and_validator(schema: &Value) -> Option<(FastCheck, jsonschema::Validator)> {
    let schema = in_i64_range::<&str>(schema, &[]);
    Some((FastCheck::compile(&schema)?, build(&schema).ok()?))
}

/// Compiles a schema into a validator that also checks `format`s, and the range of `i64` on
/// every `integer` but those below the JSON pointers `own_ranges` (see [`bound_to_i64`]).
pub fn compile<S: AsRef<str>>(
    schema: &Value,
    own_ranges: &[S],
) -> Result<jsonschema::Validator, jsonschema::ValidationError<'static>> {
    build(&in_i64_range(schema, own_ranges))
}

/// `schema` with every `integer` but those below `own_ranges` held to `i64`: what is checked.
fn in_i64_range<S: AsRef<str>>(schema: &Value, own_ranges: &[S]) -> Value {
    let mut schema = schema.clone();
    bound_to_i64(&mut schema, own_ranges);
    schema
}

/// The validator of `schema` as it is.
fn build(schema: &Value) -> Result<jsonschema::Validator, jsonschema::ValidationError<'static>> {
    jsonschema::options()
        .should_validate_formats(true)
        .with_pattern_options(
            jsonschema::PatternOptions::regex()
                .size_limit(PATTERN_SIZE_LIMIT)
                .dfa_size_limit(PATTERN_SIZE_LIMIT),
        )
        .build(schema)
}

/// The errors of `instance` under `validator`: the first `limits.max_errors` in pointer order,
/// and how many more there were.
pub fn errors(
    validator: &jsonschema::Validator,
    instance: &Value,
    limits: &Limits,
    sensitivity: &Sensitivity,
) -> Errors {
    // The common case costs a yes/no check; errors are collected only when there are some.
    if validator.is_valid(instance) {
        return Errors::default();
    }
    let mut found: Vec<(String, jsonschema::ValidationError<'_>)> = validator
        .iter_errors(instance)
        .map(|error| (pointer(&error), error))
        .collect();
    found.sort_by(|a, b| a.0.cmp(&b.0));
    let mut report = Report::new(limits);
    for (pointer, error) in found {
        report.add(|| {
            let tokens: Vec<String> = pointer_tokens(&pointer).collect();
            let place = Place::of(&tokens, limits, sensitivity);
            FieldError {
                message: describe(&error, limits, place.hidden),
                field: place.field,
            }
        });
    }
    report.finish()
}

/// How many allowed values an `enum` error lists.
const MAX_LISTED_VALUES: usize = 25;

/// `"a", "b" or "c"`: an enum's values, each quoted in part, the first
/// [`MAX_LISTED_VALUES`] of them and how many more.
fn one_of(options: &Value, limits: &Limits) -> String {
    let Value::Array(options) = options else {
        return quote(options, limits.max_quote);
    };
    let mut listed: Vec<String> = options
        .iter()
        .take(MAX_LISTED_VALUES)
        .map(|o| quote(o, limits.max_quote))
        .collect();
    let more = options.len().saturating_sub(MAX_LISTED_VALUES);
    if more > 0 {
        return format!("{} and {more} more", listed.join(", "));
    }
    match listed.pop() {
        Some(last) if !listed.is_empty() => format!("{} or {last}", listed.join(", ")),
        Some(last) => last,
        None => "nothing".to_owned(),
    }
}

/// The pointer of an error: a missing property is named by its own pointer.
fn pointer(error: &jsonschema::ValidationError<'_>) -> String {
    let mut field = error.instance_path().to_string();
    if let ValidationErrorKind::Required { property } = error.kind() {
        if let Some(name) = property.as_str() {
            field.push('/');
            field.push_str(&pointer::escape(name));
        }
    } else if field.is_empty() {
        field.push('/');
    }
    field
}

/// What is wrong, in words: the value quoted in part (or not at all when `hidden`), lists of
/// keys capped.
fn describe(error: &jsonschema::ValidationError<'_>, limits: &Limits, hidden: bool) -> String {
    let keys = |what: &str, unexpected: &[String]| {
        let named: Vec<String> = unexpected
            .iter()
            .take(MAX_NAMED_KEYS)
            .map(|k| format!("`{}`", shorten(k, limits.max_quote)))
            .collect();
        let more = unexpected.len().saturating_sub(MAX_NAMED_KEYS);
        let tail = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        format!("{what}: {}{tail}", named.join(", "))
    };
    let message = match error.kind() {
        ValidationErrorKind::Required { .. } => REQUIRED.to_owned(),
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            keys("has properties this object does not take", unexpected)
        }
        ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            keys("has properties this object does not take", unexpected)
        }
        ValidationErrorKind::UnevaluatedItems { unexpected } => {
            keys("has items this list does not take", unexpected)
        }
        // The range the schema was given for the Rust type: the published schema does not
        // state it, so the message does, whole.
        ValidationErrorKind::Minimum { limit } | ValidationErrorKind::Maximum { limit }
            if *limit == INTEGER_MIN || *limit == INTEGER_MAX =>
        {
            let sent = if hidden {
                UNQUOTED.to_owned()
            } else {
                quote(error.instance(), limits.max_quote)
            };
            format!("{sent} is outside the integer range, {INTEGER_MIN} to {INTEGER_MAX}")
        }
        // Every allowed value (up to a bound), where the validator names two and counts the rest.
        ValidationErrorKind::Enum { options } => {
            let sent = if hidden {
                UNQUOTED.to_owned()
            } else {
                quote(error.instance(), limits.max_quote)
            };
            format!("{sent} is not one of {}", one_of(options, limits))
        }
        _ => {
            let placeholder = if hidden {
                UNQUOTED.to_owned()
            } else {
                quote(error.instance(), limits.max_quote)
            };
            error.masked_with(placeholder).to_string()
        }
    };
    bounded(message, limits)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn message(schema: Value, instance: Value, hidden: bool) -> String {
        let sensitivity = if hidden {
            Sensitivity::compile(Some(r#"{"properties":{"v":true}}"#))
        } else {
            Sensitivity::default()
        };
        let validator = compile::<&str>(&json!({"properties": {"v": schema}}), &[]).unwrap();
        let errors = errors(
            &validator,
            &json!({"v": instance}),
            &Limits::DEFAULT,
            &sensitivity,
        );
        errors.list[0].message.clone()
    }

    #[test]
    fn the_validator_is_compiled_only_for_what_the_fast_check_cannot_prove() {
        let (limits, none) = (Limits::DEFAULT, Sensitivity::default());
        let schema = json!({
            "type": "object",
            "properties": {"n": {"type": "integer", "maximum": 10}},
            "required": ["n"],
            "additionalProperties": false
        });
        let checker = Checker::new::<&str>(&schema, &[]).unwrap();
        assert!(checker.fast.is_some());
        assert!(
            checker
                .errors(&json!({"n": 3}), &limits, &none)
                .unwrap()
                .is_empty()
        );
        assert!(
            checker.validator.get().is_none(),
            "a proved value compiles nothing"
        );
        // Unsure, and valid: the validator's verdict.
        assert!(
            checker
                .errors(&json!({"n": 3.0}), &limits, &none)
                .unwrap()
                .is_empty()
        );
        let errors = checker.errors(&json!({"n": 11}), &limits, &none).unwrap();
        assert_eq!(errors.list[0].field, "/n");
        assert_eq!(
            errors.list[0].message,
            "11 is greater than the maximum of 10"
        );

        // A keyword outside the fast check's: the validator, compiled at once.
        let one_of = json!({"oneOf": [{"type": "string"}, {"type": "integer"}]});
        let checker = Checker::new::<&str>(&one_of, &[]).unwrap();
        assert!(checker.fast.is_none() && checker.validator.get().is_some());
        assert!(
            checker
                .errors(&json!("x"), &limits, &none)
                .unwrap()
                .is_empty()
        );
        assert!(
            !checker
                .errors(&json!(true), &limits, &none)
                .unwrap()
                .is_empty()
        );

        // What the validator cannot compile is an error now, as before.
        let backreference = json!({"type": "string", "pattern": "(a)\\1"});
        assert!(Checker::new::<&str>(&backreference, &[]).is_err());
    }

    #[test]
    fn an_integer_past_i64_is_refused_with_the_range() {
        let range = "the integer range, -9223372036854775808 to 9223372036854775807";
        for (schema, sent, shown) in [
            (json!({"type": "integer"}), json!(1e20), "1e+20"),
            (
                json!({"type": "integer", "minimum": 1}),
                json!(9_223_372_036_854_775_808u64),
                "9223372036854775808",
            ),
            (
                json!({"type": ["integer", "null"], "maximum": 5}),
                json!(-1e19),
                "-1e+19",
            ),
        ] {
            assert_eq!(
                message(schema, sent, false),
                format!("{shown} is outside {range}")
            );
        }
        assert_eq!(
            message(json!({"type": "integer"}), json!(1e20), true),
            format!("{UNQUOTED} is outside {range}")
        );
        // A spec's own bound is worded as before.
        assert_eq!(
            message(json!({"type": "integer", "maximum": 10}), json!(11), false),
            "11 is greater than the maximum of 10"
        );
    }

    #[test]
    fn an_enum_error_lists_every_allowed_value() {
        let statuses =
            json!({"enum": ["pending", "shipped", "delivered", "cancelled", "refunded"]});
        assert_eq!(
            message(statuses.clone(), json!("lost"), false),
            r#""lost" is not one of "pending", "shipped", "delivered", "cancelled" or "refunded""#
        );
        // A sensitive value is not quoted; the allowed values still are.
        assert!(message(statuses, json!("lost"), true).ends_with(r#"or "refunded""#));
        let many: Vec<String> = (0..30).map(|i| format!("v{i}")).collect();
        let listed = message(json!({"enum": many}), json!("x"), false);
        assert!(listed.ends_with(r#""v24" and 5 more"#), "{listed}");
        assert_eq!(
            message(json!({"enum": ["only"]}), json!(1), false),
            r#"1 is not one of "only""#
        );
    }
}
