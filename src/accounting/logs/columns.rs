//! The column catalogue of the per-job log files (`jobs.csv`,
//! `dispatches.csv`): every column, and the feature a column needs for a
//! cell to ever be filled. A column whose feature no entry of the run uses
//! is left out of every entry's file, so a plain run's files carry no
//! column that is blank on every row (pandas would read it as float64 of
//! NaN) while every entry of one run still shares one header, which the
//! top-level files gathered from them need (`output::tables::gather`
//! copies rows as bytes under the first entry's header).
//!
//! Readers take these columns as optional: absent reads as blank.

use crate::model::Features;

/// What a column needs to be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    Always,
    Topology,
    Admission,
    Trace,
}

impl Needs {
    pub fn met(self, f: &Features) -> bool {
        match self {
            Needs::Always => true,
            Needs::Topology => f.topology,
            Needs::Admission => f.admission,
            Needs::Trace => f.trace,
        }
    }
}

/// `jobs.csv`, in order; [`super::Logs::on_end`] writes the cells in this order.
pub const JOBS: [(&str, Needs); 16] = [
    ("job", Needs::Always),
    ("tenant", Needs::Always),
    ("class", Needs::Always),
    ("arrival", Needs::Always),
    ("start", Needs::Always),
    ("finish", Needs::Always),
    ("wait", Needs::Always),
    ("service", Needs::Always),
    ("attempts", Needs::Always),
    ("outcome", Needs::Always),
    ("queue", Needs::Topology),
    ("pool", Needs::Topology),
    ("slices", Needs::Always),
    ("admission", Needs::Always),
    ("admission_rule", Needs::Admission),
    ("trace_id", Needs::Trace),
];

/// `dispatches.csv`, in order (`ticks::TickLog::on_chosen`).
pub const DISPATCHES: [(&str, Needs); 7] = [
    ("tick", Needs::Always),
    ("time", Needs::Always),
    ("tenant", Needs::Always),
    ("class", Needs::Always),
    ("job", Needs::Always),
    ("queue", Needs::Topology),
    ("pool", Needs::Topology),
];

/// The header of a file of `columns` under `features`.
pub fn header(columns: &[(&'static str, Needs)], features: &Features) -> Vec<&'static str> {
    columns.iter().filter(|(_, n)| n.met(features)).map(|(c, _)| *c).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_run_leaves_out_what_only_a_feature_fills() {
        let plain = header(&JOBS, &Features::default());
        assert!(!plain.iter().any(|c| ["queue", "pool", "admission_rule", "trace_id"].contains(c)));
        let all = Features { topology: true, admission: true, trace: true };
        assert_eq!(header(&JOBS, &all).len(), JOBS.len());
        assert_eq!(header(&DISPATCHES, &Features::default()), ["tick", "time", "tenant", "class", "job"]);
    }
}
