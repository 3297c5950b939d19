//! Reading a preset's options, written in the scenario or in a config file
//! the processor itself reads: the same values, kept with their places, so
//! one reader serves both and every error names the file, line and column
//! of the value (and, inside a config file, where the scenario named it).

use std::path::{Path, PathBuf};

use serde_saphyr::Spanned;

use super::super::pos;
use crate::error::{Error, Result};
use crate::scenario::raw::RawValue;
use crate::time::{parse_duration, Time};

/// Where the values being read are.
pub(super) struct Src {
    pub file: PathBuf,
    /// In a config file: ` (read for `sidekiq.config` at scenario.yaml:12:15)`.
    pub via: String,
    /// Whether keys may be written as Ruby symbols (`:concurrency:`), as a
    /// `sidekiq.yml` does.
    pub symbols: bool,
}

/// One `key: value` of a map, its key as written and as read.
pub(super) struct Entry<'v> {
    /// The key without a leading `:` (for a file whose keys may be symbols).
    pub key: String,
    pub at: &'v Spanned<String>,
    pub value: &'v Spanned<RawValue>,
}

impl Src {
    pub fn scenario(file: &Path) -> Self {
        Src { file: file.to_path_buf(), via: String::new(), symbols: false }
    }

    pub fn err<T>(&self, at: &Spanned<T>, msg: impl Into<String>) -> Error {
        let (l, c) = pos(at);
        self.err_line(l, c, msg)
    }

    pub fn err_line(&self, line: usize, col: usize, msg: impl Into<String>) -> Error {
        Error::input(&self.file, line, col, format!("{}{}", msg.into(), self.via))
    }

    /// The entries of the map `v`, each key one of `keys` (else an error
    /// naming the closest); `what` names the map in messages.
    pub fn entries<'v>(&self, v: &'v Spanned<RawValue>, what: &str, keys: &[&str]) -> Result<Vec<Entry<'v>>> {
        let m = match &v.value {
            RawValue::Map(m) => m,
            RawValue::Null => return Ok(Vec::new()),
            _ => {
                return Err(
                    self.err(v, format!("{what} is a map of `key: value` pairs ({})", keys.join(", ")))
                )
            }
        };
        let mut out: Vec<Entry> = Vec::with_capacity(m.len());
        for (k, value) in m {
            let key = match k.value.strip_prefix(':') {
                Some(rest) if self.symbols => rest.to_string(),
                _ => k.value.clone(),
            };
            if !keys.contains(&key.as_str()) {
                return Err(self.unknown(k, &key, what, keys));
            }
            if out.iter().any(|e| e.key == key) {
                return Err(self.err(
                    k,
                    format!("`{key}` is given twice in {what} (as `{key}` and `:{key}`); keep one"),
                ));
            }
            out.push(Entry { key, at: k, value });
        }
        Ok(out)
    }

    /// An unknown key, with the known key it is probably a misspelling of.
    pub fn unknown(&self, at: &Spanned<String>, key: &str, what: &str, keys: &[&str]) -> Error {
        let hint = match crate::policy::closest(key, keys) {
            Some(k) => format!("; did you mean `{k}`?"),
            None => format!("; expected one of {}", keys.join(", ")),
        };
        self.err(at, format!("unknown key `{}` in {what}{hint}", at.value))
    }

    /// A scalar as text.
    pub fn text(&self, v: &Spanned<RawValue>, key: &str) -> Result<String> {
        match &v.value {
            RawValue::Scalar(t) => Ok(t.text.clone()),
            _ => Err(self.err(v, format!("`{key}` is a single value, not a list or a map"))),
        }
    }

    /// A whole number from `min` to `max`.
    pub fn whole(&self, v: &Spanned<RawValue>, key: &str, min: u64, max: u64) -> Result<u64> {
        let t = self.text(v, key)?;
        match t.trim().parse::<u64>() {
            Ok(n) if (min..=max).contains(&n) => Ok(n),
            _ => Err(self.err(v, format!("`{key}: {t}` must be a whole number from {min} to {max}"))),
        }
    }

    /// A duration; a bare number is in seconds (the unit of Ruby's processors).
    pub fn seconds(&self, v: &Spanned<RawValue>, key: &str) -> Result<Time> {
        let t = self.text(v, key)?;
        parse_duration(&t).map_err(|m| self.err(v, format!("`{key}`: {m}")))
    }

    /// A duration; a bare number is in milliseconds (BullMQ's unit).
    pub fn millis(&self, v: &Spanned<RawValue>, key: &str) -> Result<Time> {
        match &v.value {
            RawValue::Scalar(t) if t.numeric => {
                let ms = t.text.parse::<f64>().ok().filter(|x| x.is_finite() && *x >= 0.0);
                match ms.map(|x| parse_duration(&format!("{x}ms"))) {
                    Some(Ok(d)) => Ok(d),
                    Some(Err(m)) => Err(self.err(v, format!("`{key}`: {m}"))),
                    None => Err(self.err(
                        v,
                        format!("`{key}: {}` must be a number of milliseconds of zero or more", t.text),
                    )),
                }
            }
            _ => self.seconds(v, key),
        }
    }

    /// `true` or `false`.
    pub fn flag(&self, v: &Spanned<RawValue>, key: &str) -> Result<bool> {
        match self.text(v, key)?.as_str() {
            "true" => Ok(true),
            "false" => Ok(false),
            other => Err(self.err(v, format!("`{key}: {other}` must be true or false"))),
        }
    }

    /// The items of a list, or a single value as a list of one.
    pub fn items<'v>(&self, v: &'v Spanned<RawValue>) -> Vec<&'v Spanned<RawValue>> {
        match &v.value {
            RawValue::List(items) => items.iter().collect(),
            _ => vec![v],
        }
    }
}
