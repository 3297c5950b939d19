//! `seeds.csv` and `seeds_paired.csv`: what the scorecard over several
//! seeds (`fairsim run --seeds N`) is computed from, so each mean, interval
//! and paired difference can be recomputed from the files.

use std::path::Path;

use crate::error::{Error, Result};
use crate::results::confidence::{Judgement, PairedDifference};

fn writer(path: &Path) -> Result<csv::Writer<std::fs::File>> {
    csv::Writer::from_path(path).map_err(|e| Error::Other(format!("cannot create {}: {e}", path.display())))
}

fn cell(x: Option<f64>) -> String {
    x.map(|v| v.to_string()).unwrap_or_default()
}

/// Writes `seeds.csv`: one row per entry and seed (the first seed first),
/// `policy,seed,utilization,rejected,deferred,makespan`, then per objective
/// its figure (`objective:<name>`), whether it passed at that seed
/// (`objective:<name>:pass`) and, for an `each` or `all_but` objective,
/// the tenant whose figure it is (`objective:<name>:tenant`).
pub fn write_seeds(path: &Path, j: &Judgement) -> Result<()> {
    let Some((_, first)) = j.seeds.first() else { return Ok(()) };
    let name = path.display().to_string();
    let cerr = |e: csv::Error| Error::Other(format!("writing {name}: {e}"));
    let mut w = writer(path)?;
    let mut header: Vec<String> =
        ["policy", "seed", "utilization", "rejected", "deferred", "makespan"].map(String::from).to_vec();
    let rows = first.first().map_or(&[][..], |s| s.rows.as_slice());
    for r in rows {
        header.push(format!("objective:{}", r.objective));
        header.push(format!("objective:{}:pass", r.objective));
        if r.scope != "all" {
            header.push(format!("objective:{}:tenant", r.objective));
        }
    }
    w.write_record(&header).map_err(cerr)?;
    for (label, seeds) in &j.seeds {
        for (k, s) in seeds.iter().enumerate() {
            let mut row = vec![
                label.clone(),
                j.first_seed.wrapping_add(k as u64).to_string(),
                s.utilization.to_string(),
                s.rejected.to_string(),
                s.deferred.to_string(),
                s.makespan.to_string(),
            ];
            for r in &s.rows {
                row.push(cell(r.figure));
                row.push(r.pass.to_string());
                if r.scope != "all" {
                    row.push(r.tenant.clone().unwrap_or_default());
                }
            }
            w.write_record(&row).map_err(cerr)?;
        }
    }
    w.flush().map_err(|e| Error::io(format!("writing {name}"), e))
}

/// Writes `seeds_paired.csv`, one row per pair of entries and figure (see
/// [`PairedDifference`]); not written without pairs (one seed).
pub fn write_paired(path: &Path, pairs: &[PairedDifference]) -> Result<()> {
    if pairs.is_empty() {
        return Ok(());
    }
    let name = path.display().to_string();
    let cerr = |e: csv::Error| Error::Other(format!("writing {name}: {e}"));
    let mut w = writer(path)?;
    w.write_record([
        "policy",
        "versus",
        "compared",
        "figure",
        "measure",
        "unit",
        "seeds",
        "difference",
        "lo",
        "hi",
        "within_noise",
    ])
    .map_err(cerr)?;
    for d in pairs {
        w.write_record([
            d.policy.clone(),
            d.versus.clone(),
            d.compared.to_string(),
            d.figure.clone(),
            d.measure.clone(),
            d.unit.to_string(),
            d.seeds.to_string(),
            d.difference.to_string(),
            d.lo.to_string(),
            d.hi.to_string(),
            d.within_noise.to_string(),
        ])
        .map_err(cerr)?;
    }
    w.flush().map_err(|e| Error::io(format!("writing {name}"), e))
}
