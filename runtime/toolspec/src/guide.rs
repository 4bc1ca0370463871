//! The guide: the pages of the repository's `docs/` folder, one module each, as they read on
//! GitHub (a link to another page leads to its module here). [`handlers`] starts an app,
//! [`spec`] is the spec language, [`runtime`] and [`serving`] what a call goes through and
//! how tools are served.
//!
//! The modules are written by the build script from `guide/`, the package's copy of `docs/`;
//! they exist only in the documentation.

include!(concat!(env!("OUT_DIR"), "/guide.rs"));
