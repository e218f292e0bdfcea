//! The `ptxsim` command-line tool.
fn main() {}
