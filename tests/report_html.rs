//! What report.html and its charts show a reader (reports people put on a
//! screen): durations in units, the provenance line, the tenant
//! tables cut to the worst rows, a log axis that reaches past its tallest
//! bar, and the reference lines of SLAs and worker counts.

mod common;

use std::path::Path;

use common::*;

fn report(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("report.html")).expect("report.html")
}

/// The part of the page from the heading with `id` to the next `<h2`.
fn section<'a>(html: &'a str, id: &str) -> &'a str {
    let start = html.find(&format!("<h2 id=\"{id}\">")).unwrap_or_else(|| panic!("no section {id}"));
    let rest = &html[start + 4..];
    &html[start..start + 4 + rest.find("<h2").unwrap_or(rest.len())]
}

/// Value of the attribute `name="..."` in an SVG tag.
fn attr(tag: &str, name: &str) -> Option<f64> {
    let key = format!(" {name}=\"");
    let i = tag.find(&key)? + key.len();
    tag[i..].split('"').next()?.parse().ok()
}

/// The y-axis tick labels of a chart: right-aligned numbers, as (value, y),
/// bottom-up.
fn y_ticks(svg: &str) -> Vec<(f64, f64)> {
    let mut ticks: Vec<(f64, f64)> = svg
        .split('<')
        .filter(|t| t.starts_with("text") && t.contains("text-anchor=\"end\""))
        .filter_map(|t| {
            let (tag, text) = t.split_once('>')?;
            Some((text.trim().parse().ok()?, attr(tag, "y")?))
        })
        .collect();
    ticks.sort_by(|a, b| b.1.total_cmp(&a.1));
    ticks
}

/// One fifo job per tenant on one worker: tenant k's 1 s job arrives at
/// k ms, so it starts at k s (k = 0..n-1) after waiting k - k/1000 s.
fn staircase(n: usize) -> String {
    let mut s = String::from("name: staircase\nworkers: 1\nlog: {tick: 1s}\nworkload:\n");
    for k in 0..n {
        s.push_str(&format!("  - {{tenant: t{k:02}, count: 1, at: {k}ms, service: 1s}}\n"));
    }
    s.push_str("policies: [fifo, round_robin]\n");
    s
}

#[test]
fn thirty_tenants_show_the_twenty_worst_and_one_row_for_the_ten_others() {
    // Waits k x 0.999 s (see `staircase`), the same under both policies (one
    // job each, arriving in turn). The 20 worst are t29..t10; the other 10,
    // t00..t09, collapse into one row whose largest p99 is t09's 8.991 s,
    // shown as 8.99 s; t29's 28.971 s is shown as 29.0 s.
    let (_tmp, out) = run_yaml(&staircase(30), &[]);
    let html = report(&out);
    let across = section(&html, "tenants");
    // header row + 20 tenants + the collapsed row
    assert_eq!(across.matches("<tr>").count(), 22, "{across}");
    assert!(
        across.contains("<tr><td>t29</td><td class=\"n\">29.0 s</td><td class=\"n\">29.0 s</td></tr>"),
        "{across}"
    );
    assert!(!across.contains("<td>t09</td>"));
    assert!(across.contains("… and 10 more tenants (largest)</td><td class=\"n\">8.99 s</td>"), "{across}");
    let fifo = section(&html, "policy-fifo");
    let table = &fifo[..fifo.find("</table>").expect("summary table")];
    // header + all + default class + 20 tenants + 1 collapsed row
    assert_eq!(table.matches("<tr>").count(), 24, "{table}");
    // the collapsed row sums the ten tenants' jobs: 10
    assert!(table.contains("<td>… and 10 more tenants</td><td class=\"n\">10</td>"), "{table}");
    // 21 tenants are all shown (collapsing one row would save nothing)
    let (_tmp, out) = run_yaml(&staircase(21), &[]);
    let across_21 = report(&out);
    assert_eq!(section(&across_21, "tenants").matches("<tr>").count(), 22);
    assert!(!across_21.contains("more tenants"));
}

#[test]
fn durations_read_in_units_and_utilization_as_a_percentage() {
    // staircase(3): waits 0, 0.999 and 1.998 s; the worker is busy 3 s of a
    // 3 s makespan (jobs 0-1, 1-2, 2-3 s), utilization 100.0%. p99 over all
    // jobs (nearest rank, 3 jobs) is the largest, 1.998 s, shown as 2.00 s.
    let (_tmp, out) = run_yaml(&staircase(3), &[]);
    let html = report(&out);
    let cmp = section(&html, "comparison");
    assert!(cmp.contains("<td class=\"n\">100.0%</td>"), "{cmp}");
    assert!(cmp.contains("<td class=\"n\">2.00 s</td>"), "{cmp}");
    assert!(!cmp.contains(">1.998<"), "raw seconds in the table: {cmp}");
}

#[test]
fn the_provenance_line_shows_what_the_marker_holds() {
    let (_tmp, out) = run_yaml(&staircase(3), &[]);
    let marker = out.join("fairsim-results.json");
    std::fs::write(
        &marker,
        r#"{"fairsim": "0.1.0", "scenario": "staircase", "command": "fairsim run 'my runs/t.yaml' --seed 7", "started": "2026-12-01T07:30:00Z"}"#,
    )
    .unwrap();
    fairsim().arg("report").arg(&out).assert().success();
    let full = report(&out);
    let line = "<p class=\"provenance\">Made by fairsim 0.1.0 · <code>fairsim run &#39;my runs/t.yaml&#39; --seed 7</code> · started 2026-12-01T07:30:00Z</p>";
    let with: Vec<&str> = full.lines().filter(|l| l.contains("class=\"provenance\"")).collect();
    assert_eq!(with.len(), 1, "one line: {with:?}");
    assert!(full.contains(line) || full.contains(&line.replace("&#39;", "'")), "{}", with[0]);
    // an old marker: the version only, no command, no date
    std::fs::write(&marker, r#"{"fairsim": "0.1.0", "scenario": "staircase"}"#).unwrap();
    fairsim().arg("report").arg(&out).assert().success();
    let old = report(&out);
    assert!(old.contains("<p class=\"provenance\">Made by fairsim 0.1.0</p>\n"));
    // nothing to say: no line at all
    std::fs::write(&marker, "{}").unwrap();
    fairsim().arg("report").arg(&out).assert().success();
    let none = report(&out);
    assert!(!none.contains("provenance\">"));
    // everything else on the page is the same bytes
    let strip = |h: &str| {
        h.lines().filter(|l| !l.starts_with("<p class=\"provenance\">")).collect::<Vec<_>>().join("\n")
    };
    assert_eq!(strip(&full), strip(&none));
    assert_eq!(strip(&old), strip(&none));
}

#[test]
fn the_log_axis_reaches_the_decade_above_the_tallest_bar_and_labels_every_decade() {
    // One worker, fifo: A's 0.5 s job at 0 runs at once (wait 0); B's
    // 423.6 s job arrives at 0.1 s and starts at 0.5 s (wait 0.4 s); C's
    // arrives at 0.2 s and starts at 0.5 + 423.6 = 424.1 s (wait 423.9 s).
    // Waits span 0.4 to 423.9 s, three decades: a log axis from 0.1 (the
    // decade under 0.4) to 1000 (the decade above 423.9), labelled 0.1, 1,
    // 10, 100, 1000. C's bar stands log10(423.9 / 0.1) = 3.627 decades
    // above the axis floor, inside the axis (4 decades).
    let text = "name: tall\nworkers: 1\nlog: {tick: 1s}\nworkload:\n\
  - {tenant: A, count: 1, at: 0s, service: 500ms}\n\
  - {tenant: B, count: 1, at: 100ms, service: 423.6s}\n\
  - {tenant: C, count: 1, at: 200ms, service: 1s}\npolicies: [fifo]\n";
    let (_tmp, out) = run_yaml(text, &[]);
    let svg = std::fs::read_to_string(out.join("charts/p99-wait-by-policy.svg")).unwrap();
    let ticks = y_ticks(&svg);
    let labels: Vec<f64> = ticks.iter().map(|t| t.0).collect();
    assert_eq!(labels, vec![0.1, 1.0, 10.0, 100.0, 1000.0], "{ticks:?}");
    let per_decade = (ticks[0].1 - ticks[4].1) / 4.0;
    let tallest = svg
        .split('<')
        // fifo's bars, in the first colour of the palette (Okabe-Ito blue)
        .filter(|t| {
            t.starts_with("rect")
                && t.contains("fill=\"#0072B2\"")
                && attr(t, "width").is_some_and(|w| w > 18.0)
        })
        .filter_map(|t| Some((attr(t, "y")?, attr(t, "height")?)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .expect("bars");
    let decades = tallest.1 / per_decade;
    assert!((decades - 3.627).abs() < 0.02, "C's bar spans {decades:.3} decades");
    assert!(
        tallest.0 >= ticks[4].1 - 0.5,
        "the bar's top {} is above the axis top {}",
        tallest.0,
        ticks[4].1
    );
}

#[test]
fn sla_and_worker_count_are_drawn_as_reference_lines() {
    // noisy-neighbor: class interactive has sla 10s, the pool 8 workers
    let out = tempdir();
    run(&scenario("noisy-neighbor.yaml"), out.path(), &[]);
    let charts = out.path().join("charts");
    let read = |stem: &str| std::fs::read_to_string(charts.join(format!("{stem}.svg"))).unwrap();
    for stem in ["p99-wait-by-policy", "strategies-p99", "fifo-wait-cdf"] {
        assert!(read(stem).contains("SLA 10 s: interactive"), "{stem}");
    }
    assert!(read("fifo-oldest-age").contains("SLA interactive (10 s)"));
    let running = read("round_robin-running");
    assert!(running.contains("workers (capacity)"));
    // the title names the scenario
    assert!(running.contains("noisy-neighbor — Running jobs per tenant"));
    // The capacity line is level with the y tick "8"; it is the only
    // dashed path, drawn as short segments with y of the line.
    let ticks = y_ticks(&running);
    let eight = ticks.iter().find(|t| t.0 == 8.0).expect("a tick at 8").1;
    let dashes: Vec<&str> = running
        .split('<')
        .filter(|t| t.starts_with("polyline") && t.contains("stroke-width=\"2\""))
        .collect();
    assert!(!dashes.is_empty());
    for d in &dashes {
        let pts = d.split("points=\"").nth(1).unwrap().split('"').next().unwrap();
        for p in pts.split_whitespace() {
            let y: f64 = p.split(',').nth(1).unwrap().parse().unwrap();
            // tick labels are centred on their grid line (4 px of font metrics)
            assert!((y - eight).abs() < 6.0, "capacity dash at y {y}, tick 8 at {eight}");
        }
    }
}
