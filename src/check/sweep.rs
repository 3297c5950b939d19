//! Counting intervals over time: the most open at once, and how many are
//! open just after the events of an instant (ends before starts, so a job
//! that finishes at t frees its worker for one that starts at t).

/// An interval `[from, to)` of job `job` (an index into the run's jobs).
#[derive(Debug, Clone, Copy)]
pub struct Span {
    pub from: i64,
    pub to: i64,
    pub job: usize,
}

/// The first instant more than `limit` spans are open: (the instant, the
/// span whose start made it, every span open then).
pub fn first_over(spans: &[Span], limit: i64) -> Option<(i64, Span, Vec<Span>)> {
    // (time, 0 = end / 1 = start, span index)
    let mut ev: Vec<(i64, u8, usize)> = Vec::with_capacity(spans.len() * 2);
    for (i, s) in spans.iter().enumerate().filter(|(_, s)| s.to > s.from) {
        ev.push((s.from, 1, i));
        ev.push((s.to, 0, i));
    }
    ev.sort_unstable();
    let mut open = std::collections::BTreeSet::new();
    for (t, kind, i) in ev {
        if kind == 0 {
            open.remove(&i);
            continue;
        }
        open.insert(i);
        if open.len() as i64 > limit {
            return Some((t, spans[i], open.iter().map(|&k| spans[k]).collect()));
        }
    }
    None
}

/// The number of open spans just after each instant's events, as a step
/// function to query at any instant.
pub struct Steps {
    at: Vec<(i64, i64)>,
}

impl Steps {
    pub fn new(spans: impl IntoIterator<Item = (i64, i64)>) -> Steps {
        let mut ev: Vec<(i64, i64)> = Vec::new();
        for (a, b) in spans.into_iter().filter(|(a, b)| b > a) {
            ev.push((a, 1));
            ev.push((b, -1));
        }
        ev.sort_unstable();
        let mut at: Vec<(i64, i64)> = Vec::new();
        let mut n = 0;
        for (t, d) in ev {
            n += d;
            match at.last_mut() {
                Some(last) if last.0 == t => last.1 = n,
                _ => at.push((t, n)),
            }
        }
        Steps { at }
    }

    /// Open spans just after the events at `t`.
    pub fn count(&self, t: i64) -> i64 {
        match self.at.partition_point(|&(x, _)| x <= t) {
            0 => 0,
            k => self.at[k - 1].1,
        }
    }
}
