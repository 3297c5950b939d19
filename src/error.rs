//! The error type every fallible operation returns, and its exit code.

use std::path::PathBuf;

/// An error that ends a command.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Invalid input or usage (exit code 2): names the file, the place and the fix.
    #[error("{}", render_input(.file, *.line, *.column, .message))]
    Input {
        file: PathBuf,
        /// 1-based line, 0 when unknown.
        line: usize,
        /// 1-based column, 0 when unknown.
        column: usize,
        /// What is wrong and what to do about it.
        message: String,
    },
    /// A usage error not tied to a file (exit code 2).
    #[error("{0}")]
    Usage(String),
    /// Anything else (exit code 1): I/O failures while writing results, etc.
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
    /// Internal failure (exit code 1).
    #[error("{0}")]
    Other(String),
}

fn render_input(file: &std::path::Path, line: usize, column: usize, message: &str) -> String {
    match (line, column) {
        (0, _) => format!("{}: {message}", file.display()),
        (l, 0) => format!("{}:{l}: {message}", file.display()),
        (l, c) => format!("{}:{l}:{c}: {message}", file.display()),
    }
}

impl Error {
    /// Process exit code: 2 for bad input or usage, 1 otherwise.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Input { .. } | Error::Usage(_) => 2,
            Error::Io { .. } | Error::Other(_) => 1,
        }
    }

    /// An input error at a place in a file.
    pub fn input(file: impl Into<PathBuf>, line: usize, column: usize, message: impl Into<String>) -> Self {
        Error::Input { file: file.into(), line, column, message: message.into() }
    }

    /// Wraps an I/O error with what was being done.
    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io { context: context.into(), source }
    }
}

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
