//! A processor's own config file (`sidekiq.yml`, Solid Queue's
//! `config/queue.yml`), read as the processor reads it: its ERB evaluated
//! (the `ENV` forms these files use, from the preset's `env:` or the
//! default written in the tag), then YAML with anchors and `<<` merge keys.
//! Its path is relative to the scenario file. Errors name the file, line
//! and column inside it, and where the scenario named it.

use std::path::{Path, PathBuf};

use serde_saphyr::Spanned;

use super::value::Src;
use crate::error::Result;
use crate::scenario::raw::RawValue;

/// Largest config file read: these files are a few hundred bytes.
const MAX_BYTES: u64 = 1 << 20;

/// Reads the config file `at` names (a path relative to `scenario`), with
/// `env` for its `ENV` lookups; `scenario_src` reports errors about `at`
/// itself. Returns where its values are and the document.
pub(super) fn read(
    scenario_src: &Src,
    scenario: &Path,
    key: &str,
    at: &Spanned<RawValue>,
    env: &[(String, String)],
    symbols: bool,
) -> Result<(Src, Spanned<RawValue>)> {
    let rel = scenario_src.text(at, key)?;
    if rel.trim().is_empty() {
        return Err(scenario_src
            .err(at, format!("`{key}` is empty; give the config file's path, relative to this scenario")));
    }
    let path = match scenario.parent() {
        Some(dir) if Path::new(&rel).is_relative() => dir.join(&rel),
        _ => PathBuf::from(&rel),
    };
    let cannot = |why: String| scenario_src.err(at, format!("cannot read `{rel}`: {why}"));
    let meta = std::fs::metadata(&path)
        .map_err(|e| cannot(format!("{e}; check the path (relative to the scenario file)")))?;
    if !meta.is_file() {
        return Err(cannot("not a regular file; give the path of the YAML file the processor reads".into()));
    }
    if meta.len() > MAX_BYTES {
        return Err(cannot(format!("over {} KB: not a processor's config file", MAX_BYTES >> 10)));
    }
    let bytes = std::fs::read(&path).map_err(|e| cannot(format!("{e}; check its permissions")))?;
    let (l, c) = super::super::pos(at);
    let src = Src {
        file: path.clone(),
        via: format!(" (the file `{key}` names at {}:{l}:{c})", scenario_src.file.display()),
        symbols,
    };
    let text = String::from_utf8(bytes).map_err(|e| {
        let good = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = good.iter().filter(|&&b| b == b'\n').count() + 1;
        src.err_line(line, 0, "this line is not UTF-8 text; save the file as UTF-8")
    })?;
    let text = erb(&src, &text, env)?;
    if text.trim().is_empty() {
        return Ok((src, Spanned { value: RawValue::Null, referenced: at.referenced, defined: at.defined }));
    }
    let doc: Spanned<RawValue> = serde_saphyr::from_str(&text).map_err(|e| yaml_error(&src, &e))?;
    Ok((src, doc))
}

fn yaml_error(src: &Src, e: &serde_saphyr::Error) -> crate::error::Error {
    let (line, col) = e.location().map(|l| (l.line() as usize, l.column() as usize)).unwrap_or((0, 0));
    use serde_saphyr::MessageFormatter;
    let msg = serde_saphyr::UserMessageFormatter.format_message(e.without_snippet()).into_owned();
    let msg = match msg.rfind(" at line ") {
        Some(i) if msg[i..].contains("column") => msg[..i].to_string(),
        _ => msg,
    };
    src.err_line(line, col, format!("{msg}; fix the YAML here (indentation, colons, quotes)"))
}

/// The file with its ERB tags evaluated. Tags are the `ENV` lookups
/// config files carry (`<%= ENV.fetch("JOB_CONCURRENCY", 1) %>`,
/// `ENV.fetch("X") { 5 }`, `ENV["X"] || 5`, `ENV["X"]`, each optionally
/// `.to_i` or `.to_f`), comments `<%# ... %>` and the escape `<%%`; any
/// other Ruby is refused at its place, since fairsim cannot run it.
fn erb(src: &Src, text: &str, env: &[(String, String)]) -> Result<String> {
    if !text.contains("<%") {
        return Ok(text.to_string());
    }
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let mut rest = line;
        while let Some(open) = rest.find("<%") {
            out.push_str(&rest[..open]);
            let col = line.len() - rest.len() + open + 1;
            let tag = &rest[open..];
            if let Some(after) = tag.strip_prefix("<%%") {
                out.push_str("<%");
                rest = after;
                continue;
            }
            let Some(close) = tag.find("%>") else {
                return Err(src.err_line(
                    i + 1,
                    col,
                    "an ERB tag `<%` without `%>` on the same line; close it on its line",
                ));
            };
            let body = &tag[2..close];
            rest = &tag[close + 2..];
            if body.starts_with('#') {
                continue;
            }
            let Some(expr) = body.strip_prefix('=') else {
                return Err(src.err_line(
                    i + 1,
                    col,
                    format!("ERB code `<%{body}%>` is not run by fairsim; write the setting's value, or an `ENV` lookup such as `<%= ENV.fetch(\"NAME\", 5) %>`"),
                ));
            };
            let value = env_lookup(expr.trim_start_matches('-').trim().trim_end_matches('-').trim(), env)
                .map_err(|m| src.err_line(i + 1, col, m))?;
            out.push_str(&value);
        }
        out.push_str(rest);
    }
    Ok(out)
}

/// The value of an `ENV` expression: the preset's `env:` entry, else the
/// default the expression gives.
fn env_lookup(expr: &str, env: &[(String, String)]) -> std::result::Result<String, String> {
    let refuse = || {
        format!(
            "ERB `<%= {expr} %>` is not an ENV lookup fairsim evaluates; write the value, or `ENV.fetch(\"NAME\", default)` (the preset's `env:` sets NAME)"
        )
    };
    let expr = expr.strip_suffix(".to_i").or_else(|| expr.strip_suffix(".to_f")).unwrap_or(expr).trim();
    let (name, default) = if let Some(args) = expr.strip_prefix("ENV.fetch(") {
        let (inner, tail) = args.split_once(')').ok_or_else(refuse)?;
        let (name, default) = match inner.split_once(',') {
            Some((n, d)) => (n.trim(), Some(d.trim())),
            None => (inner.trim(), None),
        };
        let block = tail.trim();
        let default = match (default, block) {
            (d, "") => d,
            (None, b) => {
                Some(b.strip_prefix('{').and_then(|b| b.strip_suffix('}')).ok_or_else(refuse)?.trim())
            }
            _ => return Err(refuse()),
        };
        (name, default)
    } else if let Some(args) = expr.strip_prefix("ENV[") {
        let (name, tail) = args.split_once(']').ok_or_else(refuse)?;
        let tail = tail.trim();
        let default = match tail.strip_prefix("||") {
            Some(d) => Some(d.trim()),
            None if tail.is_empty() => None,
            None => return Err(refuse()),
        };
        (name.trim(), default)
    } else {
        return Err(refuse());
    };
    let name = unquote(name).ok_or_else(refuse)?;
    if let Some((_, v)) = env.iter().find(|(k, _)| k == name) {
        return Ok(v.clone());
    }
    match default {
        Some(d) => Ok(unquote(d).unwrap_or(d).to_string()),
        None => Err(format!(
            "`ENV[{name:?}]` has no default here; give its value in the preset's `env: {{{name}: VALUE}}`"
        )),
    }
}

/// A Ruby string literal's text.
fn unquote(s: &str) -> Option<&str> {
    let s = s.trim();
    ['"', '\''].iter().find_map(|q| s.strip_prefix(*q).and_then(|r| r.strip_suffix(*q)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> Vec<(String, String)> {
        vec![("JOB_CONCURRENCY".into(), "4".into())]
    }

    #[test]
    fn env_lookups_take_the_preset_env_then_the_default() {
        assert_eq!(env_lookup("ENV.fetch(\"JOB_CONCURRENCY\", 1)", &env()), Ok("4".into()));
        assert_eq!(env_lookup("ENV.fetch(\"RAILS_MAX_THREADS\", 5)", &env()), Ok("5".into()));
        assert_eq!(env_lookup("ENV.fetch('RAILS_MAX_THREADS') { 3 }", &env()), Ok("3".into()));
        assert_eq!(env_lookup("ENV[\"X\"] || 7", &env()), Ok("7".into()));
        assert_eq!(env_lookup("ENV.fetch(\"X\", \"low\").to_i", &env()), Ok("low".into()));
        assert!(env_lookup("ENV[\"X\"]", &env()).unwrap_err().contains("env: {X: VALUE}"));
        assert!(env_lookup("Rails.env.production? ? 10 : 2", &env()).is_err());
    }

    #[test]
    fn erb_tags_are_replaced_and_other_ruby_refused_at_its_column() {
        let src = Src { file: "q.yml".into(), via: String::new(), symbols: false };
        let out =
            erb(&src, "a: <%= ENV.fetch(\"JOB_CONCURRENCY\", 1) %>\n<%# note %>b: <%%x\n", &env()).unwrap();
        assert_eq!(out, "a: 4\nb: <%x\n");
        let e = erb(&src, "a: 1\nb: <% if x %>\n", &env()).unwrap_err().to_string();
        assert!(e.starts_with("q.yml:2:4: ERB code"), "{e}");
    }
}
