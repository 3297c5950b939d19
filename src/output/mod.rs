//! Exporters over the results model: the CSV tables, the console table and
//! JSON, the charts and the HTML report; and the results folder they write
//! into ([`folder`]).

pub mod args;
pub mod charts;
pub mod combined;
pub mod console;
pub mod decisions;
pub mod estimate;
pub mod expansion;
pub mod folder;
pub mod load;
pub mod report;
pub mod seeds;
pub mod tables;
pub mod topology;

pub use args::OutputArgs;
pub use folder::StagedDir;
