//! CUDA's device-side runtime as nvcc calls it: `printf` (`vprintf`), `assert`
//! (`__assertfail`), `malloc` and `free` (docs/executor.md, "Device-side runtime"). The
//! executor runs calls of these `.extern .func`s as built-ins (`exec/runtime.rs`); this module
//! holds what does not touch a thread: the `printf` formatter, the device heap, and what a
//! launch collects ([`Printed`]).
//!
//! The formatter follows C's `printf` (C11 7.21.6.1) as glibc implements it, for the
//! conversions the CUDA C++ Programming Guide lists for device `printf` ("Format Specifiers":
//! `%d %i %u %o %x %X %c %s %p %e %E %f %F %g %G %a %A %%`, flags, width, precision, `*`,
//! length modifiers `hh h l ll z j t`); nvcc's argument buffer holds each argument at the next
//! multiple of its own size (4 bytes for `int` and everything promoted to it, 8 for `long`,
//! `long long`, `size_t`, pointers and `double`, to which `float` is promoted).

use std::collections::BTreeMap;
use std::sync::Mutex;

use crate::dim::Dim3;

/// What one `printf` call of a thread printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Printed {
    /// The CTA of the thread.
    pub cta: Dim3,
    /// The thread in its CTA.
    pub thread: Dim3,
    /// The formatted bytes (a format string need not be UTF-8).
    pub bytes: Vec<u8>,
}

/// The bytes of `printed`, one record after the other.
pub fn printed_bytes(printed: &[Printed]) -> Vec<u8> {
    printed
        .iter()
        .flat_map(|p| p.bytes.iter().copied())
        .collect()
}

/// The most bytes of `printf` output a launch keeps (CUDA's default `cudaLimitPrintfFifoSize`,
/// 1 MiB); the records of later calls are dropped, as a full FIFO drops them on a GPU.
pub const PRINTF_LIMIT: usize = 1 << 20;

/// The most bytes read of one string (a format string, a `%s` argument, the texts of an
/// assertion): a string without a NUL within that many bytes, or before its buffer ends, ends
/// there.
pub const STRING_LIMIT: u64 = 1 << 16;

/// The largest width or precision the formatter pads to (glibc allows up to `INT_MAX`); larger
/// ones are cut to it, so that one call cannot print gigabytes.
pub const FIELD_LIMIT: usize = 1 << 16;

/// Where the device heap starts: below the module's `.global` variables (`GLOBAL_BASE`) and
/// above the generic windows.
pub const HEAP_BASE: u64 = 0x0000_7e00_0000_0000;

/// The device heap's size: 8 MiB, CUDA's default `cudaLimitMallocHeapSize`.
pub const HEAP_BYTES: u64 = 8 << 20;

/// The alignment of what `malloc` returns ("aligned to 16 bytes", CUDA C++ Programming Guide,
/// "Dynamic Global Memory Allocation and Operations").
pub const HEAP_ALIGN: u64 = 16;

/// The device heap's allocations: (offset from [`HEAP_BASE`], size rounded up to
/// [`HEAP_ALIGN`]), first fit, shared by every thread of a launch.
#[derive(Debug)]
pub struct Heap {
    blocks: Mutex<BTreeMap<u64, u64>>,
    /// Its size in bytes ([`HEAP_BYTES`] unless the program set `cudaLimitMallocHeapSize`).
    capacity: u64,
}

impl Default for Heap {
    fn default() -> Self {
        Self::with_capacity(HEAP_BYTES)
    }
}

impl Heap {
    /// An empty heap of `capacity` bytes: "the size of the heap used by the malloc() and
    /// free() device system calls" that `cudaDeviceSetLimit(cudaLimitMallocHeapSize, ...)`
    /// sets (its memory is [`crate::memory::DeviceMemory::heap_of`] the same size).
    pub fn with_capacity(capacity: u64) -> Self {
        Self {
            blocks: Mutex::default(),
            capacity,
        }
    }

    /// Its size in bytes.
    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// `malloc(size)`: the address of a free block of at least `size` bytes (the first that
    /// fits, from the heap's start), or 0 (NULL) when none is left. `malloc(0)` returns a
    /// distinct block of [`HEAP_ALIGN`] bytes.
    pub fn allocate(&self, size: u64) -> u64 {
        let Some(rounded) = size.max(1).checked_next_multiple_of(HEAP_ALIGN) else {
            return 0;
        };
        let mut blocks = self.blocks.lock().unwrap_or_else(|e| e.into_inner());
        let mut start = 0;
        for (&offset, &len) in blocks.iter() {
            if offset - start >= rounded {
                break;
            }
            start = offset + len;
        }
        if self.capacity.saturating_sub(start) < rounded {
            return 0;
        }
        blocks.insert(start, rounded);
        HEAP_BASE + start
    }

    /// `free(address)`: NULL does nothing; an address `malloc` returned and that is not freed
    /// yet is freed; anything else is an error (C leaves it undefined; ptxsim traps).
    pub fn free(&self, address: u64) -> Result<(), String> {
        if address == 0 {
            return Ok(());
        }
        let mut blocks = self.blocks.lock().unwrap_or_else(|e| e.into_inner());
        match address
            .checked_sub(HEAP_BASE)
            .and_then(|offset| blocks.remove(&offset))
        {
            Some(_) => Ok(()),
            None => Err(format!(
                "free of 0x{address:x}, which is not a block malloc returned (or was freed \
                 already)"
            )),
        }
    }
}

/// The `printf` output of a CTA while it runs: (thread index, bytes) per call, in the order
/// the calls ran; [`PRINTF_LIMIT`] bytes at most (later calls are counted, not kept).
#[derive(Clone, Debug, Default)]
pub(crate) struct PrintBuffer {
    records: Vec<(usize, Vec<u8>)>,
    bytes: usize,
    dropped: u64,
}

impl PrintBuffer {
    /// Keeps what thread `lane` printed.
    pub(crate) fn push(&mut self, lane: usize, bytes: Vec<u8>) {
        let total = self.bytes.saturating_add(bytes.len().max(1));
        if total > PRINTF_LIMIT {
            self.dropped += 1;
            return;
        }
        self.bytes = total;
        self.records.push((lane, bytes));
    }

    /// The records, by thread (in linear order) and, for each thread, in the order of its
    /// calls; and how many calls were dropped. The buffer is empty afterwards.
    pub(crate) fn take(&mut self, cta: Dim3, tid: impl Fn(usize) -> Dim3) -> (Vec<Printed>, u64) {
        if self.records.is_empty() && self.dropped == 0 {
            // Most CTAs print nothing: nothing to sort or collect.
            self.bytes = 0;
            return (Vec::new(), 0);
        }
        let mut records = std::mem::take(&mut self.records);
        records.sort_by_key(|(lane, _)| *lane);
        let dropped = std::mem::take(&mut self.dropped);
        self.bytes = 0;
        let printed = records
            .into_iter()
            .map(|(lane, bytes)| Printed {
                cta,
                thread: tid(lane),
                bytes,
            })
            .collect();
        (printed, dropped)
    }

    /// Forgets everything (a CTA reused for another).
    pub(crate) fn clear(&mut self) {
        self.records.clear();
        self.bytes = 0;
        self.dropped = 0;
    }
}

/// What the formatter reads from the simulated memory: the arguments in order and strings.
pub trait PrintfSource {
    /// Why a read failed (a memory fault).
    type Error;

    /// The next argument of `bytes` (4 or 8) bytes, at the next multiple of `bytes` in the
    /// argument buffer.
    fn argument(&mut self, bytes: u32) -> Result<u64, Self::Error>;

    /// The bytes of the string at `address` before its NUL, at most `limit` of them.
    fn string(&mut self, address: u64, limit: u64) -> Result<Vec<u8>, Self::Error>;
}

/// A conversion specification's flags, width and precision.
#[derive(Clone, Copy, Debug, Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alternate: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
}

/// The size class of an integer argument (the length modifier).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Length {
    Char,
    Short,
    Int,
    Long,
}

/// Formats `format` as C's `printf` with the arguments `source` gives; returns the bytes and
/// the number of arguments read (what CUDA's `printf` returns: "the number of arguments
/// parsed"). A conversion specifier C does not define is printed as written, as glibc does;
/// `%n` reads its pointer and stores nothing.
pub fn format<S: PrintfSource>(format: &[u8], source: &mut S) -> Result<(Vec<u8>, u32), S::Error> {
    let mut out = Vec::new();
    let mut count = 0u32;
    let mut i = 0;
    while i < format.len() {
        let byte = format[i];
        if byte != b'%' {
            out.push(byte);
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        let mut spec = Spec::default();
        while let Some(&flag) = format.get(i) {
            match flag {
                b'-' => spec.left = true,
                b'+' => spec.plus = true,
                b' ' => spec.space = true,
                b'#' => spec.alternate = true,
                b'0' => spec.zero = true,
                _ => break,
            }
            i += 1;
        }
        if format.get(i) == Some(&b'*') {
            i += 1;
            let width = source.argument(4)? as u32 as i32;
            count += 1;
            if width < 0 {
                spec.left = true;
            }
            spec.width = (width.unsigned_abs() as usize).min(FIELD_LIMIT);
        } else {
            spec.width = digits(format, &mut i);
        }
        if format.get(i) == Some(&b'.') {
            i += 1;
            if format.get(i) == Some(&b'*') {
                i += 1;
                let precision = source.argument(4)? as u32 as i32;
                count += 1;
                // "A negative precision argument is taken as if the precision were omitted."
                spec.precision = (precision >= 0).then_some((precision as usize).min(FIELD_LIMIT));
            } else {
                spec.precision = Some(digits(format, &mut i));
            }
        }
        let mut length = Length::Int;
        match format.get(i) {
            Some(b'h') if format.get(i + 1) == Some(&b'h') => {
                length = Length::Char;
                i += 2;
            }
            Some(b'h') => {
                length = Length::Short;
                i += 1;
            }
            Some(b'l') if format.get(i + 1) == Some(&b'l') => {
                length = Length::Long;
                i += 2;
            }
            Some(b'l' | b'z' | b'j' | b't' | b'q' | b'L') => {
                length = Length::Long;
                i += 1;
            }
            _ => {}
        }
        let Some(&conversion) = format.get(i) else {
            // A lone `%` (with flags) at the end: printed as written.
            out.extend_from_slice(&format[start..]);
            break;
        };
        i += 1;
        let integer_bytes = if length == Length::Long { 8 } else { 4 };
        match conversion {
            b'%' => out.push(b'%'),
            b'd' | b'i' => {
                let bits = source.argument(integer_bytes)?;
                count += 1;
                let value: i64 = match length {
                    Length::Char => i64::from(bits as u8 as i8),
                    Length::Short => i64::from(bits as u16 as i16),
                    Length::Int => i64::from(bits as u32 as i32),
                    Length::Long => bits as i64,
                };
                let sign = if value < 0 {
                    "-"
                } else if spec.plus {
                    "+"
                } else if spec.space {
                    " "
                } else {
                    ""
                };
                let digits = integer_digits(value.unsigned_abs(), 10, false, spec.precision);
                pad_number(&mut out, &spec, sign, &digits, spec.precision.is_none());
            }
            b'u' | b'x' | b'X' | b'o' => {
                let bits = source.argument(integer_bytes)?;
                count += 1;
                let value = match length {
                    Length::Char => u64::from(bits as u8),
                    Length::Short => u64::from(bits as u16),
                    Length::Int => u64::from(bits as u32),
                    Length::Long => bits,
                };
                let (radix, upper) = match conversion {
                    b'u' => (10, false),
                    b'x' => (16, false),
                    b'X' => (16, true),
                    _ => (8, false),
                };
                let mut digits = integer_digits(value, radix, upper, spec.precision);
                let mut prefix = "";
                if spec.alternate {
                    match conversion {
                        // "For o conversion, it increases the precision, if and only if
                        // necessary, to force the first digit of the result to be a zero."
                        b'o' if !digits.starts_with('0') => digits.insert(0, '0'),
                        b'x' if value != 0 => prefix = "0x",
                        b'X' if value != 0 => prefix = "0X",
                        _ => {}
                    }
                }
                pad_number(&mut out, &spec, prefix, &digits, spec.precision.is_none());
            }
            b'c' => {
                let bits = source.argument(4)?;
                count += 1;
                pad_bytes(&mut out, &spec, &[bits as u8]);
            }
            b's' => {
                let address = source.argument(8)?;
                count += 1;
                let limit = spec.precision.map_or(STRING_LIMIT, |p| p as u64);
                let text = if address == 0 {
                    // glibc prints "(null)" for a null string, or nothing when the precision
                    // is too small for it.
                    if limit >= 6 {
                        b"(null)".to_vec()
                    } else {
                        Vec::new()
                    }
                } else {
                    source.string(address, limit.min(STRING_LIMIT))?
                };
                pad_bytes(&mut out, &spec, &text);
            }
            b'p' => {
                let address = source.argument(8)?;
                count += 1;
                if address == 0 {
                    pad_bytes(&mut out, &spec, b"(nil)");
                } else {
                    // glibc: as `%#lx`.
                    let sign = if spec.plus {
                        "+0x"
                    } else if spec.space {
                        " 0x"
                    } else {
                        "0x"
                    };
                    let digits = integer_digits(address, 16, false, spec.precision);
                    pad_number(&mut out, &spec, sign, &digits, spec.precision.is_none());
                }
            }
            b'n' => {
                source.argument(8)?;
                count += 1;
            }
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => {
                let bits = source.argument(8)?;
                count += 1;
                format_float(&mut out, &spec, conversion, bits);
            }
            _ => out.extend_from_slice(&format[start..i]),
        }
    }
    Ok((out, count))
}

/// A decimal number at `format[*i..]` (0 when there is none), cut to [`FIELD_LIMIT`].
fn digits(format: &[u8], i: &mut usize) -> usize {
    let mut value = 0usize;
    while let Some(digit) = format.get(*i).filter(|b| b.is_ascii_digit()) {
        value = value
            .saturating_mul(10)
            .saturating_add(usize::from(digit - b'0'));
        *i += 1;
    }
    value.min(FIELD_LIMIT)
}

/// The digits of `value` in `radix`, at least `precision` of them (default 1; a zero value with
/// precision 0 has none).
fn integer_digits(value: u64, radix: u32, upper: bool, precision: Option<usize>) -> String {
    let mut digits = match radix {
        8 => format!("{value:o}"),
        16 if upper => format!("{value:X}"),
        16 => format!("{value:x}"),
        _ => value.to_string(),
    };
    match precision {
        Some(0) if value == 0 => digits.clear(),
        Some(p) if p > digits.len() => digits.insert_str(0, &"0".repeat(p - digits.len())),
        _ => {}
    }
    digits
}

/// Writes `prefix` (sign, `0x`) and `digits` padded to the width: spaces on the left, or on
/// the right with `-`, or zeros between prefix and digits with `0` where `zero_allowed`.
fn pad_number(out: &mut Vec<u8>, spec: &Spec, prefix: &str, digits: &str, zero_allowed: bool) {
    let len = prefix.len() + digits.len();
    let fill = spec.width.saturating_sub(len);
    if spec.left {
        out.extend_from_slice(prefix.as_bytes());
        out.extend_from_slice(digits.as_bytes());
        out.resize(out.len() + fill, b' ');
    } else if spec.zero && zero_allowed {
        out.extend_from_slice(prefix.as_bytes());
        out.resize(out.len() + fill, b'0');
        out.extend_from_slice(digits.as_bytes());
    } else {
        out.resize(out.len() + fill, b' ');
        out.extend_from_slice(prefix.as_bytes());
        out.extend_from_slice(digits.as_bytes());
    }
}

/// Writes `text` padded with spaces to the width (`0` does not apply to `%c`, `%s`, `%p`).
fn pad_bytes(out: &mut Vec<u8>, spec: &Spec, text: &[u8]) {
    let fill = spec.width.saturating_sub(text.len());
    if !spec.left {
        out.resize(out.len() + fill, b' ');
    }
    out.extend_from_slice(text);
    if spec.left {
        out.resize(out.len() + fill, b' ');
    }
}

/// `%f %F %e %E %g %G %a %A` of the double with bits `bits` (C11 7.21.6.1p8). The decimal
/// digits are those of Rust's exact formatting (`{:.N}`, `{:.Ne}`: the exactly rounded decimal
/// of the binary value, ties to even, as glibc in the default rounding mode).
fn format_float(out: &mut Vec<u8>, spec: &Spec, conversion: u8, bits: u64) {
    let value = f64::from_bits(bits);
    let negative = bits >> 63 != 0;
    let upper = conversion.is_ascii_uppercase();
    let sign = if negative {
        "-"
    } else if spec.plus {
        "+"
    } else if spec.space {
        " "
    } else {
        ""
    };
    if !value.is_finite() {
        let text = match (value.is_nan(), upper) {
            (true, false) => "nan",
            (true, true) => "NAN",
            (false, false) => "inf",
            (false, true) => "INF",
        };
        pad_number(out, spec, sign, text, false);
        return;
    }
    let magnitude = value.abs();
    let body = match conversion.to_ascii_lowercase() {
        b'f' => fixed(magnitude, spec.precision.unwrap_or(6), spec.alternate),
        b'e' => exponential(
            magnitude,
            spec.precision.unwrap_or(6),
            spec.alternate,
            upper,
        ),
        b'g' => general(magnitude, spec, upper),
        _ => {
            let (prefix, body) = hexadecimal(bits, spec, upper);
            let mut prefixed = String::from(sign);
            prefixed.push_str(prefix);
            pad_number(out, spec, &prefixed, &body, true);
            return;
        }
    };
    pad_number(out, spec, sign, &body, true);
}

/// `%f` of a non-negative finite value.
fn fixed(value: f64, precision: usize, alternate: bool) -> String {
    let mut text = format!("{value:.precision$}");
    if alternate && precision == 0 {
        text.push('.');
    }
    text
}

/// `%e` of a non-negative finite value: `d.ddde±XX`, at least two exponent digits.
fn exponential(value: f64, precision: usize, alternate: bool, upper: bool) -> String {
    let (mantissa, exponent) = split_exponent(value, precision);
    let mut text = mantissa;
    if alternate && precision == 0 {
        text.push('.');
    }
    text.push(if upper { 'E' } else { 'e' });
    text.push(if exponent < 0 { '-' } else { '+' });
    text.push_str(&format!("{:02}", exponent.unsigned_abs()));
    text
}

/// The mantissa digits and the decimal exponent of `value` rounded to `precision` digits after
/// the point, in the form `d.ddd`.
fn split_exponent(value: f64, precision: usize) -> (String, i32) {
    let text = format!("{value:.precision$e}");
    match text.split_once('e') {
        Some((mantissa, exponent)) => (mantissa.to_string(), exponent.parse().unwrap_or(0)),
        None => (text, 0),
    }
}

/// `%g` of a non-negative finite value: "Let P equal the precision if nonzero, 6 if the
/// precision is omitted, or 1 if the precision is zero. Then, if a conversion with style E
/// would have an exponent of X: if P > X ≥ −4, the conversion is with style f and precision
/// P − (X + 1). otherwise, the conversion is with style e and precision P − 1." Trailing zeros
/// (and a trailing point) are removed unless `#`.
fn general(value: f64, spec: &Spec, upper: bool) -> String {
    let p = match spec.precision {
        None => 6,
        Some(0) => 1,
        Some(p) => p,
    };
    let (_, x) = split_exponent(value, p - 1);
    let x = if value == 0.0 { 0 } else { x };
    let mut text = if (p as i64) > i64::from(x) && x >= -4 {
        fixed(
            value,
            (p as i64 - 1 - i64::from(x)) as usize,
            spec.alternate,
        )
    } else {
        exponential(value, p - 1, spec.alternate, upper)
    };
    if !spec.alternate {
        let (number, exponent) = match text.find(['e', 'E']) {
            Some(at) => (text[..at].to_string(), text[at..].to_string()),
            None => (text.clone(), String::new()),
        };
        let number = if number.contains('.') {
            number
                .trim_end_matches('0')
                .trim_end_matches('.')
                .to_string()
        } else {
            number
        };
        text = number + &exponent;
    }
    text
}

/// `%a` of a finite double: the prefix (`0x`) and the rest, `h.hhhp±d`, as glibc writes it: a
/// normal number has the leading digit 1, a subnormal 0 with the exponent −1022; without a
/// precision every significant hexadecimal digit (trailing zeros removed), with one the
/// fraction rounded to that many digits (to nearest, ties to even; a carry makes the leading
/// digit 2).
fn hexadecimal(bits: u64, spec: &Spec, upper: bool) -> (&'static str, String) {
    let exponent_bits = ((bits >> 52) & 0x7ff) as i32;
    let mut fraction = bits & ((1u64 << 52) - 1);
    let (mut lead, exponent) = match (exponent_bits, fraction) {
        (0, 0) => (0u64, 0),
        (0, _) => (0, -1022),
        _ => (1, exponent_bits - 1023),
    };
    let digits = match spec.precision {
        None => {
            let mut digits = 13;
            while digits > 0 && fraction & 0xf == 0 {
                fraction >>= 4;
                digits -= 1;
            }
            digits
        }
        Some(p) if p < 13 => {
            let drop = 4 * (13 - p) as u32;
            let kept = fraction >> drop;
            let rest = fraction & ((1u64 << drop) - 1);
            let half = 1u64 << (drop - 1);
            // Ties go to the even last digit (the leading digit when no fraction is kept).
            let last = if p == 0 { lead } else { kept };
            let round_up = rest > half || (rest == half && last & 1 == 1);
            fraction = kept + u64::from(round_up);
            if p == 0 {
                lead += fraction;
                fraction = 0;
            } else if fraction >> (4 * p) != 0 {
                lead += 1;
                fraction &= (1u64 << (4 * p)) - 1;
            }
            p
        }
        Some(p) => p,
    };
    let mut text = lead.to_string();
    if digits > 0 || spec.alternate {
        text.push('.');
    }
    if digits > 0 {
        let hex = if digits <= 13 || spec.precision.is_none() {
            format!("{fraction:0digits$x}")
        } else {
            // More digits than a double has: the 13 and zeros.
            let mut hex = format!("{:013x}", bits & ((1u64 << 52) - 1));
            hex.push_str(&"0".repeat(digits - 13));
            hex
        };
        text.push_str(&hex);
    }
    text.push('p');
    text.push(if exponent < 0 { '-' } else { '+' });
    text.push_str(&exponent.unsigned_abs().to_string());
    if upper {
        ("0X", text.to_ascii_uppercase())
    } else {
        ("0x", text)
    }
}

/// The message a GPU prints for a failed `assert` (`__assertfail`):
/// `FILE:LINE: FUNCTION: block: [x,y,z], thread: [x,y,z] Assertion `MESSAGE` failed.`
pub fn assertion_message(
    message: &[u8],
    file: &[u8],
    line: u32,
    function: &[u8],
    cta: Dim3,
    thread: Dim3,
) -> String {
    format!(
        "{}:{line}: {}: block: [{},{},{}], thread: [{},{},{}] Assertion `{}` failed.",
        String::from_utf8_lossy(file),
        String::from_utf8_lossy(function),
        cta[0],
        cta[1],
        cta[2],
        thread[0],
        thread[1],
        thread[2],
        String::from_utf8_lossy(message),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Arguments as a list of values (each read with its size's mask) and strings by address.
    struct Values(Vec<u64>, Vec<(u64, &'static [u8])>);

    impl PrintfSource for Values {
        type Error = String;
        fn argument(&mut self, _bytes: u32) -> Result<u64, String> {
            if self.0.is_empty() {
                return Err("no argument".to_string());
            }
            Ok(self.0.remove(0))
        }
        fn string(&mut self, address: u64, limit: u64) -> Result<Vec<u8>, String> {
            let (_, text) = self
                .1
                .iter()
                .find(|(a, _)| *a == address)
                .ok_or("bad string")?;
            Ok(text[..text.len().min(limit as usize)].to_vec())
        }
    }

    fn run(format_string: &str, values: &[u64]) -> String {
        let mut source = Values(values.to_vec(), vec![(0x100, b"hello")]);
        let (bytes, _) = format(format_string.as_bytes(), &mut source).unwrap();
        String::from_utf8(bytes).unwrap()
    }

    // Expected strings from C11 7.21.6.1's rules, written out by hand; the behaviour against
    // glibc is tested in tests/device_runtime.rs.
    #[test]
    fn formats_the_basic_conversions() {
        assert_eq!(
            run("%d|%5d|%-5d|%05d", &[7, 7, 7, 7]),
            "7|    7|7    |00007"
        );
        assert_eq!(run("%s|%.3s|%8s", &[0x100, 0x100, 0]), "hello|hel|  (null)");
        assert_eq!(run("%x %#X %#o %o", &[255, 255, 8, 0]), "ff 0XFF 010 0");
        assert_eq!(run("%.0d|%+d|% d", &[0, 3, 3]), "|+3| 3");
        assert_eq!(run("%*d|%-*d|%.*d", &[4, 1, 3, 2, 3, 5]), "   1|2  |005");
        // Unknown conversions and a lone `%` at the end print as written (glibc 2.36 prints
        // `%y|%5k|%` for this format).
        assert_eq!(run("%y|%5k|%", &[]), "%y|%5k|%");
    }

    #[test]
    fn formats_floats() {
        let one_half = 1.5f64.to_bits();
        assert_eq!(run("%f %e %g", &[one_half; 3]), "1.500000 1.500000e+00 1.5");
        assert_eq!(
            run("%a %A %.3a", &[one_half; 3]),
            "0x1.8p+0 0X1.8P+0 0x1.800p+0"
        );
        assert_eq!(run("%a", &[0]), "0x0p+0");
        assert_eq!(
            run("%g %g", &[1e-5f64.to_bits(), 123456789.0f64.to_bits()]),
            "1e-05 1.23457e+08"
        );
        assert_eq!(
            run("%05.1f|%-6.1f|", &[(-2.25f64).to_bits(), 2.25f64.to_bits()]),
            "-02.2|2.2   |"
        );
        assert_eq!(
            run("%f %F", &[f64::INFINITY.to_bits(), f64::NAN.to_bits()]),
            "inf NAN"
        );
    }

    #[test]
    fn the_heap_reuses_freed_blocks_and_runs_out() {
        let heap = Heap::default();
        let a = heap.allocate(10);
        let b = heap.allocate(16);
        assert_eq!((a, b), (HEAP_BASE, HEAP_BASE + 16));
        assert!(heap.free(a).is_ok());
        assert!(heap.free(a).is_err());
        assert_eq!(heap.allocate(16), HEAP_BASE);
        assert_eq!(heap.allocate(HEAP_BYTES), 0);
        assert_eq!(heap.allocate(u64::MAX), 0);
        assert!(heap.free(0).is_ok());
    }
}
