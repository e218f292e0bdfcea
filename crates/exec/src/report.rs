//! Printing state: register values in hex and decoded by type, the JSON state object of
//! `ptxsim run --format json` and the text table (traces are built in [`crate::trace`]). Every
//! output is a pure function of the program and its state, so runs are byte-identical.
//!
//! Floating-point values are decoded exactly from their bits by `ptxsim-softfloat` (to `f64`,
//! which holds every value of every format `cvt` knows); host floating point is used only to
//! print that `f64`.

use std::fmt::Write as _;

use ptxsim_isa::{Type, TypeKind};

use crate::cvt;
use crate::ir::{Location, Program};
use crate::step::Outcome;

/// Number of hex digits a register of type `ty` prints with (`.pred`: 1).
pub fn hex_digits(ty: Type) -> usize {
    (ty.bits() as usize).div_ceil(4).max(1)
}

/// `0x` and the value in lowercase hex, zero-padded to the type's width.
pub fn hex(value: u128, ty: Type) -> String {
    format!("0x{value:0width$x}", width = hex_digits(ty))
}

/// A float in the shortest decimal form that reads back as the same value of its own format
/// (`NaN`, `inf`, `-inf` for the specials), as Rust prints `f32` and `f64`: the f16 `0x3555`
/// is `0.3333`, not the exact `0.333251953125`. "Reads back" is what a decimal immediate of
/// the type becomes ([`cvt::from_f64_bits`]: the decimal's nearest `f64`, rounded to nearest
/// even in the format), so the text can be pasted into PTX or `--arg`. Whole numbers under a
/// million print exactly (e4m3's largest, 448, is not shortened to `450`).
pub fn float_text(bits: u64, format: ptxsim_softfloat::Type) -> String {
    match format {
        ptxsim_softfloat::Type::F32 => format!("{:?}", f32::from_bits(bits as u32)),
        ptxsim_softfloat::Type::F64 => format!("{:?}", f64::from_bits(bits)),
        other => {
            let exact = f64::from_bits(cvt::to_f64_bits(bits, other));
            // Whole numbers under a million print exactly: the largest e4m3 is 448, not the
            // shorter `450` that also reads back as it.
            if !exact.is_finite() || exact.fract() == 0.0 && exact.abs() < 1e6 {
                return format!("{exact:?}");
            }
            // The fewest significant digits that read back as `bits` (at most 17, which
            // always do: every such format is exact in f64).
            (1..17)
                .map(|digits| {
                    format!("{exact:.*e}", digits - 1)
                        .parse::<f64>()
                        .unwrap_or(exact)
                })
                .find(|&shorter| cvt::from_f64_bits(shorter.to_bits(), other) == bits)
                .map_or_else(|| format!("{exact:?}"), |shorter| format!("{shorter:?}"))
        }
    }
}

/// One lane of a packed value: its element type, its bit range, and its bits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lane {
    /// The element type's name (`e4m3`, `f16`).
    pub element: &'static str,
    /// The highest bit of the lane.
    pub high: u32,
    /// The lowest bit of the lane.
    pub low: u32,
    /// The lane's bits.
    pub bits: u128,
    /// The decoded value.
    pub value: String,
}

/// Splits a value of a packed type into lanes, highest first (the lane of operand `a` first),
/// as the Semantics block of PTX ISA 9.7.9.21 lays them out. Scalars give one lane.
pub fn lanes(value: u128, ty: Type) -> Vec<Lane> {
    let Some(element) = cvt::element_type(ty) else {
        return vec![Lane {
            element: ty.name(),
            high: ty.bits().saturating_sub(1),
            low: 0,
            bits: value,
            value: decode(value, ty),
        }];
    };
    let (count, lane_bits) = match ty {
        Type::F16x2 | Type::Bf16x2 => (2, 16),
        Type::E2m1x2 => (2, 4),
        Type::E2m1x4 => (4, 4),
        Type::E4m3x2 | Type::E5m2x2 | Type::E2m3x2 | Type::E3m2x2 | Type::Ue8m0x2 => (2, 8),
        Type::S2f6x2 => (2, 8),
        Type::E4m3x4 | Type::E5m2x4 | Type::E2m3x4 | Type::E3m2x4 => (4, 8),
        _ => (1, ty.bits()),
    };
    (0..count)
        .rev()
        .map(|index| {
            let low = index * lane_bits;
            let bits = crate::semantics::chop(value >> low, lane_bits) as u64;
            let value = match element.integer() {
                Some(_) => decode(u128::from(bits), ty),
                None => float_text(bits, element),
            };
            Lane {
                element: element.name(),
                high: low + lane_bits - 1,
                low,
                bits: u128::from(bits),
                value,
            }
        })
        .collect()
}

/// A register value decoded by its type: integers in decimal (signed for `.sN`), floats exactly
/// (see [`float_text`]), `.f16x2` as `(high, low)`, `.pred` as `true`/`false`.
pub fn decode(value: u128, ty: Type) -> String {
    let bits = ty.bits();
    match ty.kind() {
        TypeKind::Predicate => (value & 1 == 1).to_string(),
        TypeKind::Bit | TypeKind::Unsigned => value.to_string(),
        TypeKind::Signed => {
            let shift = 128 - bits.clamp(1, 128);
            (((value << shift) as i128) >> shift).to_string()
        }
        TypeKind::Float => match cvt::element_type(ty) {
            Some(format) => float_text(value as u64, format),
            None => value.to_string(),
        },
        TypeKind::Packed => {
            let parts: Vec<String> = lanes(value, ty).into_iter().map(|l| l.value).collect();
            format!("({})", parts.join(", "))
        }
    }
}

pub use ptxsim_trace::json_string;

/// An error that stopped the run before the thread finished (an unsupported instruction).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stopped {
    /// The message.
    pub message: String,
    /// Where.
    pub location: Location,
}

/// The JSON state object of `ptxsim run --format json` (one line, no trailing newline):
/// `{"entry", "status", "steps", "registers"}` plus `"trap": {"message", "line"}` for a trapped
/// run. A run stopped by an instruction the executor does not implement keeps the contract's
/// three statuses: it is reported as `"trapped"`, with the unsupported instruction as the trap
/// message (the CLI also prints a located diagnostic on stderr).
pub fn state_json(
    program: &Program,
    registers: &[u128],
    steps: u64,
    outcome: Result<&Outcome, &Stopped>,
) -> String {
    let status = match outcome {
        Ok(outcome) => outcome.status(),
        Err(_) => "trapped",
    };
    let mut out = format!(
        "{{\"entry\":{},\"status\":\"{status}\",\"steps\":{steps},\"registers\":{{",
        json_string(&program.entry)
    );
    for (index, (info, value)) in program.registers.iter().zip(registers).enumerate() {
        if index > 0 {
            out.push(',');
        }
        let _ = write!(
            out,
            "{}:\"{}\"",
            json_string(&info.name),
            hex(*value, info.ty)
        );
    }
    out.push('}');
    match outcome {
        Ok(
            Outcome::Trapped { message, location } | Outcome::AssertionFailed { message, location },
        ) => {
            let _ = write!(
                out,
                ",\"trap\":{{\"message\":{},\"line\":{}}}",
                json_string(message),
                location.line
            );
        }
        Err(stopped) => {
            let _ = write!(
                out,
                ",\"trap\":{{\"message\":{},\"line\":{}}}",
                json_string(&stopped.message),
                stopped.location.line
            );
        }
        Ok(Outcome::Running | Outcome::Exited | Outcome::OutOfFuel) => {}
    }
    out.push('}');
    out
}

/// The text form of the state: a header line and an aligned table of register, type, hex and
/// decoded value.
pub fn state_text(
    program: &Program,
    registers: &[u128],
    steps: u64,
    outcome: Result<&Outcome, &Stopped>,
) -> String {
    let status = match outcome {
        Ok(Outcome::Trapped { message, location }) => {
            format!("trapped at line {}: {message}", location.line)
        }
        Ok(Outcome::AssertionFailed { message, location }) => {
            format!("assertion failed at line {}: {message}", location.line)
        }
        Ok(outcome) => outcome.status().to_string(),
        Err(stopped) => format!(
            "stopped at {}:{}: {}",
            stopped.location.line, stopped.location.column, stopped.message
        ),
    };
    let mut out = format!("entry {}: {status} after {steps} steps\n", program.entry);
    let rows: Vec<[String; 4]> = program
        .registers
        .iter()
        .zip(registers)
        .map(|(info, value)| {
            [
                info.name.clone(),
                info.ty.to_string(),
                hex(*value, info.ty),
                decode(*value, info.ty),
            ]
        })
        .collect();
    let header = [
        "register".to_string(),
        "type".to_string(),
        "hex".to_string(),
        "value".to_string(),
    ];
    let mut widths = [0usize; 3];
    for row in std::iter::once(&header).chain(&rows) {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    for row in std::iter::once(&header).chain(&rows) {
        let _ = writeln!(
            out,
            "{:<w0$}  {:<w1$}  {:<w2$}  {}",
            row[0],
            row[1],
            row[2],
            row[3],
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2]
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::float_text;
    use ptxsim_softfloat::Type as Sf;

    /// Shortest round-trip text for the narrow formats. The f16 values are numpy 2's `repr` of
    /// `np.float16` (Dragon4 in its unique, shortest mode) for the same bits; the bf16 and e4m3
    /// ones are worked by hand from the formats' neighbours (bf16 0x3eaa = 0.33203125 between
    /// 0.330078125 and 0.333984375: `0.33` is nearer 0x3ea9, `0.332` reads back; e4m3 0x01 =
    /// 2^-9 between 0 and 2^-8: `0.002` reads back; 0x35 = 0.8125 between 0.75 and 0.875:
    /// `0.8` reads back). Whole numbers print exactly where numpy shortens them (f16 65504,
    /// which numpy prints as 6.55e+04; e4m3 448).
    #[test]
    fn narrow_floats_print_in_their_shortest_round_trip_form() {
        let cases = [
            (Sf::F16, 0x3555, "0.3333"),
            (Sf::F16, 0x3c00, "1.0"),
            (Sf::F16, 0x2e66, "0.1"),
            (Sf::F16, 0x0001, "6e-8"),
            (Sf::F16, 0xc248, "-3.14"),
            (Sf::F16, 0x7c00, "inf"),
            (Sf::F16, 0x8000, "-0.0"),
            (Sf::Bf16, 0x3eaa, "0.332"),
            (Sf::E4m3, 0x01, "0.002"),
            (Sf::E4m3, 0x55, "13.0"),
            (Sf::E4m3, 0x35, "0.8"),
            (Sf::E4m3, 0x7e, "448.0"),
            (Sf::F16, 0x7bff, "65504.0"),
        ];
        for (format, bits, text) in cases {
            assert_eq!(float_text(bits, format), text, "{format:?} {bits:#x}");
        }
    }
}
