//! Every policy fairsim knows, and what is generated from their schemas:
//! the text of `fairsim policies` and the parameter tables of
//! docs/policies.md (a test keeps the file in step).
//!
//! A new policy is one file declaring `pub const INFO: PolicyInfo` plus one
//! line in [`REGISTRY`].

use super::PolicyInfo;
use super::{
    aging, bands, drf, drr, edf, fifo, hierarchical, lottery, priority, reserve, round_robin, share, wfq,
};

/// In the order `fairsim policies` lists them.
static REGISTRY: [&PolicyInfo; 13] = [
    &fifo::INFO,
    &priority::INFO,
    &round_robin::INFO,
    &aging::INFO,
    &bands::INFO,
    &reserve::INFO,
    &edf::INFO,
    &hierarchical::INFO,
    &drr::INFO,
    &wfq::INFO,
    &lottery::INFO,
    &share::INFO,
    &drf::INFO,
];

/// Every registered policy.
pub fn registry() -> &'static [&'static PolicyInfo] {
    &REGISTRY
}

/// Looks a policy up by name.
pub fn find(name: &str) -> Option<&'static PolicyInfo> {
    REGISTRY.iter().copied().find(|p| p.name == name)
}

/// The message for a policy name fairsim does not know: the closest known
/// name when there is one, and the list.
pub fn unknown_policy(name: &str) -> String {
    let names: Vec<&str> = REGISTRY.iter().map(|p| p.name).collect();
    let hint = match closest(name, &names) {
        Some(n) => format!("did you mean `{n}`? "),
        None => String::new(),
    };
    format!("unknown policy `{name}`; {hint}choose one of: {} (see `fairsim policies`)", names.join(", "))
}

/// The candidate nearest to `word` by edit distance, if it is near enough
/// to be a plausible typo (at most a third of the word, and at least 1).
pub fn closest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).max(1);
    candidates
        .iter()
        .map(|c| (edit_distance(&word.to_lowercase(), c), *c))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

/// Edit distance counting a swap of two neighbours as one edit (optimal
/// string alignment), with `-` and `_` equal, so `round-robin` is
/// `round_robin` and `wqf` is one typo from `wfq`.
fn edit_distance(a: &str, b: &str) -> usize {
    let norm = |c: char| if c == '-' { '_' } else { c };
    let a: Vec<char> = a.chars().map(norm).collect();
    let b: Vec<char> = b.chars().map(norm).collect();
    // d[i][j]: distance between the first i of a and the first j of b
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    d[0] = (0..=b.len()).collect();
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let sub = d[i - 1][j - 1] + usize::from(a[i - 1] != b[j - 1]);
            d[i][j] = sub.min(d[i - 1][j] + 1).min(d[i][j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    d[a.len()][b.len()]
}

/// Text of `fairsim policies`.
pub fn policies_text() -> String {
    let mut s = String::new();
    for p in REGISTRY {
        s.push_str(&format!("{:<12} {}\n", p.name, p.summary));
        for q in p.params {
            s.push_str(&format!("    {:<10} {}\n", q.name, q.doc));
            s.push_str(&format!(
                "    {:<10} value: {}; default: {}\n",
                "",
                q.kind.describe(),
                q.default.describe()
            ));
        }
    }
    s.push_str("\nEvery policy also takes `label` (output folder name) and `spare: lend|hold`\n");
    s.push_str("(what happens to idle workers when tenant caps bind; default lend).\n");
    s
}

/// The parameter table of each policy, as docs/policies.md carries it.
pub fn policies_markdown() -> String {
    let mut s = String::new();
    for p in REGISTRY {
        s.push_str(&format!("#### `{}`\n\n{}\n\n", p.name, p.summary));
        if p.params.is_empty() {
            s.push_str("No parameters besides `label` and `spare`.\n\n");
            continue;
        }
        s.push_str("| parameter | value | default | meaning |\n|---|---|---|---|\n");
        for q in p.params {
            s.push_str(&format!(
                "| `{}` | {} | {} | {} |\n",
                q.name,
                q.kind.describe(),
                q.default.describe(),
                q.doc.replace('|', "\\|")
            ));
        }
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ParamDefault, ParamKind};

    #[test]
    fn typos_find_the_policy_meant() {
        let names: Vec<&str> = REGISTRY.iter().map(|p| p.name).collect();
        assert_eq!(closest("round-robin", &names), Some("round_robin"));
        assert_eq!(closest("FIFO", &names), Some("fifo"));
        assert_eq!(closest("wqf", &names), Some("wfq"));
        assert_eq!(closest("deficit", &names), None);
        assert!(unknown_policy("drrr").contains("did you mean `drr`?"));
    }

    #[test]
    fn every_default_matches_its_kind() {
        // Params::get reads a default only when its type matches the kind's
        // value type; a mismatch would make an optional parameter required.
        for p in REGISTRY {
            for q in p.params {
                let ok = match (q.kind, q.default) {
                    (_, ParamDefault::Derived(_) | ParamDefault::Required) => true,
                    (ParamKind::Duration, ParamDefault::Duration(_)) => true,
                    (ParamKind::Count { min }, ParamDefault::Count(n)) => n >= min,
                    (ParamKind::Word(words), ParamDefault::Word(w)) => words.contains(&w),
                    _ => false,
                };
                assert!(ok, "{}.{}: default {:?} does not fit {:?}", p.name, q.name, q.default, q.kind);
            }
        }
    }

    #[test]
    fn docs_carry_the_generated_parameter_tables() {
        let docs = include_str!("../../docs/policies.md");
        let tables = policies_markdown();
        assert!(
            docs.contains(&tables),
            "docs/policies.md is out of step with the policy schemas; paste the output of \
             `fairsim policies --markdown` between its PARAMETERS markers"
        );
    }
}
