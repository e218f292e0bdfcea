//! The library API (`ptxsim_exec::api`): launches with buffers and scalars, errors as values
//! with locations, and global memory backed by a host-memory backend (what `ptx_run` uses).

use std::sync::{Arc, Mutex};

use ptxsim_exec::api::{Arg, Error, LaunchOptions, Module, Options};
use ptxsim_exec::memory::{HOST_PAGE_BYTES, HostMemory};
use ptxsim_exec::{BuildError, LaunchError, Outcome};

/// `p[tid] = p[tid] + add` for `tid < n`, with `p` a u32 array.
const ADD: &str = "
.version 8.0
.target sm_90
.address_size 64
.visible .entry add(.param .u64 p, .param .u32 add, .param .u32 n)
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    .reg .pred %q;
    ld.param.u64 %rd1, [p];
    ld.param.u32 %r1, [add];
    ld.param.u32 %r2, [n];
    mov.u32 %r3, %tid.x;
    setp.ge.u32 %q, %r3, %r2;
    @%q ret;
    mul.wide.u32 %rd2, %r3, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.u32 %r4, [%rd3];
    add.s32 %r5, %r4, %r1;
    st.global.u32 [%rd3], %r5;
    ret;
}
.visible .entry spin()
{
$loop:
    bra $loop;
}
";

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn buffers_go_in_and_out() {
    let module = Module::load(ADD, &Options::default()).unwrap();
    assert_eq!(module.kernels().collect::<Vec<_>>(), ["add", "spin"]);
    let mut data: Vec<u8> = (0..8u32).flat_map(|v| v.to_le_bytes()).collect();
    let report = module
        .launch(
            "add",
            [1, 1, 1],
            [8, 1, 1],
            &mut [Arg::Buffer(&mut data), Arg::U32(10), Arg::Bits(6)],
            &LaunchOptions::default(),
        )
        .unwrap();
    assert_eq!(words(&data), [10, 11, 12, 13, 14, 15, 6, 7]);
    assert_eq!(report.ctas, 1);
    assert!(report.steps > 0);
}

#[test]
fn errors_are_values() {
    let module = Module::load(ADD, &Options::default()).unwrap();
    let options = LaunchOptions::default();
    assert!(matches!(
        module.launch("nope", [1, 1, 1], [1, 1, 1], &mut [], &options),
        Err(Error::Build(BuildError::EntryNotFound { .. }))
    ));
    assert!(matches!(
        module.launch("add", [1, 1, 1], [1, 1, 1], &mut [Arg::U32(1)], &options),
        Err(Error::Launch(LaunchError::Arguments { .. }))
    ));
    assert!(matches!(
        module.launch("spin", [0, 1, 1], [1, 1, 1], &mut [], &options),
        Err(Error::Launch(LaunchError::Shape(_)))
    ));
    let limited = LaunchOptions {
        max_steps: 100,
        ..LaunchOptions::default()
    };
    let error = module
        .launch("spin", [1, 1, 1], [1, 1, 1], &mut [], &limited)
        .unwrap_err();
    assert!(
        matches!(
            error,
            Error::Run {
                outcome: Some(Outcome::OutOfFuel),
                ..
            }
        ),
        "{error:?}"
    );
    assert!(error.to_string().contains("100 steps"), "{error}");
    // A pointer no buffer holds (no host memory mapped): a located fault.
    let error = module
        .launch(
            "add",
            [1, 1, 1],
            [1, 1, 1],
            &mut [Arg::U64(0x1000), Arg::U32(1), Arg::U32(1)],
            &LaunchOptions::default(),
        )
        .unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("18:5: trap: address outside every buffer"),
        "{error}"
    );
}

#[test]
fn check_errors_carry_locations() {
    let broken = ADD.replace("add.s32 %r5", "add.q32 %r5");
    let Err(Error::Check {
        diagnostics,
        rendered,
    }) = Module::load(&broken, &Options::default())
    else {
        panic!("the module must not check");
    };
    assert!(!diagnostics.is_empty());
    assert!(rendered.starts_with("19:8: error[E0301]"), "{rendered}");
}

/// Host memory for the tests: two pages at `BASE`, the second read-only; a log of writes.
#[derive(Debug)]
struct FakeHost {
    bytes: Mutex<Vec<u8>>,
    writes: Mutex<Vec<(u64, usize)>>,
}

const BASE: u64 = 0x10_0000;

impl HostMemory for FakeHost {
    fn read(&self, address: u64, out: &mut [u8]) -> bool {
        let bytes = self.bytes.lock().unwrap();
        let Some(start) = address.checked_sub(BASE) else {
            return false;
        };
        match bytes.get(start as usize..start as usize + out.len()) {
            Some(source) => {
                out.copy_from_slice(source);
                true
            }
            None => false,
        }
    }

    fn write(&self, address: u64, data: &[u8]) -> bool {
        let start = (address - BASE) as usize;
        if start + data.len() > HOST_PAGE_BYTES as usize {
            return false;
        }
        self.writes.lock().unwrap().push((address, data.len()));
        self.bytes.lock().unwrap()[start..start + data.len()].copy_from_slice(data);
        true
    }
}

#[test]
fn host_memory_is_read_per_page_and_written_back_where_changed() {
    let module = Module::load(ADD, &Options::default()).unwrap();
    let host = Arc::new(FakeHost {
        bytes: Mutex::new(vec![0; 2 * HOST_PAGE_BYTES as usize]),
        writes: Mutex::new(Vec::new()),
    });
    let options = LaunchOptions {
        host_memory: Some(host.clone()),
        ..LaunchOptions::default()
    };
    // Four words at BASE + 8: adding 0 to the first two changes nothing.
    let pointer = Arg::U64(BASE + 8);
    let report = module
        .launch(
            "add",
            [1, 1, 1],
            [4, 1, 1],
            &mut [pointer, Arg::U32(0), Arg::U32(4)],
            &options,
        )
        .unwrap();
    assert_eq!(report.host_bytes_written, 0);
    host.bytes.lock().unwrap()[16] = 1;
    host.bytes.lock().unwrap()[20] = 1;
    let report = module
        .launch(
            "add",
            [1, 1, 1],
            [4, 1, 1],
            &mut [Arg::U64(BASE + 8), Arg::U32(0x100), Arg::U32(4)],
            &options,
        )
        .unwrap();
    // Each word's second byte changed: four one-byte runs.
    assert_eq!(report.host_bytes_written, 4);
    assert_eq!(
        *host.writes.lock().unwrap(),
        [
            (BASE + 9, 1),
            (BASE + 13, 1),
            (BASE + 17, 1),
            (BASE + 21, 1)
        ]
    );
    let bytes = host.bytes.lock().unwrap().clone();
    assert_eq!(words(&bytes[8..24]), [0x100, 0x100, 0x101, 0x101]);
    // The second page cannot be written: the launch says so.
    let error = module
        .launch(
            "add",
            [1, 1, 1],
            [1, 1, 1],
            &mut [Arg::U64(BASE + HOST_PAGE_BYTES), Arg::U32(1), Arg::U32(1)],
            &options,
        )
        .unwrap_err();
    assert!(matches!(error, Error::HostWrite(_)), "{error:?}");
    // Past the host memory: an unmapped fault, located.
    let error = module
        .launch(
            "add",
            [1, 1, 1],
            [1, 1, 1],
            &mut [
                Arg::U64(BASE + 2 * HOST_PAGE_BYTES),
                Arg::U32(1),
                Arg::U32(1),
            ],
            &options,
        )
        .unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("18:5: trap: address outside every buffer"),
        "{error}"
    );
}

/// `out[0] = s.a * s.b + s.c` with `s` a struct `{ u32 a; u32 b; u64 c; }` passed by value
/// (16 bytes, align 8).
const STRUCT: &str = "
.version 8.0
.target sm_90
.address_size 64
.visible .entry mad_struct(.param .align 8 .b8 s[16], .param .u64 out)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<5>;
    ld.param.u32 %r1, [s];
    ld.param.u32 %r2, [s+4];
    ld.param.u64 %rd1, [s+8];
    ld.param.u64 %rd2, [out];
    mul.wide.u32 %rd3, %r1, %r2;
    add.s64 %rd4, %rd3, %rd1;
    st.global.u64 [%rd2], %rd4;
    ret;
}";

#[test]
fn struct_parameter_takes_its_bytes() {
    let module = Module::load(STRUCT, &Options::default()).expect("the module checks");
    let mut s = Vec::new();
    s.extend(70_000u32.to_le_bytes());
    s.extend(90_000u32.to_le_bytes());
    s.extend(5u64.to_le_bytes());
    let mut out = [0u8; 8];
    module
        .launch(
            "mad_struct",
            [1, 1, 1],
            [1, 1, 1],
            &mut [Arg::Bytes(&s), Arg::Buffer(&mut out)],
            &LaunchOptions::default(),
        )
        .expect("the launch completes");
    // 70,000 * 90,000 = 6,300,000,000 (past 32 bits) + 5.
    assert_eq!(u64::from_le_bytes(out), 6_300_000_005);
    let short = [0u8; 15];
    let error = module
        .launch(
            "mad_struct",
            [1, 1, 1],
            [1, 1, 1],
            &mut [Arg::Bytes(&short), Arg::Buffer(&mut out)],
            &LaunchOptions::default(),
        )
        .expect_err("15 bytes for a 16-byte parameter");
    assert!(
        error
            .to_string()
            .contains("argument 0 has 15 bytes but parameter 0 `s` has 16"),
        "{error}"
    );
}
