//! The CSV files of one policy's results that `explain` reads, as typed
//! rows: jobs.csv, dispatches.csv, skips.csv and ticks.csv (written with
//! `--logs full`), and decisions.csv and candidates.csv when the run had
//! `--decisions`.

use std::path::Path;

pub use crate::check::jobs::JobRow;
use crate::error::{Error, Result};
use crate::results::table::{micros, Table};

pub struct Dispatch {
    pub tick: u64,
    pub time: i64,
    pub tenant: String,
    pub class: String,
    pub job: u64,
}

pub struct SkipRow {
    pub tick: u64,
    pub tenant: String,
    pub reason: String,
}

pub struct TickRow {
    pub tick: u64,
    /// When the tick ends.
    pub end: i64,
    pub workers_free: String,
    pub waiting: String,
}

pub struct DecisionRow {
    pub dispatch: u64,
    pub job: u64,
    pub tenant: String,
    pub key_kind: String,
    pub key: String,
    pub rank: String,
}

pub struct CandidateRow {
    pub dispatch: u64,
    pub rank: u64,
    pub tenant: String,
    pub job: u64,
    pub key: String,
}

/// One policy's files.
pub struct Files {
    pub jobs: Vec<JobRow>,
    pub dispatches: Vec<Dispatch>,
    pub skips: Vec<SkipRow>,
    pub ticks: Vec<TickRow>,
    /// `None` without `--decisions`.
    pub decisions: Option<(Vec<DecisionRow>, Vec<CandidateRow>)>,
}

/// `got`, or a usage error saying the full logs are needed.
fn need<T>(dir: &Path, name: &str, got: Option<T>) -> Result<T> {
    got.ok_or_else(|| {
        Error::Usage(format!(
            "{}: no {name}; explain reads the full logs: run with --logs full",
            dir.display()
        ))
    })
}

/// A table's rows through `row`, which reads cells by column name.
fn rows<T>(dir: &Path, name: &str, row: impl Fn(&Cells) -> Option<T>) -> Result<Option<Vec<T>>> {
    let Some(t) = Table::read(dir, name)? else { return Ok(None) };
    let mut out = Vec::with_capacity(t.rows.len());
    for (i, r) in t.rows.iter().enumerate() {
        let cells = Cells { table: &t, row: r };
        out.push(row(&cells).ok_or_else(|| {
            Error::input(
                dir.join(name),
                t.lines[i],
                0,
                "a cell is missing or not what fairsim writes there; was the file edited by hand?",
            )
        })?);
    }
    Ok(Some(out))
}

struct Cells<'a> {
    table: &'a Table,
    row: &'a crate::results::table::Row,
}

impl Cells<'_> {
    fn text(&self, col: &str) -> Option<String> {
        let i = self.table.col(col).ok()?;
        self.row.get(i).map(str::to_string)
    }
    fn int(&self, col: &str) -> Option<u64> {
        self.text(col)?.parse().ok()
    }
    fn time(&self, col: &str) -> Option<i64> {
        micros(&self.text(col)?)
    }
}

impl Files {
    /// Reads the files of `dir`; jobs.csv and the observation log must be there.
    pub fn read(dir: &Path) -> Result<Files> {
        let jobs = Table::read(dir, "jobs.csv")?.map(|t| crate::check::jobs::read(&t)).transpose()?;
        let dispatches = rows(dir, "dispatches.csv", |c| {
            Some(Dispatch {
                tick: c.int("tick")?,
                time: c.time("time")?,
                tenant: c.text("tenant")?,
                class: c.text("class")?,
                job: c.int("job")?,
            })
        })?;
        let skips = rows(dir, "skips.csv", |c| {
            Some(SkipRow { tick: c.int("tick")?, tenant: c.text("tenant")?, reason: c.text("reason")? })
        })?;
        let ticks = rows(dir, "ticks.csv", |c| {
            Some(TickRow {
                tick: c.int("tick")?,
                end: c.time("time")?,
                workers_free: c.text("workers_free")?,
                waiting: c.text("waiting")?,
            })
        })?;
        let decisions = rows(dir, "decisions.csv", |c| {
            Some(DecisionRow {
                dispatch: c.int("dispatch")?,
                job: c.int("job")?,
                tenant: c.text("tenant")?,
                key_kind: c.text("key_kind")?,
                key: c.text("key")?,
                rank: c.text("rank")?,
            })
        })?;
        let candidates = rows(dir, "candidates.csv", |c| {
            Some(CandidateRow {
                dispatch: c.int("dispatch")?,
                rank: c.int("rank")?,
                tenant: c.text("tenant")?,
                job: c.int("job")?,
                key: c.text("key")?,
            })
        })?;
        Ok(Files {
            jobs: need(dir, "jobs.csv", jobs)?,
            dispatches: need(dir, "dispatches.csv", dispatches)?,
            skips: need(dir, "skips.csv", skips)?,
            ticks: need(dir, "ticks.csv", ticks)?,
            decisions: decisions.zip(candidates),
        })
    }

    /// When the run ends: the end of its last log tick, or a later event
    /// of jobs.csv (µs).
    pub fn end(&self) -> i64 {
        let jobs = self.jobs.iter().map(|j| j.finish.or(j.start).unwrap_or(j.arrival)).max();
        self.ticks.last().map_or(0, |t| t.end).max(jobs.unwrap_or(0))
    }

    /// The tick length: ticks end at multiples of it.
    pub fn tick_length(&self) -> i64 {
        self.ticks.first().map_or(1, |t| (t.end / t.tick.max(1) as i64).max(1))
    }

    /// The log tick holding instant `t` (a boundary opens the next tick).
    pub fn tick_of(&self, t: i64) -> u64 {
        (t / self.tick_length()) as u64 + 1
    }
}
