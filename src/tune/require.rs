//! `--require 'METRIC[(class=NAME|tenant=NAME)] OP BOUND[UNIT]'`: parsing,
//! with the column of whatever is wrong, and judging an interval against it.
//!
//! A requirement is met only when the whole 95% interval is on its side of
//! the bound: the upper end for `<=` and `<`, the lower end for `>=` and `>`.
//! A mean that meets the bound while its interval straddles it is not enough:
//! with another set of seeds it could as well fail.

use super::metric::{check_scope, lookup, Kind, Metric, Scope};
use crate::error::{Error, Result};
use crate::model::Scenario;
use crate::sweep::stats::Estimate;

/// The comparison of a requirement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Le,
    Lt,
    Ge,
    Gt,
}

impl Op {
    /// Whether a smaller value is the favourable one.
    pub fn upper(self) -> bool {
        matches!(self, Op::Le | Op::Lt)
    }
}

/// One `--require`.
#[derive(Debug, Clone, PartialEq)]
pub struct Requirement {
    /// As typed, trimmed: how messages and `tune.csv` name it.
    pub text: String,
    pub metric: Metric,
    pub op: Op,
    /// In the metric's unit: seconds for times, a fraction for percentages.
    pub bound: f64,
}

/// A syntax error: 0-based character position and what is wrong.
type Fault = (usize, String);

/// Reads a requirement or a metric, character by character.
struct Cursor<'a> {
    chars: Vec<char>,
    at: usize,
    sc: &'a Scenario,
}

impl Cursor<'_> {
    fn skip_spaces(&mut self) {
        while self.chars.get(self.at).is_some_and(|c| c.is_whitespace()) {
            self.at += 1;
        }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    /// Characters while `keep` holds, and where they start.
    fn take_while(&mut self, keep: impl Fn(char) -> bool) -> (usize, String) {
        let start = self.at;
        while self.peek().is_some_and(&keep) {
            self.at += 1;
        }
        (start, self.chars[start..self.at].iter().collect())
    }

    fn expect(&mut self, c: char, why: &str) -> Result<(), Fault> {
        self.skip_spaces();
        if self.peek() == Some(c) {
            self.at += 1;
            Ok(())
        } else {
            Err((self.at, why.to_string()))
        }
    }

    /// `NAME[(class=X|tenant=X)]`.
    fn metric(&mut self) -> Result<Metric, Fault> {
        self.skip_spaces();
        let (start, name) = self.take_while(|c| c.is_ascii_alphanumeric() || c == '_');
        if name.is_empty() {
            return Err((start, "expected a metric, such as p99, mean, jain or utilization".into()));
        }
        let (column, kind, grouped) = lookup(&name).map_err(|m| (start, m))?;
        let mut label = name.clone();
        let mut scope = Scope::All;
        self.skip_spaces();
        if self.peek() == Some('(') {
            let open = self.at;
            self.at += 1;
            self.skip_spaces();
            let (wstart, word) = self.take_while(|c| c.is_ascii_alphabetic());
            self.expect('=', "expected `=` after `class` or `tenant`, as in p99(class=interactive)")?;
            self.skip_spaces();
            let (nstart, who) = self.take_while(|c| c != ')');
            let who = who.trim_end().to_string();
            if self.peek() != Some(')') {
                return Err((self.at, "expected `)` to close the group".into()));
            }
            self.at += 1;
            scope = match word.as_str() {
                "class" => Scope::Class(who.clone()),
                "tenant" => Scope::Tenant(who.clone()),
                _ => {
                    return Err((wstart, format!("`{word}` is not a group: write class=NAME or tenant=NAME")))
                }
            };
            if !grouped {
                return Err((
                    open,
                    format!("`{name}` is a figure of the whole run, not of a {word}: drop the ({word}=...)"),
                ));
            }
            if who.is_empty() {
                return Err((nstart, format!("the {word} has no name")));
            }
            check_scope(&scope, self.sc).map_err(|m| (nstart, m))?;
            label = format!("{name}({word}={who})");
        }
        Ok(Metric { column, kind, scope, label })
    }

    fn op(&mut self) -> Result<Op, Fault> {
        self.skip_spaces();
        let at = self.at;
        let two: String = self.chars[at..].iter().take(2).collect();
        let (op, len) = match (two.as_str(), self.peek()) {
            ("<=", _) => (Op::Le, 2),
            (">=", _) => (Op::Ge, 2),
            (_, Some('≤')) => (Op::Le, 1),
            (_, Some('≥')) => (Op::Ge, 1),
            (_, Some('<')) => (Op::Lt, 1),
            (_, Some('>')) => (Op::Gt, 1),
            _ => return Err((at, "expected a comparison: <=, <, >= or >".into())),
        };
        self.at += len;
        Ok(op)
    }

    /// A number and its unit, in the metric's unit.
    fn bound(&mut self, m: &Metric) -> Result<f64, Fault> {
        self.skip_spaces();
        let (start, num) =
            self.take_while(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E'));
        // an `e` that starts a unit is not an exponent: give it back
        let num = num.trim_end_matches(['e', 'E']).to_string();
        self.at = start + num.chars().count();
        let value: f64 = match num.parse() {
            Ok(v) if f64::is_finite(v) => v,
            _ => return Err((start, "expected a number for the bound".into())),
        };
        self.skip_spaces();
        let (ustart, unit) = self.take_while(|c| !c.is_whitespace());
        let scale = match (m.kind, unit.as_str()) {
            (Kind::Secs, "" | "s") => 1.0,
            (Kind::Secs, "us" | "µs") => 1e-6,
            (Kind::Secs, "ms") => 1e-3,
            (Kind::Secs, "m" | "min") => 60.0,
            (Kind::Secs, "h") => 3600.0,
            (Kind::Secs, u) => {
                return Err((
                    ustart,
                    format!(
                    "unknown unit `{u}`: {} is a time; write us, ms, s, m or h (a bare number is seconds)",
                    m.label
                ),
                ))
            }
            (Kind::Ratio, "") => 1.0,
            (Kind::Ratio, "%") => 0.01,
            (Kind::Ratio, u) => {
                return Err((ustart, format!("unknown unit `{u}`: {} is a ratio; write 0.9 or 90%", m.label)))
            }
            (Kind::Count, "") => 1.0,
            (Kind::Count, u) => {
                return Err((
                    ustart,
                    format!("unexpected unit `{u}`: {} is a count of jobs; write a bare number", m.label),
                ))
            }
        };
        Ok(value * scale)
    }

    fn end(&mut self) -> Result<(), Fault> {
        self.skip_spaces();
        match self.peek() {
            None => Ok(()),
            Some(_) => Err((self.at, "unexpected text after the requirement".into())),
        }
    }
}

/// The usage error for `option 'text'` with a caret under the fault.
fn fault(option: &str, text: &str, (at, why): Fault) -> Error {
    let pad: String = text.chars().take(at).map(|c| if c == '\t' { '\t' } else { ' ' }).collect();
    Error::Usage(format!("{option} '{text}': column {}: {why}\n    {text}\n    {pad}^", at + 1))
}

impl Requirement {
    /// Parses `--require TEXT`, checking classes and tenants against `sc`.
    pub fn parse(text: &str, sc: &Scenario) -> Result<Requirement> {
        let mut cur = Cursor { chars: text.chars().collect(), at: 0, sc };
        let parsed = (|| {
            let metric = cur.metric()?;
            let op = cur.op()?;
            let bound = cur.bound(&metric)?;
            cur.end()?;
            Ok::<_, Fault>((metric, op, bound))
        })();
        let (metric, op, bound) = parsed.map_err(|f| fault("--require", text, f))?;
        Ok(Requirement { text: text.trim().to_string(), metric, op, bound })
    }

    /// The end of the interval the requirement is judged on; `None`
    /// without an interval (fewer than two seeds measured it).
    pub fn judged(&self, e: Option<&Estimate>) -> Option<f64> {
        let (low, high) = e?.ci()?;
        Some(if self.op.upper() { high } else { low })
    }

    pub fn passes(&self, judged: f64) -> bool {
        match self.op {
            Op::Le => judged <= self.bound,
            Op::Lt => judged < self.bound,
            Op::Ge => judged >= self.bound,
            Op::Gt => judged > self.bound,
        }
    }

    /// How far the judged end is on the good side of the bound (negative:
    /// the bad side), in the metric's unit.
    pub fn slack(&self, judged: f64) -> f64 {
        if self.op.upper() {
            self.bound - judged
        } else {
            judged - self.bound
        }
    }

    /// [`Self::slack`] relative to the bound, so requirements in different
    /// units compare: the smallest is the one that binds.
    pub fn relative_slack(&self, judged: f64) -> f64 {
        self.slack(judged) / self.bound.abs().max(f64::MIN_POSITIVE)
    }

    /// "upper" or "lower": the end of the interval judged.
    pub fn side(&self) -> &'static str {
        if self.op.upper() {
            "upper"
        } else {
            "lower"
        }
    }
}

/// Parses a metric alone (an objective: `--minimize 'p99(class=bulk)'`).
pub fn parse_metric(option: &str, text: &str, sc: &Scenario) -> Result<Metric> {
    let mut cur = Cursor { chars: text.chars().collect(), at: 0, sc };
    let m = cur.metric().and_then(|m| cur.end().map(|_| m));
    m.map_err(|f| fault(option, text, f))
}
