//! The Python package `ptxsim`: load a PTX module once, launch its kernels on numpy arrays.
//!
//! ```python
//! import numpy as np, ptxsim
//! module = ptxsim.Module(open("vector_add.ptx").read(), target="sm_90")
//! a, b = np.arange(256, dtype=np.float32), np.ones(256, dtype=np.float32)
//! out = np.zeros_like(a)
//! module.launch("vector_add", 1, 256, [a, b, out, 256])
//! ```
//!
//! A layer over [`ptxsim_exec::api`]: [`Module`] wraps [`api::Module`], and
//! [`Module::launch`] turns the Python arguments into [`Arg`]s by the kernel's parameter types
//! ([`args`]). Arrays go through the buffer protocol (pyo3's safe [`PyBuffer`] copies), so
//! this crate has no `unsafe` code and needs no numpy at build time. Every error is a Python
//! exception: [`PtxError`] (the module does not check), [`LaunchError`] (the kernel faulted),
//! `ValueError`/`TypeError`/`OverflowError` (the call was wrong); nothing panics.

mod args;

use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use ptxsim_exec::DEFAULT_MAX_STEPS;
use ptxsim_exec::api::{self, Arg, LaunchOptions, Options};
use ptxsim_isa::Target;

use crate::args::Prepared;

pyo3::create_exception!(
    ptxsim,
    Error,
    PyException,
    "The base class of ptxsim's own errors."
);
pyo3::create_exception!(
    ptxsim,
    PtxError,
    Error,
    "The module does not check: the message has one `line:column: error[CODE]: message` line \
     per error; `diagnostics` holds them as (line, column, code, message) tuples."
);
pyo3::create_exception!(
    ptxsim,
    LaunchError,
    Error,
    "A kernel stopped: `trap`, a memory fault, the step limit or an instruction ptxsim does not \
     implement. `line` and `column` locate the instruction (None for the step limit); `cta` and \
     `thread` are the first thread that stopped. Arrays hold what the kernel stored before."
);

/// A checked PTX module, ready to launch its kernels many times.
#[pyclass(module = "ptxsim", frozen)]
#[derive(Debug)]
pub struct Module {
    inner: api::Module,
    target: Option<String>,
}

/// What a completed launch did.
#[pyclass(module = "ptxsim", frozen, get_all)]
#[derive(Clone, Copy, Debug)]
pub struct LaunchReport {
    /// Instructions executed, all threads together.
    steps: u64,
    /// CTAs that ran.
    ctas: u64,
}

#[pymethods]
impl LaunchReport {
    fn __repr__(&self) -> String {
        format!("LaunchReport(steps={}, ctas={})", self.steps, self.ctas)
    }
}

#[pymethods]
impl Module {
    /// Parses and checks `source` for `target` (`None`: the module's own `.target`) and builds
    /// its kernels. Raises `PtxError` with the located diagnostics when it does not check.
    #[new]
    #[pyo3(
        signature = (source, target = Some("sm_90".to_string())),
        text_signature = "(source, target='sm_90')"
    )]
    fn new(py: Python<'_>, source: &str, target: Option<String>) -> PyResult<Self> {
        let parsed = match &target {
            Some(text) => {
                Some(Target::parse(text).map_err(|e| PyValueError::new_err(e.to_string()))?)
            }
            None => None,
        };
        let options = Options { target: parsed };
        let loaded = py.detach(|| api::Module::load(source, &options));
        match loaded {
            Ok(inner) => Ok(Self { inner, target }),
            Err(error) => Err(load_error(py, &error)),
        }
    }

    /// The kernels (`.entry` directives with a body), in source order.
    #[getter]
    fn entries(&self) -> Vec<String> {
        self.inner.kernels().map(str::to_string).collect()
    }

    /// The architecture the module was checked for (`None`: its own `.target`).
    #[getter]
    fn target(&self) -> Option<String> {
        self.target.clone()
    }

    /// Runs kernel `entry` over `grid` CTAs of `block` threads (an int or a tuple of up to
    /// three ints each). `args` has one value per kernel parameter: an array (anything with
    /// the buffer protocol, C-contiguous, little-endian) is copied into simulated global
    /// memory, the kernel gets its address, and its bytes are copied back after the launch
    /// (also when the kernel faults; read-only buffers are inputs only); a number is converted
    /// to the parameter's type; a byte-array parameter (a struct passed by value) takes a
    /// buffer of exactly its size. `shared` is the dynamic shared memory per CTA in bytes;
    /// `max_steps` the step limit of each thread. `device` (`"sm_80"`, `"sm_89"`, `"sm_90"`,
    /// `"sm_100"`, `"sm_120"`, ...; default: the `PTXSIM_DEVICE` variable, else the module's
    /// target) is the GPU whose tensor-core arithmetic `mma` and `wmma` follow.
    #[pyo3(
        signature = (entry, grid, block, args, shared = 0, max_steps = DEFAULT_MAX_STEPS, device = None),
        text_signature = "($self, entry, grid, block, args, shared=0, max_steps=DEFAULT_MAX_STEPS, device=None)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn launch(
        &self,
        py: Python<'_>,
        entry: &str,
        grid: &Bound<'_, PyAny>,
        block: &Bound<'_, PyAny>,
        args: Vec<Bound<'_, PyAny>>,
        shared: u64,
        max_steps: u64,
        device: Option<String>,
    ) -> PyResult<LaunchReport> {
        let device = device.or_else(|| {
            std::env::var("PTXSIM_DEVICE")
                .ok()
                .filter(|name| !name.is_empty())
        });
        let tensor_cores = device
            .map(|name| {
                ptxsim_exec::alu::tensor_cores::TensorCores::parse(&name)
                    .map_err(|e| PyValueError::new_err(format!("device `{name}`: {e}")))
            })
            .transpose()?;
        let grid = dim3(grid, "grid")?;
        let block = dim3(block, "block")?;
        let program = self
            .inner
            .program(entry)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let mut prepared = args::prepare(py, program, &args)?;
        let mut launch_args: Vec<Arg<'_>> = prepared.iter_mut().map(Prepared::arg).collect();
        // PTXSIM_ENGINE: the tier that runs the kernel (docs/compiled-tier.md); the module
        // keeps each kernel's compiled code for its next launches.
        let engine = ptxsim_jit::Engine::from_env()
            .map_err(PyValueError::new_err)?
            .unwrap_or_default();
        let options = LaunchOptions {
            dynamic_shared: shared,
            max_steps,
            tensor_cores,
            compiler: ptxsim_jit::JitCompiler::for_engine(engine),
            ..LaunchOptions::default()
        };
        let inner = &self.inner;
        let result = py.detach(|| {
            // The simulation's `.rn` arithmetic needs the host's default rounding and
            // subnormals, whatever an extension module loaded with `-ffast-math` has set.
            let _environment = ptxsim_jit::FloatEnvironment::default_for_call();
            inner.launch(entry, grid, block, &mut launch_args, &options)
        });
        drop(launch_args);
        // The arrays get what the kernel stored, also when it stopped early.
        for value in &prepared {
            value.copy_back(py)?;
        }
        match result {
            Ok(report) => Ok(LaunchReport {
                steps: report.steps,
                ctas: report.ctas,
            }),
            Err(error) => Err(launch_error(py, &error)),
        }
    }

    fn __repr__(&self) -> String {
        let target = self.target.as_deref().unwrap_or("its own");
        format!(
            "ptxsim.Module(entries={:?}, target={target})",
            self.inner.kernels().collect::<Vec<_>>()
        )
    }
}

/// A grid or block shape: an int, or a tuple/list of one to three ints (missing ones are 1).
fn dim3(value: &Bound<'_, PyAny>, what: &str) -> PyResult<[u32; 3]> {
    let error = || {
        PyValueError::new_err(format!(
            "{what} must be a positive int or a tuple of one to three positive ints, not {value}"
        ))
    };
    let parts: Vec<u32> = if let Ok(n) = value.extract::<u32>() {
        vec![n]
    } else if let Ok(tuple) = value.cast::<PyTuple>() {
        tuple.extract().map_err(|_| error())?
    } else {
        value.extract().map_err(|_| error())?
    };
    if parts.is_empty() || parts.len() > 3 || parts.contains(&0) {
        return Err(error());
    }
    let mut out = [1; 3];
    out[..parts.len()].copy_from_slice(&parts);
    Ok(out)
}

/// The exception for an error of [`api::Module::load`].
fn load_error(py: Python<'_>, error: &api::Error) -> PyErr {
    let api::Error::Check {
        diagnostics,
        rendered,
    } = error
    else {
        // The module checked but a kernel could not be built (too many registers, ...).
        return PtxError::new_err(error.to_string());
    };
    let located: Vec<(u32, u32, &str, &str)> = diagnostics
        .iter()
        .filter(|d| d.is_error())
        .zip(rendered.lines())
        .map(|(d, line)| {
            let (line_number, column) = location_of(line);
            (line_number, column, d.code, d.message.as_str())
        })
        .collect();
    let err = PtxError::new_err(rendered.clone());
    // Setting an attribute on a fresh exception object does not fail; if it did, the
    // exception would still carry the message.
    let _ = err.value(py).setattr("diagnostics", located);
    err
}

/// The `line:column` at the start of one line of [`api::Error::Check`]'s `rendered`.
fn location_of(rendered_line: &str) -> (u32, u32) {
    let mut parts = rendered_line.splitn(3, ':');
    let line = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    let column = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    (line, column)
}

/// The exception for an error of [`api::Module::launch`].
fn launch_error(py: Python<'_>, error: &api::Error) -> PyErr {
    match error {
        api::Error::Run {
            location,
            cta,
            thread,
            ..
        } => {
            let err = LaunchError::new_err(error.to_string());
            let value = err.value(py);
            let (line, column) = if location.line == 0 {
                (None, None)
            } else {
                (Some(location.line), Some(location.column))
            };
            // As in `load_error`: attributes of a fresh exception object.
            let _ = value.setattr("line", line);
            let _ = value.setattr("column", column);
            let _ = value.setattr("cta", (cta[0], cta[1], cta[2]));
            let _ = value.setattr("thread", (thread[0], thread[1], thread[2]));
            err
        }
        api::Error::HostWrite(_) => LaunchError::new_err(error.to_string()),
        api::Error::Check { .. } => PtxError::new_err(error.to_string()),
        api::Error::Build(_) | api::Error::Launch(_) => PyValueError::new_err(error.to_string()),
    }
}

/// The module `ptxsim`.
#[pymodule]
#[pyo3(name = "ptxsim")]
fn ptxsim_module(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    module.add_class::<Module>()?;
    module.add_class::<LaunchReport>()?;
    module.add("Error", py.get_type::<Error>())?;
    module.add("PtxError", py.get_type::<PtxError>())?;
    module.add("LaunchError", py.get_type::<LaunchError>())?;
    module.add("DEFAULT_MAX_STEPS", DEFAULT_MAX_STEPS)?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
