//! Python launch arguments as [`Arg`]s, by the kernel's parameter types.
//!
//! * An object with the buffer protocol and at least one dimension (a numpy array, a
//!   `bytearray`, `bytes`) is a buffer: its bytes, in memory order, are copied into simulated
//!   global memory and the parameter (8 bytes, a pointer) gets the address. After the launch
//!   the bytes are copied back into the same memory, unless the buffer is read-only. Only
//!   C-contiguous, little-endian buffers are taken, so that "the bytes" has one meaning.
//! * A Python `int`/`float`, a numpy scalar or a 0-d array is a scalar, converted to the
//!   parameter's type: integers for integer and bit parameters (out of range:
//!   `OverflowError`), any real number for floating-point ones (rounded to nearest even by
//!   ptxsim's softfloat, as `cvt.rn` would).
//! * A parameter that is an array (`.param .align 8 .b8 s[16]`: a struct passed by value)
//!   takes an object with the buffer protocol of exactly its size in bytes (`bytes`,
//!   `bytearray`, a numpy structured scalar or one-element structured array, a `uint8` array):
//!   its bytes, in memory order, are the parameter's value. Anything else is a `TypeError`,
//!   another size a `ValueError`.

use pyo3::buffer::PyBuffer;
use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyFloat, PyInt, PyMemoryView};

use ptxsim_exec::Program;
use ptxsim_exec::api::Arg;
use ptxsim_exec::ir::Param;
use ptxsim_isa::{Type, TypeKind};
use ptxsim_softfloat::{Flags, Rounding};

/// One launch argument, converted.
#[derive(Debug)]
pub(crate) enum Prepared {
    /// A buffer's bytes, and where to copy them back (`None`: read-only, an input only).
    Buffer {
        bytes: Vec<u8>,
        target: Option<PyBuffer<u8>>,
    },
    /// A scalar's bits, cut to the parameter's size by the launch.
    Scalar(u64),
    /// The bytes of a byte-array parameter (a struct passed by value).
    Bytes(Vec<u8>),
}

impl Prepared {
    /// The argument of [`ptxsim_exec::api::Module::launch`].
    pub(crate) fn arg(&mut self) -> Arg<'_> {
        match self {
            Prepared::Buffer { bytes, .. } => Arg::Buffer(bytes),
            Prepared::Scalar(bits) => Arg::Bits(*bits),
            Prepared::Bytes(bytes) => Arg::Bytes(bytes),
        }
    }

    /// Copies a writable buffer's bytes back into the Python object.
    pub(crate) fn copy_back(&self, py: Python<'_>) -> PyResult<()> {
        match self {
            Prepared::Buffer {
                bytes,
                target: Some(target),
            } => target.copy_from_slice(py, bytes),
            Prepared::Buffer { target: None, .. } | Prepared::Scalar(_) | Prepared::Bytes(_) => {
                Ok(())
            }
        }
    }
}

/// Converts `args`, one per parameter of `program`.
pub(crate) fn prepare(
    py: Python<'_>,
    program: &Program,
    args: &[Bound<'_, PyAny>],
) -> PyResult<Vec<Prepared>> {
    if args.len() != program.params.len() {
        return Err(PyTypeError::new_err(format!(
            "kernel `{}` takes {} argument(s) but {} were given{}",
            program.entry,
            program.params.len(),
            args.len(),
            signature(program)
        )));
    }
    args.iter()
        .zip(&program.params)
        .enumerate()
        .map(|(index, (value, param))| prepare_one(py, index, value, param))
        .collect()
}

fn prepare_one(
    py: Python<'_>,
    index: usize,
    value: &Bound<'_, PyAny>,
    param: &Param,
) -> PyResult<Prepared> {
    if is_byte_array(param) {
        return byte_array(index, value, param).map(Prepared::Bytes);
    }
    if value.is_instance_of::<PyInt>() || value.is_instance_of::<PyFloat>() {
        return scalar(index, value, param).map(Prepared::Scalar);
    }
    let Ok(view) = PyMemoryView::from(value) else {
        // No buffer protocol: a number type of its own (`__index__`, `__float__`) or wrong.
        return scalar(index, value, param).map(Prepared::Scalar);
    };
    if view.getattr("ndim")?.extract::<usize>()? == 0 {
        return scalar(index, value, param).map(Prepared::Scalar);
    }
    buffer(py, index, value, &view, param)
}

/// A buffer argument: its bytes and, when writable, the view to copy them back through.
fn buffer(
    py: Python<'_>,
    index: usize,
    value: &Bound<'_, PyAny>,
    view: &Bound<'_, PyMemoryView>,
    param: &Param,
) -> PyResult<Prepared> {
    let what = || describe(index, param);
    if param.bytes != 8 {
        return Err(PyTypeError::new_err(format!(
            "{} is not a pointer (8 bytes), so it takes a number, not {}",
            what(),
            type_name(value)
        )));
    }
    if !view.getattr("c_contiguous")?.extract::<bool>()? {
        return Err(PyTypeError::new_err(format!(
            "argument {index} is not C-contiguous; pass numpy.ascontiguousarray(...) and read \
             the results from that array"
        )));
    }
    let format: String = view.getattr("format")?.extract()?;
    if format.starts_with(['>', '!']) {
        return Err(PyTypeError::new_err(format!(
            "argument {index} is big-endian (format {format:?}); the simulated GPU is \
             little-endian: pass array.astype(array.dtype.newbyteorder('<'))"
        )));
    }
    let bytes_view = view.call_method1("cast", ("B",))?;
    let buffer = PyBuffer::<u8>::get(&bytes_view)?;
    let bytes = buffer.to_vec(py)?;
    let target = (!buffer.readonly()).then_some(buffer);
    Ok(Prepared::Buffer { bytes, target })
}

/// Whether `param` is an array (`.b8 s[16]`) rather than one value of its type.
fn is_byte_array(param: &Param) -> bool {
    u64::from(param.ty.bits() / 8) != param.bytes
}

/// The bytes of a byte-array parameter: a buffer-protocol object of exactly its size, its
/// bytes in memory order (`memoryview.tobytes`, which also takes a 0-d structured scalar).
fn byte_array(index: usize, value: &Bound<'_, PyAny>, param: &Param) -> PyResult<Vec<u8>> {
    let what = || {
        format!(
            "{} is a {}-byte array (a struct passed by value)",
            describe(index, param),
            param.bytes
        )
    };
    let view = PyMemoryView::from(value).map_err(|_| {
        PyTypeError::new_err(format!(
            "{} and takes bytes, a bytearray or a numpy array or structured scalar of {} \
             bytes, not {}",
            what(),
            param.bytes,
            type_name(value)
        ))
    })?;
    if !view.getattr("c_contiguous")?.extract::<bool>()? {
        return Err(PyTypeError::new_err(format!(
            "argument {index} is not C-contiguous; pass numpy.ascontiguousarray(...)"
        )));
    }
    let format: String = view.getattr("format")?.extract()?;
    if format.starts_with(['>', '!']) {
        return Err(PyTypeError::new_err(format!(
            "argument {index} is big-endian (format {format:?}); the simulated GPU is \
             little-endian"
        )));
    }
    let len: u64 = view.getattr("nbytes")?.extract()?;
    if len != param.bytes {
        return Err(PyValueError::new_err(format!(
            "{} but {len} bytes were given",
            what()
        )));
    }
    let bytes = view.call_method0("tobytes")?;
    Ok(bytes.cast::<PyBytes>()?.as_bytes().to_vec())
}

/// A scalar argument as the bits of `param`'s type.
fn scalar(index: usize, value: &Bound<'_, PyAny>, param: &Param) -> PyResult<u64> {
    let what = || describe(index, param);
    let ty = param.ty;
    let size = u64::from(ty.bits() / 8);
    if size != param.bytes || !matches!(size, 1 | 2 | 4 | 8) {
        return Err(PyTypeError::new_err(format!(
            "{} is a {}-byte parameter of no scalar type",
            what(),
            param.bytes
        )));
    }
    let bits = ty.bits();
    match ty.kind() {
        TypeKind::Float => {
            let number: f64 = value.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "{} takes a number, not {}",
                    what(),
                    type_name(value)
                ))
            })?;
            Ok(float_bits(number, ty))
        }
        TypeKind::Bit
        | TypeKind::Signed
        | TypeKind::Unsigned
        | TypeKind::Packed
        | TypeKind::Predicate => {
            let number: i128 = value.extract().map_err(|_| {
                let expected = if param.bytes == 8 {
                    "an array (a pointer) or an integer"
                } else {
                    "an integer"
                };
                PyTypeError::new_err(format!(
                    "{} takes {expected}, not {}",
                    what(),
                    type_name(value)
                ))
            })?;
            let (low, high) = integer_range(ty.kind(), bits);
            if number < low || number > high {
                return Err(PyOverflowError::new_err(format!(
                    "{number} is out of range for {} ({low}..={high})",
                    what()
                )));
            }
            // Two's complement, cut to the parameter's size by the launch.
            Ok(number as u64)
        }
    }
}

/// The values an integer parameter of `bits` bits takes: signed, unsigned, or (bit types,
/// packed types) either reading.
fn integer_range(kind: TypeKind, bits: u32) -> (i128, i128) {
    let unsigned_max = (1i128 << bits) - 1;
    let signed_min = -(1i128 << (bits - 1));
    let signed_max = (1i128 << (bits - 1)) - 1;
    match kind {
        TypeKind::Signed => (signed_min, signed_max),
        TypeKind::Unsigned => (0, unsigned_max),
        TypeKind::Bit | TypeKind::Packed | TypeKind::Predicate | TypeKind::Float => {
            (signed_min, unsigned_max)
        }
    }
}

/// `number` in the format of the floating-point type `ty`, rounded to nearest even.
fn float_bits(number: f64, ty: Type) -> u64 {
    let to = match ty {
        Type::F16 => ptxsim_softfloat::Type::F16,
        Type::Bf16 => ptxsim_softfloat::Type::Bf16,
        // A .tf32 parameter holds its value in the f32 layout.
        Type::F32 | Type::Tf32 => ptxsim_softfloat::Type::F32,
        _ => return number.to_bits(),
    };
    ptxsim_softfloat::convert(
        number.to_bits(),
        ptxsim_softfloat::Type::F64,
        to,
        Rounding::Rn,
        Flags::default(),
        None,
    )
    .bits
}

/// The kernel's parameters, one line each, for the message of a wrong number of arguments.
fn signature(program: &Program) -> String {
    let mut out = String::new();
    for (index, param) in program.params.iter().enumerate() {
        let kind = if is_byte_array(param) {
            "bytes"
        } else if param.pointer_like {
            "an array or an integer"
        } else if param.ty.kind() == TypeKind::Float {
            "a number"
        } else {
            "an integer"
        };
        out.push_str(&format!(
            "\n  {index}: `{}` .{} ({kind})",
            param.name,
            param.ty.name()
        ));
    }
    out
}

/// "argument 2 (parameter `n`, .u32)".
fn describe(index: usize, param: &Param) -> String {
    format!(
        "argument {index} (parameter `{}`, .{})",
        param.name,
        param.ty.name()
    )
}

fn type_name(value: &Bound<'_, PyAny>) -> String {
    value
        .get_type()
        .name()
        .map_or_else(|_| "this value".to_string(), |name| format!("{name}"))
}
