//! A calibration as files: calibration.csv (the overall figures),
//! per_tenant.csv, per_class.csv, errors.csv (one row per job) and a chart
//! of simulated against recorded wait per tenant; and the stdout summary.

use std::io::Write;
use std::path::Path;

use crate::error::{Error, Result};
use crate::output::charts::{Plot, TOP_N};

use super::compare::{Calibration, Pair, Waits, WAIT_FLOOR};

fn csv_file(dir: &Path, name: &str, header: &str, rows: impl Iterator<Item = String>) -> Result<()> {
    let path = dir.join(name);
    let io = |e| Error::io(format!("cannot write {}", path.display()), e);
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).map_err(io)?);
    writeln!(f, "{header}").map_err(io)?;
    for r in rows {
        writeln!(f, "{r}").map_err(io)?;
    }
    f.flush().map_err(io)
}

/// A CSV cell for a name (quoted when it needs to be).
fn cell(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn secs(us: i64) -> String {
    format!("{:.6}", us as f64 / 1e6)
}

fn waits_row(w: &Waits) -> String {
    format!(
        "{},{},{:.6},{:.6},{:.6},{:.6},{:.6},{:.6}",
        cell(&w.name),
        w.jobs,
        w.simulated_mean,
        w.recorded_mean,
        w.mean_relative(),
        w.simulated_p99,
        w.recorded_p99,
        w.p99_relative()
    )
}

const WAITS_HEADER: &str =
    "jobs,simulated_mean_wait,recorded_mean_wait,mean_relative_error,simulated_p99_wait,recorded_p99_wait,p99_relative_error";

/// Writes every file of the calibration into `dir`.
pub fn files(dir: &Path, c: &Calibration, pairs: &[Pair], ids: &[String], scenario: &str) -> Result<()> {
    let e = &c.error;
    let o = &c.order;
    let overall = [
        ("jobs", c.jobs.to_string()),
        ("compared", c.compared.to_string()),
        ("recorded_only", c.recorded_only.to_string()),
        ("simulated_only", c.simulated_only.to_string()),
        ("start_error_mean", format!("{:.6}", e.mean)),
        ("start_error_median", format!("{:.6}", e.median)),
        ("start_error_p90", format!("{:.6}", e.p90)),
        ("start_error_p99", format!("{:.6}", e.p99)),
        ("start_error_max_abs", format!("{:.6}", e.max_abs)),
        ("simulated_mean_wait", format!("{:.6}", c.all.simulated_mean)),
        ("recorded_mean_wait", format!("{:.6}", c.all.recorded_mean)),
        ("mean_wait_relative_error", format!("{:.6}", c.all.mean_relative())),
        ("simulated_p99_wait", format!("{:.6}", c.all.simulated_p99)),
        ("recorded_p99_wait", format!("{:.6}", c.all.recorded_p99)),
        ("p99_wait_relative_error", format!("{:.6}", c.all.p99_relative())),
        ("pairs", o.pairs.to_string()),
        ("discordant_pairs", o.discordant.to_string()),
        ("discordant_fraction", format!("{:.6}", o.discordant_fraction())),
        ("jobs_moved", o.moved.to_string()),
        ("jobs_moved_fraction", format!("{:.6}", o.moved as f64 / c.compared.max(1) as f64)),
        ("relative_error_floor", secs(WAIT_FLOOR)),
    ];
    csv_file(dir, "calibration.csv", "metric,value", overall.iter().map(|(k, v)| format!("{k},{v}")))?;
    csv_file(dir, "per_tenant.csv", &format!("tenant,{WAITS_HEADER}"), c.tenants.iter().map(waits_row))?;
    csv_file(dir, "per_class.csv", &format!("class,{WAITS_HEADER}"), c.classes.iter().map(waits_row))?;
    let opt = |t: Option<i64>| t.map_or(String::new(), secs);
    csv_file(
        dir,
        "errors.csv",
        "job,trace_id,tenant,class,arrival,recorded_start,simulated_start,start_error",
        pairs.iter().enumerate().map(|(k, p)| {
            format!(
                "{k},{},{},{},{},{},{},{}",
                cell(&ids[k]),
                cell(&p.tenant),
                cell(&p.class),
                secs(p.arrival),
                opt(p.recorded),
                opt(p.simulated),
                opt(p.error())
            )
        }),
    )?;
    chart(c).render(dir, "wait_per_tenant", Some(scenario))?;
    Ok(())
}

/// band.csv: each recorded figure against its band over the seeds.
pub fn bands(dir: &Path, bands: &[super::band::Band]) -> Result<()> {
    csv_file(
        dir,
        "band.csv",
        super::band::CSV_HEADER,
        bands.iter().map(|b| super::band::csv_row(b, &cell(&b.name))),
    )
}

/// Bars per tenant (the [`TOP_N`] with the most jobs): mean and p99 wait,
/// simulated and recorded side by side.
fn chart(c: &Calibration) -> Plot {
    let mut top: Vec<&Waits> = c.tenants.iter().collect();
    top.sort_by(|a, b| b.jobs.cmp(&a.jobs).then(a.name.cmp(&b.name)));
    top.truncate(TOP_N);
    let bar = |name: &str, i: usize, f: fn(&Waits) -> f64| {
        (name.to_string(), crate::output::charts::color(i), top.iter().map(|w| Some(f(w))).collect())
    };
    Plot::Bars {
        title: "Wait per tenant: simulated against recorded".into(),
        x_label: "tenant".into(),
        y_label: "wait (s)".into(),
        categories: top.iter().map(|w| w.name.clone()).collect(),
        groups: vec![
            bar("simulated mean", 0, |w| w.simulated_mean),
            bar("recorded mean", 1, |w| w.recorded_mean),
            bar("simulated p99", 2, |w| w.simulated_p99),
            bar("recorded p99", 3, |w| w.recorded_p99),
        ],
        log_y: None,
        marks: Vec::new(),
    }
}

/// The few lines `fairsim calibrate` prints.
pub fn summary(c: &Calibration, policy: &str) -> String {
    let e = &c.error;
    let mut s = format!(
        "calibration of `{policy}`: {} jobs, {} started on both sides ({} only in the record, {} only in the simulation)\n",
        c.jobs, c.compared, c.recorded_only, c.simulated_only
    );
    s.push_str(&format!(
        "start error (simulated - recorded): mean {:.3}s, median {:.3}s, p90 {:.3}s, p99 {:.3}s, max |error| {:.3}s\n",
        e.mean, e.median, e.p90, e.p99, e.max_abs
    ));
    s.push_str(&format!(
        "wait: mean {:.3}s simulated vs {:.3}s recorded ({:+.1}%), p99 {:.3}s vs {:.3}s ({:+.1}%)\n",
        c.all.simulated_mean,
        c.all.recorded_mean,
        100.0 * c.all.mean_relative(),
        c.all.simulated_p99,
        c.all.recorded_p99,
        100.0 * c.all.p99_relative()
    ));
    s.push_str(&format!(
        "order: {} of {} pairs started the other way round ({:.2}%), {} jobs changed rank\n",
        c.order.discordant,
        c.order.pairs,
        100.0 * c.order.discordant_fraction(),
        c.order.moved
    ));
    s
}
