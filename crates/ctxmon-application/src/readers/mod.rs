//! The agents' transcripts, read by their own rules over bytes the caller hands in (`Read +
//! Seek`): no file is opened here.

pub mod gemini;
