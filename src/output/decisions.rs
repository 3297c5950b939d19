//! `decisions.csv` and `candidates.csv` (`fairsim run --decisions`; columns
//! in docs/metrics.md): one row per dispatch with the chosen job and the
//! policy's key for it, and one row per other tenant's head job listed at
//! that dispatch, linked by the dispatch id. Tidy long form rather than a
//! list cell, so an analyst joins instead of parsing. Tenants passed over
//! are not repeated here: skips.csv has them, by the same `tick`.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use crate::engine::{Decision, DecisionSink};
use crate::error::{Error, Result};
use crate::model::{Scenario, Tenants};
use crate::time::{fmt_secs, Time};

pub struct DecisionWriter {
    decisions: csv::Writer<BufWriter<File>>,
    candidates: csv::Writer<BufWriter<File>>,
    dir: PathBuf,
    tenants: Tenants,
    classes: Vec<String>,
    pools: Vec<String>,
    tick: Time,
}

fn open(dir: &Path, name: &str, header: &[&str]) -> Result<csv::Writer<BufWriter<File>>> {
    let path = dir.join(name);
    let file = File::create(&path).map_err(|e| Error::io(format!("cannot create {}", path.display()), e))?;
    let mut w = csv::Writer::from_writer(BufWriter::new(file));
    w.write_record(header).map_err(|e| csv_error(&path, e))?;
    Ok(w)
}

fn csv_error(path: &Path, e: csv::Error) -> Error {
    Error::Other(format!("cannot write {}: {e}", path.display()))
}

/// A key as written: shortest exact decimal, empty for none.
fn key_text(key: Option<f64>) -> String {
    key.filter(|k| k.is_finite()).map(|k| k.to_string()).unwrap_or_default()
}

impl DecisionWriter {
    /// Creates both files in `dir` for a run of `sc` (the scenario as run).
    pub fn new(sc: &Scenario, dir: &Path) -> Result<Self> {
        Ok(DecisionWriter {
            decisions: open(
                dir,
                "decisions.csv",
                &["dispatch", "tick", "time", "tenant", "class", "job", "pool", "key_kind", "key", "rank"],
            )?,
            candidates: open(dir, "candidates.csv", &["dispatch", "rank", "tenant", "job", "key"])?,
            dir: dir.to_path_buf(),
            tenants: sc.tenants.clone(),
            classes: sc.classes.iter().map(|c| c.name.clone()).collect(),
            pools: sc
                .run_topology()
                .map(|t| t.pools.iter().map(|p| p.name.clone()).collect())
                .unwrap_or_default(),
            tick: sc.tick.max(1),
        })
    }
}

impl DecisionSink for DecisionWriter {
    fn record(&mut self, d: &Decision) -> Result<()> {
        let job = d.job;
        let id = d.id.to_string();
        // the log tick the dispatch falls in: ticks end at multiples of the
        // tick, and a dispatch at a boundary belongs to the tick it opens
        let tick = (d.time / self.tick + 1).to_string();
        let row = [
            id.as_str(),
            &tick,
            &fmt_secs(d.time),
            &self.tenants.name(job.tenant),
            self.classes.get(job.class as usize).map_or("", String::as_str),
            &job.seq.to_string(),
            self.pools.get(job.pool as usize).map_or("", String::as_str),
            d.kind.as_str(),
            &key_text(d.key),
            &d.rank.map(|r| r.to_string()).unwrap_or_default(),
        ];
        let path = self.dir.join("decisions.csv");
        self.decisions.write_record(row).map_err(|e| csv_error(&path, e))?;
        for (i, o) in d.others.iter().enumerate() {
            let row = [
                id.clone(),
                (i + 1).to_string(),
                self.tenants.name(o.tenant).into_owned(),
                o.job.to_string(),
                key_text(o.key),
            ];
            let path = self.dir.join("candidates.csv");
            self.candidates.write_record(&row).map_err(|e| csv_error(&path, e))?;
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<()> {
        for (w, name) in [(&mut self.decisions, "decisions.csv"), (&mut self.candidates, "candidates.csv")] {
            w.flush().map_err(|e| Error::io(format!("cannot write {}", self.dir.join(name).display()), e))?;
        }
        Ok(())
    }
}
