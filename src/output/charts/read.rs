//! Reading a policy's CSV files (`fairness.csv`, `tenants.csv`,
//! `classes.csv`, `jobs.csv`) into per-tick series, aggregated by tenant group.

use std::collections::HashMap;
use std::path::Path;

use super::series::{Groups, TOP_N};
use crate::error::{Error, Result};

/// A group's name and its oldest claimable age per tick.
pub(super) type AgeSeries = (String, Vec<f64>);

/// Everything the charts of one policy take from its folder.
pub(super) struct PolicyData {
    /// Tick end times (from fairness.csv).
    pub(super) times: Vec<f64>,
    /// Jain's index per tick; `None` where the window was not counted.
    pub(super) jain: Vec<Option<f64>>,
    pub(super) series: TickSeries,
    /// Oldest claimable age per class per tick, classes in first-seen order.
    pub(super) classes: Vec<(String, Vec<f64>)>,
    /// The same per queue, under a topology (`queues.csv`): the [`TOP_N`]
    /// queues with the oldest jobs, and how many queues had work.
    pub(super) queues: Option<(Vec<AgeSeries>, usize)>,
    /// Sorted first-attempt waits per group.
    pub(super) waits: Vec<Vec<f64>>,
}

/// Reads the CSV files of the policy folder `pdir`.
pub(super) fn read_policy(pdir: &Path, groups: &Groups) -> Result<PolicyData> {
    std::thread::scope(|s| {
        // jobs.csv (a row per job) is the largest file: read it on the
        // other core meanwhile, which takes about a third off the charts
        let waits = s.spawn(|| read_waits(&pdir.join("jobs.csv"), groups));
        let (times, jain) = read_fairness(&pdir.join("fairness.csv"))?;
        let series = read_tenants(&pdir.join("tenants.csv"), &times, groups)?;
        let classes = read_ages(&pdir.join("classes.csv"), &times, "class", None)?.0;
        let queues_csv = pdir.join("queues.csv");
        let queues = match queues_csv.exists() {
            true => Some(read_ages(&queues_csv, &times, "queue", Some(TOP_N))?),
            false => None,
        };
        let waits = waits.join().unwrap_or_else(|p| std::panic::resume_unwind(p))?;
        Ok(PolicyData { times, jain, series, classes, queues, waits })
    })
}

/// The per-tick series of one policy's tenants, summed into groups; both
/// indexed [group][tick].
pub(super) struct TickSeries {
    /// Jobs completed by the end of the tick.
    pub(super) completed: Vec<Vec<f64>>,
    /// Jobs running at the end of the tick.
    pub(super) running: Vec<Vec<f64>>,
}

/// Reads tick end times from `fairness.csv` (one row per tick) and the
/// Jain value of each.
fn read_fairness(path: &Path) -> Result<(Vec<f64>, Vec<Option<f64>>)> {
    let mut r = open(path)?;
    let h = r.byte_headers().map_err(|e| Error::input(path, 1, 0, e.to_string()))?.clone();
    let (ti, ji) = (col(&h, "time", path)?, col(&h, "jain", path)?);
    let mut times = Vec::new();
    let mut jain = Vec::new();
    let mut rec = csv::ByteRecord::new();
    let mut line = 1;
    while r.read_byte_record(&mut rec).map_err(|e| Error::input(path, line as usize + 1, 0, e.to_string()))? {
        line += 1;
        times.push(num(&rec, ti, path, line)?.unwrap_or(0.0));
        jain.push(num(&rec, ji, path, line)?);
    }
    Ok((times, jain))
}

/// Position of `t` in the sorted tick times (rows are written at tick ends).
fn tick_index(times: &[f64], t: f64, from: usize) -> usize {
    let mut i = from;
    while i < times.len() && times[i] < t {
        i += 1;
    }
    i.min(times.len().saturating_sub(1))
}

/// Running and completed jobs per group per tick, from `tenants.csv`.
fn read_tenants(path: &Path, times: &[f64], groups: &Groups) -> Result<TickSeries> {
    let mut r = open(path)?;
    let h = r.byte_headers().map_err(|e| Error::input(path, 1, 0, e.to_string()))?.clone();
    let (ti, ni, ri, ci) = (
        col(&h, "time", path)?,
        col(&h, "tenant", path)?,
        col(&h, "running", path)?,
        col(&h, "completed", path)?,
    );
    let g = groups.names.len();
    let n = times.len();
    let mut running = vec![vec![0.0; n]; g];
    // completions change only in rows: record per-group increments, then accumulate
    let mut delta = vec![vec![0.0; n]; g];
    // per tenant, in first-seen order: its group and its last completed count
    // (one lookup per row without copying the name: tenants.csv has a row per
    // tenant with work per tick, a million rows for a million jobs)
    let mut slot: HashMap<String, usize> = HashMap::new();
    let mut group_of: Vec<Option<usize>> = Vec::new();
    let mut last: Vec<f64> = Vec::new();
    let mut rec = csv::ByteRecord::new();
    let mut line = 1u64;
    let mut at = 0;
    while r.read_byte_record(&mut rec).map_err(|e| Error::input(path, line as usize + 1, 0, e.to_string()))? {
        line += 1;
        let t = num(&rec, ti, path, line)?.unwrap_or(0.0);
        at = tick_index(times, t, at);
        let name = text_ref(&rec, ni);
        let s = match slot.get(name.as_ref()) {
            Some(&s) => s,
            None => {
                slot.insert(name.to_string(), last.len());
                group_of.push(groups.of(&name));
                last.push(0.0);
                last.len() - 1
            }
        };
        let Some(k) = group_of[s] else { continue };
        if n == 0 {
            continue;
        }
        running[k][at] += num(&rec, ri, path, line)?.unwrap_or(0.0);
        let done = num(&rec, ci, path, line)?.unwrap_or(0.0);
        delta[k][at] += done - last[s];
        last[s] = done;
    }
    let completed = delta
        .into_iter()
        .map(|d| {
            let mut acc = 0.0;
            d.into_iter()
                .map(|x| {
                    acc += x;
                    acc
                })
                .collect()
        })
        .collect();
    Ok(TickSeries { completed, running })
}

/// Oldest claimable age per tick of each `group` (class or queue) in
/// `path`, groups in first-seen order; absent rows are 0 (nothing queued).
/// With `keep`, only the `keep` groups with the highest peak age (10,000
/// shard queues would not make a readable chart), still in first-seen order.
/// Also returns how many groups the file has.
fn read_ages(
    path: &Path,
    times: &[f64],
    group: &str,
    keep: Option<usize>,
) -> Result<(Vec<AgeSeries>, usize)> {
    let mut r = open(path)?;
    let h = r.byte_headers().map_err(|e| Error::input(path, 1, 0, e.to_string()))?.clone();
    let (ti, ci, ai) = (col(&h, "time", path)?, col(&h, group, path)?, col(&h, "oldest_age", path)?);
    // sparse first: (tick, age) per group, and the group's peak
    let mut index: HashMap<String, usize> = HashMap::new();
    // per group: its name, its (tick, age) rows and its peak age
    type Sparse = (String, Vec<(usize, f64)>, f64);
    let mut sparse: Vec<Sparse> = Vec::new();
    let mut rec = csv::ByteRecord::new();
    let mut line = 1u64;
    let mut at = 0;
    while r.read_byte_record(&mut rec).map_err(|e| Error::input(path, line as usize + 1, 0, e.to_string()))? {
        line += 1;
        if times.is_empty() {
            break;
        }
        let t = num(&rec, ti, path, line)?.unwrap_or(0.0);
        at = tick_index(times, t, at);
        let name = text(&rec, ci);
        let k = *index.entry(name.clone()).or_insert_with(|| {
            sparse.push((name, Vec::new(), 0.0));
            sparse.len() - 1
        });
        let age = num(&rec, ai, path, line)?.unwrap_or(0.0);
        sparse[k].1.push((at, age));
        sparse[k].2 = sparse[k].2.max(age);
    }
    let total = sparse.len();
    if let Some(n) = keep.filter(|&n| n < total) {
        let mut by_peak: Vec<usize> = (0..sparse.len()).collect();
        by_peak.sort_by(|&a, &b| sparse[b].2.total_cmp(&sparse[a].2).then(a.cmp(&b)));
        let mut kept = vec![false; sparse.len()];
        for &k in &by_peak[..n] {
            kept[k] = true;
        }
        let mut k = 0;
        sparse.retain(|_| {
            k += 1;
            kept[k - 1]
        });
    }
    let dense = sparse
        .into_iter()
        .map(|(name, points, _)| {
            let mut dense = vec![0.0; times.len()];
            for (at, age) in points {
                dense[at] = age;
            }
            (name, dense)
        })
        .collect();
    Ok((dense, total))
}

/// Sorted first-attempt waits per group, from `jobs.csv`.
fn read_waits(path: &Path, groups: &Groups) -> Result<Vec<Vec<f64>>> {
    let mut r = open(path)?;
    let h = r.byte_headers().map_err(|e| Error::input(path, 1, 0, e.to_string()))?.clone();
    let (ni, wi) = (col(&h, "tenant", path)?, col(&h, "wait", path)?);
    let mut waits = vec![Vec::new(); groups.names.len()];
    let mut rec = csv::ByteRecord::new();
    let mut line = 1u64;
    while r.read_byte_record(&mut rec).map_err(|e| Error::input(path, line as usize + 1, 0, e.to_string()))? {
        line += 1;
        let Some(w) = num(&rec, wi, path, line)? else { continue };
        if let Some(k) = groups.of(&text_ref(&rec, ni)) {
            waits[k].push(w);
        }
    }
    for w in &mut waits {
        w.sort_by(f64::total_cmp);
    }
    Ok(waits)
}

/// Jobs admitted directly, deferred, and rejected per tenant group, from
/// the policy's `summary.csv`; `None` when admission refused or deferred
/// nothing (then there is nothing to draw).
pub(super) fn read_admission(path: &Path, groups: &Groups) -> Result<Option<Vec<[f64; 3]>>> {
    let mut r = open(path)?;
    let h = r.byte_headers().map_err(|e| Error::input(path, 1, 0, e.to_string()))?.clone();
    let [si, ni, ji, ri, di] = ["scope", "name", "jobs", "rejected", "deferred"].map(|c| col(&h, c, path));
    let (si, ni, ji, ri, di) = (si?, ni?, ji?, ri?, di?);
    let mut out = vec![[0.0; 3]; groups.names.len()];
    let (mut rec, mut line, mut any) = (csv::ByteRecord::new(), 1u64, false);
    while r.read_byte_record(&mut rec).map_err(|e| Error::input(path, line as usize + 1, 0, e.to_string()))? {
        line += 1;
        if rec.get(si) != Some(b"tenant".as_slice()) {
            continue;
        }
        let n = |i| num(&rec, i, path, line).map(|v| v.unwrap_or(0.0));
        let (jobs, rejected, deferred) = (n(ji)?, n(ri)?, n(di)?);
        any |= rejected > 0.0 || deferred > 0.0;
        if let Some(k) = groups.of(&text_ref(&rec, ni)) {
            let g = &mut out[k];
            g[0] += jobs - rejected - deferred;
            g[1] += deferred;
            g[2] += rejected;
        }
    }
    Ok(any.then_some(out))
}

/// The index of the column `name` in a header row.
fn col(header: &csv::ByteRecord, name: &str, file: &Path) -> Result<usize> {
    header.iter().position(|h| h == name.as_bytes()).ok_or_else(|| {
        Error::input(
            file,
            1,
            0,
            format!("column `{name}` is missing; was this file written by `fairsim run`?"),
        )
    })
}

/// Opens a CSV file, naming a missing one as such rather than by the OS error.
fn open(path: &Path) -> Result<csv::Reader<std::fs::File>> {
    if !path.exists() {
        return Err(Error::input(
            path,
            0,
            0,
            "file is missing: the report needs every CSV written by `fairsim run` (rerun it to regenerate the folder)",
        ));
    }
    csv::Reader::from_path(path).map_err(|e| Error::input(path, 0, 0, format!("cannot read: {e}")))
}

/// The number in cell `i`, `None` when the cell is empty (an undefined value).
fn num(rec: &csv::ByteRecord, i: usize, path: &Path, line: u64) -> Result<Option<f64>> {
    let cell = rec.get(i).unwrap_or(b"");
    if cell.is_empty() {
        return Ok(None);
    }
    std::str::from_utf8(cell)
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .map(Some)
        .ok_or_else(|| Error::input(path, line as usize, i + 1, "not a number"))
}

fn text(rec: &csv::ByteRecord, i: usize) -> String {
    text_ref(rec, i).into_owned()
}

/// The cell as text without copying it (valid UTF-8, as fairsim writes it).
fn text_ref(rec: &csv::ByteRecord, i: usize) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(rec.get(i).unwrap_or(b""))
}
