//! The JIT linker of the driver API (`cuLinkCreate`, `cuLinkAddData`, `cuLinkAddFile`,
//! `cuLinkComplete`, `cuLinkDestroy`; `cuda.h`, "Module Management"), in safe Rust.
//!
//! NVIDIA's linker compiles PTX inputs with ptxas and links them with the cubins of the other
//! inputs into one cubin, "treated as relocatable (-rdc=true to nvcc)" (`cuLinkCreate`'s
//! documentation). ptxsim runs PTX, so its linker collects the PTX of every input:
//!
//! | input (`CUjitInputType`) | what is taken |
//! |---|---|
//! | `CU_JIT_INPUT_PTX` | the text, up to its NUL |
//! | `CU_JIT_INPUT_FATBINARY` | the fatbin's PTX for the simulated target ([`crate::fatbin::select_ptx`]) |
//! | `CU_JIT_INPUT_OBJECT` | a host object (ELF) made by nvcc: the PTX of each fatbin in its `.nv_fatbin` and `__nv_relfatbin` sections |
//! | `CU_JIT_INPUT_LIBRARY` | an archive (`ar`) of such objects: the PTX of every member that has some |
//! | `CU_JIT_INPUT_CUBIN` | refused: machine code (`CUDA_ERROR_NO_BINARY_FOR_GPU`, saying so) |
//! | `CU_JIT_INPUT_NVVM` | refused: LTO-IR (`CUDA_ERROR_NOT_SUPPORTED`) |
//!
//! `cuLinkComplete` links the modules by name as the driver links the translation units of
//! relocatable device code (`driver::link_ptx`), checks the result for the simulated
//! target (`CUDA_ERROR_INVALID_PTX` with the checker's errors, as `cuModuleLoadData` reports
//! them) and hands out the linked PTX text with its NUL: the "cubin" `cuModuleLoadData`
//! takes. The image belongs to the link state and lives until `cuLinkDestroy`, as NVIDIA's
//! does.
//!
//! The JIT options' output buffers (the logs, the wall time) are the caller's memory, which
//! [`crate::ffi`] writes; this module keeps their addresses as numbers ([`JitOutputs`]).

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex, MutexGuard, PoisonError};

use crate::driver::{self, CallResult};
use crate::fatbin;
use crate::status::{CudaError, Failure};

/// `CUjitInputType` (`cuda.h`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// `CU_JIT_INPUT_CUBIN` (0): device machine code.
    Cubin,
    /// `CU_JIT_INPUT_PTX` (1): PTX text.
    Ptx,
    /// `CU_JIT_INPUT_FATBINARY` (2): a fatbin.
    Fatbinary,
    /// `CU_JIT_INPUT_OBJECT` (3): a host object with embedded device code.
    Object,
    /// `CU_JIT_INPUT_LIBRARY` (4): an archive of host objects.
    Library,
    /// `CU_JIT_INPUT_NVVM` (5): LTO-IR.
    Nvvm,
}

impl InputKind {
    /// The kind of a `CUjitInputType` value; `CUDA_ERROR_INVALID_VALUE` for another number.
    pub fn from_raw(value: u32) -> CallResult<Self> {
        Ok(match value {
            0 => Self::Cubin,
            1 => Self::Ptx,
            2 => Self::Fatbinary,
            3 => Self::Object,
            4 => Self::Library,
            5 => Self::Nvvm,
            other => {
                return Err(Failure::new(
                    CudaError::InvalidValue,
                    format!("{other} is no CUjitInputType (0 to 5)"),
                ));
            }
        })
    }
}

/// Where a link state's JIT options want their outputs (`cuLinkCreate`'s options; the
/// numbers are the caller's addresses, which must stay valid while the state lives).
#[derive(Clone, Copy, Debug, Default)]
pub struct JitOutputs {
    /// `CU_JIT_ERROR_LOG_BUFFER` and its `_SIZE_BYTES`: the buffer and its size.
    pub error_log: Option<(usize, usize)>,
    /// `CU_JIT_INFO_LOG_BUFFER` and its `_SIZE_BYTES`.
    pub info_log: Option<(usize, usize)>,
    /// The address of the option value slot of `CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES`, which
    /// receives the bytes written ("OUT: Amount of log buffer filled with messages").
    pub error_size_slot: Option<usize>,
    /// The same for `CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES`.
    pub info_size_slot: Option<usize>,
    /// The address of the option value slot of `CU_JIT_WALL_TIME`, which receives the
    /// milliseconds spent, a `float` ("Overwrites the option value with the total wall clock
    /// time, in milliseconds").
    pub wall_time_slot: Option<usize>,
    /// `CU_JIT_LOG_VERBOSE`: the info log says what was linked.
    pub verbose: bool,
}

/// A pending link (`CUlinkState`).
#[derive(Debug)]
struct LinkState {
    /// The PTX of the inputs so far, with their names for the info log.
    modules: Vec<(String, String)>,
    /// The linked image (PTX text and its NUL), once `cuLinkComplete` made it.
    image: Option<Box<[u8]>>,
    /// Where the options want their outputs.
    outputs: JitOutputs,
    /// Milliseconds spent in this state's calls so far (`CU_JIT_WALL_TIME` accumulates).
    milliseconds: f32,
}

/// The link states, by handle.
static LINKS: LazyLock<Mutex<HashMap<u64, LinkState>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

fn links() -> MutexGuard<'static, HashMap<u64, LinkState>> {
    LINKS.lock().unwrap_or_else(PoisonError::into_inner)
}

fn not_a_link() -> Failure {
    Failure::new(
        CudaError::InvalidHandle,
        "not a CUlinkState of cuLinkCreate (or destroyed)",
    )
}

/// `cuLinkCreate`: a new, empty link state (needs a current context, as NVIDIA's does).
pub fn create(outputs: JitOutputs) -> CallResult<u64> {
    driver::context_get_device()?;
    let handle = driver::new_handle()?;
    links().insert(
        handle,
        LinkState {
            modules: Vec::new(),
            image: None,
            outputs,
            milliseconds: 0.0,
        },
    );
    Ok(handle)
}

/// The output options of `link`.
pub fn outputs(link: u64) -> CallResult<JitOutputs> {
    links()
        .get(&link)
        .map(|state| state.outputs)
        .ok_or_else(not_a_link)
}

/// `cuLinkAddData` / `cuLinkAddFile`: adds the PTX of `data` (an input of `kind`) to `link`.
/// Returns the milliseconds the state has spent so far.
pub fn add(link: u64, kind: InputKind, data: &[u8], name: &str) -> CallResult<f32> {
    let started = std::time::Instant::now();
    if !links().contains_key(&link) {
        return Err(not_a_link());
    }
    let (major, minor) = driver::compute_capability(driver::context_get_device()?)?;
    let target = u32::try_from(major * 10 + minor).unwrap_or(0);
    let modules = input_ptx(kind, data, target, name)?;
    let mut links = links();
    let state = links.get_mut(&link).ok_or_else(not_a_link)?;
    state.modules.extend(modules);
    state.milliseconds += started.elapsed().as_secs_f32() * 1000.0;
    Ok(state.milliseconds)
}

/// `cuLinkComplete`: links the inputs' PTX, checks it for the simulated target and keeps the
/// image (the text and its NUL). Returns its address, its size, the info log and the
/// milliseconds spent so far.
pub fn complete(link: u64) -> CallResult<(usize, usize, String, f32)> {
    let started = std::time::Instant::now();
    let (texts, names): (Vec<String>, Vec<String>) = {
        let links = links();
        let state = links.get(&link).ok_or_else(not_a_link)?;
        state
            .modules
            .iter()
            .map(|(name, text)| (text.clone(), name.clone()))
            .unzip()
    };
    let text = match texts.len() {
        0 => {
            return Err(Failure::new(
                CudaError::InvalidValue,
                "nothing to link: no input was added (cuLinkAddData, cuLinkAddFile)",
            ));
        }
        1 => texts.into_iter().next().unwrap_or_default(),
        _ => driver::link_ptx(&texts),
    };
    driver::check_text(&text)?;
    let mut image = text.into_bytes();
    image.push(0);
    let image = image.into_boxed_slice();
    let info = format!(
        "ptxsim: linked {} PTX module{} ({}) into one PTX module of {} bytes, checked for the \
         simulated target",
        names.len(),
        if names.len() == 1 { "" } else { "s" },
        names.join(", "),
        image.len()
    );
    let mut links = links();
    let state = links.get_mut(&link).ok_or_else(not_a_link)?;
    let (address, size) = (image.as_ptr() as usize, image.len());
    state.image = Some(image);
    state.milliseconds += started.elapsed().as_secs_f32() * 1000.0;
    Ok((address, size, info, state.milliseconds))
}

/// `cuLinkDestroy`: the state and its image.
pub fn destroy(link: u64) -> CallResult<()> {
    links().remove(&link).map(|_| ()).ok_or_else(not_a_link)
}

/// The PTX modules of one input, each with a name for the log.
fn input_ptx(
    kind: InputKind,
    data: &[u8],
    target: u32,
    name: &str,
) -> CallResult<Vec<(String, String)>> {
    let name = if name.is_empty() { "input" } else { name };
    match kind {
        InputKind::Ptx => {
            let end = data.iter().position(|&b| b == 0).unwrap_or(data.len());
            let text = std::str::from_utf8(&data[..end]).map_err(|error| {
                Failure::new(
                    CudaError::InvalidPtx,
                    format!("{name}: the PTX input is not UTF-8 text: {error}"),
                )
            })?;
            Ok(vec![(name.to_string(), text.to_string())])
        }
        InputKind::Fatbinary => fatbin::select_ptx(data, target)
            .map(|text| vec![(name.to_string(), text)])
            .map_err(|error| Failure::new(CudaError::NoBinaryForGpu, format!("{name}: {error}"))),
        InputKind::Object => object_ptx(data, target, name),
        InputKind::Library => library_ptx(data, target, name),
        InputKind::Cubin => Err(cubin_refused(name)),
        InputKind::Nvvm => Err(Failure::new(
            CudaError::NotSupported,
            format!(
                "{name}: an NVVM (LTO-IR) input; ptxsim's linker takes PTX (and fatbins, \
                 objects and libraries holding PTX) only"
            ),
        )),
    }
}

fn cubin_refused(name: &str) -> Failure {
    Failure::new(
        CudaError::NoBinaryForGpu,
        format!(
            "{name}: a cubin (machine code, SASS); ptxsim runs PTX only: add the PTX \
             (CU_JIT_INPUT_PTX), or a fatbin or object built with -gencode \
             arch=compute_XX,code=compute_XX"
        ),
    )
}

/// ELF's `e_machine` of CUDA device code (a cubin).
const EM_CUDA: u16 = 190;
/// ELF's `SHT_NOBITS`: a section without bytes in the file.
const SHT_NOBITS: u32 = 8;

/// The PTX of the fatbins in a host object's `.nv_fatbin` and `__nv_relfatbin` sections
/// (ELF64, little-endian; the System V ABI's section header table).
fn object_ptx(data: &[u8], target: u32, name: &str) -> CallResult<Vec<(String, String)>> {
    if !fatbin::is_elf(data) {
        return Err(Failure::new(
            CudaError::InvalidImage,
            format!("{name}: not an ELF object"),
        ));
    }
    let sections = elf_sections(data).ok_or_else(|| {
        Failure::new(
            CudaError::InvalidImage,
            format!("{name}: not a well-formed 64-bit little-endian ELF object"),
        )
    })?;
    if read_u16(data, 0x12) == Some(EM_CUDA) {
        return Err(cubin_refused(name));
    }
    let mut modules = Vec::new();
    let mut first_error = None;
    for (section, bytes) in sections {
        if section != ".nv_fatbin" && section != "__nv_relfatbin" {
            continue;
        }
        // A section holds the fatbins of one or more translation units, one after another
        // (each aligned to 8 bytes).
        let mut offset = 0;
        while offset + fatbin::FATBIN_HEADER_SIZE <= bytes.len() {
            let rest = &bytes[offset..];
            if !fatbin::is_fatbin(rest) {
                offset += 8;
                continue;
            }
            let Some(size) = fatbin::fatbin_size(rest).filter(|&size| size <= rest.len()) else {
                break;
            };
            match fatbin::select_ptx(&rest[..size], target) {
                Ok(text) => modules.push((format!("{name} ({section})"), text)),
                Err(error) => {
                    first_error.get_or_insert(error.to_string());
                }
            }
            offset += size.max(8);
        }
    }
    if modules.is_empty() {
        let why = first_error.unwrap_or_else(|| "no .nv_fatbin or __nv_relfatbin".to_string());
        return Err(Failure::new(
            CudaError::NoBinaryForGpu,
            format!("{name}: the object has no PTX the device can run: {why}"),
        ));
    }
    Ok(modules)
}

/// The PTX of the members of an `ar` archive (the common format: `!<arch>\n`, then members
/// each with a 60-byte header whose bytes 48..58 are the size in decimal, padded to an even
/// offset) that are ELF objects holding PTX.
fn library_ptx(data: &[u8], target: u32, name: &str) -> CallResult<Vec<(String, String)>> {
    const MAGIC: &[u8] = b"!<arch>\n";
    if !data.starts_with(MAGIC) {
        return Err(Failure::new(
            CudaError::InvalidImage,
            format!("{name}: not an archive (ar) of objects"),
        ));
    }
    let mut modules = Vec::new();
    let mut offset = MAGIC.len();
    let mut members = Vec::new();
    let mut long_names: &[u8] = &[];
    while offset + 60 <= data.len() {
        let header = &data[offset..offset + 60];
        let size = std::str::from_utf8(&header[48..58])
            .ok()
            .and_then(|size| size.trim().parse::<usize>().ok())
            .ok_or_else(|| {
                Failure::new(
                    CudaError::InvalidImage,
                    format!("{name}: a malformed archive member header at byte {offset}"),
                )
            })?;
        let start = offset + 60;
        let member = data.get(start..start.saturating_add(size)).ok_or_else(|| {
            Failure::new(
                CudaError::InvalidImage,
                format!("{name}: an archive member runs past the end at byte {offset}"),
            )
        })?;
        let member_name = String::from_utf8_lossy(&header[..16]);
        let member_name = member_name.trim_end();
        // GNU ar: `/` is the symbol table, `//` the table of names longer than 15 bytes (each
        // ended by "/\n"), and `/N` the name at offset N there; other names end with `/`.
        let member_name = match member_name.strip_prefix('/') {
            Some("") => String::new(),
            Some("/") => {
                long_names = member;
                String::new()
            }
            Some(offset) => offset
                .parse::<usize>()
                .ok()
                .and_then(|offset| long_names.get(offset..))
                .and_then(|rest| rest.split(|&b| b == b'\n').next())
                .map(|name| {
                    String::from_utf8_lossy(name)
                        .trim_end_matches('/')
                        .to_string()
                })
                .unwrap_or_default(),
            None => member_name.trim_end_matches('/').to_string(),
        };
        if !member_name.is_empty() {
            members.push(member_name.clone());
        }
        if fatbin::is_elf(member) {
            // Members without device code (host-only objects) are passed over.
            if let Ok(found) = object_ptx(member, target, &format!("{name}({member_name})")) {
                modules.extend(found);
            }
        }
        offset = start + size + size % 2;
    }
    // CUDA's device runtime (`libcudadevrt.a`, one member `cuda_device_runtime.o` of machine
    // code only), which programs that launch kernels from kernels link: ptxsim has it built in
    // (`cudaGetParameterBufferV2`, `cudaLaunchDeviceV2`, ...; executor.md, "Dynamic
    // parallelism"), so the archive adds nothing.
    if modules.is_empty() && !members.is_empty() && members.iter().all(|m| m == DEVICE_RUNTIME) {
        return Ok(modules);
    }
    if modules.is_empty() {
        return Err(Failure::new(
            CudaError::NoBinaryForGpu,
            format!("{name}: no member of the archive has PTX the device can run"),
        ));
    }
    Ok(modules)
}

/// The member of `libcudadevrt.a`, CUDA's device runtime, in CUDA 12 and 13.
const DEVICE_RUNTIME: &str = "cuda_device_runtime.o";

fn read_u16(data: &[u8], offset: usize) -> Option<u16> {
    Some(u16::from_le_bytes(
        data.get(offset..offset.checked_add(2)?)?.try_into().ok()?,
    ))
}

fn read_u32(data: &[u8], offset: usize) -> Option<u32> {
    Some(u32::from_le_bytes(
        data.get(offset..offset.checked_add(4)?)?.try_into().ok()?,
    ))
}

fn read_u64(data: &[u8], offset: usize) -> Option<usize> {
    let value = u64::from_le_bytes(data.get(offset..offset.checked_add(8)?)?.try_into().ok()?);
    usize::try_from(value).ok()
}

/// The named sections of an ELF64 little-endian file and their bytes (`e_shoff` at 0x28,
/// `e_shentsize` 0x3a, `e_shnum` 0x3c, `e_shstrndx` 0x3e; a section header's `sh_name` at 0,
/// `sh_type` 4, `sh_offset` 0x18, `sh_size` 0x20). `None` where the file is not one, or a
/// header points outside it.
fn elf_sections(data: &[u8]) -> Option<Vec<(String, &[u8])>> {
    // EI_CLASS 2: 64-bit; EI_DATA 1: little-endian.
    if data.get(4) != Some(&2) || data.get(5) != Some(&1) {
        return None;
    }
    let table = read_u64(data, 0x28)?;
    let entry_size = usize::from(read_u16(data, 0x3a)?);
    let count = usize::from(read_u16(data, 0x3c)?);
    let names_index = usize::from(read_u16(data, 0x3e)?);
    if entry_size < 0x28 {
        return None;
    }
    let header = |index: usize| -> Option<(u32, u32, &[u8])> {
        let at = table.checked_add(index.checked_mul(entry_size)?)?;
        let name = read_u32(data, at)?;
        let kind = read_u32(data, at.checked_add(4)?)?;
        let offset = read_u64(data, at.checked_add(0x18)?)?;
        let size = read_u64(data, at.checked_add(0x20)?)?;
        let bytes = if kind == SHT_NOBITS {
            &[][..]
        } else {
            data.get(offset..offset.checked_add(size)?)?
        };
        Some((name, kind, bytes))
    };
    let (_, _, names) = header(names_index)?;
    let mut sections = Vec::with_capacity(count);
    for index in 0..count {
        let (name, _, bytes) = header(index)?;
        let name = names.get(name as usize..)?;
        let end = name.iter().position(|&b| b == 0)?;
        sections.push((String::from_utf8_lossy(&name[..end]).into_owned(), bytes));
    }
    Some(sections)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_kinds_are_cuda_h_numbers() {
        assert_eq!(InputKind::from_raw(0).ok(), Some(InputKind::Cubin));
        assert_eq!(InputKind::from_raw(1).ok(), Some(InputKind::Ptx));
        assert_eq!(InputKind::from_raw(5).ok(), Some(InputKind::Nvvm));
        assert!(InputKind::from_raw(6).is_err());
    }

    #[test]
    fn bad_objects_and_archives_are_errors_not_panics() {
        for data in [
            &b"\x7fELF"[..],
            b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x01\0\x3e\0",
            b"!<arch>\n",
            b"!<arch>\nname/           0           0     0     644     99999999  `\n",
            b"",
        ] {
            for kind in [InputKind::Object, InputKind::Library, InputKind::Fatbinary] {
                assert!(input_ptx(kind, data, 90, "x").is_err());
            }
        }
        let cubin = input_ptx(InputKind::Cubin, b"\x7fELF", 90, "k.cubin").unwrap_err();
        assert_eq!(cubin.error, CudaError::NoBinaryForGpu);
    }

    /// An `ar` header: 16 bytes of name, then date, owner, group, mode, the size at bytes
    /// 48..58, and the terminator.
    fn ar_header(name: &str, size: usize) -> String {
        format!("{name:<16}{:<12}{:<6}{:<6}{:<8}{size:<10}`\n", 0, 0, 0, 644)
    }

    /// A GNU archive of one ELF member without PTX, named `name`: through the long-name
    /// table `//` (as GNU ar writes names longer than 15 bytes, `cuda_device_runtime.o` in
    /// `libcudadevrt.a` among them) when `long`.
    fn archive_of(name: &str, long: bool) -> Vec<u8> {
        let member = b"\x7fELF\x02\x01\x01\0";
        let mut data = b"!<arch>\n".to_vec();
        if long {
            let table = format!("{name}/\n");
            data.extend(ar_header("//", table.len()).as_bytes());
            data.extend(table.as_bytes());
            if table.len() % 2 == 1 {
                data.push(b'\n');
            }
            data.extend(ar_header("/0", member.len()).as_bytes());
        } else {
            data.extend(ar_header(&format!("{name}/"), member.len()).as_bytes());
        }
        data.extend(member);
        data
    }

    /// A translation unit nvcc 13.5 compiles with `-rdc=true -lineinfo`, in the shape of its
    /// PTX (cuda-samples' eigenvalues, `bisect_large.cu` and `bisect_small.cu`): `.loc`s with
    /// `function_name` and `inlined_at`, then the `.file`s numbered from 1 and a
    /// `.section .debug_str` whose labels every unit names alike.
    fn unit_with_line_info(kernel: &str, file: &str) -> String {
        format!(
            ".version 8.8\n.target sm_90\n.address_size 64\n\n\
             .visible .entry {kernel}(\n\t.param .u64 {kernel}_p\n)\n{{\n\
             \t.reg .b64 \t%rd<2>;\n\
             \t.loc\t1 3 0\n\tld.param.u64 \t%rd1, [{kernel}_p];\n\
             \t.loc\t2 7 5, function_name $L__info_string0, inlined_at 1 3 0\n\tret;\n}}\n\
             \t.file\t1 \"{file}\"\n\t.file\t2 \"common.h\"\n\
             \t.section\t.debug_str\n\t{{\n$L__info_string0:\n.b8 102,0\n\t}}\n"
        )
    }

    /// Two such units linked (relocatable device code, `cuLink*`): each declared `.file 1`
    /// and `.file 2`, which a module declares once (PTX ISA 11.8.1, ".file"; E0220), and each
    /// labelled `$L__info_string0`. The second unit's files become 3 and 4, in its `.loc`s
    /// and their `inlined_at` too (11.8.2, ".loc": the file index comes first), and its label
    /// its own, so the linked module checks and each `.loc` still names its own unit's file.
    #[test]
    fn units_with_line_info_link_with_their_files_renumbered() {
        let linked = crate::driver::link_ptx(&[
            unit_with_line_info("first", "a.cu"),
            unit_with_line_info("second", "b.cu"),
        ]);
        crate::driver::init(0).expect("cuInit");
        if let Err(failure) = crate::driver::check_text(&linked) {
            panic!("the linked module does not check: {failure:?}\n{linked}");
        }
        for wanted in [
            "\t.file\t1 \"a.cu\"",
            "\t.file\t2 \"common.h\"",
            "\t.file\t3 \"b.cu\"",
            "\t.file\t4 \"common.h\"",
            "\t.loc\t3 3 0\n\tld.param.u64 \t%rd1, [second_p];",
            "\t.loc\t4 7 5, function_name $L__info_string_m1_0, inlined_at 3 3 0",
            "\t.loc\t2 7 5, function_name $L__info_string0, inlined_at 1 3 0",
            "$L__info_string_m1_0:",
        ] {
            assert!(linked.contains(wanted), "no `{wanted}` in:\n{linked}");
        }
        assert_eq!(linked.matches(".file\t1 ").count(), 1);
    }

    /// `libcudadevrt.a` of CUDA 13 (`ar t`: one member, `cuda_device_runtime.o`, machine code
    /// only) adds nothing and is no error; another archive without PTX is.
    #[test]
    fn the_device_runtime_archive_adds_nothing() {
        let devrt = archive_of("cuda_device_runtime.o", true);
        let found = input_ptx(InputKind::Library, &devrt, 90, "libcudadevrt.a");
        assert!(found.is_ok_and(|modules| modules.is_empty()));
        for other in [
            archive_of("kernels.o", false),
            archive_of("many_kernels_here.o", true),
        ] {
            let error = input_ptx(InputKind::Library, &other, 90, "libk.a").unwrap_err();
            assert_eq!(error.error, CudaError::NoBinaryForGpu);
        }
    }
}
