//! JSON as other programs write it, read without losing what serde_json alone would refuse:
//! `repair` mends lone surrogate escapes, numbers beyond f64 and bytes that are not UTF-8, and
//! keeps a bounded copy of a document too large to hold whole; `depth` reads a document whose
//! nesting goes past serde_json's limit by skipping the subtrees beyond it; `comments` blanks
//! the comments of a file its agent reads as JSON with comments (Gemini CLI's settings);
//! `exact` reads any value with its numbers as written (the agent's critical context).
//!
//! The transcript readers parse every line through `repair`, and the settings readers every
//! file through both; the binary uses them for its hook input, and `exact` for a `--from`
//! document (stored resume logs use it through `handoff::resume_log::stored_json`). An embedder measuring a
//! transcript never calls them directly, so they are not part of the promised API.

pub mod comments;
pub mod depth;
pub mod exact;
pub mod repair;
