//! Macros the generated code uses for its repetitive items, so that `OUT_DIR` stays short
//! and readable and the code generator stays fast. Each expands to plain items in the
//! caller's module, naming the runtime only through `__private`. Hidden: they are for
//! generated code (which reaches them as `toolspec::__private::…`), not public API.

/// The impls of a string enum from a spec's `one_of`: `as_str`, `ALL`, `Display`, `FromStr`,
/// and serde as the spec's strings.
///
/// ```
/// #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
/// pub enum Reason { CustomerRequest, Fraud }
/// toolspec_core::string_enum!(Reason { CustomerRequest = "customer_request", Fraud = "fraud" });
///
/// assert_eq!(Reason::CustomerRequest.as_str(), "customer_request");
/// assert_eq!("fraud".parse::<Reason>().unwrap(), Reason::Fraud);
/// assert_eq!(serde_json::to_string(&Reason::Fraud).unwrap(), "\"fraud\"");
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! string_enum {
    ($name:ident { $($variant:ident = $value:literal),* $(,)? }) => {
        impl $name {
            /// Every value, in spec order.
            pub const ALL: &'static [Self] = &[$(Self::$variant,)*];

            /// The value as written in the spec.
            pub fn as_str(&self) -> &'static str {
                match *self { $(Self::$variant => $value,)* }
            }
        }

        impl ::core::fmt::Display for $name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::core::str::FromStr for $name {
            type Err = $crate::__private::UnknownVariant;
            fn from_str(value: &str) -> ::core::result::Result<Self, Self::Err> {
                match value {
                    $($value => ::core::result::Result::Ok(Self::$variant),)*
                    _ => ::core::result::Result::Err($crate::__private::UnknownVariant::new(::core::stringify!($name), value)),
                }
            }
        }

        impl $crate::__private::serde::Serialize for $name {
            fn serialize<S: $crate::__private::serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> $crate::__private::serde::Deserialize<'de> for $name {
            fn deserialize<D: $crate::__private::serde::Deserializer<'de>>(deserializer: D) -> ::core::result::Result<Self, D::Error> {
                let value = <::std::string::String as $crate::__private::serde::Deserialize>::deserialize(deserializer)?;
                value.parse().map_err(|_| {
                    <D::Error as $crate::__private::serde::de::Error>::unknown_variant(&value, &[$($value),*])
                })
            }
        }
    };
}

/// The impls of a tool's declared error codes: `Display` (the spec's message),
/// [`DeclaredError`](crate::DeclaredError) (the code) and the conversions into
/// [`Failure`](crate::Failure) and [`GuardFailure`](crate::GuardFailure), so
/// `Err(Error::NotFound)?` works in handlers and guards.
///
/// ```
/// #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
/// pub enum Error { NotFound }
/// toolspec_core::declared_errors!(Error { NotFound = ("not_found", "No such order.") });
/// use toolspec_core::DeclaredError;
/// assert_eq!(Error::NotFound.code(), "not_found");
/// assert_eq!(Error::NotFound.to_string(), "No such order.");
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! declared_errors {
    ($name:ident { $($variant:ident = ($code:literal, $message:literal)),* $(,)? }) => {
        impl ::core::fmt::Display for $name {
            #[allow(unused_variables)]
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                match *self { $(Self::$variant => f.write_str($message),)* }
            }
        }

        impl $crate::__private::DeclaredError for $name {
            fn code(&self) -> &str {
                match *self { $(Self::$variant => $code,)* }
            }
        }

        impl ::core::convert::From<$name> for $crate::__private::Failure<$name> {
            fn from(error: $name) -> Self {
                $crate::__private::Failure::declared(error)
            }
        }

        impl ::core::convert::From<$name> for $crate::__private::GuardFailure<$name> {
            fn from(error: $name) -> Self {
                $crate::__private::GuardFailure::declared(error)
            }
        }
    };
}

/// Binds a tool's `Handler` trait to the runtime: `Bound<H>(Arc<H>)` implementing
/// [`Operation`](crate::Operation). `run` checks each guard in spec order through its
/// `Handler` method, binding what it loaded to a variable named after the method, then calls
/// the handler, with `loaded: Loaded { field: guard_method, … }` when some guard loads; the
/// match of `guard` is exhaustive: every guard has its method.
#[doc(hidden)]
#[macro_export]
macro_rules! bind_handler {
    (
        $tool:ty, $handler:ident, $guards:ty,
        [$($variant:path => $method:ident),* $(,)?]
        $(, loaded: $loaded:ident { $($field:ident: $from:ident),* $(,)? })?
    ) => {
        /// The tool bound to a handler (what the generated registration registers).
        #[doc(hidden)]
        pub struct Bound<H>(pub ::std::sync::Arc<H>);

        impl<H: $handler> $crate::__private::Operation for Bound<H> {
            type Contract = $tool;

            #[allow(unused_variables, clippy::let_unit_value)]
            fn run<'a>(
                &'a self,
                input: <$tool as $crate::__private::Contract>::Input,
                cx: $crate::__private::Context<'a, <$tool as $crate::__private::Contract>::Ambient>,
            ) -> $crate::__private::BoxFuture<
                'a,
                ::core::result::Result<$crate::__private::Outcome<$tool>, $crate::__private::GuardStop>,
            > {
                ::std::boxed::Box::pin(async move {
                    $(
                        let $method = $crate::__private::check_guard(
                            $variant as usize,
                            $handler::$method(&*self.0, &input, &cx),
                        )
                        .await?;
                    )*
                    ::core::result::Result::Ok(
                        $handler::call(&*self.0, input, $( $loaded { $($field: $from),* }, )? cx).await,
                    )
                })
            }

            #[allow(unused_variables)]
            fn guard<'a>(
                &'a self,
                guard: $guards,
                input: &'a <$tool as $crate::__private::Contract>::Input,
                cx: &'a $crate::__private::Context<'a, <$tool as $crate::__private::Contract>::Ambient>,
            ) -> $crate::__private::BoxFuture<'a, ::core::result::Result<(), $crate::__private::GuardStop>> {
                match guard {
                    $($variant => ::std::boxed::Box::pin(async move {
                        $crate::__private::check_guard($variant as usize, $handler::$method(&*self.0, input, cx))
                            .await
                            .map(::core::mem::drop)
                    }),)*
                }
            }
        }
    };
}
