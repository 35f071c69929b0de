//! JSON-lines reading shared by every agent's format: `backward` walks lines newest first in
//! fixed blocks with bounded memory (the hooks' reading), `tail` reads the last bytes forward
//! as whole lines, `head` the first ones until the caller has enough, `forward` a whole file
//! one line at a time (the session report), and `lenient` the serde pieces that read a field
//! of the wrong type as a field not there. What a line means is each agent's business.
//!
//! Every reading works on a `Read + Seek` source up to the length it had when opened, so a
//! line a writer appends meanwhile is never half read, and a source that ends early (the file
//! shrank) ends the reading or fails it with an I/O error, never a panic.

pub mod backward;
pub mod forward;
pub mod head;
pub mod lenient;
pub mod tail;
