//! A check-only stand-in for `ptxsim check --format json`, for the differential scripts of
//! `scripts/conformance/` (`fuzz.py --ptxsim target/debug/examples/check_json`): it builds in a
//! fraction of the CLI's time. It takes the CLI's arguments (`check FILE... --format json
//! --max-diagnostics N`, the words other than files are ignored) and prints, per file, the JSON
//! line the CLI prints, from the same function (`ptxsim_check::check_source`).

use ptxsim_syntax::diag::{LineIndex, decode_source};
use std::fmt::Write as _;
use std::process::ExitCode;

/// `text` as a JSON string literal.
fn quoted(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn main() -> ExitCode {
    let mut files = Vec::new();
    let mut arguments = std::env::args().skip(1);
    while let Some(argument) = arguments.next() {
        match argument.as_str() {
            "check" => {}
            "--format" | "--max-diagnostics" | "--target" => {
                arguments.next();
            }
            _ => files.push(argument),
        }
    }
    let options = ptxsim_check::Options::default();
    let mut any_errors = false;
    for file in files {
        let Ok(bytes) = std::fs::read(&file) else {
            eprintln!("cannot read `{file}`");
            return ExitCode::from(2);
        };
        let (source, encoding) = decode_source(&bytes);
        let mut diagnostics = ptxsim_check::check_source(&source, &options);
        if let Some(encoding) = encoding {
            diagnostics.insert(0, encoding);
        }
        any_errors |= diagnostics.iter().any(|d| d.is_error());
        let index = LineIndex::new(&source);
        let mut line = format!("{{\"file\":{},\"diagnostics\":[", quoted(&file));
        for (i, diagnostic) in diagnostics.iter().enumerate() {
            let (row, column) = index.line_column(&source, diagnostic.span.range().start);
            let _ = write!(
                line,
                "{}{{\"severity\":\"{}\",\"code\":\"{}\",\"message\":{},\"line\":{row},\"column\":{column}}}",
                if i == 0 { "" } else { "," },
                diagnostic.severity.as_str(),
                diagnostic.code,
                quoted(&diagnostic.message),
            );
        }
        line.push_str("]}");
        println!("{line}");
    }
    if any_errors {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
