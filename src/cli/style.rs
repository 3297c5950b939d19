//! Colour for fairsim's own messages on stderr (`error:`, `warning:`,
//! `note:`), chosen once from `--color` and the `NO_COLOR` convention
//! (<https://no-color.org>: set and not empty means no colour).

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::ValueEnum;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum ColorArg {
    /// Colour when stderr is a terminal and NO_COLOR is not set.
    #[default]
    Auto,
    Always,
    Never,
}

static COLOR: AtomicBool = AtomicBool::new(false);

/// `--color` as given on the command line (`--color X` or `--color=X`),
/// read before clap parses so clap's own messages follow it too.
pub fn from_args(args: &[std::ffi::OsString]) -> ColorArg {
    let mut choice = ColorArg::Auto;
    let mut it = args.iter().map(|a| a.to_string_lossy());
    while let Some(a) = it.next() {
        let value = match a.strip_prefix("--color") {
            Some("") => it.next().map(|v| v.into_owned()),
            Some(rest) => rest.strip_prefix('=').map(str::to_string),
            None => continue,
        };
        if let Some(c) = value.and_then(|v| ColorArg::from_str(&v, true).ok()) {
            choice = c;
        }
    }
    choice
}

/// Decides once whether messages are coloured; returns clap's setting.
pub fn init(choice: ColorArg) -> clap::ColorChoice {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let on = match choice {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => !no_color && std::io::stderr().is_terminal(),
    };
    COLOR.store(on, Ordering::Relaxed);
    if on {
        clap::ColorChoice::Always
    } else {
        clap::ColorChoice::Never
    }
}

/// `message` with its leading `error:`, `warning:` or `note:` coloured
/// (bold red, bold yellow, bold cyan) when colour is on.
pub fn paint(message: &str) -> String {
    if !COLOR.load(Ordering::Relaxed) {
        return message.to_string();
    }
    for (word, code) in [("error:", "1;31"), ("warning:", "1;33"), ("note:", "1;36")] {
        if let Some(rest) = message.strip_prefix(word) {
            return format!("\x1b[{code}m{word}\x1b[0m{rest}");
        }
    }
    message.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_color_option_wins_in_either_spelling() {
        let args = |v: &[&str]| v.iter().map(std::ffi::OsString::from).collect::<Vec<_>>();
        assert_eq!(from_args(&args(&["fairsim", "run", "x"])), ColorArg::Auto);
        assert_eq!(from_args(&args(&["fairsim", "--color", "never", "run"])), ColorArg::Never);
        assert_eq!(
            from_args(&args(&["fairsim", "run", "--color=always", "--color", "never"])),
            ColorArg::Never
        );
    }
}
