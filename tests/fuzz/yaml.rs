//! YAML written by hand rather than by a serializer: the fuzzer must also
//! write what no serializer would (plain or single-quoted odd names that may
//! break the document, keys past YAML's 1024-character implicit-key limit).

use std::fmt::Write as _;

/// A YAML double-quoted scalar holding `s` exactly.
pub fn dq(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\0' => o.push_str("\\0"),
            '\n' => o.push_str("\\n"),
            '\r' => o.push_str("\\r"),
            '\t' => o.push_str("\\t"),
            '\u{85}' => o.push_str("\\N"),
            '\u{2028}' => o.push_str("\\L"),
            '\u{2029}' => o.push_str("\\P"),
            '\u{feff}' => o.push_str("\\uFEFF"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(o, "\\x{:02X}", c as u32);
            }
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// `s` as a YAML scalar: double-quoted (always valid), plain or
/// single-quoted (either may break the document, which is fine too).
pub fn yaml_str(s: &str, style: u8) -> String {
    match style {
        0 | 1 => dq(s),
        2 => s.to_string(),
        _ => format!("'{}'", s.replace('\'', "''")),
    }
}

pub fn flow_map(fields: &[(String, String)]) -> String {
    let inner: Vec<String> = fields.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    format!("{{{}}}", inner.join(", "))
}

/// A top-level value: rendered in block style (lists and maps one item a
/// line) or, in a flow document, inline.
#[derive(Debug, Clone)]
pub enum Top {
    Scalar(String),
    List(Vec<String>),
    Map(Vec<(String, String)>),
}

impl Top {
    pub fn flow(&self) -> String {
        match self {
            Top::Scalar(s) => s.clone(),
            Top::List(items) => format!("[{}]", items.join(", ")),
            Top::Map(m) => {
                let inner: Vec<String> = m
                    .iter()
                    .map(|(k, v)| match (k.len() > 1000, v.is_empty()) {
                        (true, true) => format!("? {k}"),
                        (true, false) => format!("? {k} : {v}"),
                        (false, true) => k.clone(),
                        (false, false) => format!("{k}: {v}"),
                    })
                    .collect();
                format!("{{{}}}", inner.join(", "))
            }
        }
    }

    pub fn block(&self, key: &str, out: &mut String) {
        match self {
            Top::Scalar(s) => {
                let _ = writeln!(out, "{key}: {s}");
            }
            Top::List(items) if items.is_empty() => {
                let _ = writeln!(out, "{key}: []");
            }
            Top::List(items) => {
                let _ = writeln!(out, "{key}:");
                for i in items {
                    let _ = writeln!(out, "  - {i}");
                }
            }
            Top::Map(m) if m.is_empty() => {
                let _ = writeln!(out, "{key}: {{}}");
            }
            Top::Map(m) => {
                let _ = writeln!(out, "{key}:");
                for (k, v) in m {
                    // YAML allows implicit keys of at most 1024 characters
                    let _ = match (k.len() > 1000, v.is_empty()) {
                        (true, true) => writeln!(out, "  ? {k}\n  :"),
                        (true, false) => writeln!(out, "  ? {k}\n  : {v}"),
                        (false, true) => writeln!(out, "  {k}:"),
                        (false, false) => writeln!(out, "  {k}: {v}"),
                    };
                }
            }
        }
    }
}
