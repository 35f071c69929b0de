//! A macro for string unions that must accept values nobody listed.
//!
//! Roles, capabilities and symbol kinds read like closed unions (`"planner" | "coder" | …`), but
//! real inputs carry roles, capabilities and symbol kinds nobody listed. Rejecting them would make
//! every new producer a breaking change, so each union is an enum of the known names plus
//! `Other(String)` that keeps the original spelling. Code that cares matches the known variants;
//! everything else falls back to the generic behaviour.

/// Declares `enum $name { Known…, Other(String) }` with string serde, `as_str`, `parse` and
/// `Display`. Each known variant's documentation ends with its wire spelling.
macro_rules! open_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $(
                $(#[$vmeta])*
                #[doc = ""]
                #[doc = concat!("Spelt `", $text, "` on the wire.")]
                $variant,
            )+
            /// A name this version does not know, kept as written.
            Other(String),
        }

        impl $name {
            /// Every known variant, in declaration order.
            pub const KNOWN: &'static [$name] = &[$($name::$variant),+];

            /// The wire spelling.
            pub fn as_str(&self) -> &str {
                match self {
                    $( $name::$variant => $text, )+
                    $name::Other(s) => s,
                }
            }

            /// Maps a known spelling to its variant and anything else to `Other`. Exact and
            /// case-sensitive, like the JSON it comes from.
            pub fn parse(s: &str) -> $name {
                match s {
                    $( $text => $name::$variant, )+
                    other => $name::Other(other.to_owned()),
                }
            }

            /// False for `Other`, which callers report as a note.
            pub fn is_known(&self) -> bool {
                !matches!(self, $name::Other(_))
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl From<&str> for $name {
            fn from(s: &str) -> $name {
                $name::parse(s)
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<$name, D::Error> {
                let s = <std::borrow::Cow<'de, str> as serde::Deserialize<'de>>::deserialize(deserializer)?;
                Ok($name::parse(&s))
            }
        }
    };
}

pub(crate) use open_enum;
