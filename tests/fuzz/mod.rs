//! The fuzzer's parts, used by tests/fuzz_inputs.rs only. They live in a
//! folder with a mod.rs because cargo builds every tests/*.rs file as a test
//! target of its own.

pub mod cases;
pub mod costs;
pub mod entries;
pub mod findings;
pub mod keys;
pub mod layout;
pub mod mutate;
pub mod objectives;
pub mod policy;
pub mod presets;
pub mod runner;
pub mod scalars;
pub mod scenario;
pub mod settings;
pub mod traces;
pub mod vocab;
pub mod wave;
pub mod yaml;
