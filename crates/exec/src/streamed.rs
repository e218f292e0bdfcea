//! A traced grid run whose trace streams out as it is made (`ptxsim run --trace`): the lines of
//! [`crate::trace`], passed to a sink CTA by CTA instead of kept, so that the memory a traced
//! launch takes does not grow with its trace.

use ptxsim_trace::Line;

use crate::device::Device;
use crate::dim::unflatten;
use crate::grid::{BATCH, GridOptions, GridRun, MAX_BATCH, failure, inspect};
use crate::machine::Cta;
use crate::step::StepRecord;
use crate::trace::{end, header, step};

/// Runs every CTA of the device's grid, one after the other, and hands `sink` the trace's lines
/// as they are made: the header, each issued step as soon as its CTA passes it on (CTAs in
/// order; within a CTA, each thread's steps between two barrier releases together, see
/// [`Cta::run`]), the end. Unlike [`crate::grid::run_grid`], which formats each CTA's lines and
/// keeps a batch of CTAs' traces before passing them on, nothing is kept here, so the memory a
/// traced launch takes does not grow with its trace; the sink filters and writes as it goes.
///
/// The result, and the lines, are those of `run_grid`: the CTAs run in the same batches
/// ([`BATCH`], doubling up to [`MAX_BATCH`]), a failure stops the launch at the end of its
/// batch, the first failure is the lowest-numbered CTA's. `options.host_threads` is not used
/// (the CTAs run on the calling thread).
pub fn run_grid_streamed(
    device: &Device<'_>,
    options: GridOptions,
    sink: &mut dyn FnMut(Line),
    progress: Option<&dyn Fn(u64, u64)>,
) -> GridRun {
    let program = device.program();
    sink(Line::Header(header(program, device.grid(), device.block())));
    let total = device.ctas();
    let mut run = GridRun {
        steps: 0,
        ctas_run: 0,
        failure: None,
        inspected: None,
        printed: Vec::new(),
        printed_dropped: 0,
        printed_bytes: 0,
    };
    let mut slot: Option<Cta> = None;
    let mut start = 0;
    let mut batch = BATCH;
    while start < total && run.failure.is_none() {
        let end = total.min(start + batch);
        batch = (batch * 2).min(MAX_BATCH);
        for linear in start..end {
            let ctaid = unflatten(linear, device.grid());
            let cta = match &mut slot {
                Some(cta) => {
                    cta.reset(device, ctaid, true);
                    cta
                }
                None => slot.insert(Cta::new(device, ctaid)),
            };
            let result = {
                let mut each = |record: &StepRecord| sink(Line::Step(step(program, record)));
                cta.run(device, Some(&mut each))
            };
            run.steps += cta.threads().map(|t| t.steps()).sum::<u64>();
            let (printed, dropped) = cta.take_printed();
            run.add_printed(printed, dropped);
            run.ctas_run += 1;
            let failure = failure(device, cta, result);
            if let Some(inspected) = inspect(device, cta, &options) {
                run.inspected = Some(inspected);
            }
            if run.failure.is_none() {
                run.failure = failure;
            }
        }
        if let Some(progress) = progress {
            progress(end, total);
        }
        start = end;
    }
    sink(Line::End(end(run.steps, run.outcome().as_ref())));
    run
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::{self, Argument};

    /// Each thread waits at a barrier, then stores its global index into `out[i]`; `out` holds
    /// 200 words, so on 2-thread CTAs CTA 100 is the first to store out of bounds.
    const KERNEL: &str = ".version 9.0\n.target sm_90\n.address_size 64\n\
        .visible .entry k(.param .u64 out)\n{\n\
        .reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n\
        ld.param.u64 %rd0, [out];\n\
        mov.u32 %r0, %ctaid.x;\nmov.u32 %r1, %ntid.x;\nmov.u32 %r2, %tid.x;\n\
        mad.lo.s32 %r0, %r0, %r1, %r2;\n\
        bar.sync 0;\n\
        mul.wide.u32 %rd1, %r0, 4;\nadd.s64 %rd2, %rd0, %rd1;\n\
        st.global.u32 [%rd2], %r0;\nret;\n}\n";

    /// The lines and the result of `run_grid` and of `run_grid_streamed` on `ctas` CTAs.
    fn both(ctas: u32) -> ((Vec<String>, GridRun), (Vec<String>, GridRun)) {
        let program = crate::load(KERNEL, None).expect("the kernel checks");
        let launch = || {
            grid::prepare(
                &program,
                [ctas, 1, 1],
                [2, 1, 1],
                1_000,
                vec![Argument::Buffer(vec![0; 4 * 200])],
            )
            .expect("a valid launch")
            .0
        };
        let options = GridOptions {
            host_threads: 2,
            inspect: ([3, 0, 0], [1, 0, 0]),
            ..GridOptions::default()
        };
        let device = launch();
        let mut batched = Vec::new();
        let mut sink = |line: &str| batched.push(line.to_string());
        let batched_run = grid::run_grid(&device, options, Some(&mut sink), None);
        let device = launch();
        let mut streamed = Vec::new();
        let mut sink = |line: Line| streamed.push(ptxsim_trace::to_json(&line));
        let streamed_run = run_grid_streamed(&device, options, &mut sink, None);
        ((batched, batched_run), (streamed, streamed_run))
    }

    #[test]
    fn streamed_runs_give_the_lines_and_result_of_run_grid() {
        // 100 CTAs fill the buffer exactly: every thread exits.
        let (batched, streamed) = both(100);
        assert!(batched.1.failure.is_none());
        // A header, 2 threads × 100 CTAs × 10 steps, an end.
        assert_eq!(batched.0.len(), 2 + 2 * 100 * 10);
        assert_eq!(streamed, batched);
    }

    #[test]
    fn a_failure_stops_the_streamed_run_after_its_batch_as_run_grid_does() {
        // CTA 100 stores out of bounds; it is in the second batch (CTAs 64..192), whose CTAs
        // all run before the launch stops: 192 CTAs, the failure is CTA 100's.
        let (batched, streamed) = both(300);
        let failure = batched.1.failure.as_ref().expect("CTA 100 faults");
        assert_eq!(failure.cta, [100, 0, 0]);
        assert_eq!(batched.1.ctas_run, 192);
        assert_eq!(streamed, batched);
    }
}
