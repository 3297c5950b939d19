# Sourced by the suites under deploy/: sets FAIRSIM to the release binary,
# unless it is set already. Cargo is asked where it put the binary: it is
# `target/release/fairsim` only when neither CARGO_TARGET_DIR nor a cargo
# config moves the target folder. Needs `root` (the repository) and `say`.
if [ -z "${FAIRSIM:-}" ]; then
  FAIRSIM=$(cd "$root" && nice -n 10 cargo build --release --locked --bin fairsim \
    --message-format=json-render-diagnostics |
    sed -n '/"reason":"compiler-artifact"/s/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)
fi
if [ ! -x "$FAIRSIM" ]; then
  say "no fairsim binary (cargo reported '$FAIRSIM'); set FAIRSIM to one"
  exit 1
fi
