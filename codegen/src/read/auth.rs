//! `auth:` in the project config: the token issuer and audience of the JWT resource server,
//! which claims fill which ambient fields (declared under `ambient:`, read before), and what
//! a caller without a tool's scopes meets.

use toolspec_vocab::auth::MissingScope;

use crate::diagnostic::did_you_mean;
use crate::diagnostic::kind::Kind;
use crate::read::reader::Reader;
use crate::read::yaml::Node;
use crate::spec::{AuthSpec, ClaimSpec, ProjectConfig};

const KEYS: [&str; 4] = ["issuer", "audience", "claims", "on_missing_scope"];

pub fn read_auth(r: &mut Reader<'_>, node: &Node, config: &mut ProjectConfig) {
    let Some(entries) = r.map(node, "`auth`") else {
        return;
    };
    r.check_keys(entries, &KEYS, "`auth`");
    let mut auth = AuthSpec::default();
    if let Some(n) = node.get("issuer") {
        auth.issuer = read_issuer(r, n);
    }
    if let Some(n) = node.get("audience") {
        auth.audience = r.non_empty_string(n, "`auth.audience`");
    }
    if let Some(n) = node.get("claims") {
        auth.claims = read_claims(r, n, config);
    }
    if let Some(n) = node.get("on_missing_scope") {
        let choices = MissingScope::ALL.map(|m| (m.as_str(), m));
        let help = "`hide` leaves a tool out for a caller without its scopes; `challenge` \
                    answers its calls 403 insufficient_scope, naming the scopes to ask for";
        if let Some(choice) = r.choice(
            n,
            "`auth.on_missing_scope`",
            "`on_missing_scope` policy",
            &choices,
            help,
        ) {
            auth.on_missing_scope = choice;
        }
    }
    config.auth = auth;
}

/// An absolute `https://` URL (`http://` too, for a local issuer), as tokens name it in `iss`.
fn read_issuer(r: &mut Reader<'_>, node: &Node) -> Option<String> {
    let issuer = r.non_empty_string(node, "`auth.issuer`")?;
    let rest = issuer
        .strip_prefix("https://")
        .or_else(|| issuer.strip_prefix("http://"));
    let host = rest.map(|rest| rest.split(['/', '?', '#']).next().unwrap_or_default());
    if host.is_some_and(|h| !h.is_empty()) && !issuer.contains(char::is_whitespace) {
        return Some(issuer);
    }
    r.report(
        r.error(
            Kind::InvalidValue,
            node.span,
            format!("`{issuer}` is not an issuer URL"),
        )
        .with_label("not an absolute http(s) URL")
        .with_help(
            "the issuer is the URL its tokens carry in `iss`, like `https://auth.example.com`",
        ),
    );
    None
}

/// `claims: { ambient_field: claim, … }`.
fn read_claims(r: &mut Reader<'_>, node: &Node, config: &ProjectConfig) -> Vec<ClaimSpec> {
    let Some(entries) = r.map(node, "`auth.claims`") else {
        return Vec::new();
    };
    let mut claims = Vec::new();
    for (key, value) in entries {
        let Some(field) = r.spanned_string(key, "an ambient field") else {
            continue;
        };
        let Some(claim) = r.non_empty_string(value, &format!("the claim of `{}`", field.value))
        else {
            continue;
        };
        let Some(ambient) = config.ambient(&field.value) else {
            let declared = config.ambient.iter().map(|a| a.name.value.as_str());
            let help = match did_you_mean(&field.value, declared) {
                Some(m) => format!("did you mean `{m}`?"),
                None => format!(
                    "declare it under `ambient:` with its type, like `ambient: {{ {}: {{ type: string }} }}`",
                    field.value
                ),
            };
            r.report(
                r.error(
                    Kind::UnknownName,
                    key.span,
                    format!("`{}` is not a declared ambient field", field.value),
                )
                .with_label("not under `ambient:`")
                .with_help(help),
            );
            continue;
        };
        claims.push(ClaimSpec {
            ambient: field.value,
            claim,
            ty: ambient.ty,
        });
    }
    claims
}
