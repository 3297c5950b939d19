//! The arrival stream's merge order: (time, entry index, order within the
//! entry), whether the stream merges through a heap (few entries) or in
//! windows (many entries).

use fairsim::core::Arrival;
use fairsim::workload::generator::EntryGenerator;
use fairsim::workload::ArrivalStream;

/// `n` entries mixing the cases that tie: batches at shared instants,
/// `every` entries on a shared period, and Poisson entries of several rates.
fn scenario(n: usize) -> String {
    let mut s = String::from("seed: 7\nworkers: 4\nworkload:\n");
    for i in 0..n {
        let line = match i % 4 {
            0 => format!("  - {{tenant: b{i}, count: {}, at: {}s, service: 1s}}\n", 1 + i % 9, (i / 4) % 3),
            1 => format!("  - {{tenant: e{i}, arrivals: {{every: 250ms, count: 40}}, service: 1s}}\n"),
            2 => format!(
                "  - {{tenant: p{i}, arrivals: {{poisson: {}/s, count: 60}}, service: {{exponential: 1s}}}}\n",
                1 + i % 5
            ),
            _ => format!("  - {{tenant: q{i}, arrivals: {{poisson: 0.5/s, stop: 2m}}, service: 2s}}\n"),
        };
        s += &line;
    }
    s + "policies: [fifo]\n"
}

/// The order required, derived without the stream: every entry's own
/// arrivals, in entry order, then a stable sort by time (so ties keep the
/// entry index, then the order within the entry).
fn reference(sc: &fairsim::model::Scenario) -> Vec<Arrival> {
    let mut all: Vec<Arrival> = sc
        .workload
        .iter()
        .enumerate()
        .flat_map(|(i, e)| EntryGenerator::new(e, sc.seed, i, &sc.source).collect::<Vec<_>>())
        .collect();
    all.sort_by_key(|a| a.time);
    all
}

fn check(n: usize) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("t.yaml");
    std::fs::write(&path, scenario(n)).expect("write");
    let sc = fairsim::scenario::load(&path).expect("loads");
    let want = reference(&sc);
    let got: Vec<Arrival> = ArrivalStream::new(&sc).collect();
    assert_eq!(got.len(), want.len(), "{n} entries");
    let first_diff = got.iter().zip(&want).position(|(a, b)| a != b);
    assert_eq!(first_diff, None, "{n} entries: streams differ from there");
}

#[test]
fn few_entries_merge_in_time_then_entry_order() {
    check(12);
}

#[test]
fn many_entries_merge_in_the_same_order_as_few() {
    // past the window merge's threshold (64 sources), with many exact ties
    check(400);
}

#[test]
fn a_dense_entry_among_many_sparse_ones_merges_in_order() {
    // one flood at 50/s beside 100 entries at 2/s: the windowed merge pulls
    // the flood's many arrivals per window whole, in the same order
    let mut s = String::from("seed: 3\nworkers: 4\nworkload:\n");
    s += "  - {tenant: flood, arrivals: {poisson: 50/s, start: 5s, stop: 65s}, service: 1s}\n";
    for i in 0..100 {
        s += &format!("  - {{tenant: a{i}, arrivals: {{poisson: 2/s, stop: 80s}}, service: 1s}}\n");
    }
    s += "  - {tenant: burst, count: 9000, at: 30s, service: 1s}\n";
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("t.yaml");
    std::fs::write(&path, s + "policies: [fifo]\n").expect("write");
    let sc = fairsim::scenario::load(&path).expect("loads");
    let want = reference(&sc);
    let got: Vec<Arrival> = ArrivalStream::new(&sc).collect();
    assert_eq!(got.len(), want.len());
    assert_eq!(got.iter().zip(&want).position(|(a, b)| a != b), None, "streams differ from there");
}
