//! Where a results folder came from, as its marker file
//! (`fairsim-results.json`) records it: the fairsim version, the command as
//! typed and when the run started. Folders written before a field existed
//! still report; the line names what the marker has.

use std::path::Path;

use super::esc;
use crate::output::folder::MARKER;

/// The provenance line of the report, `None` when the marker holds none of
/// the fields (or is missing, or is not JSON). One element on one line, so
/// a comparison of two reports can drop exactly this line.
pub(super) fn line(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join(MARKER)).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    let field = |k: &str| json.get(k).and_then(|v| v.as_str()).filter(|s| !s.is_empty());
    let mut parts = Vec::new();
    if let Some(v) = field("fairsim") {
        parts.push(format!("fairsim {}", esc(v)));
    }
    if let Some(c) = field("command") {
        // a quoted argument may hold a line break: kept, but not as one
        let c = esc(c).replace('\n', "&#10;").replace('\r', "&#13;");
        parts.push(format!("<code>{c}</code>"));
    }
    if let Some(s) = field("started") {
        parts.push(format!("started {}", esc(s)));
    }
    if parts.is_empty() {
        return None;
    }
    Some(format!("<p class=\"provenance\">Made by {}</p>\n", parts.join(" · ")))
}
