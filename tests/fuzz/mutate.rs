//! Mutations of the shipped files: they start from files a user would write,
//! so they reach parser states that the generators miss.

use proptest::prelude::*;
use proptest::sample::Index;

use super::vocab::{NUMBERS_TAME, NUMBERS_WILD, TOKENS};

#[derive(Debug, Clone)]
pub enum Mutation {
    Flip(Index, u8),
    Insert(Index, &'static [u8]),
    Delete(Index, usize),
    Copy(Index, Index, usize),
    Number(Index, &'static str),
    RepeatLine(Index, usize),
    DeleteLine(Index),
    Endings(&'static str),
    Truncate(Index),
    /// From a line on, every arrival 1e9 s (about 31 years) later.
    Gap(Index),
}

pub fn mutation(wild: bool) -> BoxedStrategy<Mutation> {
    let numbers = if wild { NUMBERS_WILD } else { NUMBERS_TAME };
    let repeat: &'static [usize] = if wild { &[2, 10, 1000, 100_000] } else { &[2, 3, 10, 100] };
    let mut arms: Vec<(u32, BoxedStrategy<Mutation>)> = vec![
        (3, (any::<Index>(), 1u8..=255).prop_map(|(i, b)| Mutation::Flip(i, b)).boxed()),
        (4, (any::<Index>(), prop::sample::select(TOKENS)).prop_map(|(i, t)| Mutation::Insert(i, t)).boxed()),
        (2, (any::<Index>(), 1usize..16).prop_map(|(i, n)| Mutation::Delete(i, n)).boxed()),
        (
            1,
            (any::<Index>(), any::<Index>(), 1usize..40)
                .prop_map(|(a, b, n)| Mutation::Copy(a, b, n))
                .boxed(),
        ),
        (
            4,
            (
                any::<Index>(),
                prop_oneof![3 => prop::sample::select(NUMBERS_TAME), 1 => prop::sample::select(numbers)],
            )
                .prop_map(|(i, n)| Mutation::Number(i, n))
                .boxed(),
        ),
        (
            2,
            (any::<Index>(), prop::sample::select(repeat))
                .prop_map(|(i, n)| Mutation::RepeatLine(i, n))
                .boxed(),
        ),
        (2, any::<Index>().prop_map(Mutation::DeleteLine).boxed()),
        (1, prop::sample::select(&["\r", "\r\n", "\n\r", ""][..]).prop_map(Mutation::Endings).boxed()),
        (1, any::<Index>().prop_map(Mutation::Truncate).boxed()),
    ];
    if wild {
        arms.push((1, any::<Index>().prop_map(Mutation::Gap).boxed()));
    }
    proptest::strategy::Union::new_weighted(arms).boxed()
}

fn lines_of(b: &[u8]) -> Vec<Vec<u8>> {
    b.split_inclusive(|&c| c == b'\n').map(<[u8]>::to_vec).collect()
}

pub fn apply(base: &[u8], muts: &[Mutation]) -> Vec<u8> {
    let mut b = base.to_vec();
    for m in muts {
        let len = b.len();
        match m {
            Mutation::Flip(i, x) if len > 0 => {
                let at = i.index(len);
                b[at] ^= x;
            }
            Mutation::Insert(i, t) => {
                let at = i.index(len + 1);
                b.splice(at..at, t.iter().copied());
            }
            Mutation::Delete(i, n) if len > 0 => {
                let at = i.index(len);
                b.drain(at..(at + n).min(len));
            }
            Mutation::Copy(from, to, n) if len > 0 => {
                let a = from.index(len);
                let chunk: Vec<u8> = b[a..(a + n).min(len)].to_vec();
                let at = to.index(len + 1);
                b.splice(at..at, chunk);
            }
            Mutation::Number(i, n) => {
                let runs: Vec<(usize, usize)> = digit_runs(&b);
                if !runs.is_empty() {
                    let (s, e) = runs[i.index(runs.len())];
                    b.splice(s..e, n.bytes());
                }
            }
            Mutation::RepeatLine(i, n) => {
                let mut lines = lines_of(&b);
                if !lines.is_empty() {
                    let at = i.index(lines.len());
                    let mut l = lines[at].clone();
                    if !l.ends_with(b"\n") {
                        l.push(b'\n');
                    }
                    let copies = vec![l; *n];
                    lines.splice(at..at, copies);
                    b = lines.concat();
                }
            }
            Mutation::DeleteLine(i) => {
                let mut lines = lines_of(&b);
                if !lines.is_empty() {
                    lines.remove(i.index(lines.len()));
                    b = lines.concat();
                }
            }
            Mutation::Endings(e) => {
                let mut out = Vec::with_capacity(len);
                for &c in &b {
                    if c == b'\n' {
                        out.extend_from_slice(e.as_bytes());
                    } else {
                        out.push(c);
                    }
                }
                b = out;
            }
            Mutation::Truncate(i) => b.truncate(i.index(len + 1)),
            Mutation::Gap(i) => {
                let mut lines = lines_of(&b);
                let from = i.index(lines.len() + 1);
                for l in lines.iter_mut().skip(from) {
                    *l = shift_line(l);
                }
                b = lines.concat();
            }
            _ => {}
        }
    }
    b
}

fn digit_runs(b: &[u8]) -> Vec<(usize, usize)> {
    let mut runs = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() {
            let s = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            runs.push((s, i));
        } else {
            i += 1;
        }
    }
    runs
}

/// One trace line 1e9 s later: a CSV date of 2026 becomes 2058 (31.7
/// years), an SWF submit time (field 2) grows by 1e9.
fn shift_line(l: &[u8]) -> Vec<u8> {
    let s = String::from_utf8_lossy(l);
    if s.contains("2026-") {
        return s.replace("2026-", "2058-").into_bytes();
    }
    if s.trim_start().starts_with(';') {
        return l.to_vec();
    }
    let mut parts: Vec<String> = s.split(' ').map(str::to_string).collect();
    let mut seen = 0;
    for p in parts.iter_mut() {
        if p.is_empty() {
            continue;
        }
        seen += 1;
        if seen == 2 {
            if let Ok(v) = p.parse::<i64>() {
                *p = v.saturating_add(1_000_000_000).to_string();
            }
            break;
        }
    }
    parts.join(" ").into_bytes()
}
