//! CSV and SWF traces, drawn as rows and a file style and rendered after:
//! a bad byte or line ending can then land anywhere while the timestamps
//! stay consistent with each other.

use proptest::prelude::*;
use proptest::sample::Index;

use super::scalars::{noisy, opt, pick, slowly, G};
use super::vocab::{CSV_BAD_FIELDS, CSV_COLUMNS, CSV_RAW, ODD, ODD_VALID, SWF_RAW, TENANTS};

/// (year, month, day) of a day count since 1970-01-01 (Howard Hinnant's
/// `civil_from_days`).
fn civil(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// A timestamp (microseconds since the epoch) in one of the forms the CSV
/// reader takes.
fn fmt_time(us: i64, style: u8) -> String {
    let epoch = |scale: i64| {
        let sign = if us < 0 { "-" } else { "" };
        let a = us.unsigned_abs();
        let unit = (1_000_000 / scale) as u64;
        let (whole, frac) = (a / unit, a % unit);
        if frac == 0 {
            format!("{sign}{whole}")
        } else {
            format!("{sign}{whole}.{frac:0w$}", w = (unit.ilog10()) as usize)
        }
    };
    let rfc = |sep: char, off_min: i64, suffix: &str| {
        let local = us.saturating_add(off_min * 60_000_000);
        let secs = local.div_euclid(1_000_000);
        let frac = local.rem_euclid(1_000_000);
        let (y, mo, d) = civil(secs.div_euclid(86_400));
        let sod = secs.rem_euclid(86_400);
        let frac = if frac == 0 { String::new() } else { format!(".{frac:06}") };
        format!(
            "{y:04}-{mo:02}-{d:02}{sep}{:02}:{:02}:{:02}{frac}{suffix}",
            sod / 3600,
            sod % 3600 / 60,
            sod % 60
        )
    };
    match style % 8 {
        0 => rfc('T', 0, "Z"),
        1 => rfc(' ', 0, "+00"),
        2 => epoch(1),
        3 => epoch(1000),
        4 => rfc('T', 330, "+05:30"),
        5 => rfc(' ', 0, ""),
        6 => epoch(1_000_000),
        _ => rfc('t', -60, "-0100"),
    }
}

#[derive(Debug, Clone)]
struct CsvRow {
    gap_us: i64,
    wait_us: i64,
    svc_us: i64,
    deadline_us: i64,
    tenant: String,
    queue: String,
    prio: String,
    cpu: String,
    quoted: bool,
    corrupt: Option<(Index, String)>,
    fields_delta: i8,
}

#[derive(Debug, Clone)]
struct CsvStyle {
    ending: &'static str,
    bom: bool,
    trailing: bool,
    time: u8,
    base_us: i64,
    quote_all: bool,
    raw: Option<(Index, &'static [u8])>,
    header_odd: Option<(Index, String)>,
}

fn csv_row(g: G) -> BoxedStrategy<CsvRow> {
    let gap = noisy(
        g,
        if g.wild {
            prop_oneof![
                10 => 0i64..3_000_000,
                2 => Just(0i64),
                1 => prop::sample::select(&[1_000_000_000_000_000i64, 1_000_000_000_000_000_000, i64::MAX / 2][..]),
            ]
            .boxed()
        } else {
            prop_oneof![10 => 0i64..3_000_000, 2 => Just(0i64)].boxed()
        },
        (-2_000_000i64..0).boxed(),
    );
    let svc = noisy(
        g,
        if g.wild {
            prop_oneof![10 => 0i64..5_000_000, 1 => prop::sample::select(&[999_999_999_999_000_000i64, i64::MAX][..])]
                .boxed()
        } else {
            (0i64..5_000_000).boxed()
        },
        (-1_000_000i64..0).boxed(),
    );
    let tenant = noisy(
        g,
        prop_oneof![
            8 => pick(TENANTS),
            1 => prop::sample::select(ODD_VALID).prop_filter_map("trimmed empty", |t| (!t.trim().is_empty()).then(|| t.to_string())),
        ]
        .boxed(),
        prop::sample::select(ODD).prop_map(str::to_string).boxed(),
    );
    let corrupt = match g.noise {
        0 => Just(None).boxed(),
        1 => opt(0.02, (any::<Index>(), pick(CSV_BAD_FIELDS))),
        _ => opt(0.1, (any::<Index>(), pick(CSV_BAD_FIELDS))),
    };
    let delta = noisy(g, Just(0i8).boxed(), prop::sample::select(&[-1i8, 1, -5][..]).boxed());
    (
        gap,
        prop_oneof![4 => 0i64..1_000_000, 1 => Just(0i64)],
        svc,
        0i64..20_000_000,
        tenant,
        noisy(g, pick(&["default", "mailers", "reports", "", "hi", "a,b", "\"q\""]), pick(&["\0", "é"])),
        noisy(
            g,
            pick(&["0", "10", "-5", "", "1", "2147483647", "-2147483648"]),
            pick(&["x", "2147483648", "1.5"]),
        ),
        noisy(g, pick(&["0", "1", "4", "2"]), pick(&["99", "-1", "x", ""])),
        prop::bool::weighted(0.1),
        corrupt,
        delta,
    )
        .prop_map(
            |(
                gap_us,
                wait_us,
                svc_us,
                deadline_us,
                tenant,
                queue,
                prio,
                cpu,
                quoted,
                corrupt,
                fields_delta,
            )| {
                CsvRow {
                    gap_us,
                    wait_us,
                    svc_us,
                    deadline_us,
                    tenant,
                    queue,
                    prio,
                    cpu,
                    quoted,
                    corrupt,
                    fields_delta,
                }
            },
        )
        .boxed()
}

fn csv_style(g: G) -> BoxedStrategy<CsvStyle> {
    let base = slowly_i64(
        g,
        &[1_795_860_000_000_000, 1_795_860_000_250_000, 1_000_000],
        &[0, -1_000_000_000_000, 253_402_300_799_000_000, 9_200_000_000_000_000_000],
    );
    let raw = match g.noise {
        0 => Just(None).boxed(),
        1 => opt(0.02, (any::<Index>(), prop::sample::select(CSV_RAW))),
        _ => opt(0.1, (any::<Index>(), prop::sample::select(CSV_RAW))),
    };
    let header_odd = match g.noise {
        0 => Just(None).boxed(),
        1 => opt(0.02, (any::<Index>(), pick(&["", "created_at", " tenant ", "tenant", "\"a\nb\""]))),
        _ => opt(0.08, (any::<Index>(), pick(&["", "created_at", " tenant ", "tenant", "\"a\nb\""]))),
    };
    (
        prop_oneof![8 => Just("\n"), 2 => Just("\r\n"), 2 => Just("\r")],
        prop::bool::weighted(0.05),
        prop::bool::weighted(0.8),
        noisy(
            g,
            prop::sample::select(&[0u8, 1, 2, 4, 5, 7][..]).boxed(),
            prop::sample::select(&[3u8, 6][..]).boxed(),
        ),
        base,
        prop::bool::weighted(0.1),
        raw,
        header_odd,
    )
        .prop_map(|(ending, bom, trailing, time, base_us, quote_all, raw, header_odd)| CsvStyle {
            ending,
            bom,
            trailing,
            time,
            base_us,
            quote_all,
            raw,
            header_odd,
        })
        .boxed()
}

fn slowly_i64(g: G, good: &'static [i64], slow: &'static [i64]) -> BoxedStrategy<i64> {
    if g.wild {
        prop_oneof![4 => prop::sample::select(good), 1 => prop::sample::select(slow)].boxed()
    } else {
        prop::sample::select(good).boxed()
    }
}

fn csv_field(s: &str, quote: bool) -> String {
    if quote || s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn render_csv(header: &[&str], rows: &[CsvRow], st: &CsvStyle) -> Vec<u8> {
    let mut header: Vec<String> = header.iter().map(|h| h.to_string()).collect();
    if let Some((i, h)) = &st.header_odd {
        let at = i.index(header.len() + 1);
        header.insert(at, h.clone());
    }
    let mut out = String::new();
    if st.bom {
        out.push('\u{feff}');
    }
    out.push_str(&header.iter().map(|h| csv_field(h, st.quote_all)).collect::<Vec<_>>().join(","));
    let mut t = st.base_us;
    for (n, r) in rows.iter().enumerate() {
        out.push_str(st.ending);
        t = t.saturating_add(r.gap_us);
        let started = t.saturating_add(r.wait_us);
        let mut cells: Vec<String> = header
            .iter()
            .map(|h| match h.as_str() {
                "created_at" => fmt_time(t, st.time),
                "started_at" => fmt_time(started, st.time),
                "finished_at" => fmt_time(started.saturating_add(r.svc_us), st.time),
                "deadline" => fmt_time(t.saturating_add(r.deadline_us), st.time),
                "service" => fmt_time(r.svc_us, 2),
                "tenant" | "account_id" => r.tenant.clone(),
                "queue" | "queue_name" => r.queue.clone(),
                "priority" => r.prio.clone(),
                "cpu" => r.cpu.clone(),
                "id" => (9000 + n).to_string(),
                _ => "x".to_string(),
            })
            .collect();
        if let Some((i, bad)) = &r.corrupt {
            let at = i.index(cells.len());
            cells[at] = bad.clone();
        }
        match r.fields_delta {
            d if d > 0 => cells.push("extra".into()),
            d if d < 0 => {
                let keep = cells.len().saturating_sub(d.unsigned_abs() as usize);
                cells.truncate(keep);
            }
            _ => {}
        }
        let line: Vec<String> = cells.iter().map(|c| csv_field(c, r.quoted || st.quote_all)).collect();
        out.push_str(&line.join(","));
    }
    if st.trailing {
        out.push_str(st.ending);
    }
    let mut bytes = out.into_bytes();
    if let Some((i, raw)) = &st.raw {
        let at = i.index(bytes.len() + 1);
        bytes.splice(at..at, raw.iter().copied());
    }
    bytes
}

/// Which columns a generated CSV trace has: the defaults (`created_at`,
/// `tenant`, ...) or those mapped by the shipped trace-jobs-csv.yaml.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Header {
    Default,
    Shipped,
    /// BASE_CSV's mapping: the defaults plus `cpu`, `priority`, `deadline`
    Costed,
}

pub fn csv_trace(g: G, kind: Header) -> BoxedStrategy<Vec<u8>> {
    let must: &'static [&'static str] = match kind {
        Header::Default => &["created_at", "tenant"],
        Header::Shipped => &["created_at", "account_id", "queue_name", "started_at", "finished_at"],
        Header::Costed => &["created_at", "tenant", "cpu", "priority", "deadline"],
    };
    let drop_one = noisy(g, Just(None).boxed(), any::<Index>().prop_map(Some).boxed());
    let header = (drop_one, prop::sample::subsequence(CSV_COLUMNS, 0..=CSV_COLUMNS.len()))
        .prop_map(move |(drop, rest)| {
            let mut h: Vec<&'static str> = must.to_vec();
            if let Some(i) = drop {
                h.remove(i.index(h.len()));
            }
            for c in rest {
                if !h.contains(&c) {
                    h.push(c);
                }
            }
            // a service, or both started and finished, unless a column was dropped on purpose
            let has = |c: &str| h.contains(&c);
            if drop.is_none() && !has("service") && !(has("started_at") && has("finished_at")) {
                h.push("service");
            }
            h
        })
        .prop_shuffle();
    (header, prop::collection::vec(csv_row(g), 0..30), csv_style(g))
        .prop_map(|(h, rows, st)| render_csv(&h, &rows, &st))
        .boxed()
}

#[derive(Debug, Clone)]
struct SwfRow {
    gap_s: i64,
    run: String,
    alloc: String,
    req: String,
    user: String,
    queue: String,
    fields_delta: i8,
    decimal_submit: bool,
}

fn swf_row(g: G) -> BoxedStrategy<SwfRow> {
    let gap = noisy(
        g,
        if g.wild {
            prop_oneof![
                10 => 0i64..60,
                1 => prop::sample::select(&[1_000_000_000i64, 1_000_000_000_000, 9_000_000_000_000][..]),
            ]
            .boxed()
        } else {
            (0i64..60).boxed()
        },
        (-30i64..0).boxed(),
    );
    let run = noisy(
        g,
        slowly(
            g,
            prop_oneof![10 => (0u32..300).prop_map(|n| n.to_string()), 2 => pick(&["-1", "0", "1.5", "0.000001"])].boxed(),
            &["999999999999", "1e12", "99999999999999999999"],
        ),
        pick(&["abc", "-2", "", "1e400", ".5", "1e2", "+5"]),
    );
    let procs = || {
        noisy(
            g,
            slowly(g, pick(&["1", "2", "4", "8", "-1", "0", "3"]), &["4294967296", "9223372036854775807"]),
            pick(&["9", "16", "x", "1.5", "-2"]),
        )
    };
    (
        gap,
        run,
        procs(),
        procs(),
        noisy(g, pick(&["1", "2", "3", "4", "-1", "0"]), pick(&["x", "999999999999", "é", "1.5"])),
        noisy(g, pick(&["1", "2", "-1", "0", "99"]), pick(&["x", "2147483648", "1.5", "-2"])),
        noisy(g, Just(0i8).boxed(), prop::sample::select(&[-1i8, 1, -17][..]).boxed()),
        noisy(g, Just(false).boxed(), Just(true).boxed()),
    )
        .prop_map(|(gap_s, run, alloc, req, user, queue, fields_delta, decimal_submit)| SwfRow {
            gap_s,
            run,
            alloc,
            req,
            user,
            queue,
            fields_delta,
            decimal_submit,
        })
        .boxed()
}

pub fn swf_trace(g: G) -> BoxedStrategy<Vec<u8>> {
    let raw = match g.noise {
        0 => Just(None).boxed(),
        1 => opt(0.02, (any::<Index>(), prop::sample::select(SWF_RAW))),
        _ => opt(0.08, (any::<Index>(), prop::sample::select(SWF_RAW))),
    };
    (
        prop::collection::vec(
            pick(&["; Version: 2.2", "; MaxProcs: 8", ";", "", "   ", "; Fields: job submit ...", ";\0"]),
            0..4,
        ),
        prop::collection::vec(swf_row(g), 0..30),
        prop_oneof![8 => Just("\n"), 2 => Just("\r\n"), 2 => Just("\r")],
        prop_oneof![6 => Just(" "), 1 => Just("\t"), 1 => Just("   "), 1 => Just(" \u{a0}")],
        slowly_i64(g, &[0, 0, 10, 1000], &[1_000_000_000_000, 9_000_000_000_000_000]),
        raw,
    )
        .prop_map(|(header, rows, ending, sep, base, raw)| {
            let mut out = String::new();
            for h in header {
                out.push_str(&h);
                out.push_str(ending);
            }
            let mut t = base;
            for (n, r) in rows.iter().enumerate() {
                t = t.saturating_add(r.gap_s);
                let submit = if r.decimal_submit { format!("{t}.5") } else { t.to_string() };
                let mut f: Vec<String> = vec![
                    (n + 1).to_string(),
                    submit,
                    "-1".into(),
                    r.run.clone(),
                    r.alloc.clone(),
                    "-1".into(),
                    "-1".into(),
                    r.req.clone(),
                    "120".into(),
                    "-1".into(),
                    "1".into(),
                    r.user.clone(),
                    "1".into(),
                    "1".into(),
                    r.queue.clone(),
                    "-1".into(),
                    "-1".into(),
                    "-1".into(),
                ];
                match r.fields_delta {
                    d if d > 0 => f.push("7".into()),
                    d if d < 0 => f.truncate(f.len().saturating_sub(d.unsigned_abs() as usize)),
                    _ => {}
                }
                out.push_str(&f.join(sep));
                out.push_str(ending);
            }
            let mut bytes = out.into_bytes();
            if let Some((i, b)) = raw {
                let at = i.index(bytes.len() + 1);
                bytes.splice(at..at, b.iter().copied());
            }
            bytes
        })
        .boxed()
}
