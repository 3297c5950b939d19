//! One scenario run in-process through the library (`scenario::load` and
//! `run::run_all` with the audit on, as `fairsim run --audit --no-plots`
//! does, without a process per case), and its output files read back.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use fairsim::check::table::Table;
use fairsim::model::Scenario;
use fairsim::run::{run_all, RunOptions};

use crate::common::{read_csv, tempdir};
use crate::lives::JobRow;

/// Microseconds from a CSV seconds cell (exact: at most 6 decimals).
pub fn us(cell: &str) -> i64 {
    let (int, frac) = cell.split_once('.').unwrap_or((cell, ""));
    int.parse::<i64>().expect("seconds") * 1_000_000 + format!("{frac:0<6}").parse::<i64>().expect("fraction")
}

/// What one policy's run wrote.
pub struct Run {
    _dir: tempfile::TempDir,
    pub sc: Scenario,
    /// The scenario as the policy's run saw it (workers of its topology).
    pub run_sc: Scenario,
    pub folder: PathBuf,
    pub jobs: Vec<JobRow>,
}

impl Run {
    pub fn csv(&self, name: &str) -> Vec<HashMap<String, String>> {
        read_csv(&self.folder.join(name))
    }
}

/// Writes `yaml`, runs its one policy with the audit on and reads jobs.csv.
/// Any error (an audit violation included) is returned as text.
pub fn run_one(yaml: &str) -> Result<Run, String> {
    let dir = tempdir();
    let file = dir.path().join("prop.yaml");
    std::fs::write(&file, yaml).expect("write scenario");
    run_file(&file, dir)
}

/// Runs a scenario file (with exactly one policy).
pub fn run_file(file: &Path, dir: tempfile::TempDir) -> Result<Run, String> {
    let sc = fairsim::scenario::load(file).map_err(|e| e.to_string())?;
    assert_eq!(sc.policies.len(), 1, "one policy per case");
    let out = dir.path().join("out");
    let opts = RunOptions { out: Some(out.clone()), audit: true, no_plots: true, ..RunOptions::default() };
    run_all(&sc, &opts, &|_, _, _| {}).map_err(|e| e.to_string())?;
    let spec = &sc.policies[0];
    let run_sc = sc.for_run(spec).into_owned();
    let folder = out.join(&spec.label);
    let table = Table::read(&folder, "jobs.csv").map_err(|e| e.to_string())?.ok_or("no jobs.csv")?;
    let jobs = fairsim::check::jobs::read(&table).map_err(|e| e.to_string())?;
    Ok(Run { _dir: dir, sc, run_sc, folder, jobs })
}
