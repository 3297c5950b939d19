//! `fairsim run`'s progress on stderr: one line for the whole run (every
//! entry's jobs at every seed, so its ETA is the run's, not an entry's),
//! and under it one line per entry while it runs; with `--jobs N` up to N
//! entries run at once, each on its own line, removed when it ends. The
//! rate is shown once a second has passed (before that it is noise, such
//! as 297.59M jobs/s for a run of a few ms).

use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{MultiProgress, ProgressBar, ProgressStyle};

use crate::time::{fmt_secs, Time};

/// Below this the rate and the ETA are not yet meaningful.
const SETTLE: Duration = Duration::from_secs(1);

/// The lines of one `fairsim run`.
pub struct Progress {
    lines: MultiProgress,
    run: ProgressBar,
    labels: Vec<String>,
    /// Expected jobs per entry (every entry sees the same arrivals).
    per_policy: u64,
    started: Instant,
    entries: Mutex<Entries>,
}

/// Where each entry of the first seed stands. Entries report from their
/// own threads; one lock keeps the whole-run figure the sum of what the
/// entry lines show.
struct Entries {
    /// Jobs received so far; an entry that is over counts in full.
    received: Vec<u64>,
    over: Vec<bool>,
    bars: Vec<Option<ProgressBar>>,
}

fn style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template)
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ")
}

impl Progress {
    /// The lines of `labels.len()` entries of `expected_jobs` each, at
    /// `seeds` seeds (the first seed's entries, then the later seeds' runs).
    pub fn new(labels: Vec<String>, expected_jobs: f64, seeds: usize) -> Progress {
        let per_policy = expected_jobs.round().max(1.0) as u64;
        let total = per_policy.saturating_mul(labels.len().max(1) as u64).saturating_mul(seeds.max(1) as u64);
        let lines = MultiProgress::new();
        let run = lines.add(ProgressBar::new(total));
        run.set_style(style("{prefix:>12} [{bar:30}] {percent:>3}% {msg}"));
        run.set_prefix("run");
        let n = labels.len();
        let entries = Mutex::new(Entries { received: vec![0; n], over: vec![false; n], bars: vec![None; n] });
        Progress { lines, run, labels, per_policy, started: Instant::now(), entries }
    }

    fn index(&self, label: &str) -> usize {
        self.labels.iter().position(|l| l == label).unwrap_or(0)
    }

    /// Entry `label` has received `jobs` jobs and reached simulated time `t`.
    pub fn update(&self, label: &str, t: Time, jobs: u64) {
        let i = self.index(label);
        let Ok(mut e) = self.entries.lock() else { return };
        if e.over[i] {
            return;
        }
        // Poisson counts are expected values: an entry's share stops short
        // of its end, the run's short of the whole
        let jobs = jobs.min(self.per_policy - 1);
        e.received[i] = jobs;
        let bar = e.bars[i].get_or_insert_with(|| {
            let b = self.lines.add(ProgressBar::new(self.per_policy));
            b.set_style(style("{prefix:>12} [{bar:30}] {percent:>3}% {msg}"));
            b.set_prefix(label.to_string());
            b
        });
        bar.set_message(entry_line(jobs, self.per_policy, t));
        bar.set_position(jobs);
        self.redraw_run(&e);
    }

    /// Entry `label` is over: its line goes, the run counts it in full.
    pub fn done(&self, label: &str) {
        let i = self.index(label);
        let Ok(mut e) = self.entries.lock() else { return };
        e.over[i] = true;
        e.received[i] = self.per_policy;
        if let Some(b) = e.bars[i].take() {
            b.finish_and_clear();
            self.lines.remove(&b);
        }
        self.redraw_run(&e);
    }

    fn redraw_run(&self, e: &Entries) {
        let done: u64 = e.received.iter().sum();
        self.run.set_message(status_line(&Snapshot {
            done,
            total: self.run.length().unwrap_or(1),
            elapsed: self.started.elapsed(),
            finished: e.over.iter().filter(|&&o| o).count(),
            running: e.bars.iter().filter(|b| b.is_some()).count(),
            policies: self.labels.len(),
        }));
        self.run.set_position(done);
    }

    /// `done` of the `runs` after the first seed have finished. They run
    /// in parallel without per-job progress: each counts as an entry's
    /// expected jobs, after the first seed's.
    pub fn seed_runs_done(&self, done: usize, runs: usize) {
        let first = self.per_policy.saturating_mul(self.labels.len() as u64);
        let position = first.saturating_add(self.per_policy.saturating_mul(done as u64));
        let total = self.run.length().unwrap_or(1);
        let elapsed = self.started.elapsed().as_secs_f64();
        let left = total.saturating_sub(position) as f64 * elapsed / position.max(1) as f64;
        self.run.set_message(format!("{done}/{runs} runs at the later seeds, ETA {}", eta(left)));
        self.run.set_position(position);
    }

    pub fn finish(&self) {
        if let Ok(mut e) = self.entries.lock() {
            for b in e.bars.iter_mut().filter_map(Option::take) {
                b.finish_and_clear();
            }
        }
        self.run.finish_and_clear();
        let _ = self.lines.clear();
    }
}

impl crate::run::Watch for Progress {
    fn progress(&self, label: &str, t: Time, jobs: u64) {
        self.update(label, t, jobs);
    }
    fn done(&self, label: &str) {
        Progress::done(self, label);
    }
}

/// The figures of one redraw of the whole run's line.
pub struct Snapshot {
    /// Jobs received so far over the whole run, and the run's expected total.
    pub done: u64,
    pub total: u64,
    pub elapsed: Duration,
    /// Entries over and entries running, of `policies`.
    pub finished: usize,
    pub running: usize,
    pub policies: usize,
}

/// `12.3k/40k jobs, 8.1k jobs/s, ETA 3s (1/4 policies done, 2 running)`;
/// rate and ETA only once [`SETTLE`] has passed.
pub fn status_line(s: &Snapshot) -> String {
    let mut line = format!("{}/{} jobs", human(s.done as f64), human(s.total as f64));
    let settled = s.elapsed >= SETTLE && s.done > 0;
    if settled {
        let secs = s.elapsed.as_secs_f64();
        line += &format!(", {} jobs/s", human(s.done as f64 / secs));
        // the whole run's remaining jobs at the whole run's rate so far
        let left = s.total.saturating_sub(s.done) as f64 * secs / s.done as f64;
        line += &format!(", ETA {}", eta(left));
    } else {
        line += ", ETA estimating";
    }
    line += &format!(" ({}/{} policies done, {} running)", s.finished, s.policies, s.running);
    line
}

/// An entry's line: `5.2k/10k jobs, at 600s simulated`.
fn entry_line(jobs: u64, expected: u64, t: Time) -> String {
    format!(
        "{}/{} jobs, at {}s simulated",
        human(jobs as f64),
        human(expected as f64),
        fmt_secs(t - t % 1_000_000)
    )
}

/// 950, 12.3k, 4.5M.
fn human(x: f64) -> String {
    if x >= 1e6 {
        format!("{:.1}M", x / 1e6)
    } else if x >= 1e4 {
        format!("{:.0}k", x / 1e3)
    } else if x >= 1e3 {
        format!("{:.1}k", x / 1e3)
    } else {
        format!("{x:.0}")
    }
}

/// Seconds as `35s`, `2m 05s`, `1h 02m`.
fn eta(secs: f64) -> String {
    let s = secs.ceil() as u64;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m {:02}s", s / 60, s % 60),
        _ => format!("{}h {:02}m", s / 3600, s % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(done: u64, total: u64, ms: u64, finished: usize) -> String {
        status_line(&Snapshot {
            done,
            total,
            elapsed: Duration::from_millis(ms),
            finished,
            running: 1,
            policies: 2,
        })
    }

    #[test]
    fn the_eta_is_the_whole_runs() {
        // half the run's jobs in 35 s: 35 s to go, not 0
        let s = at(100_000, 200_000, 35_000, 1);
        assert!(s.contains("ETA 35s (1/2 policies done, 1 running)"), "{s}");
        assert!(s.starts_with("100k/200k jobs, 2.9k jobs/s"), "{s}");
        assert!(at(50_000, 200_000, 30_000, 0).contains("ETA 1m 30s"));
    }

    #[test]
    fn the_rate_is_hidden_until_a_second_has_passed() {
        let s = at(5_000, 200_000, 17, 0);
        assert!(!s.contains("jobs/s") && s.contains("ETA estimating"), "{s}");
        assert!(at(0, 200_000, 5_000, 0).contains("ETA estimating"));
    }

    #[test]
    fn entries_running_at_once_add_up_on_the_run_line() {
        // 3 entries of 10 jobs: fifo at 4 and drr at 3 at once is 7 of 30
        let p = Progress::new(vec!["fifo".into(), "drr".into(), "wfq".into()], 10.0, 1);
        p.update("fifo", 3_000_000, 4);
        p.update("drr", 2_500_000, 3);
        assert_eq!(p.run.position(), 7);
        {
            let e = p.entries.lock().unwrap();
            assert_eq!(e.bars.iter().flatten().count(), 2, "a line per running entry");
            assert_eq!(e.bars[1].as_ref().unwrap().message(), "3/10 jobs, at 2s simulated");
        }
        assert!(p.run.message().contains("(0/3 policies done, 2 running)"), "{}", p.run.message());
        // fifo ends: its 10 jobs count in full, its line goes
        p.done("fifo");
        assert_eq!(p.run.position(), 13);
        assert_eq!(p.entries.lock().unwrap().bars.iter().flatten().count(), 1);
        assert!(p.run.message().contains("(1/3 policies done, 1 running)"), "{}", p.run.message());
        // a late report of an entry that is over changes nothing
        p.update("fifo", 0, 2);
        assert_eq!(p.run.position(), 13);
    }

    #[test]
    fn the_bar_covers_every_seed_of_every_policy() {
        // 2 policies x 3 seeds of 10 jobs: the first seed is a third of the bar
        let p = Progress::new(vec!["fifo".into(), "drr".into()], 10.0, 3);
        assert_eq!(p.run.length(), Some(60));
        p.done("fifo");
        p.done("drr");
        assert_eq!(p.run.position(), 20);
        p.seed_runs_done(2, 4);
        assert_eq!(p.run.position(), 40);
        assert!(p.run.message().starts_with("2/4 runs at the later seeds, ETA"));
        p.seed_runs_done(4, 4);
        assert_eq!(p.run.position(), 60, "the last run ends the bar");
    }
}
