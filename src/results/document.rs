//! The whole run as one JSON document: where it came from (fairsim version,
//! scenario, seed, command line, date, results folder) and every policy's
//! figures, per policy, class and tenant. The results folder keeps it as
//! `fairsim-results.json` and `fairsim run --format json` prints it;
//! docs/json.md is its schema.

use serde::Serialize;

use super::scorecard::{verdict, Verdict};
use super::PolicyResult;

/// Version of the document's layout: raised when a field changes meaning
/// or goes away (new fields may appear without a change).
pub const SCHEMA: u32 = 1;

/// How a run was made.
#[derive(Debug, Clone, Serialize)]
pub struct Provenance {
    pub fairsim: String,
    pub scenario: String,
    pub scenario_path: String,
    pub seed: u64,
    /// The command line as typed, quoted for a POSIX shell.
    pub command: String,
    /// When the run started, UTC, ISO 8601.
    pub started: String,
    /// The results folder.
    pub out: String,
    /// `full` or `summary`.
    pub logs: String,
}

#[derive(Serialize)]
struct Document<'a> {
    schema: u32,
    #[serde(flatten)]
    provenance: &'a Provenance,
    policies: &'a [&'a PolicyResult],
    /// The verdict over the entries (see docs/json.md); absent in the
    /// provenance-only document written before the runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    verdict: Option<Verdict>,
}

/// The document as pretty-printed JSON with a final newline, the verdict
/// that of the policies' figures (one seed).
pub fn to_json(provenance: &Provenance, policies: &[&PolicyResult]) -> String {
    let verdict = (!policies.is_empty())
        .then(|| verdict(&policies.iter().map(|p| p.entry_score()).collect::<Vec<_>>()));
    document(provenance, policies, verdict)
}

/// [`to_json`] with the verdict given (over several seeds: see
/// [`super::confidence::Judgement`]).
pub fn with_verdict(provenance: &Provenance, policies: &[&PolicyResult], verdict: &Verdict) -> String {
    document(provenance, policies, Some(verdict.clone()))
}

fn document(provenance: &Provenance, policies: &[&PolicyResult], verdict: Option<Verdict>) -> String {
    let doc = Document { schema: SCHEMA, provenance, policies, verdict };
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}

/// Seconds since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ` (UTC).
pub fn utc_iso(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // civil date from days since 1970-01-01 (Howard Hinnant's days_from_civil, inverted)
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// A word as a POSIX shell reads it back: bare when it has only safe
/// characters, otherwise in single quotes.
pub fn shell_word(w: &str) -> String {
    let safe = !w.is_empty() && w.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b));
    if safe {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_dates_at_known_instants() {
        // instants checked with Python's datetime.fromtimestamp(s, UTC)
        assert_eq!(utc_iso(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc_iso(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc_iso(1_764_576_000), "2025-12-01T08:00:00Z");
        assert_eq!(utc_iso(4_107_542_399), "2100-02-28T23:59:59Z");
    }

    #[test]
    fn shell_words_quote_what_the_shell_would_split() {
        assert_eq!(shell_word("scenarios/a.yaml"), "scenarios/a.yaml");
        assert_eq!(shell_word("{policy: wfq}"), "'{policy: wfq}'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word(""), "''");
    }
}
