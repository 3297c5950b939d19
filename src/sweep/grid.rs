//! The grid of a sweep: `--set KEY=V1,V2` options, the cartesian product of
//! their values, and the scenario text of each point.
//!
//! The scenario is read into an order-keeping tree ([`Node`]), a value is
//! put at the key's path, and the tree is written back as JSON (which is
//! YAML) for the loader. Order matters: tenants, classes and workload
//! entries are numbered in file order, and the seeds derive from those
//! numbers, so a map that sorted its keys would change the results.

use std::fmt::Write;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::error::{Error, Result};

/// A YAML document as a tree, maps in file order.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    Map(Vec<(String, Node)>),
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> std::result::Result<Node, E> {
        Ok(Node::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<Node, E> {
        Ok(Node::Int(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Node, E> {
        Ok(Node::UInt(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<Node, E> {
        Ok(Node::Float(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Node, E> {
        Ok(Node::Str(v.to_string()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> std::result::Result<Node, E> {
        Ok(Node::Str(v))
    }
    fn visit_unit<E: de::Error>(self) -> std::result::Result<Node, E> {
        Ok(Node::Null)
    }
    fn visit_none<E: de::Error>(self) -> std::result::Result<Node, E> {
        Ok(Node::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Node, D::Error> {
        Node::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Node, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Node::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Node, A::Error> {
        let mut entries = Vec::new();
        while let Some((key, value)) = map.next_entry::<Node, Node>()? {
            let key = match key {
                Node::Str(s) => s,
                Node::Null | Node::Seq(_) | Node::Map(_) => {
                    return Err(de::Error::custom("a mapping key must be a name"));
                }
                scalar => scalar.json(),
            };
            entries.push((key, value));
        }
        Ok(Node::Map(entries))
    }
}

/// How YAML text is read into a [`Node`]: numbers spelled with leading zeros
/// or underscores, and YAML 1.1 booleans (`y`, `no`, `on`...), stay text, as
/// the typed loader would read them into a name (see [`yaml11_bool`]).
fn yaml_options() -> serde_saphyr::Options {
    serde_saphyr::options! {
        leading_zero_numbers_as_strings: true,
        underscored_numbers_as_strings: true,
        strict_booleans: true,
    }
}

/// The YAML 1.1 boolean spellings: written back unquoted, so the loader
/// reads them as the file had them: a boolean for a flag, text for a name.
fn yaml11_bool(s: &str) -> bool {
    matches!(
        s,
        "y" | "Y"
            | "yes"
            | "Yes"
            | "YES"
            | "n"
            | "N"
            | "no"
            | "No"
            | "NO"
            | "on"
            | "On"
            | "ON"
            | "off"
            | "Off"
            | "OFF"
    )
}

impl Node {
    /// Reads a YAML document.
    pub fn parse(text: &str) -> std::result::Result<Node, String> {
        serde_saphyr::from_str_with_options(text, yaml_options()).map_err(|e| e.to_string())
    }

    /// A `--set` value: the YAML scalar it spells (a number, true/false,
    /// null), otherwise the text itself.
    fn scalar(text: &str) -> Node {
        match Node::parse(text) {
            Ok(n @ (Node::Bool(_) | Node::Int(_) | Node::UInt(_) | Node::Float(_) | Node::Str(_))) => n,
            _ => Node::Str(text.to_string()),
        }
    }

    /// The tree as JSON text.
    pub fn json(&self) -> String {
        let mut out = String::new();
        self.write_json(&mut out);
        out
    }

    fn write_json(&self, out: &mut String) {
        let quoted = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_string());
        match self {
            Node::Null => out.push_str("null"),
            Node::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Node::Int(v) => {
                let _ = write!(out, "{v}");
            }
            Node::UInt(v) => {
                let _ = write!(out, "{v}");
            }
            // shortest text that reads back as the same number
            Node::Float(v) => out.push_str(&serde_json::to_string(v).unwrap_or_else(|_| "null".into())),
            Node::Str(s) if yaml11_bool(s) => out.push_str(s),
            Node::Str(s) => out.push_str(&quoted(s)),
            Node::Seq(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    item.write_json(out);
                }
                out.push(']');
            }
            Node::Map(entries) => {
                // one key per line, so the loader's messages point somewhere readable
                out.push_str("{\n");
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push_str(",\n");
                    }
                    out.push_str(&quoted(k));
                    out.push_str(": ");
                    v.write_json(out);
                }
                out.push_str("\n}");
            }
        }
    }

    /// The value at `path` (map keys by name, list items by index), a
    /// single value. Every step but the last must exist; the last key may be
    /// new (`tenants.A.cap` on a tenant written without a cap), added at the
    /// end of its map, so the loader judges it like a key in the file (a
    /// misspelt one is refused there).
    fn at_mut(&mut self, path: &str) -> std::result::Result<&mut Node, String> {
        let mut node = self;
        let mut walked = String::new();
        let parts: Vec<&str> = path.split('.').collect();
        for (i, part) in parts.iter().copied().enumerate() {
            let last = i + 1 == parts.len();
            let here = if walked.is_empty() { "the scenario".to_string() } else { format!("`{walked}`") };
            if last && matches!(node, Node::Null) {
                // `A:` written with nothing after it: a map of one new key
                *node = Node::Map(Vec::new());
            }
            node = match node {
                Node::Map(entries) => {
                    let names: Vec<String> = entries.iter().map(|(k, _)| k.clone()).collect();
                    match entries.iter().position(|(k, _)| k == part) {
                        Some(at) => &mut entries[at].1,
                        None if last => {
                            entries.push((part.to_string(), Node::Null));
                            &mut entries.last_mut().expect("just pushed").1
                        }
                        None => {
                            return Err(format!(
                                "{here} has no key `{part}` (it has: {}); the keys on the way to a swept value must be written in the scenario",
                                names.join(", ")
                            ))
                        }
                    }
                }
                Node::Seq(items) => {
                    let len = items.len();
                    match part.parse::<usize>().ok().and_then(|i| items.get_mut(i)) {
                        Some(v) => v,
                        None => {
                            return Err(format!(
                                "{here} is a list of {len} items: address one by its index, 0 to {}",
                                len.saturating_sub(1)
                            ))
                        }
                    }
                }
                _ => return Err(format!("{here} is a single value, it has no key `{part}`")),
            };
            if !walked.is_empty() {
                walked.push('.');
            }
            walked.push_str(part);
        }
        match node {
            Node::Map(_) | Node::Seq(_) => {
                Err(format!("`{path}` holds a mapping or a list; address one of the single values inside it"))
            }
            n => Ok(n),
        }
    }
}

impl Node {
    /// The paths `path` stands for: itself, or with each `*` part replaced
    /// by every key of the map (or index of the list) found there, in file
    /// order (`tenants.*.cap`: the cap of every tenant written in the file).
    pub fn expand(&self, path: &str) -> std::result::Result<Vec<String>, String> {
        let parts: Vec<&str> = path.split('.').collect();
        let mut out = Vec::new();
        self.expand_from(&parts, String::new(), &mut out)?;
        Ok(out)
    }

    fn expand_from(
        &self,
        parts: &[&str],
        walked: String,
        out: &mut Vec<String>,
    ) -> std::result::Result<(), String> {
        let join = |part: &str| if walked.is_empty() { part.to_string() } else { format!("{walked}.{part}") };
        let Some((&part, rest)) = parts.split_first() else {
            out.push(walked);
            return Ok(());
        };
        if part != "*" && !rest.contains(&"*") {
            // no wildcard below: `at_mut` judges the rest, with its own messages
            out.push(join(&parts.join(".")));
            return Ok(());
        }
        let here = if walked.is_empty() { "the scenario".to_string() } else { format!("`{walked}`") };
        let children: Vec<(String, &Node)> = match self {
            Node::Map(entries) if part == "*" => entries.iter().map(|(k, v)| (k.clone(), v)).collect(),
            Node::Seq(items) if part == "*" => {
                items.iter().enumerate().map(|(i, v)| (i.to_string(), v)).collect()
            }
            Node::Map(entries) => {
                entries.iter().filter(|(k, _)| k == part).map(|(k, v)| (k.clone(), v)).collect()
            }
            Node::Seq(items) => part
                .parse::<usize>()
                .ok()
                .and_then(|i| items.get(i))
                .map(|v| (part.to_string(), v))
                .into_iter()
                .collect(),
            _ => return Err(format!("{here} is a single value, it has no key `{part}`")),
        };
        if children.is_empty() {
            return Err(if part == "*" {
                format!("{here} is empty: `*` stands for none of its keys")
            } else {
                format!("{here} has no key `{part}`; the keys on the way to a swept value must be written in the scenario")
            });
        }
        for (key, child) in children {
            child.expand_from(rest, join(&key), out)?;
        }
        Ok(())
    }
}

/// One `--set KEY=V1,V2,...` option.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    /// The key's path, e.g. `tenants.A.cap`.
    pub key: String,
    /// The values as typed.
    pub values: Vec<String>,
    /// Where a scenario's `sweep:` block gave the axis (`file:line:col: ...`),
    /// for messages; `None` for a `--set` option.
    pub origin: Option<String>,
}

impl Axis {
    /// Parses the option's text.
    pub fn parse(option: &str) -> Result<Axis> {
        let bad = |why: &str| {
            Err(Error::Usage(format!(
                "--set {option}: {why}; write --set KEY=VALUE[,VALUE...], e.g. --set workers=8,16,32"
            )))
        };
        let Some((key, values)) = option.split_once('=') else {
            return bad("no `=`");
        };
        let key = key.trim();
        if key.is_empty() || key.split('.').any(str::is_empty) {
            return bad("the key is empty or has an empty part");
        }
        let values: Vec<String> = values.split(',').map(|v| v.trim().to_string()).collect();
        if values.iter().any(String::is_empty) {
            return bad("a value is empty");
        }
        Ok(Axis { key: key.to_string(), values, origin: None })
    }

    /// The option as typed back (or the block's place), for messages.
    pub fn option(&self) -> String {
        match &self.origin {
            Some(origin) => origin.clone(),
            None => format!("--set {}={}", self.key, self.values.join(",")),
        }
    }
}

/// The cartesian product of the axes: points numbered with the last axis
/// varying fastest (the first axis is the outermost loop).
#[derive(Debug, Clone)]
pub struct Grid {
    pub axes: Vec<Axis>,
}

impl Grid {
    /// Checks that no key is swept twice.
    pub fn new(axes: Vec<Axis>) -> Result<Grid> {
        for (i, a) in axes.iter().enumerate() {
            if axes[..i].iter().any(|b| b.key == a.key) {
                return Err(Error::Usage(format!(
                    "{}: `{}` is swept by two --set options; give its values in one",
                    a.option(),
                    a.key
                )));
            }
        }
        Ok(Grid { axes })
    }

    /// Number of points (1 without axes).
    pub fn points(&self) -> usize {
        self.axes.iter().map(|a| a.values.len()).product()
    }

    /// The value index on each axis of point `p`.
    pub fn coordinates(&self, mut p: usize) -> Vec<usize> {
        let mut c = vec![0; self.axes.len()];
        for (i, a) in self.axes.iter().enumerate().rev() {
            c[i] = p % a.values.len();
            p /= a.values.len();
        }
        c
    }

    /// The values of point `p`, as typed, in axis order.
    pub fn values(&self, p: usize) -> Vec<&str> {
        self.coordinates(p).iter().zip(&self.axes).map(|(&i, a)| a.values[i].as_str()).collect()
    }

    /// `base` with the given (axis, value index) assignments, as text.
    pub fn text_with(&self, base: &Node, assign: &[(usize, usize)]) -> std::result::Result<String, String> {
        let mut doc = base.clone();
        for &(axis, value) in assign {
            let a = &self.axes[axis];
            for path in base.expand(&a.key)? {
                *doc.at_mut(&path)? = Node::scalar(&a.values[value]);
            }
        }
        Ok(doc.json())
    }

    /// The scenario text of point `p`.
    pub fn text(&self, base: &Node, p: usize) -> std::result::Result<String, String> {
        let assign: Vec<(usize, usize)> = self.coordinates(p).into_iter().enumerate().collect();
        self.text_with(base, &assign)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_vary_the_last_axis_fastest() {
        let g = Grid::new(vec![Axis::parse("a=1,2").unwrap(), Axis::parse("b=x,y,z").unwrap()]).unwrap();
        assert_eq!(g.points(), 6);
        assert_eq!(g.values(0), ["1", "x"]);
        assert_eq!(g.values(2), ["1", "z"]);
        assert_eq!(g.values(3), ["2", "x"]);
    }

    #[test]
    fn a_value_is_set_at_its_path_and_order_is_kept() {
        let base = Node::parse("b: 1\na: {x: [1, {y: 2}]}\n").unwrap();
        let g = Grid::new(vec![Axis::parse("a.x.1.y=1/s").unwrap()]).unwrap();
        let text = g.text(&base, 0).unwrap();
        assert_eq!(Node::parse(&text).unwrap(), Node::parse("b: 1\na: {x: [1, {y: '1/s'}]}").unwrap());
        assert!(text.find("\"b\"").unwrap() < text.find("\"a\"").unwrap());
        // `y` is a YAML 1.1 boolean: a key stays the name, a value stays as written
        let tree = Node::parse("y: {on: off}").unwrap();
        assert_eq!(tree.json(), "{\n\"y\": {\n\"on\": off\n}\n}");
        // a new last key is added at the end of its map; one on the way is an error
        let added = Grid::new(vec![Axis::parse("a.z=1").unwrap()]).unwrap().text(&base, 0).unwrap();
        assert_eq!(Node::parse(&added).unwrap(), Node::parse("b: 1\na: {x: [1, {y: 2}], z: 1}").unwrap());
        assert!(Grid::new(vec![Axis::parse("c.z=1").unwrap()]).unwrap().text(&base, 0).is_err());
        assert!(Grid::new(vec![Axis::parse("a.x=1").unwrap()]).unwrap().text(&base, 0).is_err());
        assert!(Grid::new(vec![Axis::parse("a.x.2=1").unwrap()]).unwrap().text(&base, 0).is_err());
    }

    #[test]
    fn a_star_stands_for_every_key_written() {
        // three tenants, one written bare: each gets the cap, in file order
        let base = Node::parse("tenants: {A: {cap: 2}, B: {weight: 3}, C: }\n").unwrap();
        assert_eq!(
            base.expand("tenants.*.cap").unwrap(),
            ["tenants.A.cap", "tenants.B.cap", "tenants.C.cap"]
        );
        let g = Grid::new(vec![Axis::parse("tenants.*.cap=5").unwrap()]).unwrap();
        let want = Node::parse("tenants: {A: {cap: 5}, B: {weight: 3, cap: 5}, C: {cap: 5}}").unwrap();
        assert_eq!(Node::parse(&g.text(&base, 0).unwrap()).unwrap(), want);
        assert!(base.expand("classes.*.priority").unwrap_err().contains("no key `classes`"));
        assert!(Node::parse("tenants: {}")
            .unwrap()
            .expand("tenants.*.cap")
            .unwrap_err()
            .contains("is empty"));
    }

    #[test]
    fn names_spelled_like_numbers_stay_text() {
        assert_eq!(Node::parse("007").unwrap(), Node::Str("007".into()));
        assert_eq!(Node::scalar("8"), Node::UInt(8));
        assert_eq!(Node::scalar("0.5"), Node::Float(0.5));
    }
}
