//! Tests of the group statistics against hand-computed values and full sorts.
use super::*;

#[test]
fn nearest_rank_matches_hand_computed_values() {
    // 10 values 1..=10: p50 -> rank 5 -> 5; p95 -> rank ceil(9.5)=10 -> 10;
    // p99 -> rank 10; p10 -> rank 1 -> 1; p11 -> rank ceil(1.1)=2 -> 2.
    let v: Vec<Time> = (1..=10).collect();
    assert_eq!(nearest_rank(&v, 50.0), Some(5));
    assert_eq!(nearest_rank(&v, 95.0), Some(10));
    assert_eq!(nearest_rank(&v, 99.0), Some(10));
    assert_eq!(nearest_rank(&v, 10.0), Some(1));
    assert_eq!(nearest_rank(&v, 11.0), Some(2));
    assert_eq!(nearest_rank(&v, 0.0), Some(1));
    assert_eq!(nearest_rank::<Time>(&[], 50.0), None);
    // 200 values 0..200: p99 -> rank 198 -> value 197.
    let w: Vec<Time> = (0..200).collect();
    assert_eq!(nearest_rank(&w, 99.0), Some(197));
    // the float version uses the same rank: 4 values, p50 -> rank 2, p99 -> rank 4
    assert_eq!(nearest_rank(&[1.0, 1.5, 3.0, 9.0], 50.0), Some(1.5));
    assert_eq!(nearest_rank(&[1.0, 1.5, 3.0, 9.0], 99.0), Some(9.0));
}

/// The figures of one group holding `waits` and `slowdowns` (logged as
/// tenant 0, class 0; the tenant and class groups must agree with all).
fn one_group(waits: &[Time], slowdowns: &[f32]) -> GroupStats {
    let mut log = SampleLog::default();
    waits.iter().for_each(|&w| log.wait(w, 0, 0));
    slowdowns.iter().for_each(|&x| log.slowdown(x, 0, 0));
    let (mut all, mut t, mut c) = (GroupStats::default(), [GroupStats::default()], [GroupStats::default()]);
    let sets = Groups { all: &mut all, tenants: &mut t, index: &[0], classes: &mut c, pairs: None };
    log.finish(sets, &mut ExtraWaits::default());
    for g in [&t[0], &c[0]] {
        assert_eq!((g.waits, g.waited, g.slowdowns), (all.waits, all.waited, all.slowdowns));
    }
    all
}

/// Small pseudo-random numbers (an LCG) for the tests.
fn lcg(x: &mut u64, below: u64) -> u64 {
    *x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (*x >> 33) % below
}

#[test]
fn placed_ranks_equal_the_sorted_ones() {
    // an independent check of the selection chain: shuffled data of every
    // length 1..300 (many duplicates), against a full sort
    let mut x: u64 = 12345;
    for n in 1..300usize {
        let v: Vec<Time> = (0..n).map(|_| lcg(&mut x, 50)).collect();
        let mut sorted = v.clone();
        sorted.sort_unstable();
        let g = one_group(&v, &[]);
        for p in PERCENTILES {
            assert_eq!(g.wait_pct(p), nearest_rank(&sorted, p), "n {n} p {p}");
        }
        assert_eq!(g.wait_max(), sorted.last().copied(), "n {n}");
    }
}

#[test]
fn groups_of_an_interleaved_log_match_sorting_each_group() {
    // samples of 7 tenants (tenant 5 has none, tenant 6 only class 2, so
    // its one pair is its tenant group) and 3 classes (class 1 has none),
    // interleaved at random; each group's figures against its own values
    // collected in arrival order and fully sorted
    let mut x: u64 = 777;
    for n in [0usize, 1, 2, 5, 40, 333, 2000] {
        let (nt, nc) = (7usize, 3usize);
        let mut log = SampleLog::default();
        let mut logged: Vec<(Time, TenantId, ClassId)> = Vec::new();
        let mut logged_slowdowns: Vec<(f32, TenantId, ClassId)> = Vec::new();
        // per group (all, tenants, classes): waits and slowdowns in arrival order
        let mut want: Vec<(Vec<Time>, Vec<f32>)> = vec![Default::default(); 1 + nt + nc];
        for _ in 0..n {
            let t = [0, 1, 2, 3, 4, 6][lcg(&mut x, 6) as usize];
            let c = if t == 6 { 2 } else { [0, 2][lcg(&mut x, 2) as usize] };
            let groups = [0, 1 + t as usize, 1 + nt + c as usize];
            if lcg(&mut x, 4) > 0 {
                let w = lcg(&mut x, 3) * lcg(&mut x, 1000); // a third are zero
                log.wait(w, t, c);
                logged.push((w, t, c));
                groups.iter().for_each(|&g| want[g].0.push(w));
            }
            if lcg(&mut x, 3) > 0 {
                let s = 1.0 + lcg(&mut x, 500) as f32 / 7.0;
                log.slowdown(s, t, c);
                logged_slowdowns.push((s, t, c));
                groups.iter().for_each(|&g| want[g].1.push(s));
            }
        }
        let mut all = GroupStats::default();
        let mut tenants = vec![GroupStats::default(); nt];
        let mut classes = vec![GroupStats::default(); nc];
        let index: Vec<u32> = (0..nt as u32).collect();
        // every (tenant, class) pair of the log is a group; tenant 5 has none
        let mut pair_keys: Vec<(TenantId, ClassId)> =
            [0, 1, 2, 3, 4].iter().flat_map(|&t| [(t, 0), (t, 2)]).collect();
        pair_keys.push((6, 2));
        let mut pairs = vec![GroupStats::default(); pair_keys.len()];
        let pair_classes: Vec<ClassId> = pair_keys.iter().map(|k| k.1).collect();
        let starts: Vec<u32> = vec![0, 2, 4, 6, 8, 10, 10, 11];
        let mut extra = ExtraWaits::asking([90.0, 99.9, 99.0]);
        assert_eq!(extra.percentiles, [90.0, 99.9], "reported percentiles are not asked again");
        let sets = Groups {
            all: &mut all,
            tenants: &mut tenants,
            index: &index,
            classes: &mut classes,
            pairs: Some(PairGroups { groups: &mut pairs, classes: &pair_classes, starts: &starts }),
        };
        log.finish(sets, &mut extra);
        for (i, (t, c)) in pair_keys.iter().enumerate() {
            let mut want = Vec::new();
            for (w, tt, cc) in &logged {
                if (tt, cc) == (t, c) {
                    want.push(*w);
                }
            }
            want.sort_unstable();
            let mut slow: Vec<f32> =
                logged_slowdowns.iter().filter(|(_, tt, cc)| (tt, cc) == (t, c)).map(|s| s.0).collect();
            let mean_s =
                (!slow.is_empty()).then(|| slow.iter().map(|&s| s as f64).sum::<f64>() / slow.len() as f64);
            slow.sort_unstable_by(f32::total_cmp);
            assert_eq!(pairs[i].slowdown_mean(), mean_s, "n {n} pair {t},{c}");
            assert_eq!(
                pairs[i].slowdown_pct(50.0),
                nearest_rank(&slow, 50.0).map(f64::from),
                "n {n} pair {t},{c}"
            );
            assert_eq!(pairs[i].waited, want.iter().filter(|&&w| w > 0).count() as u64, "n {n} pair {t},{c}");
            assert_eq!(pairs[i].wait_pct(99.0), nearest_rank(&want, 99.0), "n {n} pair {t},{c}");
            assert_eq!(pairs[i].waits.count, want.len() as u64, "n {n} pair {t},{c}");
            for p in [90.0, 99.9] {
                assert_eq!(extra.get(Group::Pair(i), p), nearest_rank(&want, p), "n {n} pair {t},{c} p {p}");
            }
        }
        let got = std::iter::once(&all).chain(&tenants).chain(&classes);
        for (i, (g, (waits, slowdowns))) in got.zip(&want).enumerate() {
            let ctx = format!("n {n} group {i}");
            let mean_w = (!waits.is_empty())
                .then(|| waits.iter().map(|&w| w as u128).sum::<u128>() as f64 / waits.len() as f64);
            let mean_s = (!slowdowns.is_empty())
                .then(|| slowdowns.iter().map(|&s| s as f64).sum::<f64>() / slowdowns.len() as f64);
            let mut sw = waits.clone();
            sw.sort_unstable();
            let mut ss = slowdowns.clone();
            ss.sort_unstable_by(f32::total_cmp);
            assert_eq!(g.waits.count, waits.len() as u64, "{ctx}");
            assert_eq!(g.waited, waits.iter().filter(|&&w| w > 0).count() as u64, "{ctx}");
            assert_eq!(g.wait_mean(), mean_w, "{ctx}");
            assert_eq!(g.slowdowns.count, slowdowns.len() as u64, "{ctx}");
            assert_eq!(g.slowdown_mean(), mean_s, "{ctx}");
            for p in PERCENTILES.into_iter().chain([100.0]) {
                assert_eq!(g.wait_pct(p), nearest_rank(&sw, p), "{ctx} p {p}");
                assert_eq!(g.slowdown_pct(p), nearest_rank(&ss, p).map(f64::from), "{ctx} p {p}");
            }
            assert_eq!(g.wait_max(), sw.last().copied(), "{ctx}");
            let place = match i {
                0 => Group::All,
                i if i <= nt => Group::Tenant(i - 1),
                i => Group::Class(i - 1 - nt),
            };
            for p in [90.0, 99.9] {
                assert_eq!(extra.get(place, p), nearest_rank(&sw, p), "{ctx} p {p}");
            }
        }
        assert!(n < 40 || (tenants[5].wait_max().is_none() && classes[1].slowdown_mean().is_none()));
        assert!(n < 40 || tenants[6].waits.count > 0);
    }
}

#[test]
fn each_outcome_has_its_own_counter_and_jobs_is_their_sum() {
    // 1 completed, 2 failed, 3 rejected, 4 expired, 5 unfinished. A
    // tenant's completions are the engine's count (7 here), so its
    // counters ignore Completed: its group has 7 + 2 + 3 + 4 + 5 = 21 jobs.
    let (mut g, mut t) = (GroupStats::default(), TenantCounters::default());
    let outcomes = [
        (Outcome::Completed, 1),
        (Outcome::Failed, 2),
        (Outcome::Rejected, 3),
        (Outcome::Expired, 4),
        (Outcome::Unfinished, 5),
    ];
    for (o, n) in outcomes {
        for _ in 0..n {
            g.count_outcome(o);
            t.count_outcome(o);
        }
    }
    assert_eq!((g.completed, g.failed, g.rejected, g.expired, g.unfinished), (1, 2, 3, 4, 5));
    (t.sla_misses, t.deadline_misses, t.oldest_age_max) = (6, 8, 9);
    let tg = t.group(7);
    assert_eq!((tg.completed, tg.failed, tg.rejected, tg.expired, tg.unfinished), (7, 2, 3, 4, 5));
    assert_eq!((tg.jobs, tg.sla_misses, tg.deadline_misses, tg.oldest_age_max), (21, 6, 8, 9));
}

#[test]
#[should_panic(expected = "not computed")]
fn an_unplaced_percentile_is_refused() {
    one_group(&[3, 1, 2], &[]).wait_pct(90.0);
}

#[test]
fn slowdown_is_time_in_system_over_service() {
    // arrives at 10s, waits 3s, runs 2s, finishes at 15s: (3 + 2) / 2 = 2.5
    assert_eq!(slowdown(10_000_000, 15_000_000, 2_000_000), Some(2.5));
    // no wait: 1
    assert_eq!(slowdown(0, 500_000, 500_000), Some(1.0));
    assert_eq!(slowdown(5, 5, 0), None);
    // group figures: slowdowns 1, 1, 2.5, 10 -> mean 14.5/4 = 3.625, p50 rank 2 = 1, p99 rank 4 = 10
    let g = one_group(&[], &[10.0, 1.0, 2.5, 1.0]);
    assert_eq!(g.slowdown_mean(), Some(3.625));
    assert_eq!(g.slowdown_pct(50.0), Some(1.0));
    assert_eq!(g.slowdown_pct(99.0), Some(10.0));
    // no waits logged: no wait figures
    assert_eq!((g.wait_mean(), g.wait_pct(50.0), g.wait_max(), g.waited), (None, None, None, 0));
}

#[test]
fn wait_statistics_of_a_group() {
    // waits 0, 1, 2, ..., 19 s (20 jobs): mean 9.5 s; p50 rank 10 -> 9 s;
    // p95 rank 19 -> 18 s; p99 rank ceil(19.8) = 20 -> 19 s; max 19 s;
    // 19 of them positive.
    let s = 1_000_000;
    let waits: Vec<Time> = (0..20).rev().map(|i| i * s).collect();
    let g = one_group(&waits, &[]);
    assert_eq!(g.wait_mean(), Some(9.5 * s as f64));
    assert_eq!(g.wait_pct(50.0), Some(9 * s));
    assert_eq!(g.wait_pct(95.0), Some(18 * s));
    assert_eq!(g.wait_pct(99.0), Some(19 * s));
    assert_eq!(g.wait_max(), Some(19 * s));
    assert_eq!((g.waits.count, g.waited), (20, 19));
    assert_eq!((g.slowdown_mean(), g.slowdown_pct(99.0)), (None, None));
}
