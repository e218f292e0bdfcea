//! `PTXSIM_DEBUG=KERNEL[:LAUNCH]`: stops a running CUDA program at a launch and opens ptxsim's
//! step debugger on it (`ptxsim debug`'s commands, crates/debug), as docs/cuda-programs.md
//! describes ("Debugging a launch").
//!
//! The session runs on a copy of the device memory as it is when the launch starts (so
//! `restart` starts from there again); when the session ends (`quit`, or the end of the
//! commands), the program goes on and the launch runs as it would without the debugger, on
//! the real memory, with its output and errors. Kernels are deterministic, so what the session
//! showed is what the launch does (barring races between CTAs, whose order may differ).
//!
//! Commands come from `PTXSIM_DEBUG_SCRIPT` (a file of commands, echoed after the prompt)
//! where it is set, else from the terminal: stdin when it is one, else `/dev/tty`. The session
//! writes to stderr, so that the program's stdout stays its own.

use std::io::Write as _;

use ptxsim_exec::api::{LaunchOptions, Module};
use ptxsim_exec::grid::Argument;
use ptxsim_exec::memory::DeviceMemory;
use ptxsim_isa::Type;

/// The most bytes of commands read from a script or a terminal.
const MAX_COMMANDS: u64 = 64 << 20;

/// Which launch `PTXSIM_DEBUG` stops at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// The kernel: its name as in the PTX (mangled), its C++ identifier (`vectorAdd` for
    /// `_Z9vectorAddPKfS0_Pfi`), or `*` for any kernel.
    kernel: String,
    /// The launch's index among all launches of the process, counting from 0 (the number in
    /// `PTXSIM_TRACE`'s file names); `None`: the kernel's first launch.
    launch: Option<u64>,
}

impl Request {
    /// `KERNEL`, `KERNEL:LAUNCH` or `*:LAUNCH`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let (kernel, launch) = match text.rsplit_once(':') {
            Some((kernel, launch)) => {
                let index = launch.parse().map_err(|_| {
                    format!(
                        "PTXSIM_DEBUG=`{text}`: `{launch}` is not a launch number (KERNEL or \
                         KERNEL:LAUNCH, the launch counted from 0 as in PTXSIM_TRACE's file \
                         names)"
                    )
                })?;
                (kernel, Some(index))
            }
            None => (text, None),
        };
        if kernel.is_empty() {
            return Err(format!(
                "PTXSIM_DEBUG=`{text}`: no kernel (KERNEL, KERNEL:LAUNCH or *:LAUNCH)"
            ));
        }
        Ok(Self {
            kernel: kernel.to_string(),
            launch,
        })
    }

    /// Whether launch `index` of the process, of kernel `entry`, is the one; `first_of_kernel`:
    /// whether it is the kernel's first launch.
    pub fn matches(&self, entry: &str, index: u64, first_of_kernel: bool) -> bool {
        let kernel = self.kernel == "*" || self.kernel == entry || identifier(entry) == self.kernel;
        kernel
            && match self.launch {
                Some(launch) => launch == index,
                None => first_of_kernel,
            }
    }
}

/// The identifier of a mangled C++ name (`vectorAdd` of `_Z9vectorAddPKfS0_Pfi`; the last
/// component of a nested name, `kernel` of `_ZN2ns6kernelEv`); the name itself otherwise.
fn identifier(name: &str) -> &str {
    let Some(rest) = name.strip_prefix("_Z") else {
        return name;
    };
    let mut rest = rest.strip_prefix('N').unwrap_or(rest);
    let mut last = name;
    loop {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let Ok(length) = rest[..digits].parse::<usize>() else {
            return last;
        };
        let Some(component) = rest.get(digits..digits + length) else {
            return last;
        };
        last = component;
        rest = &rest[digits + length..];
        if !rest.starts_with(|c: char| c.is_ascii_digit()) {
            return last;
        }
    }
}

/// The arguments of a launch as the session shows them: each parameter's bytes from the
/// parameter space, as a scalar of its type where it has 1 to 8 bytes.
fn arguments(program: &ptxsim_exec::Program, params: &[u8]) -> Vec<Argument> {
    program
        .params
        .iter()
        .map(|param| {
            let start = usize::try_from(param.offset).unwrap_or(usize::MAX);
            let end = start.saturating_add(usize::try_from(param.bytes).unwrap_or(0));
            let bytes = params.get(start..end).unwrap_or_default();
            if matches!(bytes.len(), 1 | 2 | 4 | 8) && param.ty.bits() / 8 == bytes.len() as u32 {
                let mut word = [0u8; 8];
                word[..bytes.len()].copy_from_slice(bytes);
                let ty = if param.pointer_like {
                    Type::U64
                } else {
                    param.ty
                };
                Argument::Scalar {
                    ty,
                    bits: u64::from_le_bytes(word),
                }
            } else {
                Argument::Bytes(bytes.to_vec())
            }
        })
        .collect()
}

/// Where the session's commands come from, or why there is nowhere.
fn input() -> Result<(ptxsim_debug::Input, bool), String> {
    if let Some(path) = std::env::var_os("PTXSIM_DEBUG_SCRIPT").filter(|p| !p.is_empty()) {
        let file = std::fs::File::open(&path).map_err(|error| {
            format!(
                "PTXSIM_DEBUG_SCRIPT: cannot read `{}`: {error}",
                std::path::Path::new(&path).display()
            )
        })?;
        let reader = Box::new(std::io::BufReader::new(file));
        return Ok((ptxsim_debug::Input::lines(reader, MAX_COMMANDS), true));
    }
    if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        return Ok((ptxsim_debug::Input::stdin(MAX_COMMANDS), false));
    }
    match std::fs::File::open("/dev/tty") {
        Ok(tty) => {
            let reader = Box::new(std::io::BufReader::new(tty));
            Ok((ptxsim_debug::Input::lines(reader, MAX_COMMANDS), false))
        }
        Err(error) => Err(format!(
            "PTXSIM_DEBUG: no terminal to read commands from (/dev/tty: {error}); give them in a \
             file with PTXSIM_DEBUG_SCRIPT=FILE"
        )),
    }
}

/// What a session needs of the launch it stops.
#[derive(Debug)]
pub struct Stop<'a> {
    /// The module and the kernel.
    pub module: &'a Module,
    /// The kernel's name.
    pub entry: &'a str,
    /// CTAs and threads per CTA.
    pub shape: ([u32; 3], [u32; 3]),
    /// The kernel parameter space.
    pub params: &'a [u8],
    /// The launch's options (memory limits, host memory, textures, ...).
    pub options: &'a LaunchOptions,
}

/// Opens a session on the launch `stop` over copies of `memories` and runs the commands until
/// `quit` or their end. Problems (no terminal, a launch that cannot be made) are written to
/// stderr; the program goes on either way.
pub fn session(stop: &Stop<'_>, memories: &[&DeviceMemory]) {
    let mut stderr = std::io::stderr().lock();
    let remake = || {
        stop.module
            .prepare_copy(stop.entry, stop.shape, stop.params, memories, stop.options)
            .map_err(|error| error.to_string())
    };
    let (device, program) = match (remake(), stop.module.program(stop.entry)) {
        (Ok(device), Ok(program)) => (device, program),
        (Err(message), _) => {
            let _ = writeln!(stderr, "ptxsim: PTXSIM_DEBUG: {message}");
            return;
        }
        (_, Err(error)) => {
            let _ = writeln!(stderr, "ptxsim: PTXSIM_DEBUG: {error}");
            return;
        }
    };
    let (mut input, echo) = match input() {
        Ok(input) => input,
        Err(message) => {
            let _ = writeln!(stderr, "ptxsim: {message}");
            return;
        }
    };
    let _ = writeln!(
        stderr,
        "ptxsim: PTXSIM_DEBUG: the program stops at this launch of `{}`; it goes on after \
         `quit` (the launch then runs in full)",
        stop.entry
    );
    let mut session = ptxsim_debug::Session::on_device(
        program,
        stop.module.source(),
        device,
        arguments(program, stop.params),
        Box::new(remake),
    );
    if let Err(error) = ptxsim_debug::interact(&mut session, &mut input, &mut stderr, echo) {
        let _ = writeln!(stderr, "ptxsim: PTXSIM_DEBUG: {error}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_name_a_kernel_and_a_launch() {
        let first = Request::parse("vectorAdd").unwrap();
        assert!(first.matches("_Z9vectorAddPKfS0_Pfi", 3, true));
        assert!(!first.matches("_Z9vectorAddPKfS0_Pfi", 4, false));
        assert!(first.matches("vectorAdd", 0, true));
        let nth = Request::parse("_Z9vectorAddPKfS0_Pfi:4").unwrap();
        assert!(nth.matches("_Z9vectorAddPKfS0_Pfi", 4, false));
        assert!(!nth.matches("_Z9vectorAddPKfS0_Pfi", 3, true));
        let any = Request::parse("*:2").unwrap();
        assert!(any.matches("k", 2, false));
        assert!(Request::parse(":3").is_err());
        assert!(Request::parse("k:x").is_err());
        // A nested name: the last component.
        assert_eq!(identifier("_ZN2ns6kernelEPf"), "kernel");
        assert_eq!(identifier("_Z3fooi"), "foo");
        assert_eq!(identifier("plain"), "plain");
        assert_eq!(identifier("_Z"), "_Z");
        assert_eq!(identifier("_Z99x"), "_Z99x");
    }
}
