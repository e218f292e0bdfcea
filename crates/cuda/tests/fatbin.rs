//! The fatbin parser (`cuda::fatbin`) on the samples in `tests/fatbin/`, which
//! `scripts/fatbin/regen.sh` made with nvcc 13.5 from `add.cu` and `block_sum.cu`: every PTX
//! entry must be the text `nvcc -ptx` wrote for the same architecture (after the rewriting
//! `fatbinary` does, see [`fatbinary_text`]), and no prefix or mutation of a sample may make
//! the parser panic.

use std::path::PathBuf;

use cuda::fatbin::{self, ArchVariant, Compression, EntryKind, FatbinError};

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fatbin")
}

fn read(name: &str) -> Vec<u8> {
    let path = data_dir().join(name);
    std::fs::read(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// The text of `nvcc -ptx` as `fatbinary` stores it: on every line, a `//` comment removed,
/// each run of blanks (spaces and tabs) replaced by its first character, and the blanks at
/// the start removed. Lines are kept, so line numbers match. (Established on every sample:
/// the uncompressed payload of `add.none.fatbin` is this text followed by NULs.)
fn fatbinary_text(ptx: &str) -> String {
    let lines: Vec<String> = ptx
        .split('\n')
        .map(|line| {
            let code = line.find("//").map_or(line, |comment| &line[..comment]);
            let mut out = String::new();
            let mut previous_blank = false;
            for c in code.chars() {
                let blank = c == ' ' || c == '\t';
                if !(blank && previous_blank) {
                    out.push(c);
                }
                previous_blank = blank;
            }
            out.trim_start_matches([' ', '\t']).to_string()
        })
        .collect();
    lines.join("\n")
}

/// The reference PTX `NAME.ptx` as it appears in a fatbin.
fn reference(name: &str) -> String {
    let bytes = read(&format!("{name}.ptx"));
    fatbinary_text(&String::from_utf8(bytes).expect("nvcc writes UTF-8 PTX"))
}

fn trimmed_text(payload: &[u8]) -> String {
    let end = payload
        .iter()
        .rposition(|&byte| byte != 0)
        .map_or(0, |last| last + 1);
    String::from_utf8(payload[..end].to_vec()).expect("PTX payload is text")
}

/// One expected entry: kind, nvcc's architecture name, compression, whether it was in a
/// `-concat` container, and for PTX the reference file it must equal.
type Expected = (
    EntryKind,
    &'static str,
    Compression,
    bool,
    Option<&'static str>,
);

const PTX: EntryKind = EntryKind::Ptx;
const ELF: EntryKind = EntryKind::Elf;

/// Every sample and the entries it must list, in order.
const SAMPLES: &[(&str, &[Expected])] = &[
    (
        "add.none",
        &[(
            PTX,
            "compute_90",
            Compression::None,
            false,
            Some("add.compute_90"),
        )],
    ),
    (
        "add.zstd",
        &[(
            PTX,
            "compute_90",
            Compression::Zstd,
            false,
            Some("add.compute_90"),
        )],
    ),
    (
        "add.size",
        &[(
            PTX,
            "compute_90",
            Compression::Zstd,
            false,
            Some("add.compute_90"),
        )],
    ),
    (
        "add.lz4",
        &[(
            PTX,
            "compute_90",
            Compression::Lz4,
            false,
            Some("add.compute_90"),
        )],
    ),
    (
        "add.options",
        &[(
            PTX,
            "compute_90",
            Compression::Zstd,
            false,
            Some("add.compute_90"),
        )],
    ),
    (
        "add.debug",
        &[(
            PTX,
            "compute_90",
            Compression::Zstd,
            false,
            Some("add.debug.compute_90"),
        )],
    ),
    (
        "add.multi",
        &[
            (
                PTX,
                "compute_80",
                Compression::Zstd,
                false,
                Some("add.compute_80"),
            ),
            (ELF, "sm_90", Compression::None, false, None),
            (
                PTX,
                "compute_90",
                Compression::Zstd,
                false,
                Some("add.compute_90"),
            ),
        ],
    ),
    (
        "add.sass",
        &[(ELF, "sm_90", Compression::None, false, None)],
    ),
    (
        "add.compress_all",
        &[
            (ELF, "sm_80", Compression::Lz4, false, None),
            (
                PTX,
                "compute_90",
                Compression::Lz4,
                false,
                Some("add.compute_90"),
            ),
        ],
    ),
    (
        "add.concat",
        &[
            (ELF, "sm_80", Compression::Zstd, false, None),
            (
                PTX,
                "compute_80",
                Compression::Zstd,
                true,
                Some("add.compute_80"),
            ),
            (
                PTX,
                "compute_90",
                Compression::Zstd,
                true,
                Some("add.compute_90"),
            ),
        ],
    ),
    (
        "add.concat_lineinfo",
        &[
            (
                PTX,
                "compute_80",
                Compression::Zstd,
                true,
                Some("add.lineinfo.compute_80"),
            ),
            (
                PTX,
                "compute_90",
                Compression::Zstd,
                true,
                Some("add.lineinfo.compute_90"),
            ),
        ],
    ),
    (
        "add.variants",
        &[
            (
                PTX,
                "compute_90a",
                Compression::Zstd,
                false,
                Some("add.compute_90a"),
            ),
            (
                PTX,
                "compute_100f",
                Compression::Zstd,
                false,
                Some("add.compute_100f"),
            ),
            (
                PTX,
                "compute_100a",
                Compression::Zstd,
                false,
                Some("add.compute_100a"),
            ),
            (
                PTX,
                "compute_100",
                Compression::Zstd,
                false,
                Some("add.compute_100"),
            ),
        ],
    ),
    (
        "block_sum",
        &[
            (
                PTX,
                "compute_75",
                Compression::Zstd,
                false,
                Some("block_sum.compute_75"),
            ),
            (
                PTX,
                "compute_90",
                Compression::Zstd,
                false,
                Some("block_sum.compute_90"),
            ),
        ],
    ),
];

#[test]
fn every_entry_is_what_nvcc_wrote() {
    for &(name, expected) in SAMPLES {
        let bytes = read(&format!("{name}.fatbin"));
        assert_eq!(
            fatbin::fatbin_size(&bytes),
            Some(bytes.len()),
            "{name}: fatbin_size"
        );
        assert_eq!(
            fatbin::fatbin_size(&bytes[..16]),
            Some(bytes.len()),
            "{name}: 16 bytes"
        );
        assert!(
            fatbin::is_fatbin(&bytes) && !fatbin::is_elf(&bytes),
            "{name}"
        );
        let entries = fatbin::entries(&bytes).unwrap_or_else(|error| panic!("{name}: {error}"));
        let found: Vec<_> = entries
            .iter()
            .map(|entry| {
                (
                    entry.kind,
                    entry.arch_name(),
                    entry.compression,
                    entry.concatenated,
                )
            })
            .collect();
        let wanted: Vec<_> = expected
            .iter()
            .map(|&(kind, arch, compression, concatenated, _)| {
                (kind, arch.to_string(), compression, concatenated)
            })
            .collect();
        assert_eq!(found, wanted, "{name}: entries");
        for (entry, &(_, arch, _, _, reference_name)) in entries.iter().zip(expected) {
            match reference_name {
                Some(reference_name) => {
                    assert_eq!(entry.version, (9, 5), "{name} {arch}: PTX ISA version");
                    assert_eq!(
                        trimmed_text(&entry.payload),
                        reference(reference_name),
                        "{name} {arch}: the payload is not {reference_name}.ptx"
                    );
                }
                None => assert!(fatbin::is_elf(&entry.payload), "{name} {arch}: not ELF"),
            }
        }
    }
}

#[test]
fn flags_say_what_nvcc_was_asked_for() {
    let debug = &fatbin::entries(&read("add.debug.fatbin")).unwrap()[0];
    assert_eq!(debug.flags, 0x8013, "64-bit, debug, Linux, ZSTD");
    let variants = fatbin::entries(&read("add.variants.fatbin")).unwrap();
    let found: Vec<_> = variants
        .iter()
        .map(|entry| (entry.sm, entry.variant))
        .collect();
    assert_eq!(
        found,
        [
            (90, ArchVariant::ArchSpecific),
            (100, ArchVariant::FamilySpecific),
            (100, ArchVariant::ArchSpecific),
            (100, ArchVariant::Plain)
        ]
    );
    // The suffix is in the flags only; the PTX says it too.
    assert!(trimmed_text(&variants[0].payload).contains(".target sm_90a\n"));
}

/// The fatbin, the device, and the reference whose PTX `select_ptx` must give.
const SELECTIONS: &[(&str, u32, &str)] = &[
    ("add.none", 90, "add.compute_90"),
    ("add.zstd", 120, "add.compute_90"),
    ("add.lz4", 90, "add.compute_90"),
    ("add.multi", 80, "add.compute_80"),
    ("add.multi", 86, "add.compute_80"),
    ("add.multi", 90, "add.compute_90"),
    ("add.multi", 100, "add.compute_90"),
    ("add.compress_all", 90, "add.compute_90"),
    ("add.concat", 89, "add.compute_80"),
    ("add.concat", 90, "add.compute_90"),
    ("add.concat_lineinfo", 90, "add.lineinfo.compute_90"),
    // compute_90a runs on sm_90 only; on sm_100 the plain compute_100 is taken before the
    // `a` and `f` entries of the same number; compute_100f runs on its family (sm_103).
    ("add.variants", 90, "add.compute_90a"),
    ("add.variants", 100, "add.compute_100"),
    ("add.variants", 103, "add.compute_100"),
    ("add.variants", 120, "add.compute_100"),
    ("block_sum", 80, "block_sum.compute_75"),
    ("block_sum", 90, "block_sum.compute_90"),
];

#[test]
fn select_ptx_takes_the_newest_ptx_the_device_runs() {
    for &(name, device_sm, reference_name) in SELECTIONS {
        let text = fatbin::select_ptx(&read(&format!("{name}.fatbin")), device_sm)
            .unwrap_or_else(|error| panic!("{name} on sm_{device_sm}: {error}"));
        assert!(!text.ends_with('\0'), "{name}: trailing NUL");
        assert_eq!(text, reference(reference_name), "{name} on sm_{device_sm}");
    }
}

#[test]
fn variants_without_a_plain_entry() {
    // Only the family entry (compute_100f) remains eligible once compute_100 and
    // compute_100a are gone: rewrite their kind to an unknown one (a PTX entry's kind is at
    // the start of its header) and see the choice move.
    let mut bytes = read("add.variants.fatbin");
    let mut offset = 16;
    let mut index = 0;
    while offset < bytes.len() {
        let header_size = u32::from_le_bytes(bytes[offset + 4..offset + 8].try_into().unwrap());
        let payload_size = u64::from_le_bytes(bytes[offset + 8..offset + 16].try_into().unwrap());
        if index >= 2 {
            bytes[offset] = 7;
        }
        offset += header_size as usize + payload_size as usize;
        index += 1;
    }
    assert_eq!(
        fatbin::select_ptx(&bytes, 103).unwrap(),
        reference("add.compute_100f")
    );
    assert!(matches!(
        fatbin::select_ptx(&bytes, 110),
        Err(FatbinError::NoPtxForDevice { device_sm: 110, .. })
    ));
    let kinds: Vec<_> = fatbin::entries(&bytes)
        .unwrap()
        .iter()
        .map(|e| e.kind)
        .collect();
    assert_eq!(kinds[2..], [EntryKind::Other(7), EntryKind::Other(7)]);
}

#[test]
fn sass_only_is_no_ptx_with_advice() {
    let error = fatbin::select_ptx(&read("add.sass.fatbin"), 90).unwrap_err();
    assert_eq!(error, FatbinError::NoPtx { archs: vec![90] });
    let message = error.to_string();
    assert!(message.contains("ptxsim runs PTX only"), "{message}");
    assert!(
        message.contains("-gencode arch=compute_XX,code=compute_XX"),
        "{message}"
    );
    assert!(message.contains("sm_90"), "{message}");
}

#[test]
fn ptx_newer_than_the_device_is_not_taken() {
    let error = fatbin::select_ptx(&read("add.variants.fatbin"), 89).unwrap_err();
    assert_eq!(
        error,
        FatbinError::NoPtxForDevice {
            device_sm: 89,
            ptx_archs: ["compute_90a", "compute_100f", "compute_100a", "compute_100"]
                .map(String::from)
                .to_vec(),
        }
    );
    assert!(error.to_string().contains("sm_89"), "{error}");
    assert!(matches!(
        fatbin::select_ptx(&read("block_sum.fatbin"), 70),
        Err(FatbinError::NoPtxForDevice { .. })
    ));
}

#[test]
fn other_inputs_are_not_fatbins() {
    let elf = fatbin::entries(&read("add.sass.fatbin"))
        .unwrap()
        .remove(0)
        .payload;
    assert!(fatbin::is_elf(&elf));
    for input in [
        &elf[..],
        b"",
        b".version 9.5\n.target sm_90\n",
        &[0x50, 0xed, 0x55, 0xbb],
    ] {
        assert_eq!(fatbin::entries(input), Err(FatbinError::NotFatbin));
        assert_eq!(fatbin::select_ptx(input, 90), Err(FatbinError::NotFatbin));
        assert_eq!(fatbin::fatbin_size(input), None);
    }
    assert!(!fatbin::is_elf(b"\x7fEL"));
}

/// Samples small enough to be cut and mutated at every byte.
const MUTATED: &[&str] = &[
    "add.none",
    "add.zstd",
    "add.lz4",
    "add.debug",
    "add.concat_lineinfo",
    "add.concat",
    "add.compress_all",
];

#[test]
fn every_prefix_is_an_error() {
    for &name in MUTATED.iter().chain(&["add.multi"]) {
        let bytes = read(&format!("{name}.fatbin"));
        for end in 0..bytes.len() {
            let prefix = &bytes[..end];
            assert!(fatbin::entries(prefix).is_err(), "{name}: {end} bytes");
            assert!(
                fatbin::select_ptx(prefix, 90).is_err(),
                "{name}: {end} bytes"
            );
            let size = fatbin::fatbin_size(prefix);
            assert_eq!(
                size,
                (end >= 16).then_some(bytes.len()),
                "{name}: {end} bytes"
            );
        }
    }
}

#[test]
fn mutated_bytes_never_panic() {
    for &name in MUTATED {
        let bytes = read(&format!("{name}.fatbin"));
        for index in 0..bytes.len() {
            for mask in [0x01, 0x80, 0xff] {
                let mut mutated = bytes.clone();
                mutated[index] ^= mask;
                // Any answer but a panic; the PTX, if any, must be text without NULs at its end.
                let _ = fatbin::entries(&mutated);
                if let Ok(text) = fatbin::select_ptx(&mutated, 90) {
                    assert!(!text.ends_with('\0'));
                }
                let _ = fatbin::fatbin_size(&mutated);
            }
        }
    }
}

/// The byte offsets of the size fields of a sample's first entry header (the fatbin header is
/// 16 bytes): header size, payload size, compressed size, options offset, file name offset
/// and length, decompressed size; and of the fatbin header's sizes.
const SIZE_FIELDS: &[(usize, usize)] = &[
    (6, 2),
    (8, 8),
    (16 + 4, 4),
    (16 + 8, 8),
    (16 + 16, 4),
    (16 + 20, 4),
    (16 + 32, 4),
    (16 + 36, 4),
    (16 + 56, 8),
];

#[test]
fn lying_sizes_are_errors_not_allocations() {
    let values: [u64; 7] = [
        0,
        1,
        0xffff,
        1 << 30,
        (1 << 30) + 1,
        u64::from(u32::MAX),
        u64::MAX,
    ];
    for &name in MUTATED {
        let bytes = read(&format!("{name}.fatbin"));
        let decompressed = fatbin::entries(&bytes).unwrap();
        for &(offset, width) in SIZE_FIELDS {
            for value in values {
                let mut mutated = bytes.clone();
                mutated[offset..offset + width].copy_from_slice(&value.to_le_bytes()[..width]);
                if mutated == bytes {
                    continue;
                }
                // Some fields the parser does not need (the options offset of a plain entry);
                // where it answers, it must be the same entries, or none for a fatbin that
                // says it has no bytes of entries.
                if let Ok(entries) = fatbin::entries(&mutated) {
                    let wanted = if (offset, value) == (8, 0) {
                        &[][..]
                    } else {
                        &decompressed[..]
                    };
                    assert_eq!(entries, wanted, "{name}: {value} at byte {offset}");
                }
                let _ = fatbin::select_ptx(&mutated, 90);
            }
        }
    }
}

#[test]
fn the_declared_decompressed_size_is_checked() {
    // add.zstd's entry header is at 16; its decompressed size at 16 + 56.
    for (name, compression) in [
        ("add.zstd", Compression::Zstd),
        ("add.lz4", Compression::Lz4),
    ] {
        let bytes = read(&format!("{name}.fatbin"));
        for delta in [-1i64, 1, 1 << 20] {
            let mut mutated = bytes.clone();
            let field = 16 + 56..16 + 64;
            let size = u64::from_le_bytes(mutated[field.clone()].try_into().unwrap());
            mutated[field].copy_from_slice(&size.wrapping_add_signed(delta).to_le_bytes());
            match fatbin::entries(&mutated) {
                Err(FatbinError::Decompression {
                    compression: found,
                    offset: 16,
                    ..
                }) => {
                    assert_eq!(found, compression, "{name}");
                }
                other => panic!("{name}, size {delta:+}: {other:?}"),
            }
        }
    }
}

#[test]
fn the_selected_ptx_loads_on_ptxsim() {
    // The text fatbinary rewrote (no comments, blanks collapsed) is still a module ptxsim
    // checks and builds, with the kernel of its source.
    for &(name, device_sm, _) in SELECTIONS {
        let text = fatbin::select_ptx(&read(&format!("{name}.fatbin")), device_sm).unwrap();
        let module = ptxsim_exec::api::Module::load(&text, &ptxsim_exec::api::Options::default())
            .unwrap_or_else(|error| panic!("{name} on sm_{device_sm}: {error}"));
        let kernel = name.split('.').next().unwrap();
        assert!(
            module.program(kernel).is_ok(),
            "{name} on sm_{device_sm}: no kernel {kernel}"
        );
    }
}
