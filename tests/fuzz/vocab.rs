//! The values the strategies draw from, kept apart from the strategies so
//! that an edge case found by hand is added to one list and reaches every
//! strategy that draws from it.

/// Values of the wrong shape for almost any key.
pub const WRONG: &[&str] = &[
    "[]",
    "{}",
    "~",
    "1",
    "-1",
    "\"x\"",
    "[1, 2]",
    "{a: b}",
    "true",
    "!!binary aGk=",
    "*undefined",
    "&anc 1",
    "''",
    "!!float 1",
    "0x1F",
];

pub const TENANTS: &[&str] = &["A", "B", "C", "D", "101", "t1", "bulk"];

pub const CLASSES: &[&str] = &["hi", "lo", "default", "bulk", "mid"];

/// Names that are odd as names: empty, control characters, unicode,
/// reserved file names, YAML-looking text.
pub const ODD: &[&str] = &[
    "",
    " ",
    "a b",
    "a\0b",
    "line\nbreak",
    "tab\there",
    "cr\rx",
    "テナント",
    "😀",
    "\u{202e}evil",
    "\u{feff}bom",
    "\u{85}nel",
    "\u{2028}",
    "default",
    "charts",
    "report.html",
    "comparison.csv",
    "scenario.yaml",
    "summary.csv",
    "fairsim-results.json",
    "Charts",
    ".",
    "..",
    ".hidden",
    "a/b",
    "a\\b",
    "~",
    "null",
    "true",
    "123",
    "-",
    "x:y",
    "#c",
    "a,b",
    "[x]",
    "{x}",
    "*",
    "&",
    "'",
    "\"",
    "-1",
    "1e3",
    "NaN",
    "con",
    "Ａ",
    "A ",
    "t0",
    "t00",
];

pub const LONG_LENGTHS: &[usize] = &[200, 201, 255, 256, 1000, 65_530, 65_536, 70_000, 300_000];

/// Durations at and past the horizon of 2^53 µs (9,007,199,254.74 s): wild
/// cases only. Past it they must be errors with a place; just below it they
/// must run in time (empty ticks were once closed one by one, F1).
pub const DUR_SLOW: &[&str] = &[
    "9007199254s",
    "104249d",
    "999999999999s",
    "100000000s",
    "1e18us",
    "9223372036854s",
    "11574d",
    "1e12",
    "100000d",
    "18446744073709s",
];

pub const RATE_SLOW: &[&str] =
    &["1e-300/s", "1e-10/s", "2e-10/s", "1e300/s", "1e9/s", "999999999/s", "5e-324/s", "1e308/ms", "1e-15/d"];

pub const COUNT_EDGE: &[&str] =
    &["0", "-1", "1.5", "abc", "\"\"", "~", "[1]", "true", "18446744073709551616", "1e3", "0x10", "+3"];

/// Counts at and past main's limits (10^9 jobs a run, batches of 10^7) and
/// the integer edges past them.
pub const COUNT_SLOW: &[&str] = &[
    "18446744073709551615",
    "4294967295",
    "1000000000",
    "1000000001",
    "100000000",
    "50000000",
    "10000000",
    "10000001",
    "9223372036854775807",
];

pub const KINDS: &[(&str, &[&str])] = &[
    ("fifo", &[]),
    ("priority", &["then"]),
    ("round_robin", &["order"]),
    ("aging", &["step", "max_boost"]),
    ("bands", &["floor", "window", "then"]),
    ("reserve", &["class", "workers"]),
    ("edf", &["order", "late"]),
    ("hierarchical", &["over", "then"]),
    ("drr", &["over", "cost", "quantum"]),
    ("wfq", &["over", "cost"]),
    ("lottery", &["over"]),
    ("share", &["over", "cost", "window"]),
    ("drf", &[]),
];

pub const BAD_KINDS: &[&str] =
    &["FIFO", "fifoo", "\"\"", "rr", "\" drr\"", "[fifo]", "~", "1", "round-robin", "policy"];

pub const ALL_PARAMS: &[&str] = &[
    "then",
    "order",
    "step",
    "max_boost",
    "floor",
    "window",
    "class",
    "workers",
    "over",
    "cost",
    "quantum",
    "late",
    "label",
    "spare",
    "policy",
    "bogus",
];

pub const RESOURCE_NAMES: &[&str] = &["cpu", "mem", "procs", "slots", "gpu", "\"\"", "\"a b\"", "\"\\0\""];

/// Header names of generated CSV traces: the defaults, the shipped
/// scenario's mapping, and the cost column of the generated bases.
pub const CSV_COLUMNS: &[&str] = &[
    "queue",
    "service",
    "started_at",
    "finished_at",
    "priority",
    "deadline",
    "cpu",
    "account_id",
    "queue_name",
    "id",
];

pub const CSV_BAD_FIELDS: &[&str] = &[
    "",
    "x",
    "NaN",
    "2026-02-30 10:00:00",
    "2026-11-28T25:00:00Z",
    "9999-99-99",
    "1e999",
    "-",
    "\"",
    "\"unterminated",
    "a\"b",
    "\u{0}",
    "99999999999999999999",
    "2026-11-28T10:00:00.1234567890123Z",
    "2026-11-28T10:00:60Z",
    "2026-11-28T10:00:00+24:00",
    "2026-11-28T10:00:00+23:59",
    "1795860000.",
    ".5",
    "+1",
    "é",
    "\r",
    "-9223372036854775808",
    "9223372036854775807",
    "0000-01-01T00:00:00Z",
    "2026-11-28T10:00:00-00",
    "1e3",
    " 1 ",
];

/// Bytes spliced into generated traces.
pub const CSV_RAW: &[&[u8]] = &[b"\xff", b"\xc3", b"\0", b"\r", b"\"", b"\n\n", b",,"];

pub const SWF_RAW: &[&[u8]] = &[b"\xff", b"\0", b"\r", b";"];

/// Tokens inserted by byte mutations.
pub const TOKENS: &[&[u8]] = &[
    b"\n",
    b"\r",
    b"\r\n",
    b"\0",
    b"\t",
    b" ",
    b":",
    b"- ",
    b",",
    b"{",
    b"}",
    b"[",
    b"]",
    b"\"",
    b"'",
    b"#",
    b"&a ",
    b"*a",
    b"!!str ",
    b"? ",
    b"|",
    b"---\n",
    b"...\n",
    b"~",
    b"-1",
    b"0",
    b"1us",
    b"NaN",
    b";",
    b"\xef\xbb\xbf",
    b"\xe2\x80\xa8",
    b"\xc3\xa9",
    b"\xff",
    b"\xc3",
    b"<<: ",
    b"\\",
    b"%",
];

/// Numbers a mutation may put in place of a number of a shipped file.
pub const NUMBERS_TAME: &[&str] =
    &["0", "-1", "1", "2", "3", "10", "0.5", "-0", "00", "1.5", "NaN", "abc", "1e3", "65536", "1e-3", ""];

pub const NUMBERS_WILD: &[&str] = &[
    "999999999999",
    "18446744073709551615",
    "18446744073709551616",
    "4294967296",
    "1e-300",
    "1e300",
    "0.0000001",
    "1e9",
    "9223372036854775807",
];

/// Names a tenant may legally have (any non-empty text), each written as a
/// double-quoted YAML scalar.
pub const ODD_VALID: &[&str] = &[
    "a b",
    "a\0b",
    "line\nbreak",
    "tab\there",
    "テナント",
    "😀",
    "\u{202e}evil",
    "\u{feff}bom",
    "default",
    "charts",
    "report.html",
    ".",
    "..",
    "a/b",
    "~",
    "null",
    "x:y",
    "#c",
    "a,b",
    "\"",
    "-1",
    "NaN",
    " ",
    "A ",
    "<script>",
    "=cmd|' /C calc'!A0",
];

/// Durations that parse (however odd they look).
pub const DUR_VALID_ODD: &[&str] =
    &["1us", "1.0000005us", "\"1ms \"", "+1s", "1µs", "0.5us", "1e-3s", "1e0", "1.5m", "0.000001"];

/// Durations that do not.
pub const DUR_BAD: &[&str] = &[
    "-1s",
    "0.1us",
    "1e-7s",
    "4.9e-324s",
    ".nan",
    ".inf",
    "-.inf",
    "NaN",
    "inf",
    "1e308s",
    "5 parsecs",
    "\"\"",
    "~",
    "[1s]",
    "{a: 1}",
    "true",
    "1.5.5s",
    "1_000s",
    "\"1 s x\"",
    "1e",
    "µs",
    "\"１s\"",
    "1e19us",
    "1e30d",
    "18446744073709551616",
    "2S",
    "1h30m",
];

/// Objective measures bounded by a time, with percentiles at their edges.
pub const OBJECTIVE_TIMED: &[&str] =
    &["wait_p99", "wait_p50", "wait_p99.9", "wait_p100", "wait_p0.001", "wait_max", "wait_mean"];

/// Objective measures bounded by a fraction.
pub const OBJECTIVE_RATIO: &[&str] = &["share", "jain", "gini", "utilization"];

/// Fractions as an objective takes them: a number or a percentage.
pub const RATIOS: &[&str] = &["80%", "0.8", "1", "0", "100%", "0.5%", "0.999"];

/// Objectives the loader must refuse, each with a place and a fix.
pub const OBJECTIVE_BAD: &[&str] = &[
    "{wait_p0: 5s}",
    "{wait_p101: 5s}",
    "{wait_p-1: 5s}",
    "{wait_p99: 80%}",
    "{wait_p99x: 5s}",
    "{utilization: 5s}",
    "{utilization: 1.5}",
    "{jain: -1}",
    "{gini: 1.5}",
    "{tenant: A, gini: 0.3}",
    "{rejected: 1.5}",
    "{deferred: -1}",
    "{class: hi, jain: 0.5}",
    "{tenant: A, makespan: 1h}",
    "{wait_p99: 5s, wait_mean: 1s}",
    "{class: hi}",
    "{}",
    "{class: nope, wait_p99: 5s}",
    "{tenant: nobody, wait_p99: 5s}",
    "{tenants: [], wait_p99: 5s}",
    "{tenants: {all_but: [A, A]}, wait_p99: 5s}",
    "{tenant: A, tenants: [B], wait_p99: 5s}",
    "{class: lo, sla_misses: 0.01}",
    "{share: 0.8, class: hi}",
    "{cost: maybe, wait_p99: 5s}",
    "{name: \"\", wait_p99: 5s}",
    "{wait_p99: [5s]}",
    "{tenants: every, wait_p99: 1s}",
    "wait_p99",
];

/// A policy entry's `tenants:` that the loader must refuse.
pub const ENTRY_TENANTS_BAD: &[&str] = &[
    "{nobody: {cap: 1}}",
    "{A: {cpa: 1}}",
    "{A: {cap: 0}}",
    "{A: {cap: 1.5}}",
    "{A: {cap: 4294967296}}",
    "{A: {weight: 0}}",
    "{A: {weight: .nan}}",
    "{A: 1}",
    "[A]",
    "{A: {cap: 1}, A: {cap: 2}}",
];
