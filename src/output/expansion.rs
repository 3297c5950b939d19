//! A topology written back as scenario YAML: what `fairsim validate`
//! prints for a processor preset, so a user sees (and may paste, and edit)
//! the queues, routing and pools the preset expanded to. Pasted under
//! `topologies:`, it runs the same jobs at the same times (tested).

use crate::model::{Costs, Poll, RouteAction, Scenario, StartLimit, TopologySpec};
use crate::time::{fmt_secs, Time};

/// `topologies: {NAME: ...}` for `t`, one line per item, indented by `indent`.
pub fn topology_yaml(sc: &Scenario, t: &TopologySpec, indent: &str) -> Vec<String> {
    let mut out = vec![format!("{indent}topologies:"), format!("{indent}  {}:", scalar(&t.name))];
    let queues: Vec<String> = t.queues.iter().map(|q| scalar(q)).collect();
    out.push(format!("{indent}    queues: [{}]", queues.join(", ")));
    let rules: Vec<String> = t.route.iter().map(|r| rule(sc, t, r)).collect();
    out.push(format!("{indent}    route: [{}]", rules.join(", ")));
    out.push(format!("{indent}    pools:"));
    for p in &t.pools {
        let names: Vec<String> = p.queues.iter().map(|&q| scalar(&t.queues[q as usize])).collect();
        let mut s =
            format!("{{name: {}, workers: {}, queues: [{}]", scalar(&p.name), p.workers, names.join(", "));
        match &p.poll {
            Poll::Strict => {}
            Poll::Merged => s.push_str(", poll: merged"),
            Poll::Weighted(w) if w.iter().all(|x| *x == 1.0) => s.push_str(", poll: random"),
            Poll::Weighted(w) => {
                let w: Vec<String> = w.iter().map(|x| format!("{x}")).collect();
                s.push_str(&format!(", poll: weighted, weights: [{}]", w.join(", ")));
            }
        }
        if p.batch > 1 {
            s.push_str(&format!(", batch: {}", p.batch));
        }
        // every cost written out when any is set here or at the top, so the
        // pasted pool does not inherit another from the top-level `costs`
        if p.costs.any() || sc.costs.any() {
            s.push_str(&format!(", costs: {}", costs(&p.costs)));
        }
        if let Some(l) = &p.limiter {
            s.push_str(&format!(", limiter: {}", limiter(l)));
        }
        s.push('}');
        out.push(format!("{indent}      - {s}"));
    }
    out
}

fn rule(sc: &Scenario, t: &TopologySpec, r: &crate::model::RouteRule) -> String {
    let mut parts = Vec::new();
    let list = |names: Vec<String>| {
        if names.len() == 1 {
            names[0].clone()
        } else {
            format!("[{}]", names.join(", "))
        }
    };
    if !r.classes.is_empty() {
        parts.push(format!(
            "class: {}",
            list(r.classes.iter().map(|&c| scalar(&sc.classes[c as usize].name)).collect())
        ));
    }
    if !r.tenants.is_empty() {
        parts.push(format!(
            "tenant: {}",
            list(r.tenants.iter().map(|&x| scalar(&sc.tenants.name(x))).collect())
        ));
    }
    match &r.action {
        RouteAction::To(q) => parts.push(format!("to: {}", scalar(&t.queues[*q as usize]))),
        RouteAction::ClassQueue => parts.push("to: \"{class}\"".into()),
        // presets write no other rule
        other => parts.push(format!("# {other:?}")),
    }
    format!("{{{}}}", parts.join(", "))
}

fn dur(t: Time) -> String {
    format!("{}s", fmt_secs(t))
}

fn costs(c: &Costs) -> String {
    format!(
        "{{claim: {}, refusal: {}, finish: {}, poll_interval: {}}}",
        dur(c.claim),
        dur(c.refusal),
        dur(c.finish),
        dur(c.poll_interval)
    )
}

fn limiter(l: &StartLimit) -> String {
    match l {
        StartLimit::Anchored { max, duration } => format!("{{max: {max}, duration: {}}}", dur(*duration)),
        StartLimit::Bucket { rate, burst } => format!("{{rate: {rate}/s, burst: {burst}}}"),
        StartLimit::Sliding { limit, window } => format!("{{limit: {limit}, window: {}}}", dur(*window)),
    }
}

/// A name as a YAML scalar: plain when it reads back as the same text,
/// else double-quoted (JSON's quoting is valid YAML).
fn scalar(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
        && s.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && !matches!(
            s.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "on" | "off" | "null" | "y" | "n" | "nan" | "inf"
        );
    if plain {
        s.to_string()
    } else {
        serde_json::to_string(s).expect("a string serializes")
    }
}

#[cfg(test)]
mod tests {
    use super::scalar;

    #[test]
    fn names_are_quoted_when_yaml_would_read_them_otherwise() {
        assert_eq!(scalar("critical"), "critical");
        assert_eq!(scalar("mail/p5"), "mail/p5");
        assert_eq!(scalar("*"), "\"*\"");
        assert_eq!(scalar("1"), "\"1\"");
        assert_eq!(scalar("yes"), "\"yes\"");
        assert_eq!(scalar("a b"), "\"a b\"");
    }
}
