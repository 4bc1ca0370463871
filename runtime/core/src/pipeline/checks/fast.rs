//! The fast check: proves a value valid under a schema without `jsonschema`, for the keywords
//! the compiler writes into canonical schemas, so that a call whose arguments and output are
//! valid — nearly every call — never compiles or runs the general validator.
//!
//! It only ever says "valid" where `jsonschema` would: anything it cannot be sure of (a float
//! where an integer is wanted, a bound it cannot compare exactly, a `format` it does not know,
//! a value outside an `enum`, any failing keyword) is *unsure*, and the caller asks
//! `validate`'s compiled validator, which gives the verdict and words the errors. A schema
//! with a keyword outside the set below, or a keyword whose value is not what the keyword
//! takes, has no fast check at all (then the validator is compiled at once, as before).
//!
//! The set: `type`, `enum`, `const`, `minLength`, `maxLength`, `pattern` (jsonschema's own
//! ECMA 262 translation, in the form it searches with: characters counted for `^X{m,n}$`,
//! else the `regex` engine within the same limits), `format` (`uuid`,
//! `date` and `date-time` proved in their plain forms; `email`, `uri`, `hostname`, `ipv4`,
//! `ipv6` left to the validator), `minimum`, `maximum`, `exclusiveMinimum`,
//! `exclusiveMaximum`, `multipleOf` (integers), `items`, `minItems`, `maxItems`, `uniqueItems`,
//! `properties`, `required`, `additionalProperties`, local `$ref`s and `$defs`, `anyOf`,
//! `allOf`, and the annotations (`title`, `description`, `$comment`, `default`, `examples`,
//! `deprecated`, `readOnly`, `writeOnly`).

use std::cmp::Ordering;

use jsonschema_regex::{RepeatedClass, Search, search_form, to_rust_regex};
use serde_json::{Map, Number, Value};
use toolspec_vocab::pointer;

use crate::schema::integers::EXACT_FLOAT_INTEGERS;
use crate::schema::keys::{self, Keys};
use crate::schema::refs::{self, Refs};

/// The most bytes a compiled `pattern` may take: the validator's limit (see `validate`).
pub(crate) const PATTERN_SIZE_LIMIT: usize = 1 << 20;

/// How deep a schema is compiled (each subschema a level), and how many steps a check takes
/// before it gives up (unsure): a reference that only refers to itself cannot loop.
const MAX_DEPTH: usize = 128;

/// How many schema nodes a schema may have to be compiled.
const MAX_NODES: usize = 100_000;

/// How many items `uniqueItems` compares pairwise; a longer array is left to the validator.
const MAX_UNIQUE_ITEMS: usize = 64;

/// A schema's fast check.
#[derive(Debug)]
pub struct FastCheck {
    root: Check,
    /// The checks of `$ref` targets, by index.
    refs: Vec<Check>,
}

/// One schema node.
#[derive(Debug, Default)]
enum Check {
    /// `true`, or only annotations.
    #[default]
    Any,
    /// `false`: never proved.
    Never,
    /// A `$ref` target's check.
    Ref(usize),
    Node(Box<Node>),
}

/// A node's keywords, those of each kind of value apart (a node has few kinds, and a check
/// reads only the part for the value it meets).
#[derive(Debug, Default)]
struct Node {
    /// `type`, as a set of [`Types`] bits (`None`: any).
    types: Option<u8>,
    values: Option<Box<Values>>,
    strings: Option<Box<Strings>>,
    numbers: Option<Box<Numbers>>,
    arrays: Option<Box<Arrays>>,
    objects: Option<Box<Objects>>,
    applied: Option<Box<Applied>>,
}

/// `const` and `enum`.
#[derive(Debug, Default)]
struct Values {
    constant: Option<Value>,
    allowed: Option<Vec<Value>>,
}

#[derive(Debug, Default)]
struct Strings {
    min_length: Option<u64>,
    max_length: Option<u64>,
    pattern: Option<Pattern>,
    format: Option<Format>,
}

#[derive(Debug, Default)]
struct Numbers {
    /// Each bound, and the orderings of a value against it that satisfy it.
    bounds: Vec<(Number, &'static [Ordering])>,
    multiple_of: Option<Number>,
}

#[derive(Debug, Default)]
struct Arrays {
    items: Option<Check>,
    min_items: Option<u64>,
    max_items: Option<u64>,
    unique_items: bool,
}

#[derive(Debug, Default)]
struct Objects {
    properties: Keys,
    /// The properties' checks, by position in `properties`.
    checks: Vec<Check>,
    /// Which properties are `required`, by position, and how many are.
    required_here: Vec<bool>,
    required_count: usize,
    /// `required` names that are not `properties` (looked up in the object).
    required_elsewhere: Vec<String>,
    additional: Option<Check>,
}

/// The subschemas applied to the same value: `$ref`, `allOf`, `anyOf`.
#[derive(Debug, Default)]
struct Applied {
    reference: Option<Check>,
    all_of: Vec<Check>,
    any_of: Vec<Check>,
}

/// The JSON types, as bits.
struct Types;

impl Types {
    const NULL: u8 = 1;
    const BOOLEAN: u8 = 1 << 1;
    const INTEGER: u8 = 1 << 2;
    const NUMBER: u8 = 1 << 3;
    const STRING: u8 = 1 << 4;
    const ARRAY: u8 = 1 << 5;
    const OBJECT: u8 = 1 << 6;

    fn named(name: &str) -> Option<u8> {
        Some(match name {
            "null" => Self::NULL,
            "boolean" => Self::BOOLEAN,
            "integer" => Self::INTEGER,
            "number" => Self::NUMBER,
            "string" => Self::STRING,
            "array" => Self::ARRAY,
            "object" => Self::OBJECT,
            _ => return None,
        })
    }

    /// Whether `value` is surely of one of `types`.
    fn hold(types: u8, value: &Value) -> bool {
        let bit = match value {
            Value::Null => Self::NULL,
            Value::Bool(_) => Self::BOOLEAN,
            // A float is an `integer` to the validator when it has no fraction; not proved here.
            Value::Number(n) if integer(n).is_some() => Self::INTEGER | Self::NUMBER,
            Value::Number(_) => Self::NUMBER,
            Value::String(_) => Self::STRING,
            Value::Array(_) => Self::ARRAY,
            Value::Object(_) => Self::OBJECT,
        };
        types & bit != 0
    }
}

/// A `pattern`, matched as the validator matches it.
#[derive(Debug)]
enum Pattern {
    /// `^X{m,n}$` over one class: characters counted, no engine compiled.
    Class(RepeatedClass),
    Engine(regex::Regex),
}

impl Pattern {
    fn is_match(&self, text: &str) -> bool {
        match self {
            Self::Class(class) => class.is_match(text),
            Self::Engine(regex) => regex.is_match(text),
        }
    }
}

/// A string `format` the compiler writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Uuid,
    Date,
    DateTime,
    /// One the validator checks alone (`email`, `uri`, `hostname`, `ipv4`, `ipv6`).
    Other,
}

const GE: &[Ordering] = &[Ordering::Greater, Ordering::Equal];
const GT: &[Ordering] = &[Ordering::Greater];
const LE: &[Ordering] = &[Ordering::Less, Ordering::Equal];
const LT: &[Ordering] = &[Ordering::Less];

impl FastCheck {
    /// The fast check of `schema` (its own root for `$ref`s), or `None` when it uses anything
    /// outside the set this module proves.
    pub fn compile(schema: &Value) -> Option<Self> {
        let mut compiler = Compiler {
            root: schema,
            refs: Refs::new(),
            nodes: 0,
            defs: Vec::new(),
        };
        let root = compiler.check(schema, 0)?;
        for (reference, def) in std::mem::take(&mut compiler.defs) {
            if compiler.refs.get(&reference).is_none() {
                compiler.check(def, 1)?;
            }
        }
        Some(Self {
            root,
            refs: compiler.refs.into_plans(),
        })
    }

    /// Whether `value` is surely valid; `false` is unsure, for the validator to judge.
    pub fn accepts(&self, value: &Value) -> bool {
        self.holds(&self.root, value, 0)
    }

    fn holds(&self, check: &Check, value: &Value, depth: usize) -> bool {
        if depth > MAX_DEPTH * 2 {
            return false;
        }
        match check {
            Check::Any => true,
            Check::Never => false,
            Check::Ref(index) => self
                .refs
                .get(*index)
                .is_some_and(|target| self.holds(target, value, depth + 1)),
            Check::Node(node) => self.node(node, value, depth),
        }
    }

    fn node(&self, node: &Node, value: &Value, depth: usize) -> bool {
        if node.types.is_some_and(|types| !Types::hold(types, value)) {
            return false;
        }
        if let Some(values) = &node.values
            && (values.constant.as_ref().is_some_and(|c| c != value)
                || values.allowed.as_ref().is_some_and(|a| !member(a, value)))
        {
            return false;
        }
        let own = match value {
            Value::String(text) => node.strings.as_ref().is_none_or(|s| string(s, text)),
            Value::Number(n) => node.numbers.as_ref().is_none_or(|s| number(s, n)),
            Value::Array(items) => node
                .arrays
                .as_ref()
                .is_none_or(|s| self.array(s, items, depth)),
            Value::Object(map) => node
                .objects
                .as_ref()
                .is_none_or(|s| self.object(s, map, depth)),
            Value::Null | Value::Bool(_) => true,
        };
        own && node.applied.as_ref().is_none_or(|applied| {
            let holds = |c: &Check| self.holds(c, value, depth + 1);
            applied.reference.as_ref().is_none_or(holds)
                && applied.all_of.iter().all(holds)
                && (applied.any_of.is_empty() || applied.any_of.iter().any(holds))
        })
    }

    fn array(&self, node: &Arrays, items: &[Value], depth: usize) -> bool {
        let count = items.len() as u64;
        node.min_items.is_none_or(|min| count >= min)
            && node.max_items.is_none_or(|max| count <= max)
            && (!node.unique_items || unique(items))
            && node
                .items
                .as_ref()
                .is_none_or(|check| items.iter().all(|item| self.holds(check, item, depth + 1)))
    }

    /// An object: each key along its property's or `additionalProperties`' check, the
    /// `required` ones counted on the way (an object's keys are distinct; hashing each name
    /// would cost more than the rest of the check).
    fn object(&self, node: &Objects, map: &Map<String, Value>, depth: usize) -> bool {
        let mut required = 0;
        for (position, (key, child)) in map.iter().enumerate() {
            let holds = match node.properties.find(key, position) {
                Some(index) => {
                    required += usize::from(node.required_here[index]);
                    self.holds(&node.checks[index], child, depth + 1)
                }
                None => node
                    .additional
                    .as_ref()
                    .is_none_or(|check| self.holds(check, child, depth + 1)),
            };
            if !holds {
                return false;
            }
        }
        required == node.required_count
            && node
                .required_elsewhere
                .iter()
                .all(|key| map.contains_key(key))
    }
}

fn string(node: &Strings, text: &str) -> bool {
    if node.min_length.is_some() || node.max_length.is_some() {
        let length = text.chars().count() as u64;
        if node.min_length.is_some_and(|min| length < min)
            || node.max_length.is_some_and(|max| length > max)
        {
            return false;
        }
    }
    node.pattern.as_ref().is_none_or(|p| p.is_match(text))
        && match node.format {
            None => true,
            Some(Format::Uuid) => is_uuid(text),
            Some(Format::Date) => is_date(text.as_bytes()),
            Some(Format::DateTime) => is_date_time(text.as_bytes()),
            Some(Format::Other) => false,
        }
}

fn number(node: &Numbers, number: &Number) -> bool {
    let bounded = node
        .bounds
        .iter()
        .all(|(bound, holds)| compare(number, bound).is_some_and(|o| holds.contains(&o)));
    bounded
        && node.multiple_of.as_ref().is_none_or(
            |m| matches!((integer(number), integer(m)), (Some(v), Some(m)) if m > 0 && v % m == 0),
        )
}

/// Whether `value` is one of `allowed` as serde_json compares them (a string, as the short
/// string it nearly always is).
fn member(allowed: &[Value], value: &Value) -> bool {
    match value {
        Value::String(text) => allowed
            .iter()
            .any(|a| matches!(a, Value::String(s) if keys::same(s, text))),
        _ => allowed.contains(value),
    }
}

/// An integral number (not a float), exactly.
fn integer(number: &Number) -> Option<i128> {
    number
        .as_i64()
        .map(i128::from)
        .or_else(|| number.as_u64().map(i128::from))
}

/// A number as a `f64`, when that is exact.
fn exact_float(number: &Number) -> Option<f64> {
    match integer(number) {
        // Up to 2^53 every integer is exactly a float (2^53 itself included).
        Some(i) if i.unsigned_abs() <= EXACT_FLOAT_INTEGERS as u128 => Some(i as f64),
        Some(_) => None,
        None => number.as_f64().filter(|f| f.is_finite()),
    }
}

/// `a` against `b`, when it can be told exactly.
fn compare(a: &Number, b: &Number) -> Option<Ordering> {
    match (integer(a), integer(b)) {
        (Some(a), Some(b)) => Some(a.cmp(&b)),
        _ => exact_float(a)?.partial_cmp(&exact_float(b)?),
    }
}

/// Whether `items` are surely pairwise different: strings, booleans, nulls and integers only
/// (whose equality is the validator's), and not too many to compare.
fn unique(items: &[Value]) -> bool {
    let plain = |v: &Value| match v {
        Value::Number(n) => integer(n).is_some(),
        Value::Null | Value::Bool(_) | Value::String(_) => true,
        Value::Array(_) | Value::Object(_) => false,
    };
    items.len() <= MAX_UNIQUE_ITEMS
        && items.iter().all(plain)
        && items
            .iter()
            .enumerate()
            .all(|(i, a)| items[i + 1..].iter().all(|b| a != b))
}

/// A hyphenated UUID in lower case (`8-4-4-4-12` hexadecimal digits).
fn is_uuid(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 36
        && bytes.iter().enumerate().all(|(i, &b)| match i {
            8 | 13 | 18 | 23 => b == b'-',
            _ => b.is_ascii_digit() || (b'a'..=b'f').contains(&b),
        })
}

/// Two or four ASCII digits as a number.
fn digits(bytes: &[u8]) -> Option<u32> {
    bytes.iter().try_fold(0, |n, &b| {
        b.is_ascii_digit().then(|| n * 10 + u32::from(b - b'0'))
    })
}

/// `YYYY-MM-DD`, a day of its month.
fn is_date(bytes: &[u8]) -> bool {
    if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' {
        return false;
    }
    let (Some(year), Some(month), Some(day)) = (
        digits(&bytes[..4]),
        digits(&bytes[5..7]),
        digits(&bytes[8..]),
    ) else {
        return false;
    };
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// `YYYY-MM-DDTHH:MM:SS`, a fraction, then `Z` or an offset `±HH:MM`; a leap second (`:60`)
/// is left to the validator.
fn is_date_time(bytes: &[u8]) -> bool {
    if bytes.len() < 20 || !matches!(bytes[10], b'T' | b't') || !is_date(&bytes[..10]) {
        return false;
    }
    let time = &bytes[11..];
    let clock = time[2] == b':' && time[5] == b':';
    let (Some(hour), Some(minute), Some(second)) =
        (digits(&time[..2]), digits(&time[3..5]), digits(&time[6..8]))
    else {
        return false;
    };
    if !clock || hour > 23 || minute > 59 || second > 59 {
        return false;
    }
    let mut rest = &time[8..];
    if let Some(fraction) = rest.strip_prefix(b".") {
        let count = fraction.iter().take_while(|b| b.is_ascii_digit()).count();
        if count == 0 {
            return false;
        }
        rest = &fraction[count..];
    }
    match rest {
        [b'Z' | b'z'] => true,
        [b'+' | b'-', h1, h2, b':', m1, m2] => {
            matches!((digits(&[*h1, *h2]), digits(&[*m1, *m2])), (Some(h), Some(m)) if h <= 23 && m <= 59)
        }
        _ => false,
    }
}

/// One compile of a schema document.
struct Compiler<'s> {
    root: &'s Value,
    refs: Refs<'s, Check>,
    nodes: usize,
    /// The root's `$defs`, by the reference that names each: checked once the root is, those
    /// no reference reached on their own (each must be in the set all the same).
    defs: Vec<(String, &'s Value)>,
}

impl<'s> Compiler<'s> {
    fn check(&mut self, schema: &'s Value, depth: usize) -> Option<Check> {
        self.nodes += 1;
        if depth > MAX_DEPTH || self.nodes > MAX_NODES {
            return None;
        }
        let map = match schema {
            Value::Bool(true) => return Some(Check::Any),
            Value::Bool(false) => return Some(Check::Never),
            Value::Object(map) => map,
            _ => return None,
        };
        let mut node = Node::default();
        let mut annotations_only = true;
        for (keyword, value) in map {
            annotations_only &= self.keyword(&mut node, keyword, value, depth)?;
        }
        if let Some(objects) = &mut node.objects {
            objects.sort_required()?;
        }
        Some(match annotations_only {
            true => Check::Any,
            false => Check::Node(Box::new(node)),
        })
    }

    /// Compiles one keyword into `node`: whether it is only an annotation; `None` for one
    /// outside the set, or whose value the keyword does not take.
    fn keyword(
        &mut self,
        node: &mut Node,
        keyword: &str,
        value: &'s Value,
        depth: usize,
    ) -> Option<bool> {
        let count = || value.as_u64();
        let number = || value.as_number();
        match keyword {
            "title" | "description" | "$comment" => {
                value.as_str()?;
                return Some(true);
            }
            "default" => return Some(true),
            "examples" => {
                value.as_array()?;
                return Some(true);
            }
            "deprecated" | "readOnly" | "writeOnly" => {
                value.as_bool()?;
                return Some(true);
            }
            "$defs" => {
                for (name, schema) in value.as_object()? {
                    // The root's are compiled where a reference reaches them, the others now.
                    if depth == 0 {
                        let reference = format!("#/$defs/{}", pointer::escape(name));
                        self.defs.push((reference, schema));
                    } else {
                        self.check(schema, depth + 1)?;
                    }
                }
                return Some(true);
            }
            "type" => node.types = Some(types(value)?),
            "enum" => {
                let allowed = value.as_array().filter(|a| !a.is_empty())?.clone();
                part(&mut node.values).allowed = Some(allowed);
            }
            "const" => part(&mut node.values).constant = Some(value.clone()),
            "minLength" => part(&mut node.strings).min_length = Some(count()?),
            "maxLength" => part(&mut node.strings).max_length = Some(count()?),
            "pattern" => part(&mut node.strings).pattern = Some(pattern(value.as_str()?)?),
            "format" => part(&mut node.strings).format = Some(format(value.as_str()?)?),
            "minimum" => part(&mut node.numbers).bounds.push((number()?.clone(), GE)),
            "exclusiveMinimum" => part(&mut node.numbers).bounds.push((number()?.clone(), GT)),
            "maximum" => part(&mut node.numbers).bounds.push((number()?.clone(), LE)),
            "exclusiveMaximum" => part(&mut node.numbers).bounds.push((number()?.clone(), LT)),
            "multipleOf" => {
                let m = number()?;
                if m.as_f64().is_none_or(|f| f <= 0.0) {
                    return None;
                }
                part(&mut node.numbers).multiple_of = Some(m.clone());
            }
            "items" => part(&mut node.arrays).items = Some(self.check(value, depth + 1)?),
            "minItems" => part(&mut node.arrays).min_items = Some(count()?),
            "maxItems" => part(&mut node.arrays).max_items = Some(count()?),
            "uniqueItems" => part(&mut node.arrays).unique_items = value.as_bool()?,
            "properties" => {
                let properties = value.as_object()?;
                let mut checks = Vec::with_capacity(properties.len());
                for schema in properties.values() {
                    checks.push(self.check(schema, depth + 1)?);
                }
                let objects = part(&mut node.objects);
                objects.properties = Keys::new(properties.keys().cloned().collect());
                objects.checks = checks;
            }
            "required" => {
                let names = value
                    .as_array()?
                    .iter()
                    .map(|n| n.as_str().map(str::to_owned));
                // Sorted into those of `properties` and the others once every keyword is read.
                part(&mut node.objects).required_elsewhere = names.collect::<Option<_>>()?;
            }
            "additionalProperties" => {
                part(&mut node.objects).additional = Some(self.check(value, depth + 1)?);
            }
            "$ref" => {
                part(&mut node.applied).reference = Some(self.reference(value.as_str()?, depth)?)
            }
            "anyOf" | "allOf" => {
                let branches = value.as_array().filter(|b| !b.is_empty())?;
                let mut checks = Vec::with_capacity(branches.len());
                for branch in branches {
                    checks.push(self.check(branch, depth + 1)?);
                }
                let applied = part(&mut node.applied);
                match keyword {
                    "anyOf" => applied.any_of = checks,
                    _ => applied.all_of = checks,
                }
            }
            _ => return None,
        }
        Some(false)
    }

    /// The check of a local reference's target, compiled once (a recursive type refers to
    /// itself by index).
    fn reference(&mut self, reference: &'s str, depth: usize) -> Option<Check> {
        if let Some(index) = self.refs.get(reference) {
            return Some(Check::Ref(index));
        }
        let target = refs::resolve(self.root, reference)?;
        let index = self.refs.reserve(reference);
        let check = self.check(target, depth + 1)?;
        self.refs.set(index, check);
        Some(Check::Ref(index))
    }
}

/// A node's part for one kind of keyword, made when the first one is met.
fn part<T: Default>(part: &mut Option<Box<T>>) -> &mut T {
    part.get_or_insert_with(Box::default)
}

impl Objects {
    /// Sorts the `required` names (all in `required_elsewhere` as read) into the properties'
    /// and the others; `None` for a name listed twice, which the meta-schema refuses.
    fn sort_required(&mut self) -> Option<()> {
        self.required_here = vec![false; self.properties.names().len()];
        let names = std::mem::take(&mut self.required_elsewhere);
        for (i, name) in names.iter().enumerate() {
            if names[..i].contains(name) {
                return None;
            }
            match self.properties.find(name, 0) {
                Some(index) => {
                    self.required_here[index] = true;
                    self.required_count += 1;
                }
                None => self.required_elsewhere.push(name.clone()),
            }
        }
        Some(())
    }
}

/// `type`: one name or a list of distinct names.
fn types(value: &Value) -> Option<u8> {
    match value {
        Value::String(name) => Types::named(name),
        Value::Array(names) if !names.is_empty() => names.iter().try_fold(0, |set, name| {
            let bit = Types::named(name.as_str()?)?;
            (set & bit == 0).then_some(set | bit)
        }),
        _ => None,
    }
}

/// A `format` the compiler writes.
fn format(name: &str) -> Option<Format> {
    Some(match name {
        "uuid" => Format::Uuid,
        "date" => Format::Date,
        "date-time" => Format::DateTime,
        "email" | "uri" | "hostname" | "ipv4" | "ipv6" => Format::Other,
        _ => return None,
    })
}

/// A `pattern` as the validator runs it: translated from ECMA 262 by its own translation, then
/// in the form it searches with — characters counted for `^X{m,n}$`, else the `regex` engine
/// within its limits; `None` where the validator would not compile it.
fn pattern(pattern: &str) -> Option<Pattern> {
    let translated = to_rust_regex(pattern).ok()?;
    let build = |source: &str| {
        regex::RegexBuilder::new(source)
            .size_limit(PATTERN_SIZE_LIMIT)
            .dfa_size_limit(PATTERN_SIZE_LIMIT)
            .build()
            .ok()
            .map(Pattern::Engine)
    };
    match search_form(pattern, &translated) {
        Some(Search::RepeatedClass(class)) => Some(Pattern::Class(class)),
        Some(Search::Collapsed(collapsed)) => build(&collapsed),
        None => build(&translated),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;

    /// The fast check and the validator of `schema` as the pipeline compiles them.
    fn both(schema: &Value) -> (FastCheck, jsonschema::Validator) {
        crate::pipeline::checks::validate::fast_and_validator(schema)
            .expect("a fast check and a validator")
    }

    /// The fast verdict on `value`, having checked that a "valid" is the validator's too.
    fn verdict(schema: &Value, value: &Value) -> bool {
        let (fast, validator) = both(schema);
        let accepted = fast.accepts(value);
        if accepted {
            assert!(validator.is_valid(value), "{value} under {schema}");
        }
        accepted
    }

    #[test]
    fn valid_values_are_proved_and_doubtful_ones_left_to_the_validator() {
        let i64_range = json!({"type": "integer", "minimum": i64::MIN, "maximum": i64::MAX});
        let cases = [
            // Numbers: a float is never proved an integer; bounds compared exactly.
            (json!({"type": "integer"}), json!(5), true),
            (json!({"type": "integer"}), json!(5.0), false),
            (json!({"type": "integer"}), json!(-7), true),
            (json!({"type": "number"}), json!(5.5), true),
            (json!({"type": "integer"}), json!("5"), false),
            (i64_range.clone(), json!(i64::MAX), true),
            (
                i64_range.clone(),
                json!(9_223_372_036_854_775_808u64),
                false,
            ),
            (i64_range, json!(1e20), false),
            (json!({"minimum": 0.5}), json!(1), true),
            (json!({"minimum": 0.5}), json!(0), false),
            (json!({"exclusiveMaximum": 10}), json!(10), false),
            (json!({"exclusiveMaximum": 10}), json!(9.999), true),
            (
                json!({"maximum": 1.5}),
                json!(9_007_199_254_740_993u64),
                false,
            ),
            (json!({"minimum": 1, "maximum": 100}), json!(100), true),
            (json!({"multipleOf": 3}), json!(9), true),
            (json!({"multipleOf": 3}), json!(10), false),
            (json!({"multipleOf": 0.5}), json!(3), false),
            // Strings: lengths in code points, patterns as the validator runs them.
            (json!({"minLength": 2}), json!("é"), false),
            (json!({"minLength": 2}), json!("éé"), true),
            (json!({"maxLength": 3}), json!("ééé"), true),
            (json!({"maxLength": 3}), json!("éééé"), false),
            (
                json!({"pattern": "^[A-Z0-9-]{3,20}$"}),
                json!("AB-12"),
                true,
            ),
            (json!({"pattern": "^[A-Z0-9-]{3,20}$"}), json!("ab"), false),
            (
                json!({"pattern": "^[A-Z0-9-]{3,20}$"}),
                json!("AB-12345678901234567890"),
                false,
            ),
            (json!({"pattern": "^[a-z]{2,}x"}), json!("abx"), true),
            (json!({"pattern": "^[a-z]{2,}x"}), json!("ax"), false),
            (json!({"pattern": "^\\d+$"}), json!("42"), true),
            (json!({"pattern": "^\\d+$"}), json!("٣"), false),
            (json!({"pattern": "b"}), json!("abc"), true),
            (json!({"pattern": "^x"}), json!(5), true),
            // Formats: the plain forms proved, the rest left.
            (
                json!({"format": "uuid"}),
                json!("67e55044-10b1-426f-9247-bb680e5fe0c8"),
                true,
            ),
            (
                json!({"format": "uuid"}),
                json!("67E55044-10B1-426F-9247-BB680E5FE0C8"),
                false,
            ),
            (
                json!({"format": "uuid"}),
                json!("{67e55044-10b1-426f-9247-bb680e5fe0c8}"),
                false,
            ),
            (json!({"format": "date"}), json!("2024-02-29"), true),
            (json!({"format": "date"}), json!("2023-02-29"), false),
            (json!({"format": "date"}), json!("2000-02-29"), true),
            (json!({"format": "date"}), json!("1900-02-29"), false),
            (
                json!({"format": "date-time"}),
                json!("2024-02-29T23:59:59Z"),
                true,
            ),
            (
                json!({"format": "date-time"}),
                json!("2024-02-29t23:59:59.125+05:30"),
                true,
            ),
            (
                json!({"format": "date-time"}),
                json!("2024-02-29T23:59:59-00:00"),
                true,
            ),
            (
                json!({"format": "date-time"}),
                json!("2024-02-29T23:59:60Z"),
                false,
            ),
            (
                json!({"format": "date-time"}),
                json!("2024-02-29 23:59:59Z"),
                false,
            ),
            (
                json!({"format": "date-time"}),
                json!("2024-02-29T24:00:00Z"),
                false,
            ),
            (
                json!({"format": "date-time"}),
                json!("2024-02-29T23:59:59+24:00"),
                false,
            ),
            (
                json!({"format": "date-time"}),
                json!("2024-02-29T23:59:59."),
                false,
            ),
            (json!({"format": "email"}), json!("ada@example.com"), false),
            (json!({"format": "email"}), json!(5), true),
            // Enumerations: equal as serde_json sees it.
            (json!({"enum": ["a", "b"]}), json!("a"), true),
            (json!({"enum": ["a", "b"]}), json!("c"), false),
            (json!({"enum": [1]}), json!(1.0), false),
            (json!({"enum": [{"a": [1]}]}), json!({"a": [1]}), true),
            (json!({"const": null}), json!(null), true),
            (json!({"const": "x"}), json!("y"), false),
            // Arrays.
            (json!({"uniqueItems": true}), json!([1, 2, "1"]), true),
            (json!({"uniqueItems": true}), json!([1, 1.0]), false),
            (json!({"uniqueItems": true}), json!([[1], [2]]), false),
            (json!({"uniqueItems": true}), json!(["a", "a"]), false),
            (
                json!({"minItems": 1, "maxItems": 2, "items": {"type": "integer"}}),
                json!([1, 2]),
                true,
            ),
            (json!({"minItems": 1}), json!([]), false),
            (
                json!({"items": {"type": "integer"}}),
                json!([1, "2"]),
                false,
            ),
            // Objects.
            (
                json!({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"], "additionalProperties": false}),
                json!({"a": 1}),
                true,
            ),
            (
                json!({"properties": {"a": true}, "required": ["a"]}),
                json!({}),
                false,
            ),
            (
                json!({"properties": {"a": true}, "additionalProperties": false}),
                json!({"a": 1, "b": 2}),
                false,
            ),
            (
                json!({"additionalProperties": {"type": "string"}}),
                json!({"a": "x", "b": "y"}),
                true,
            ),
            (
                json!({"additionalProperties": {"type": "string"}}),
                json!({"a": 1}),
                false,
            ),
            // Types, unions, references.
            (json!({"type": ["string", "null"]}), json!(null), true),
            (json!({"type": ["string", "null"]}), json!(1), false),
            (
                json!({"anyOf": [{"type": "string"}, {"type": "null"}]}),
                json!("x"),
                true,
            ),
            (
                json!({"anyOf": [{"type": "string"}, {"type": "null"}]}),
                json!(1),
                false,
            ),
            (
                json!({"allOf": [{"minimum": 1}, {"maximum": 3}]}),
                json!(2),
                true,
            ),
            (
                json!({"allOf": [{"minimum": 1}, {"maximum": 3}]}),
                json!(4),
                false,
            ),
            (json!(true), json!({"any": "thing"}), true),
            (json!(false), json!(null), false),
            (
                json!({"description": "only words", "examples": [1]}),
                json!([]),
                true,
            ),
        ];
        for (schema, value, proved) in cases {
            assert_eq!(verdict(&schema, &value), proved, "{value} under {schema}");
        }
    }

    #[test]
    fn recursive_types_are_checked_through_their_references() {
        let tree = json!({
            "$ref": "#/$defs/Node",
            "$defs": {"Node": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
                },
                "required": ["name"],
                "additionalProperties": false
            }}
        });
        let deep = json!({"name": "a", "children": [{"name": "b", "children": [{"name": "c"}]}]});
        assert!(verdict(&tree, &deep));
        assert!(!verdict(
            &tree,
            &json!({"name": "a", "children": [{"children": []}]})
        ));
        // A reference that only refers to itself is never proved, and does not loop.
        let endless = json!({"$ref": "#/$defs/A", "$defs": {"A": {"$ref": "#/$defs/A"}}});
        assert!(!FastCheck::compile(&endless).unwrap().accepts(&json!(1)));
    }

    #[test]
    fn schemas_outside_the_set_have_no_fast_check() {
        for schema in [
            json!({"oneOf": [true]}),
            json!({"patternProperties": {"^a": true}}),
            json!({"$id": "https://example.com/a"}),
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema"}),
            json!({"$ref": "other.json#/A"}),
            json!({"$ref": "#/$defs/Missing"}),
            json!({"minimum": "1"}),
            json!({"minLength": -1}),
            json!({"minLength": 1.5}),
            json!({"type": "text"}),
            json!({"type": ["string", "string"]}),
            json!({"type": []}),
            json!({"enum": []}),
            json!({"format": "ipv7"}),
            json!({"pattern": "(a)\\1"}),
            json!({"pattern": "a{1000}{1000}"}),
            json!({"multipleOf": 0}),
            json!({"items": [true]}),
            json!({"required": [1]}),
            json!({"properties": {"a": true}, "required": ["a", "a"]}),
            json!({"description": 5}),
            json!({"properties": {"a": {"prefixItems": []}}}),
            json!({"$defs": {"A": {"not": true}}}),
            json!(5),
        ] {
            assert!(FastCheck::compile(&schema).is_none(), "{schema}");
        }
    }

    /// Schemas built of the keywords the fast check knows, as the compiler writes them and
    /// looser.
    fn schema() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(json!({"type": "integer"})),
            Just(json!({"type": "integer", "minimum": 1, "maximum": 100})),
            Just(json!({"type": "integer", "minimum": i64::MIN, "maximum": i64::MAX})),
            Just(json!({"type": "number", "exclusiveMinimum": 0, "maximum": 2.5})),
            Just(json!({"type": "integer", "multipleOf": 5})),
            Just(json!({"type": "number", "multipleOf": 0.25})),
            Just(json!({"type": "string", "minLength": 1, "maxLength": 3})),
            Just(json!({"type": "string", "pattern": "^[A-Z0-9-]{3,20}$"})),
            Just(json!({"type": "string", "pattern": "^-?\\d+(\\.\\d+)?$"})),
            Just(json!({"type": "string", "format": "uuid"})),
            Just(json!({"type": "string", "format": "date"})),
            Just(json!({"type": "string", "format": "date-time"})),
            Just(json!({"type": "string", "format": "email"})),
            Just(json!({"type": "string", "enum": ["EUR", "USD", "GBP"]})),
            Just(json!({"enum": [1, "1", null, 2.5]})),
            Just(json!({"const": "fixed"})),
            Just(json!({"type": "boolean"})),
            Just(json!({"type": ["string", "null"]})),
            Just(json!(true)),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                (
                    inner.clone(),
                    0..3u64,
                    proptest::option::of(1..4u64),
                    any::<bool>()
                )
                    .prop_map(|(items, min, max, unique)| {
                        let mut schema = json!({"type": "array", "items": items, "minItems": min});
                        if let Some(max) = max {
                            schema["maxItems"] = json!(max);
                        }
                        if unique {
                            schema["uniqueItems"] = json!(true);
                        }
                        schema
                    }),
                (
                    proptest::collection::vec(inner.clone(), 1..4),
                    any::<bool>(),
                    any::<bool>()
                )
                    .prop_map(|(fields, closed, all_required)| {
                        let names = ["a", "b", "c"];
                        let properties: Map<String, Value> = fields
                            .into_iter()
                            .enumerate()
                            .map(|(i, s)| (names[i].to_owned(), s))
                            .collect();
                        let required: Vec<&String> = match all_required {
                            true => properties.keys().collect(),
                            false => properties.keys().take(1).collect(),
                        };
                        json!({
                            "type": "object",
                            "properties": properties,
                            "required": required,
                            "additionalProperties": !closed
                        })
                    }),
                inner
                    .clone()
                    .prop_map(|values| json!({"type": "object", "additionalProperties": values})),
                inner
                    .clone()
                    .prop_map(|s| json!({"anyOf": [s, {"type": "null"}]})),
                (inner.clone(), inner).prop_map(|(a, b)| json!({"allOf": [a, b]})),
            ]
        })
        // A schema behind a reference (resolved against the root, where `$defs` are).
        .prop_flat_map(|s| {
            prop_oneof![
                Just(s.clone()),
                Just(json!({"$ref": "#/$defs/T", "$defs": {"T": s}}))
            ]
        })
    }

    /// Values near what the schemas above take: their keys, strings of their formats and
    /// patterns, numbers at their bounds, and floats where integers are wanted.
    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            prop_oneof![-3i64..130, Just(i64::MIN), Just(i64::MAX)].prop_map(|i| json!(i)),
            Just(json!(9_223_372_036_854_775_808u64)),
            prop_oneof![
                Just(0.0),
                Just(0.25),
                Just(2.5),
                Just(3.0),
                Just(-1.5),
                Just(1e20)
            ]
            .prop_map(|f| json!(f)),
            prop_oneof![
                Just("EUR"),
                Just("1"),
                Just("fixed"),
                Just("AB-12"),
                Just("ab"),
                Just("é"),
                Just("ééé"),
                Just("-12.50"),
                Just("67e55044-10b1-426f-9247-bb680e5fe0c8"),
                Just("67E55044-10B1-426F-9247-BB680E5FE0C8"),
                Just("2024-02-29"),
                Just("2023-02-29"),
                Just("2024-02-29T23:59:59.5+05:30"),
                Just("2024-12-31T23:59:60Z"),
                Just("ada@example.com"),
                Just(""),
            ]
            .prop_map(|s| json!(s)),
            "[a-zA-Z0-9 -]{0,6}".prop_map(Value::String),
        ];
        leaf.prop_recursive(3, 32, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::vec(
                    (
                        prop_oneof![Just("a"), Just("b"), Just("c"), Just("d")],
                        inner
                    ),
                    0..4
                )
                .prop_map(|entries| {
                    Value::Object(
                        entries
                            .into_iter()
                            .map(|(k, v)| (k.to_owned(), v))
                            .collect(),
                    )
                }),
            ]
        })
    }

    /// The promise — whatever the fast check proves, the validator finds valid — over random
    /// schemas and values; and the point of it: most valid values are proved.
    #[test]
    fn what_is_proved_the_validator_finds_valid() {
        use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
        let (valid, proved) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(3000));
        let cases = (schema(), proptest::collection::vec(value(), 8));
        let outcome = runner.run(&cases, |(schema, values)| {
            let (fast, validator) = both(&schema);
            for value in values {
                let is_valid = validator.is_valid(&value);
                valid.fetch_add(usize::from(is_valid), Relaxed);
                if fast.accepts(&value) {
                    proved.fetch_add(1, Relaxed);
                    prop_assert!(is_valid, "{} under {}", value, schema);
                }
            }
            Ok(())
        });
        outcome.unwrap();
        let (valid, proved) = (valid.into_inner(), proved.into_inner());
        assert!(valid > 500, "too few valid values to judge: {valid}");
        assert!(
            proved * 10 >= valid * 9,
            "{proved} of {valid} valid values proved"
        );
    }
}
