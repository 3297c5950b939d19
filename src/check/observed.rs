//! What each tick of the observation log says, read from the long forms
//! (`tenants.csv` for `waiting` and `completed`, `refusals.csv`,
//! `dispatches.csv`, `skips.csv`: quoted CSV, so a tenant's name may hold
//! spaces, colons, commas and quotes) when the folder has them, and from
//! ticks.csv's list cells only for a folder without them. The list cells are then held to the long forms:
//! each must list exactly the long form's entries, which is decidable for
//! any name (see [`lists_exactly`]) where splitting the cell is not.

use std::collections::BTreeMap;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::table::{micros, pairs, Table};
use super::Violation;

/// One tick row: its index, its end and what it lists.
pub struct Tick<'t> {
    pub row: usize,
    /// The `tick` column (idle stretches write no row, so it may jump).
    pub index: i64,
    pub time: i64,
    /// `tenant:queued` for each tenant with jobs waiting at the tick's end.
    pub waiting: Vec<(&'t str, &'t str)>,
    /// Cumulative completions of the tenants whose count may have changed
    /// in the tick (from the cells: every tenant seen so far).
    pub completed: Vec<(&'t str, &'t str)>,
    /// The tenants dispatched, in order (from the cell when the folder has
    /// no dispatches.csv).
    pub chosen: Vec<&'t str>,
    /// `tenant`, `reason` of each tenant passed over, in order.
    pub skipped: Vec<(&'t str, &'t str)>,
}

/// Where a tick's facts come from.
pub struct Sources<'t> {
    pub ticks: &'t Table,
    /// tenants.csv: a row per tick for each tenant with work in it (jobs
    /// waiting, a count changed), by `time`.
    pub tenants: Option<&'t Table>,
    pub refusals: Option<&'t Table>,
    /// The tick length (µs), to place tenants.csv's rows.
    pub tick: i64,
    pub dispatches: Option<&'t Table>,
    pub skips: Option<&'t Table>,
}

/// Makes the violation shown by rows of a file, at a time, saying what.
pub type Fail = dyn Fn(&Table, &[usize], i64, String) -> Violation;

/// The ticks in file order, each cell held to the long forms present.
pub fn read<'t>(src: &Sources<'t>, fail: &Fail) -> Result<Vec<Tick<'t>>, Violation> {
    let t = src.ticks;
    let col =
        |name: &str| t.col(name).map_err(|_| fail(t, &[], 0, format!("ticks.csv has no `{name}` column")));
    let (c_tick, c_time) = (col("tick")?, col("time")?);
    let (c_waiting, c_chosen, c_skipped, c_completed) =
        (col("waiting")?, col("chosen")?, col("skipped")?, col("completed")?);
    let optional = |name: &str| t.col(name).ok();
    let (c_refused, c_deferred) = (optional("refused"), optional("deferred"));
    let mut per_tenant = by_time(src.tenants, src.tick, fail)?;
    let mut per_refusal = by_tick(src.refusals, fail)?;
    let mut per_dispatch = by_tick(src.dispatches, fail)?;
    let mut per_skip = by_tick(src.skips, fail)?;
    let mut out = Vec::with_capacity(t.rows.len());
    // cumulative completions as the long form has them so far
    let mut completed: HashMap<&str, &str> = HashMap::default();
    let mut used = HashSet::default();
    for (i, r) in t.rows.iter().enumerate() {
        let bad = |what: &str| fail(t, &[i], 0, format!("malformed `{what}` cell"));
        let index: i64 = r[c_tick].parse().map_err(|_| bad("tick"))?;
        let time = micros(&r[c_time]).ok_or_else(|| bad("time"))?;
        let differs = |cell: &str, long: &str, shown: String| {
            fail(t, &[i], time, format!("tick {index}: {cell} `{shown}`, {long}"))
        };
        let mut tick = Tick {
            row: i,
            index,
            time,
            waiting: Vec::new(),
            completed: Vec::new(),
            chosen: Vec::new(),
            skipped: Vec::new(),
        };
        match (src.tenants, per_tenant.remove(&index)) {
            (Some(long), rows) => {
                let [c_tenant, c_queued, c_done] = columns(long, ["tenant", "queued", "completed"], fail)?;
                for &k in rows.iter().flatten() {
                    let row = &long.rows[k];
                    let name = &row[c_tenant];
                    if &row[c_queued] != "0" {
                        tick.waiting.push((name, &row[c_queued]));
                    }
                    tick.completed.push((name, &row[c_done]));
                    completed.insert(name, &row[c_done]);
                }
                let waiting: HashMap<&str, &str> = tick.waiting.iter().copied().collect();
                let (mut refused, mut deferred) = (HashMap::default(), HashMap::default());
                if let Some(long) = src.refusals {
                    let [c_tenant, c_refused, c_deferred] =
                        columns(long, ["tenant", "refused", "deferred"], fail)?;
                    for &k in per_refusal.remove(&index).iter().flatten() {
                        let row = &long.rows[k];
                        for (map, c) in [(&mut refused, c_refused), (&mut deferred, c_deferred)] {
                            if &row[c] != "0" {
                                map.insert(&row[c_tenant], &row[c]);
                            }
                        }
                    }
                }
                let lists = [
                    ("waiting", Some(c_waiting), &waiting, "tenants.csv"),
                    ("completed", Some(c_completed), &completed, "tenants.csv"),
                    ("refused", c_refused.filter(|_| src.refusals.is_some()), &refused, "refusals.csv"),
                    ("deferred", c_deferred.filter(|_| src.refusals.is_some()), &deferred, "refusals.csv"),
                ];
                for (name, c, want, file) in lists {
                    let Some(c) = c else { continue };
                    if !lists_exactly(&r[c], want, &mut used) {
                        let long = format!("{file} has {}", show(want));
                        return Err(differs(name, &long, r[c].to_string()));
                    }
                }
            }
            (None, _) => {
                tick.waiting = pairs(&r[c_waiting]).ok_or_else(|| bad("waiting"))?;
                tick.completed = pairs(&r[c_completed]).ok_or_else(|| bad("completed"))?;
            }
        }
        match src.dispatches {
            Some(d) => {
                let c = d.col("tenant").map_err(|_| fail(d, &[], 0, "no `tenant` column".into()))?;
                let rows = per_dispatch.remove(&index).unwrap_or_default();
                tick.chosen = rows.iter().map(|&k| &d.rows[k][c]).collect();
                if tick.chosen.join(" ") != r[c_chosen] {
                    let long = format!("dispatches.csv lists `{}`", tick.chosen.join(" "));
                    return Err(differs("chosen", &long, r[c_chosen].to_string()));
                }
            }
            None => tick.chosen = r[c_chosen].split_whitespace().collect(),
        }
        match src.skips {
            Some(s) => {
                let cols = (s.col("tenant"), s.col("reason"));
                let (Ok(a), Ok(b)) = cols else {
                    return Err(fail(s, &[], 0, "skips.csv lacks a column".into()));
                };
                let rows = per_skip.remove(&index).unwrap_or_default();
                tick.skipped = rows.iter().map(|&k| (&s.rows[k][a], &s.rows[k][b])).collect();
                let listed: Vec<String> = tick.skipped.iter().map(|(t, r)| format!("{t}:{r}")).collect();
                if listed.join(" ") != r[c_skipped] {
                    let long = format!("skips.csv lists `{}`", listed.join(" "));
                    return Err(differs("skipped", &long, r[c_skipped].to_string()));
                }
            }
            None => {
                tick.skipped =
                    r[c_skipped].split_whitespace().map(|e| e.rsplit_once(':').unwrap_or((e, ""))).collect();
            }
        }
        out.push(tick);
    }
    let long = [
        (per_tenant, src.tenants),
        (per_refusal, src.refusals),
        (per_dispatch, src.dispatches),
        (per_skip, src.skips),
    ];
    for (rows, long) in long {
        if let (Some((index, at)), Some(long)) = (rows.into_iter().next(), long) {
            return Err(fail(long, &at[..1], 0, format!("rows of tick {index}, which ticks.csv lacks")));
        }
    }
    Ok(out)
}

/// The columns `names` of a long file.
fn columns<const N: usize>(t: &Table, names: [&str; N], fail: &Fail) -> Result<[usize; N], Violation> {
    let mut cols = [0; N];
    for (c, name) in cols.iter_mut().zip(names) {
        *c = t.col(name).map_err(|_| fail(t, &[], 0, format!("{} has no `{name}` column", t.name)))?;
    }
    Ok(cols)
}

/// A time series' row indices per tick, from each row's `time` (a tick's end).
fn by_time(t: Option<&Table>, tick: i64, fail: &Fail) -> Result<BTreeMap<i64, Vec<usize>>, Violation> {
    let mut out: BTreeMap<i64, Vec<usize>> = BTreeMap::new();
    let Some(t) = t else { return Ok(out) };
    let c = t.col("time").map_err(|_| fail(t, &[], 0, "no `time` column".into()))?;
    for (i, r) in t.rows.iter().enumerate() {
        let time = micros(&r[c]).ok_or_else(|| fail(t, &[i], 0, "malformed `time` cell".into()))?;
        if tick <= 0 || time % tick != 0 {
            return Err(fail(t, &[i], time, "a row whose time is not a tick's end".into()));
        }
        out.entry(time / tick).or_default().push(i);
    }
    Ok(out)
}

/// A long file's row indices per tick.
fn by_tick(t: Option<&Table>, fail: &Fail) -> Result<BTreeMap<i64, Vec<usize>>, Violation> {
    let mut out: BTreeMap<i64, Vec<usize>> = BTreeMap::new();
    let Some(t) = t else { return Ok(out) };
    let c = t.col("tick").map_err(|_| fail(t, &[], 0, "no `tick` column".into()))?;
    for (i, r) in t.rows.iter().enumerate() {
        let index = r[c].parse().map_err(|_| fail(t, &[i], 0, "malformed `tick` cell".into()))?;
        out.entry(index).or_default().push(i);
    }
    Ok(out)
}

/// `want` as a cell would list it, sorted (for a message).
fn show(want: &HashMap<&str, &str>) -> String {
    let mut v: Vec<String> = want.iter().map(|(t, n)| format!("{t}:{n}")).collect();
    v.sort();
    format!("`{}`", v.join(" "))
}

/// Whether `cell` lists exactly the `name:value` entries of `want`, each
/// once, separated by single spaces, in any order. A name may hold spaces
/// and colons: an entry is the shortest run of text up to a space (or the
/// cell's end) that reads as a wanted name with its value (names are
/// distinct, so only a name that is another's prefix up to a space and a
/// colon could be mistaken, and fairsim writes no such pair of cells).
/// `used` is scratch.
pub fn lists_exactly<'a>(cell: &'a str, want: &HashMap<&str, &str>, used: &mut HashSet<&'a str>) -> bool {
    used.clear();
    let mut rest = cell;
    while !rest.is_empty() {
        let ends = rest.match_indices(' ').map(|(k, _)| k).chain([rest.len()]);
        let mut found = None;
        for end in ends {
            let entry = &rest[..end];
            if let Some((name, value)) = entry.rsplit_once(':') {
                if want.get(name) == Some(&value) && !used.contains(name) {
                    found = Some((name, end));
                    break;
                }
            }
        }
        let Some((name, end)) = found else { return false };
        used.insert(name);
        rest = &rest[end..];
        if let Some(next) = rest.strip_prefix(' ') {
            if next.is_empty() {
                return false;
            }
            rest = next;
        }
    }
    used.len() == want.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn want<'a>(pairs: &[(&'a str, &'a str)]) -> HashMap<&'a str, &'a str> {
        pairs.iter().copied().collect()
    }

    #[test]
    fn a_cell_of_names_with_spaces_and_colons_is_read_whole() {
        let mut used = HashSet::default();
        let w = want(&[("a b", "3"), ("c:d", "1"), ("e", "0")]);
        assert!(lists_exactly("a b:3 c:d:1 e:0", &w, &mut used));
        assert!(lists_exactly("e:0 a b:3 c:d:1", &w, &mut used), "any order");
        assert!(!lists_exactly("a b:3 c:d:1", &w, &mut used), "an entry missing");
        assert!(!lists_exactly("a b:3 c:d:1 e:0 e:0", &w, &mut used), "an entry twice");
        assert!(!lists_exactly("a b:2 c:d:1 e:0", &w, &mut used), "a wrong count");
        assert!(!lists_exactly("a b:3 c:d:1 e:0 ", &w, &mut used), "a trailing space");
        assert!(lists_exactly("", &want(&[]), &mut used));
        assert!(!lists_exactly("", &w, &mut used));
    }
}
