//! The knobs read from `FAIRSIM_FUZZ_*` (listed in tests/fuzz_inputs.rs).
//! Without them the run is CI's: a fixed seed and a case count, so CI is
//! reproducible.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

pub struct Settings {
    pub bin: PathBuf,
    pub seed: u64,
    pub cases: Option<u64>,
    /// the index of the first case, so a case a report names can be made again
    pub first: u64,
    pub seconds: f64,
    pub timeout: Duration,
    pub rss_limit_kb: u64,
    pub as_limit: u64,
    pub fsize_limit: u64,
    pub stacks: bool,
    pub wild: f64,
    pub findings: PathBuf,
    pub long: bool,
    pub shrink_budget: Duration,
}

fn env_num<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok())
}

impl Settings {
    pub fn from_env() -> Self {
        let seconds: Option<f64> = env_num("FAIRSIM_FUZZ_SECONDS");
        let long = seconds.is_some();
        // as last-run.txt prints it (0x...) or in decimal
        let hex = std::env::var("FAIRSIM_FUZZ_SEED")
            .ok()
            .and_then(|v| v.trim().strip_prefix("0x").and_then(|h| u64::from_str_radix(h, 16).ok()));
        let seed = hex.or_else(|| env_num("FAIRSIM_FUZZ_SEED")).unwrap_or_else(|| {
            if long {
                std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64
            } else {
                0x000f_a125_1a00
            }
        });
        let gdb = Command::new("gdb")
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        let stacks = gdb && env_num::<u8>("FAIRSIM_FUZZ_STACKS").map(|v| v != 0).unwrap_or(long);
        let findings = std::env::var_os("FAIRSIM_FUZZ_FINDINGS").map(PathBuf::from).unwrap_or_else(|| {
            if long {
                Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-findings")
            } else {
                Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz-findings")
            }
        });
        Settings {
            bin: std::env::var_os("FAIRSIM_FUZZ_BIN")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_fairsim"))),
            seed,
            first: env_num("FAIRSIM_FUZZ_FIRST").unwrap_or(0),
            cases: env_num("FAIRSIM_FUZZ_CASES").or(if long { None } else { Some(150) }),
            seconds: seconds.unwrap_or(40.0),
            timeout: Duration::from_secs_f64(env_num("FAIRSIM_FUZZ_TIMEOUT").unwrap_or(10.0)),
            rss_limit_kb: 2 << 20,
            as_limit: 8 << 30,
            fsize_limit: 1 << 30,
            stacks,
            wild: env_num("FAIRSIM_FUZZ_WILD").unwrap_or(0.1),
            findings,
            long,
            shrink_budget: Duration::from_secs(if long { 90 } else { 20 }),
        }
    }
}
