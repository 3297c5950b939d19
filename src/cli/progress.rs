//! `fairsim run`'s progress bar on stderr: one bar over the whole run (every
//! policy's jobs), so its ETA is the run's, not the current policy's. The
//! rate is shown once a second has passed (before that it is noise, such
//! as 297.59M jobs/s for a run of a few ms). The label and the status line
//! are read from one shared [`Status`] when the bar is drawn, so a new
//! policy's bar is never drawn with the previous policy's label or text.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::time::{fmt_secs, Time};

/// Below this the rate and the ETA are not yet meaningful.
const SETTLE: Duration = Duration::from_secs(1);

/// What the bar shows besides the bar itself.
#[derive(Default)]
struct Status {
    label: String,
    line: String,
}

/// The bar of one `fairsim run`.
pub struct Progress {
    bar: indicatif::ProgressBar,
    status: Arc<Mutex<Status>>,
    labels: Vec<String>,
    /// Expected jobs per policy (every policy sees the same arrivals).
    per_policy: u64,
    started: Instant,
}

impl Progress {
    /// A bar over `labels.len()` policies of `expected_jobs` each, at
    /// `seeds` seeds (the first seed's runs one by one, then the others).
    pub fn new(labels: Vec<String>, expected_jobs: f64, seeds: usize) -> Progress {
        let per_policy = expected_jobs.round().max(1.0) as u64;
        let total = per_policy.saturating_mul(labels.len().max(1) as u64).saturating_mul(seeds.max(1) as u64);
        let bar = indicatif::ProgressBar::new(total);
        let status = Arc::new(Mutex::new(Status {
            label: labels.first().cloned().unwrap_or_default(),
            line: String::new(),
        }));
        let (a, b) = (status.clone(), status.clone());
        bar.set_style(
            indicatif::ProgressStyle::with_template("{label:>12} [{bar:30}] {percent:>3}% {status}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
                .with_key("label", move |_: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = w.write_str(&a.lock().map(|s| s.label.clone()).unwrap_or_default());
                })
                .with_key("status", move |_: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = w.write_str(&b.lock().map(|s| s.line.clone()).unwrap_or_default());
                })
                .progress_chars("=> "),
        );
        Progress { bar, status, labels, per_policy, started: Instant::now() }
    }

    /// Policy `label` has received `jobs` jobs and reached simulated time `t`.
    pub fn update(&self, label: &str, t: Time, jobs: u64) {
        let i = self.labels.iter().position(|l| l == label).unwrap_or(0);
        // Poisson counts are expected values: a policy's share stops short
        // of its end, the run's short of the whole
        let done = i as u64 * self.per_policy + jobs.min(self.per_policy - 1);
        let line = status_line(&Snapshot {
            done,
            total: self.bar.length().unwrap_or(1),
            elapsed: self.started.elapsed(),
            policy: i,
            policies: self.labels.len(),
            simulated: t,
        });
        // label and line change together, before anything is drawn
        if let Ok(mut s) = self.status.lock() {
            s.label = label.to_string();
            s.line = line;
        }
        self.bar.set_position(done);
    }

    /// `done` of the `runs` after the first seed have finished. They run
    /// in parallel without per-job progress: each counts as a policy's
    /// expected jobs, after the first seed's.
    pub fn seed_runs_done(&self, done: usize, runs: usize) {
        let first = self.per_policy.saturating_mul(self.labels.len() as u64);
        let position = first.saturating_add(self.per_policy.saturating_mul(done as u64));
        let total = self.bar.length().unwrap_or(1);
        let elapsed = self.started.elapsed().as_secs_f64();
        let left = total.saturating_sub(position) as f64 * elapsed / position.max(1) as f64;
        if let Ok(mut s) = self.status.lock() {
            s.label = "seeds".into();
            s.line = format!("{done}/{runs} runs at the later seeds, ETA {}", eta(left));
        }
        self.bar.set_position(position);
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// The figures of one redraw.
pub struct Snapshot {
    /// Jobs received so far over the whole run, and the run's expected total.
    pub done: u64,
    pub total: u64,
    pub elapsed: Duration,
    /// 0-based index of the running policy, of `policies`.
    pub policy: usize,
    pub policies: usize,
    /// The running policy's simulated time, µs.
    pub simulated: Time,
}

/// `12.3k/40k jobs, 8.1k jobs/s, ETA 3s (policy 1/2, at 600s simulated)`;
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
    line += &format!(
        " (policy {}/{}, at {}s simulated)",
        s.policy + 1,
        s.policies,
        fmt_secs(s.simulated - s.simulated % 1_000_000)
    );
    line
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

    fn at(done: u64, total: u64, ms: u64, policy: usize) -> String {
        status_line(&Snapshot {
            done,
            total,
            elapsed: Duration::from_millis(ms),
            policy,
            policies: 2,
            simulated: 626_400_000,
        })
    }

    #[test]
    fn the_eta_is_the_whole_runs() {
        // policy 1 of 2 done in 35 s: 35 s to go, not 0
        let s = at(100_000, 200_000, 35_000, 0);
        assert!(s.contains("ETA 35s (policy 1/2, at 626s simulated)"), "{s}");
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
    fn the_next_policy_is_drawn_with_its_own_label() {
        let p = Progress::new(vec!["fifo".into(), "drr".into()], 10.0, 1);
        p.update("fifo", 3_000_000, 9);
        p.update("drr", 0, 0);
        let s = p.status.lock().unwrap();
        assert_eq!(s.label, "drr");
        assert!(s.line.contains("(policy 2/2, at 0s simulated)"), "{}", s.line);
        assert_eq!(p.bar.position(), 10, "the second policy starts at half the run");
    }

    #[test]
    fn the_bar_covers_every_seed_of_every_policy() {
        // 2 policies x 3 seeds of 10 jobs: the first seed is a third of the bar
        let p = Progress::new(vec!["fifo".into(), "drr".into()], 10.0, 3);
        assert_eq!(p.bar.length(), Some(60));
        p.update("drr", 0, 0);
        assert_eq!(p.bar.position(), 10);
        p.seed_runs_done(2, 4);
        assert_eq!(p.bar.position(), 40);
        assert!(p.status.lock().unwrap().line.starts_with("2/4 runs at the later seeds, ETA"));
        p.seed_runs_done(4, 4);
        assert_eq!(p.bar.position(), 60, "the last run ends the bar");
    }
}
