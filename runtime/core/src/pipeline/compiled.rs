//! What a tool's stages read, compiled once per tool from its descriptor on first use: the
//! argument plan (and a query tool's narrower plans per adapter), the input and output
//! checks, where its values are sensitive, its ambient fields and success message.

use serde_json::Value;
use toolspec_vocab::Dialect;

use crate::model::descriptor::{Descriptor, Field, Text};
use crate::pipeline::checks::plan::ArgumentPlan;
use crate::pipeline::checks::validate::Checker;
use crate::schema::sensitive::Sensitivity;

/// The compiled parts of one tool.
pub(crate) struct Compiled {
    /// What screening and coercion look at in the input schema.
    pub(crate) plan: ArgumentPlan,
    /// A query tool's plans on the adapters that narrow it (their schemas leave filters out).
    pub(crate) views: Vec<(Text, ArgumentPlan)>,
    /// Where the input (ambient fields included) is sensitive.
    pub(crate) sensitive_input: Sensitivity,
    /// Where the output is sensitive.
    pub(crate) sensitive_output: Sensitivity,
    /// The fields resolved from the ambient context (none for most tools).
    pub(crate) ambient: Vec<Field>,
    pub(crate) input: Checker,
    pub(crate) output: Checker,
    /// The success message's template and the confirmation's (`message`, `confirm`), if the
    /// tool has either.
    pub(crate) templates: Option<minijinja::Environment<'static>>,
    /// The success message of a tool without a template (or whose template fails).
    pub(crate) default_message: String,
}

impl Compiled {
    /// Compiles `tool`'s embedded schemas and template; an error is for the developer.
    pub(crate) fn new(tool: &Descriptor) -> Result<Self, String> {
        let input_schema: Value =
            serde_json::from_str(&tool.input_schema).map_err(|e| e.to_string())?;
        let output_schema: Value =
            serde_json::from_str(&tool.output_schema).map_err(|e| e.to_string())?;
        // The success message (`message`) and the confirmation's (`confirm`), each a template.
        let named = [
            ("message", tool.message.as_ref()),
            ("confirm", tool.confirm.as_ref().map(|c| &c.message)),
        ];
        let templates = match named.iter().any(|(_, t)| t.is_some()) {
            true => {
                let mut templates = minijinja::Environment::new();
                templates.set_undefined_behavior(minijinja::UndefinedBehavior::Lenient);
                for (name, template) in named {
                    if let Some(template) = template {
                        // The descriptor's text, cloned: free for a baked one's.
                        templates
                            .add_template_owned(name, template.clone())
                            .map_err(|e| e.to_string())?;
                    }
                }
                Some(templates)
            }
            false => None,
        };
        let mut views = Vec::new();
        for binding in tool.adapters.iter() {
            let schema = binding
                .view
                .as_ref()
                .and_then(|_| tool.schema_for(&binding.adapter, Dialect::Mcp));
            if let Some(schema) = schema {
                let schema: Value = serde_json::from_str(schema).map_err(|e| e.to_string())?;
                views.push((
                    binding.adapter.clone(),
                    ArgumentPlan::compile(&schema, &schema),
                ));
            }
        }
        Ok(Self {
            input: Checker::new(&input_schema, &tool.own_ranges_input)?,
            output: Checker::new(&output_schema, &tool.own_ranges_output)?,
            plan: ArgumentPlan::compile(&input_schema, &input_schema),
            views,
            sensitive_input: Sensitivity::compile(tool.sensitive_input.as_deref()),
            sensitive_output: Sensitivity::compile(tool.sensitive_output.as_deref()),
            ambient: tool.ambient_fields().cloned().collect(),
            templates,
            default_message: default_message(tool),
        })
    }
}

/// The success message of a tool without a template.
pub(crate) fn default_message(tool: &Descriptor) -> String {
    format!("{} succeeded.", tool.title.as_deref().unwrap_or(&tool.name))
}
