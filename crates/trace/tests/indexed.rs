//! `index` (a trace checked whole, its steps parsed again when read) against `parse`: the same
//! errors on malformed traces, the same steps, and `diff` gives the same report whether it
//! reads parsed or indexed traces, in any mix.

use std::borrow::Cow;

use ptxsim_trace::{End, Header, Records, Step, Trace, diff, index, parse};

const A: &str = r#"{"ptxsim_trace":1,"entry":"k","threads":2,"grid":[1,1,1],"block":[2,1,1],"registers":[{"name":"%r0","type":"b32"}]}
{"step":0,"thread":0,"pc":0,"line":5,"text":"mov.b32 %r0, 1","executed":true,"writes":[{"reg":"%r0","old":"0x00000000","new":"0x00000001"}]}
{"step":0,"thread":1,"pc":0,"line":5,"text":"mov.b32 %r0, 1","executed":true,"writes":[{"reg":"%r0","old":"0x00000000","new":"0x00000001"}]}
{"step":1,"thread":0,"pc":1,"line":6,"text":"add.s32 %r0, %r0, 1","executed":true,"writes":[{"reg":"%r0","old":"0x00000001","new":"0x00000002"}]}
{"step":1,"thread":1,"pc":1,"line":6,"text":"add.s32 %r0, %r0, 1","executed":true,"writes":[{"reg":"%r0","old":"0x00000001","new":"0x00000002"}],"mem":[{"space":"global","addr":"0x7f0000000000","bytes":4,"value":"0x00000002"}]}
{"end":"exited","steps":4}
"#;

/// Variants of A: each line changed, cut or added in some way.
fn variants() -> Vec<String> {
    let lines: Vec<&str> = A.lines().collect();
    let mut out = vec![
        A.to_string(),
        A.replacen("\"new\":\"0x00000002\"", "\"new\":\"0x00000003\"", 1),
        A.replace("add.s32 %r0, %r0, 1", "add.u32 %r0, %r0, 1"),
        A.replace("\"end\":\"exited\"", "\"end\":\"trapped\""),
        A.replace("\"entry\":\"k\"", "\"entry\":\"other\""),
        // Without the end line; without the last step.
        lines[..5].join("\n") + "\n",
        [&lines[..4], &lines[5..]].concat().join("\n") + "\n",
        // Malformed: a thread outside the launch, a broken line, no header.
        A.replacen("\"thread\":1,", "\"thread\":7,", 1),
        A.replacen("\"pc\":1,", "\"pc\":", 1),
        lines[1..].join("\n") + "\n",
        String::new(),
    ];
    out.push(A.replace('\n', "\r\n"));
    out
}

#[test]
fn index_accepts_and_refuses_what_parse_does() {
    for text in variants() {
        match (parse(&text), index(&text)) {
            (Ok(parsed), Ok(indexed)) => {
                assert_eq!(parsed.format, indexed.format);
                assert_eq!(parsed.header, indexed.header);
                assert_eq!(parsed.end, indexed.end);
                assert_eq!(parsed.steps.len(), indexed.len());
                for (position, (line, step)) in parsed.steps.iter().enumerate() {
                    assert_eq!(indexed.step(position), Some((*line, step.clone())));
                }
                assert_eq!(indexed.step(parsed.steps.len()), None);
            }
            (Err(parsed), Err(indexed)) => assert_eq!(parsed, indexed, "{text}"),
            (parsed, indexed) => panic!("{text}: parse {parsed:?}, index {indexed:?}"),
        }
    }
}

#[test]
fn diff_reads_indexed_traces_as_parsed_ones() {
    let texts: Vec<String> = variants()
        .into_iter()
        .filter(|text| parse(text).is_ok())
        .collect();
    assert_eq!(texts.len(), 8, "the well-formed variants");
    for a in &texts {
        for b in &texts {
            let (pa, pb) = (parse(a).expect("a"), parse(b).expect("b"));
            let (ia, ib) = (index(a).expect("a"), index(b).expect("b"));
            let expected = diff(&pa, "a", &pb, "b", 3);
            assert_eq!(diff(&ia, "a", &ib, "b", 3), expected, "{a}\n{b}");
            assert_eq!(diff(&pa, "a", &ib, "b", 3), expected, "{a}\n{b}");
            assert_eq!(diff(&ia, "a", &pb, "b", 3), expected, "{a}\n{b}");
            assert_eq!(
                expected.is_none(),
                a == b || a.replace('\r', "") == b.replace('\r', "")
            );
            assert_eq!(ia.step_count(), pa.steps.len() as u64);
        }
    }
}

/// A trace of which only the first steps are kept and the rest counted, as `run --expect`
/// collects one.
struct Bounded {
    kept: Trace,
    more: u64,
}

impl Records for Bounded {
    fn header(&self) -> &Header {
        &self.kept.header
    }
    fn len(&self) -> usize {
        self.kept.steps.len()
    }
    fn step_count(&self) -> u64 {
        self.kept.steps.len() as u64 + self.more
    }
    fn step(&self, index: usize) -> Option<(usize, Cow<'_, Step>)> {
        self.kept.step(index)
    }
    fn end(&self) -> Option<&(usize, End)> {
        self.kept.end.as_ref()
    }
}

#[test]
fn a_trace_collected_up_to_a_bound_reports_its_whole_length() {
    let stored =
        parse(&(A.lines().take(3).collect::<Vec<_>>().join("\n") + "\n")).expect("2 steps");
    let mut kept = parse(A).expect("A");
    kept.steps.truncate(3);
    let run = Bounded { kept, more: 997 };
    let report = diff(&stored, "stored", &run, "this run", 3).expect("they differ");
    assert!(
        report.contains("stored has 2 step records and this run 1000; this run:4 goes on"),
        "{report}"
    );
}
