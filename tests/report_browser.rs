//! report.html as a reviewer's browser shows it: headless Chromium renders
//! the report of a run with objectives, and the rendered page must carry
//! the verdict and the scorecard with scorecard.csv's figures; the
//! trade-off chart marks exactly the passing entries; the question names
//! the flooding tenant with the jobs jobs.csv holds for it; and
//! `fairsim report` rebuilds the page byte for byte.
//!
//! Without a Chromium binary the browser test says so and passes, unless
//! `FAIRSIM_REQUIRE_CHROMIUM=1` (CI installs Chromium and sets it).

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;

/// A Chromium binary on the PATH, if any.
fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |d| d.join(name)))
        .find(|p| p.is_file())
}

/// The DOM of `page` after Chromium has loaded and laid it out.
fn rendered(browser: &Path, page: &Path) -> String {
    let profile = tempdir();
    let out = Command::new(browser)
        .args(["--headless", "--disable-gpu", "--no-sandbox", "--dump-dom"])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    assert!(out.status.success(), "chromium failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf-8 DOM")
}

/// The text of every element `<tag ...>text</tag>` in `html`, markup inside stripped.
fn texts(html: &str, tag: &str) -> Vec<String> {
    let (open, close) = (format!("<{tag}"), format!("</{tag}>"));
    html.split(&open)
        .skip(1)
        .filter_map(|s| {
            let body = &s[s.find('>')? + 1..s.find(&close)?];
            Some(strip(body))
        })
        .collect()
}

/// `html` without its tags, entities decoded.
fn strip(html: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&").replace("&quot;", "\"")
}

/// The part of `html` from `start` to the first `end` after it.
fn between<'a>(html: &'a str, start: &str, end: &str) -> &'a str {
    let i = html.find(start).unwrap_or_else(|| panic!("no {start}"));
    let rest = &html[i..];
    &rest[..rest.find(end).unwrap_or(rest.len())]
}

/// A figure as the page shows it (`1h 39m`, `2.22 s`, `4.20 ms`, `5.8 d`,
/// `100.0%`, `3`), read back as (value, half its last shown step): the CSV
/// figure must lie within that of the value.
fn read_shown(s: &str) -> (f64, f64) {
    let half = |digits: &str, unit: f64| {
        let decimals = digits.split('.').nth(1).map_or(0, str::len) as i32;
        0.5 * 10f64.powi(-decimals) * unit
    };
    let num = |d: &str| d.parse::<f64>().unwrap_or_else(|_| panic!("not a figure: {s:?}"));
    let parts: Vec<&str> = s.split_whitespace().collect();
    match parts.as_slice() {
        [p] if p.ends_with('%') => {
            let d = p.trim_end_matches('%');
            (num(d) / 100.0, half(d, 0.01))
        }
        [h, m] if h.ends_with('h') => {
            (num(h.trim_end_matches('h')) * 3600.0 + num(m.trim_end_matches('m')) * 60.0, 30.0)
        }
        [m, sec] if m.ends_with('m') && sec.ends_with('s') => {
            let d = sec.trim_end_matches('s');
            (num(m.trim_end_matches('m')) * 60.0 + num(d), half(d, 1.0))
        }
        [d, "d"] => (num(d) * 86_400.0, half(d, 86_400.0)),
        [d, "s"] => (num(d), half(d, 1.0)),
        [d, "ms"] => (num(d) / 1000.0, half(d, 0.001)),
        [d] => (num(d), half(d, 1.0)),
        _ => panic!("not a figure: {s:?}"),
    }
}

/// Runs the Sidekiq-style flood (objectives, four entries) into a new folder.
fn flood_run() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempdir();
    let out = tmp.path().join("out");
    run(&scenario("sidekiq-flood.yaml"), &out, &[]);
    (tmp, out)
}

/// The entries that pass every objective by scorecard.csv.
fn passing(score: &[HashMap<String, String>]) -> Vec<String> {
    let mut labels: Vec<String> = Vec::new();
    for r in score {
        if !labels.contains(&r["policy"]) {
            labels.push(r["policy"].clone());
        }
    }
    labels.retain(|l| score.iter().filter(|r| &r["policy"] == l).all(|r| r["pass"] == "true"));
    labels
}

/// Checks the scorecard table of `html` (a rendered DOM or the file)
/// against scorecard.csv: one row per entry, one cell per objective in the
/// file's order, each showing the file's figure (to the shown rounding),
/// its worst tenant and its pass or FAIL.
fn assert_scorecard_matches(html: &str, score: &[HashMap<String, String>]) {
    let table = between(html, "<table class=\"scorecard\">", "</table>");
    let rows: Vec<Vec<String>> = table.split("<tr>").skip(2).map(|r| texts(r, "td")).collect();
    let mut checked = 0;
    for r in score {
        let row =
            rows.iter().find(|c| c[0] == r["policy"]).unwrap_or_else(|| panic!("no row {}", r["policy"]));
        let k = score
            .iter()
            .filter(|s| s["policy"] == r["policy"])
            .position(|s| s["objective"] == r["objective"]);
        let shown = &row[1 + k.expect("objective")];
        let (rest, word) = shown.rsplit_once(' ').expect("figure and word");
        assert_eq!(word, if r["pass"] == "true" { "pass" } else { "FAIL" }, "{shown}");
        let figure = match rest.rsplit_once(" (") {
            Some((f, who)) => {
                assert_eq!(who.trim_end_matches(')'), r["tenant"], "{shown}");
                f
            }
            None => rest,
        };
        let want: f64 = r["figure"].parse().expect("figure");
        let (got, tolerance) = read_shown(figure);
        assert!(
            (got - want).abs() <= tolerance + 1e-9,
            "{} {}: shown {figure}, file {want}",
            r["policy"],
            r["objective"]
        );
        checked += 1;
    }
    assert_eq!(checked, 20, "4 entries x 5 objectives");
}

#[test]
fn chromium_renders_the_verdict_and_the_scorecard_of_scorecard_csv() {
    let Some(browser) = chromium() else {
        if std::env::var("FAIRSIM_REQUIRE_CHROMIUM").as_deref() == Ok("1") {
            panic!("FAIRSIM_REQUIRE_CHROMIUM=1 but no chromium on the PATH");
        }
        eprintln!("report_browser: no chromium binary on the PATH; skipped (install chromium to run it)");
        return;
    };
    let (_tmp, out) = flood_run();
    let dom = rendered(&browser, &out.join("report.html"));
    let score = read_csv(&out.join("scorecard.csv"));
    // the verdict names the entries that pass every objective by the file
    let verdict = strip(between(&dom, "<div id=\"verdict\"", "</div>"));
    let pass = passing(&score);
    assert_eq!(pass, ["weighted-cap"], "sidekiq-flood's passing entry");
    assert!(
        verdict.contains(&format!("1 of 4 entries meets every objective, cheapest first: {}.", pass[0])),
        "{verdict}"
    );
    for failing in ["fifo", "weighted", "shuffle-2-10"] {
        assert!(verdict.contains(&format!("{failing} breaks `")), "{verdict}");
    }
    assert_scorecard_matches(&dom, &score);
    // the sections stand in a design review's order
    let at = |id: &str| dom.find(&format!("id=\"{id}\"")).unwrap_or_else(|| panic!("no #{id}"));
    let order =
        ["question", "contenders", "scorecard", "trade-off", "comparison", "classes", "tenants", "caveats"];
    assert!(order.windows(2).all(|w| at(w[0]) < at(w[1])), "sections out of order");
}

#[test]
fn the_trade_off_marks_the_passing_entries_and_the_question_names_the_flood() {
    let (_tmp, out) = flood_run();
    let html = std::fs::read_to_string(out.join("report.html")).expect("report");
    let score = read_csv(&out.join("scorecard.csv"));
    assert_scorecard_matches(&html, &score);
    // each entry's label on the chart, beside a disc when it passes every
    // objective and a ring when not (plotters writes fill="none" for a ring)
    let svg = between(&html, "<figure id=\"tradeoff\">", "</figure>");
    let pass = passing(&score);
    let attr = |tag: &str, name: &str| -> f64 {
        let key = format!(" {name}=\"");
        let i = tag.find(&key).unwrap_or_else(|| panic!("{name} in {tag}")) + key.len();
        tag[i..].split('"').next().unwrap().parse().unwrap()
    };
    let circles: Vec<(f64, f64, bool)> = svg
        .split("<circle")
        .skip(1)
        .map(|c| (attr(c, "cx"), attr(c, "cy"), !c.contains("fill=\"none\"")))
        .collect();
    for label in ["fifo", "weighted", "shuffle-2-10", "weighted-cap"] {
        let text = svg
            .split("<text")
            .skip(1)
            .find(|t| {
                t.split_once('>')
                    .is_some_and(|(_, rest)| rest.split('<').next().unwrap_or("").trim() == label)
            })
            .unwrap_or_else(|| panic!("no label {label} on the trade-off chart"));
        let (x, y) = (attr(text, "x"), attr(text, "y"));
        // the legend's two shapes sit right of the plot: the nearest circle is the point's
        let nearest = circles
            .iter()
            .min_by(|a, b| ((a.0 - x).hypot(a.1 - y)).total_cmp(&(b.0 - x).hypot(b.1 - y)))
            .expect("circles");
        assert_eq!(nearest.2, pass.contains(&label.to_string()), "{label}: filled iff it passes");
    }
    // the question: the flooding tenant and the jobs it submitted, counted here
    let jobs = read_csv(&out.join("fifo").join("jobs.csv"));
    let mut per: HashMap<&str, u64> = HashMap::new();
    for j in &jobs {
        *per.entry(j["tenant"].as_str()).or_default() += 1;
    }
    let (flood, n) = per.iter().max_by_key(|e| *e.1).map(|(t, n)| (t.to_string(), *n)).expect("tenants");
    let mut counts: Vec<u64> = per.values().copied().collect();
    counts.sort_unstable();
    assert!(n >= 10 * counts[(counts.len() - 1) / 2], "{flood} floods");
    let question = strip(between(&html, "<h2 id=\"question\">", "<h2 id=\"contenders\">"));
    let shown = format!("{},{:03}", n / 1000, n % 1000);
    assert!(question.contains(&format!("{flood} submits {shown} jobs")), "{question}");
    assert!(question.contains(&format!("{} tenants share a pool of 10 workers", per.len())), "{question}");
    assert!(question.contains("every tenant but flood"), "{question}");
    // the contenders: the entry's own override in words
    let contenders = strip(between(&html, "<h2 id=\"contenders\">", "<h2 id=\"scorecard\">"));
    assert!(contenders.contains("weighted-cap: policy fifo"), "{contenders}");
    assert!(contenders.contains("flood capped at 3 running jobs"), "{contenders}");
    assert!(contenders.contains("weighted 6:3:1"), "{contenders}");
    // one seed: no whiskers, no paired lines
    assert!(!svg.contains("class=\"whisker\""), "a whisker with one seed");
    assert!(!html.contains("paired over"), "a paired line with one seed");
    // one seed: the caveats say so
    let caveats = strip(between(&html, "<h2 id=\"caveats\">", "<h2 id=\"scenario\">"));
    assert!(caveats.contains("One seed (29)"), "{caveats}");
    // `fairsim report` rebuilds the same page from the CSV files
    std::fs::remove_file(out.join("report.html")).unwrap();
    fairsim().arg("report").arg(&out).assert().success();
    assert_eq!(std::fs::read_to_string(out.join("report.html")).unwrap(), html);
}

#[test]
fn seeds_columns_show_intervals_and_uncertain() {
    // scorecard.csv as `--seeds N` writes it: the report reads `seeds`,
    // `lo`, `hi` and `status` where present
    let (_tmp, out) = flood_run();
    let path = out.join("scorecard.csv");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines = text.lines();
    // the run's own seeds, lo, hi and status (one seed) are the last four
    // columns: replaced by five seeds' as `--seeds 5` would write them
    let strip = |l: &str| l.rsplitn(5, ',').last().unwrap().to_string();
    let header = lines.next().unwrap();
    assert!(header.ends_with(",seeds,lo,hi,status"), "{header}");
    let mut edited = format!("{},seeds,lo,hi,status\n", strip(header));
    for (i, l) in lines.map(strip).enumerate() {
        // weighted-cap's "all but flood" (row 18 of 20) straddles its bound
        let pass = l.split(',').nth(11) == Some("true");
        let extra = match (i, pass) {
            (17, _) => "5,50,70,uncertain",
            (_, true) => "5,,,pass",
            (_, false) => "5,,,fail",
        };
        edited.push_str(&format!("{l},{extra}\n"));
    }
    std::fs::write(&path, edited).unwrap();
    fairsim().arg("report").arg(&out).assert().success();
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        html.contains("<td class=\"n uncertain\">2.22 s [50.0 s, 1m 10s] (t04) uncertain</td>"),
        "interval shown"
    );
    assert!(html.contains("weighted-cap on `all but flood wait_p99`"), "the uncertain objective named");
    assert!(html.contains("5 seeds: each figure is the mean over 5 replays"), "caveat");
}

/// The value of attribute `name` in the tag text `tag`.
fn attr_text<'a>(tag: &'a str, name: &str) -> &'a str {
    let key = format!(" {name}=\"");
    let i = tag.find(&key).unwrap_or_else(|| panic!("{name} in {tag}")) + key.len();
    tag[i..].split('"').next().unwrap()
}

#[test]
fn three_seeds_draw_whiskers_at_the_scorecards_intervals_and_the_verdict_has_the_paired_lines() {
    let tmp = tempdir();
    let out = tmp.path().join("out");
    run(&scenario("sidekiq-flood.yaml"), &out, &["--seeds", "3"]);
    let html = std::fs::read_to_string(out.join("report.html")).expect("report");
    let score = read_csv(&out.join("scorecard.csv"));
    let svg = between(&html, "<figure id=\"tradeoff\">", "</figure>");
    // the chart's title names what is drawn up and across
    let title = strip(between(svg, "Trade-off: ", "</text>")).trim().to_string();
    let (up, across) = title.trim_start_matches("Trade-off: ").split_once(" against ").expect("title");
    let whiskers: Vec<(String, String, f64, f64, [f64; 4])> = svg
        .split("<line class=\"whisker\"")
        .skip(1)
        .map(|t| {
            let num = |n: &str| attr_text(t, n).parse::<f64>().unwrap();
            (
                attr_text(t, "data-policy").to_string(),
                attr_text(t, "data-axis").to_string(),
                num("data-lo"),
                num("data-hi"),
                [num("x1"), num("y1"), num("x2"), num("y2")],
            )
        })
        .collect();
    let labels: Vec<String> =
        read_csv(&out.join("comparison.csv")).iter().map(|r| r["policy"].clone()).collect();
    assert_eq!(labels.len(), 4);
    for label in &labels {
        for (axis, objective) in [("y", up), ("x", across)] {
            // the interval as scorecard.csv has it, read here
            let row = score
                .iter()
                .find(|r| &r["policy"] == label && r["objective"] == objective)
                .unwrap_or_else(|| panic!("{label}: no scorecard row for `{objective}`"));
            assert_eq!(row["seeds"], "3");
            let (lo, hi) = (row["lo"].parse::<f64>().unwrap(), row["hi"].parse::<f64>().unwrap());
            let w = whiskers
                .iter()
                .find(|w| &w.0 == label && w.1 == axis)
                .unwrap_or_else(|| panic!("{label}: no {axis} whisker in {whiskers:?}"));
            assert_eq!((w.2, w.3), (lo, hi), "{label} {axis}: the whisker's ends are scorecard.csv's lo, hi");
            let [x1, y1, x2, y2] = w.4;
            match axis {
                // up the chart: vertical, lo below hi (pixels grow
                // downwards); a narrow interval may round to one pixel
                "y" => assert!(x1 == x2 && y1 >= y2, "{label}: {:?}", w.4),
                _ => assert!(y1 == y2 && x1 <= x2, "{label}: {:?}", w.4),
            }
        }
    }
    // the paired lines: a figure seeds_paired.csv says is within noise is
    // named so in the sentence on its pair
    let pairs = read_csv(&out.join("seeds_paired.csv"));
    let verdict: Vec<String> = texts(between(&html, "<div id=\"verdict\"", "</div>"), "p");
    let noise = pairs.iter().find(|r| r["within_noise"] == "true").expect("a difference within noise");
    let (a, b) = (&noise["policy"], &noise["versus"]);
    let figure = noise["figure"].trim_start_matches("objective:");
    let line = verdict
        .iter()
        .find(|l| {
            l.starts_with(&format!("{a} "))
                && l.contains(&format!(" {b} "))
                && l.contains("(paired over 3 seeds)")
        })
        .unwrap_or_else(|| panic!("no paired line on {a} against {b}: {verdict:?}"));
    let all_within =
        pairs.iter().filter(|r| (&r["policy"], &r["versus"]) == (a, b)).all(|r| r["within_noise"] == "true");
    if all_within {
        assert!(line.contains("differ within noise in every figure"), "{line}");
    } else {
        let within = line.split("; within noise: ").nth(1).unwrap_or_else(|| panic!("{line}"));
        assert!(within.trim_end_matches('.').split(", ").any(|f| f == figure), "{figure} in {line}");
    }
    // a difference outside the noise is given as one
    if let Some(apart) = pairs.iter().find(|r| r["within_noise"] == "false") {
        let name = apart["figure"].trim_start_matches("objective:");
        let head = format!("{} differs from {} by ", apart["policy"], apart["versus"]);
        let line =
            verdict.iter().find(|l| l.starts_with(&head)).unwrap_or_else(|| panic!("{head}: {verdict:?}"));
        assert!(line.contains(&format!("{name} ")), "{name} in {line}");
    }
    // `fairsim report` redraws the same page from the files
    std::fs::remove_file(out.join("report.html")).unwrap();
    fairsim().arg("report").arg(&out).assert().success();
    assert_eq!(std::fs::read_to_string(out.join("report.html")).unwrap(), html);
}
