//! The reader on well-formed and malformed traces: every line of both forms round-trips, and
//! no mangling of a trace makes the reader panic; its errors name the line.

use ptxsim_trace::{Format, Line, parse, parse_json_line};

const JSONL: &str = r#"{"ptxsim_trace":1,"entry":"k","threads":2,"grid":[1,1,1],"block":[2,1,1],"filter":"0-1;mem","registers":[{"name":"%p0","type":"pred"},{"name":"%r0","type":"b32"},{"name":"%rd0","type":"b64"}]}
{"step":0,"thread":0,"pc":0,"line":5,"text":"@%p0 bra DONE","executed":false,"writes":[]}
{"step":1,"thread":0,"pc":1,"line":6,"text":"setp.eq.s32 %p0|%p1, %r0, 1","executed":true,"writes":[{"reg":"%p0","old":"0x0","new":"0x1"}]}
{"step":2,"thread":1,"pc":2,"line":7,"text":"st.global.u32 [%rd0], \"\\\u0001","executed":true,"writes":[{"reg":"%r0","old":"0x00000000","new":"0x00000001"}],"mem":[{"space":"global","addr":"0x7f0000000000","bytes":4,"value":"0x00000001"}]}
{"end":"exited","steps":3}
"#;

/// The trace printed line by line in `format`.
fn print(contents: &str, format: Format) -> String {
    let trace = parse(contents).expect("the trace parses");
    std::iter::once(Line::Header(trace.header))
        .chain(trace.steps.into_iter().map(|(_, step)| Line::Step(step)))
        .chain(trace.end.map(|(_, end)| Line::End(end)))
        .map(|line| format.write(&line) + "\n")
        .collect()
}

#[test]
fn both_forms_round_trip() {
    assert_eq!(print(JSONL, Format::Jsonl), JSONL);
    let text = print(JSONL, Format::Text);
    assert_eq!(parse(&text).expect("text parses").format, Format::Text);
    assert_eq!(print(&text, Format::Text), text);
    assert_eq!(print(&text, Format::Jsonl), JSONL);
}

#[test]
fn unknown_keys_are_skipped_and_key_order_is_free() {
    let line = r#"{"executed":true,"later":{"a":[1,null]},"writes":[],"text":"ret","line":9,"pc":4,"thread":0,"step":7}"#;
    let Ok(Line::Step(step)) = parse_json_line(line) else {
        panic!("a step")
    };
    assert_eq!((step.step, step.pc, step.line), (7, 4, 9));
}

#[test]
fn errors_name_the_line_and_what_is_wrong() {
    let lines: Vec<&str> = JSONL.lines().collect();
    let cases = [
        (
            3,
            "{\"step\":2,\"thread\":0",
            "column 20: EOF while parsing an object",
        ),
        (3, "{\"step\":3,\"thread\":0}", "missing key `pc`"),
        (
            2,
            "{\"step\":0,\"thread\":0,\"pc\":0,\"line\":5,\"text\":\"x\",\"executed\":true,\"writes\":[{\"reg\":\"%r0\",\"old\":\"0\",\"new\":\"0x1\"}]}",
            "`old`: `0` is not a hex value",
        ),
        (
            2,
            "{\"step\":\"0\"}",
            "column 11: invalid type: string \"0\", expected u64",
        ),
        (4, "[1,2]", "expected a JSON object"),
        (
            4,
            "{\"end\":\"exited\",\"steps\":[]}",
            "column 24: invalid type: sequence, expected u64",
        ),
        (1, "{\"ptxsim_trace\":2}", "trace format version 2"),
        (4, "", "empty line"),
        (4, "{}", "expected a header, step or end object"),
    ];
    for (number, replacement, message) in cases {
        let mut mangled = lines.clone();
        mangled[number - 1] = replacement;
        let error = parse(&(mangled.join("\n") + "\n")).expect_err(replacement);
        assert_eq!(error.line, number, "{replacement}: {error}");
        assert!(error.message.contains(message), "{replacement}: {error}");
    }
    let after = format!("{JSONL}{}\n", lines[1]);
    let error = parse(&after).expect_err("a line after the end");
    assert_eq!(
        (error.line, error.message.as_str()),
        (6, "a line after the end line")
    );
}

/// Every prefix of every line, and every line with one byte replaced by each of a few
/// characters that matter to JSON and to the text form, in both forms: the reader answers
/// (mostly with an error) and never panics.
#[test]
fn malformed_input_never_panics() {
    let text = print(JSONL, Format::Text);
    let mut answered = 0;
    for contents in [JSONL, text.as_str()] {
        let lines: Vec<&str> = contents.lines().collect();
        for (number, line) in lines.iter().enumerate() {
            let mut variants: Vec<String> = (0..line.len())
                .filter(|&end| line.is_char_boundary(end))
                .map(|end| line[..end].to_string())
                .collect();
            for (index, _) in line.char_indices() {
                for replacement in [
                    "{", "}", "[", "]", "\"", "\\", ",", ":", " ", "|", "=", ">", "0", "x", "-",
                    "\u{0}", "é",
                ] {
                    let mut changed = line.to_string();
                    let width = line[index..].chars().next().map_or(1, char::len_utf8);
                    changed.replace_range(index..index + width, replacement);
                    variants.push(changed);
                }
            }
            for variant in variants {
                let mut mangled: Vec<&str> = lines.clone();
                mangled[number] = &variant;
                if let Err(error) = parse(&mangled.join("\n")) {
                    assert!(error.line >= 1 && error.line <= lines.len(), "{error}");
                }
                answered += 1;
            }
        }
    }
    assert!(answered > 10_000, "{answered}");
}

#[test]
fn a_step_of_a_thread_the_launch_does_not_have_is_an_error() {
    // The header's launch has 2 threads: a step of thread 99999 names the line.
    let mangled = JSONL.replacen("\"thread\":1,", "\"thread\":99999,", 1);
    let error = parse(&mangled).expect_err("thread 99999 of 2");
    assert_eq!(error.line, 4);
    assert!(
        error.message.contains("thread 99999 does not exist"),
        "{}",
        error.message
    );
}
