//! `wgmma.mma_async` against an H100: every tile of `tests/hardware/wgmma/wgmma-golden.bin.xz`
//! (the raw shared-memory regions of A and B, the descriptors, every thread's accumulator
//! registers before and after; format in `scripts/hardware/wgmma/wgmma.cu`) run through the
//! whole of ptxsim — checker, program builder, the warpgroup's rendezvous, the descriptors'
//! layouts, the tensor-core model — by generated kernels that do what the probe did: copy the
//! regions to shared memory, load C, one `wgmma.mma_async` between `wgmma.fence` and
//! `commit_group`/`wait_group 0`, store D. Each tile is one CTA of 128 threads; the D words of
//! each tile are compared bit for bit and counted per form ([`EXPECTED`]). Also the traps of a
//! warpgroup that does not arrive whole, of a descriptor outside shared memory and of A in
//! registers.

use ptxsim_exec::grid::{self, Argument, GridOptions};

/// (form as the probe names it, tiles matching, tiles) as of this model: every tile of every
/// form matches.
const EXPECTED: &[(&str, usize, usize)] = &[
    ("m64n8k16.f32.f16.f16", 28, 28),
    ("m64n8k16.f16.f16.f16", 28, 28),
    ("m64n8k16.f32.bf16.bf16", 28, 28),
    ("m64n8k8.f32.tf32.tf32", 28, 28),
    ("m64n8k32.f32.e4m3.e4m3", 28, 28),
    ("m64n8k32.f32.e5m2.e4m3", 28, 28),
    ("m64n8k32.f16.e4m3.e4m3", 28, 28),
    ("m64n8k32.s32.s8.s8", 28, 28),
    ("m64n16k16.f32.f16.f16", 28, 28),
    ("m64n8k16.f32.f16.f16 scale-a -1", 28, 28),
    ("m64n8k16.f32.f16.f16 trans-a 1 trans-b 1", 28, 28),
];

const A_BYTES: usize = 2048;
const B_BYTES: usize = 512;
const THREADS: usize = 128;

/// One tile: the A region, the B region, the C words, the D words.
type Tile = (Vec<u8>, Vec<u8>, Vec<u8>, Vec<u8>);

struct Form {
    name: String,
    tiles: usize,
    nd: usize,
    /// Per tile: A region, B region, C words, D words.
    data: Vec<Tile>,
}

fn golden() -> Vec<Form> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/hardware/wgmma/wgmma-golden.bin.xz"
    );
    let packed = std::fs::read(path).expect("golden file");
    let mut raw = Vec::new();
    lzma_rs::xz_decompress(&mut packed.as_slice(), &mut raw).expect("xz");
    assert_eq!(&raw[..14], b"WGMMA-GOLDEN-1");
    let word = |at: usize| u32::from_le_bytes(raw[at..at + 4].try_into().unwrap()) as usize;
    let count = word(16);
    let mut at = 20;
    let mut forms = Vec::new();
    for _ in 0..count {
        let name = String::from_utf8(raw[at..at + 48].to_vec()).unwrap();
        let name = name.trim_end_matches('\0').to_string();
        at += 48;
        let (tiles, nd) = (word(at), word(at + 4));
        at += 8 + 16; // the descriptors' offsets: LBO 128, SBO 256 (the kernel builds its own)
        let mut data = Vec::new();
        for _ in 0..tiles {
            let mut take = |n: usize| {
                let part = raw[at..at + n].to_vec();
                at += n;
                part
            };
            let a = take(A_BYTES);
            let b = take(B_BYTES);
            let c = take(THREADS * nd * 4);
            let d = take(THREADS * nd * 4);
            data.push((a, b, c, d));
        }
        forms.push(Form {
            name,
            tiles,
            nd,
            data,
        });
    }
    forms
}

/// The instruction of a form and its immediates, as the probe wrote them.
fn instruction(name: &str) -> (String, &'static str) {
    let mut parts = name.split(' ');
    let shape_types = parts.next().unwrap_or_default().to_string();
    let tail = if name.ends_with("scale-a -1") {
        ", -1, 1, 0, 0"
    } else if name.ends_with("trans-b 1") {
        ", 1, 1, 1, 1"
    } else if shape_types.contains("s8") {
        ""
    } else if shape_types.contains("f16.f16") || shape_types.contains("bf16") {
        ", 1, 1, 0, 0"
    } else {
        ", 1, 1"
    };
    (shape_types, tail)
}

/// One CTA per tile: thread `t` copies words `t + 128i` of the A and B regions into shared
/// memory, loads its `nd` C words, runs the instruction with descriptors of the two regions
/// (no swizzle, leading byte offset 128, stride byte offset 256, as the probe), stores D.
/// Input per tile: A, B, C; output per tile: D.
fn kernel(shape_types: &str, tail: &str, nd: usize) -> String {
    let in_tile = A_BYTES + B_BYTES + THREADS * nd * 4;
    let out_tile = THREADS * nd * 4;
    let d_list = (0..nd)
        .map(|i| format!("%d{i}"))
        .collect::<Vec<_>>()
        .join(", ");
    let mut body = format!(
        ".version 8.0\n.target sm_90a\n.address_size 64\n\
         .shared .align 1024 .b8 sa[{A_BYTES}];\n.shared .align 1024 .b8 sb[{B_BYTES}];\n\
         .visible .entry k(.param .u64 in, .param .u64 out)\n{{\n\
         .reg .b32 %d<{nd}>, %w, %t, %tile, %sa, %sb, %s;\n.reg .b64 %p, %q, %off, %da, %db;\n\
         .reg .pred %scale;\n\
         mov.u32 %tile, %ctaid.x;\nmov.u32 %t, %tid.x;\n\
         ld.param.u64 %p, [in];\nld.param.u64 %q, [out];\n\
         mul.wide.u32 %off, %tile, {in_tile};\nadd.u64 %p, %p, %off;\n\
         mul.wide.u32 %off, %tile, {out_tile};\nadd.u64 %q, %q, %off;\n\
         mov.u32 %sa, sa;\nmov.u32 %sb, sb;\n\
         mul.wide.u32 %off, %t, 4;\nadd.u64 %p, %p, %off;\n\
         shl.b32 %s, %t, 2;\nadd.u32 %sa, %sa, %s;\nadd.u32 %sb, %sb, %s;\n"
    );
    for i in 0..A_BYTES / 4 / THREADS {
        body += &format!(
            "ld.global.b32 %w, [%p+{}];\nst.shared.b32 [%sa+{}], %w;\n",
            i * THREADS * 4,
            i * THREADS * 4
        );
    }
    for i in 0..B_BYTES / 4 / THREADS {
        body += &format!(
            "ld.global.b32 %w, [%p+{}];\nst.shared.b32 [%sb+{}], %w;\n",
            A_BYTES + i * THREADS * 4,
            i * THREADS * 4
        );
    }
    // C: thread t's words at A + B + t * nd * 4 (undo the t * 4 above).
    body += &format!(
        "sub.u64 %p, %p, %off;\nmul.wide.u32 %off, %t, {};\nadd.u64 %p, %p, %off;\n",
        nd * 4
    );
    for i in 0..nd {
        body += &format!("ld.global.b32 %d{i}, [%p+{}];\n", A_BYTES + B_BYTES + i * 4);
    }
    body += "bar.sync 0;\n\
             mov.u32 %sa, sa;\nmov.u32 %sb, sb;\n\
             cvt.u64.u32 %da, %sa;\nshr.u64 %da, %da, 4;\nand.b64 %da, %da, 0x3fff;\n\
             or.b64 %da, %da, 0x0000001000080000;\n\
             cvt.u64.u32 %db, %sb;\nshr.u64 %db, %db, 4;\nand.b64 %db, %db, 0x3fff;\n\
             or.b64 %db, %db, 0x0000001000080000;\n\
             setp.ne.b32 %scale, 1, 0;\n\
             wgmma.fence.sync.aligned;\n";
    body += &format!(
        "wgmma.mma_async.sync.aligned.{shape_types} {{{d_list}}}, %da, %db, %scale{tail};\n"
    );
    body += "wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n";
    body += &format!(
        "mul.wide.u32 %off, %t, {};\nadd.u64 %q, %q, %off;\n",
        nd * 4
    );
    for i in 0..nd {
        body += &format!("st.global.b32 [%q+{}], %d{i};\n", i * 4);
    }
    body + "ret;\n}\n"
}

/// Runs `source`'s kernel `k` on `ctas` CTAs of `threads` threads with the buffers `input` and
/// `out` bytes (initially `0xa5`); returns the second buffer, or the failure.
pub(super) fn run(
    source: &str,
    ctas: u32,
    threads: u32,
    input: Vec<u8>,
    out: usize,
) -> Result<Vec<u8>, String> {
    let program = ptxsim_exec::load(source, None).map_err(|e| format!("{e:?}"))?;
    let (device, addresses) = grid::prepare(
        &program,
        [ctas, 1, 1],
        [threads, 1, 1],
        100_000,
        vec![Argument::Buffer(input), Argument::Buffer(vec![0xa5; out])],
    )
    .map_err(|e| e.to_string())?;
    let run = grid::run_grid(&device, GridOptions::default(), None, None);
    if let Some(failure) = run.failure {
        return Err(format!("{failure:?}"));
    }
    Ok(device
        .global
        .buffer_at(addresses[1].expect("a buffer"))
        .expect("the buffer")
        .contents()
        .to_vec())
}

#[test]
fn golden_tiles_through_the_executor() {
    let forms = golden();
    assert_eq!(forms.len(), EXPECTED.len());
    let mut failures = Vec::new();
    for form in &forms {
        let (shape_types, tail) = instruction(&form.name);
        let source = kernel(&shape_types, tail, form.nd);
        let mut input = Vec::new();
        for (a, b, c, _) in &form.data {
            input.extend_from_slice(a);
            input.extend_from_slice(b);
            input.extend_from_slice(c);
        }
        let tile_bytes = THREADS * form.nd * 4;
        let out = run(
            &source,
            form.tiles as u32,
            THREADS as u32,
            input,
            form.tiles * tile_bytes,
        )
        .unwrap_or_else(|e| panic!("{}: {e}\n{source}", form.name));
        let matching = form
            .data
            .iter()
            .enumerate()
            .filter(|(tile, (.., d))| out[tile * tile_bytes..(tile + 1) * tile_bytes] == d[..])
            .count();
        eprintln!("{}: {matching}/{}", form.name, form.tiles);
        let expected = EXPECTED.iter().find(|(name, ..)| *name == form.name);
        if expected != Some(&(form.name.as_str(), matching, form.tiles)) {
            failures.push(format!(
                "{}: {matching}/{}, expected {expected:?}",
                form.name, form.tiles
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The first form's kernel with the launch or the instruction changed: the failure's text.
fn failure(threads: u32, change: impl Fn(String) -> String) -> String {
    let source = change(kernel("m64n8k16.f32.f16.f16", ", 1, 1, 0, 0", 4));
    let input = vec![0u8; A_BYTES + B_BYTES + THREADS * 16];
    match run(&source, 1, threads, input, THREADS * 16) {
        Ok(_) => panic!("expected a trap\n{source}"),
        Err(e) => e,
    }
}

/// "all threads in the warpgroup must execute the same wgmma.mma_async instruction": a CTA
/// of two warps and a warpgroup whose last warp exits first each trap with the instruction's
/// text.
#[test]
fn incomplete_warpgroups_trap() {
    let half = failure(64, |s| s);
    assert!(
        half.contains("needs all 128 threads of the warpgroup"),
        "{half}"
    );
    assert!(half.contains("wgmma.mma_async"), "{half}");
    let exited = failure(128, |s| {
        s.replace(
            "bar.sync 0;\n",
            "bar.sync 0;\n.reg .pred %late;\nsetp.ge.u32 %late, %t, 96;\n@%late ret;\n",
        )
    });
    assert!(exited.contains("needs all 128 threads"), "{exited}");
    assert!(exited.contains("96 executed it together"), "{exited}");
}

/// `scripts/hardware/wgmma/layouts.cu` as nvcc 13.5 builds it for sm_90a
/// (`tests/hardware/wgmma/wgmma_layouts.sm_90a.ptx`), run case by case and compared with what
/// the H100 gave (`tests/hardware/wgmma/wgmma-layouts.txt`): D = A (B is the identity), every
/// element of A a distinct integer code, so each D element says where A's element came from:
/// A in registers (`registers`), and A through descriptors of every swizzle mode, K-major and
/// MN-major (the H100 faulted on the probe's 128B K-major descriptor, which reaches past its
/// shared memory; ptxsim must trap there too).
#[test]
fn measured_layouts_of_a() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/hardware/wgmma/");
    let source = std::fs::read_to_string(format!("{root}wgmma_layouts.sm_90a.ptx")).expect("ptx");
    let measured = std::fs::read_to_string(format!("{root}wgmma-layouts.txt")).expect("data");
    let mut compared = 0;
    for case in measured.split("case ").skip(1) {
        let mut lines = case.lines();
        let name = lines.next().expect("a case name");
        let (entry, parameters) = if name == "registers" {
            ("_Z14from_registersPf", Vec::new())
        } else {
            let words: Vec<&str> = name.split_whitespace().collect();
            let mode = words[3];
            let (lbo, sbo, swizzle) = match mode {
                "none" => (128, 256, 0),
                "128B" => (16, 1024, 1),
                "64B" => (16, 512, 2),
                _ => (16, 256, 3),
            };
            let entry = if words[1] == "MN-major" {
                "_Z11from_sharedILi1EEvPfjjj"
            } else {
                "_Z11from_sharedILi0EEvPfjjj"
            };
            (entry, vec![lbo, sbo, swizzle])
        };
        let program = ptxsim_exec::load(&source, Some(entry)).expect("the probe builds");
        let mut arguments = vec![Argument::Buffer(vec![0; 4096])];
        arguments.extend(parameters.iter().map(|&v: &u64| Argument::Scalar {
            ty: ptxsim_isa::Type::U32,
            bits: v,
        }));
        let (device, addresses) =
            grid::prepare(&program, [1, 1, 1], [128, 1, 1], 1_000_000, arguments)
                .expect("a valid launch");
        let run = grid::run_grid(&device, GridOptions::default(), None, None);
        if name.contains("failed") {
            assert!(run.failure.is_some(), "{name}: the GPU faulted, ptxsim ran");
            continue;
        }
        assert!(run.failure.is_none(), "{name}: {:?}", run.failure);
        let out = device
            .global
            .buffer_at(addresses[0].expect("a buffer"))
            .expect("the buffer")
            .contents();
        let ours: Vec<i64> = out
            .chunks(4)
            .map(|w| f32::from_le_bytes([w[0], w[1], w[2], w[3]]) as i64)
            .collect();
        let theirs: Vec<i64> = lines
            .flat_map(|l| {
                l.split_whitespace()
                    .map(|v| v.parse::<i64>().expect("a code"))
            })
            .collect();
        assert_eq!(theirs.len(), 1024, "{name}");
        let differing = ours.iter().zip(&theirs).filter(|(a, b)| a != b).count();
        assert_eq!(differing, 0, "{name}: {differing} of 1024 elements differ");
        compared += 1;
    }
    assert_eq!(compared, 8);
}

/// A descriptor whose matrix reaches past the CTA's shared memory traps (located), it does not
/// panic.
#[test]
fn a_descriptor_outside_shared_memory_traps() {
    let message = failure(128, |s| {
        s.replace(
            "or.b64 %db, %db, 0x0000001000080000;",
            "or.b64 %db, %db, 0x0000001003ff0000;",
        )
    });
    assert!(
        message.contains("of B through its matrix descriptor"),
        "{message}"
    );
}

/// The canonical layouts of the ISA's worked examples (9.7.15.5.1.2.1.3): "K-Major,
/// no-swizzling and tf32 type ... Swizzle<0,4,3> o ((8,2),(4,4)):((4,32),(1,64))" with LBO 64
/// and SBO 32 tf32 elements, and "MN-Major, no-swizzling and bf16 type ... Swizzle<0,4,3> o
/// ((8,1,2),(8,2)):((1,8,64),(8,128))" with LBO 128, SBO 64 elements; the swizzled
/// "MN-Major, 64B swizzling and bf16 ... Swizzle<2,4,3> o ((8,4,2),(8,2)):((1,8,256),(32,512))"
/// (LBO 256, SBO 512 elements) before its swizzle, which XORs byte-address bits 7-8 into 4-5.
#[test]
fn descriptor_layouts_follow_the_isa_examples() {
    use ptxsim_exec::alu::wgmma::Descriptor;
    let descriptor = |lbo: u64, sbo: u64, mode: u64| {
        Descriptor::decode((lbo >> 4) << 16 | (sbo >> 4) << 32 | mode << 62)
    };
    // K-major tf32: row (8,2):(4,32), column (4,4):(1,64).
    let k_major = descriptor(64 * 4, 32 * 4, 0);
    for row in 0..16 {
        for k in 0..8 {
            let elements = (row % 8) * 4 + (row / 8) * 32 + (k % 4) + (k / 4) * 64;
            assert_eq!(k_major.address(false, row, k, 4), elements as u64 * 4);
        }
    }
    // MN-major bf16: row (8,1,2):(1,8,64), k (8,2):(8,128).
    let mn_major = descriptor(128 * 2, 64 * 2, 0);
    for row in 0..16 {
        for k in 0..16 {
            let elements = (row % 8) + (row / 8) * 64 + (k % 8) * 8 + (k / 8) * 128;
            assert_eq!(mn_major.address(true, row, k, 2), elements as u64 * 2);
        }
    }
    // MN-major bf16, 64-byte swizzle: row (8,4,2):(1,8,256), k (8,2):(32,512).
    let swizzled = descriptor(256 * 2, 512 * 2, 2);
    for row in 0..64 {
        for k in 0..16 {
            let elements =
                (row % 8) + (row / 8 % 4) * 8 + (row / 32) * 256 + (k % 8) * 32 + (k / 8) * 512;
            let bytes = elements as u64 * 2;
            assert_eq!(
                swizzled.address(true, row, k, 2),
                bytes ^ ((bytes >> 7) & 3) << 4
            );
        }
    }
}

/// The single-bit `wgmma.mma_async.sync.aligned.m64nNk256.s32.b1.b1.and.popc` (9.7.15.5.2:
/// "the AND ... of a k-bit row of A with a k-bit column of B, then counts the number of set
/// bits in the result (popc)", added to D with `scale-d` true) from two descriptors, against a
/// plain CPU product. Shared memory as the kernel's descriptors describe it (9.7.15.5.1.2,
/// K-major, no swizzle): core matrices of 8 rows of 16 bytes, the leading byte offset (128) to
/// the next 16 bytes of `k`, the stride byte offset (256) to the next 8 rows; the bits of a
/// byte are 8 consecutive `k`, the least significant first. D per thread as CUTLASS's SM90
/// `CLayout_64xN` (`cute/atom/mma_traits_sm90_gmma.hpp`): register `i` of thread `t` (warp
/// `w`, lane `4g + q`) is row `16w + g + 8 ((i / 2) % 2)`, column `8 (i / 4) + 2q + i % 2`.
/// Accumulators near `i32::MAX` wrap. ptxas 13.5 accepts the kernel (`-arch sm_90a`).
#[test]
fn single_bit_tiles_match_a_plain_product() {
    let mut rng = super::mma::Rng(0x9e37_79b9_7f4a_7c15u64);
    let mut next = move || rng.next();
    let offset = |row: usize, byte: usize| {
        (row % 8) * 16 + (row / 8) * 256 + (byte % 16) + (byte / 16) * 128
    };
    for n in [8usize, 16] {
        let nd = n / 2;
        let a: Vec<u8> = (0..A_BYTES).map(|_| next() as u8).collect();
        let b: Vec<u8> = (0..B_BYTES).map(|_| next() as u8).collect();
        let bit = |region: &[u8], row: usize, k: usize| (region[offset(row, k / 8)] >> (k % 8)) & 1;
        let mut c = Vec::new();
        let mut expected = Vec::new();
        for t in 0..THREADS {
            let (warp, g, q) = (t / 32, (t % 32) / 4, t % 4);
            for i in 0..nd {
                let row = 16 * warp + g + 8 * ((i / 2) % 2);
                let col = 8 * (i / 4) + 2 * q + i % 2;
                let accumulator = if row == 0 {
                    i32::MAX - (next() % 64) as i32
                } else {
                    (next() % 2001) as i32 - 1000
                };
                let count: i32 = (0..256)
                    .map(|k| i32::from(bit(&a, row, k) & bit(&b, col, k)))
                    .sum();
                c.extend_from_slice(&accumulator.to_le_bytes());
                expected.extend_from_slice(&accumulator.wrapping_add(count).to_le_bytes());
            }
        }
        let name = format!("m64n{n}k256.s32.b1.b1.and.popc");
        let source = kernel(&name, "", nd);
        let input = [a, b, c].concat();
        let out = run(&source, 1, THREADS as u32, input, expected.len())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(out == expected, "{name}: D differs from the product");
    }
}
