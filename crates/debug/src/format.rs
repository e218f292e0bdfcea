//! Showing and parsing values: `print REG/FORMAT`, the old -> new lines of a stop, and the
//! values of `set`.
//!
//! Every decoding goes through `ptxsim_exec::report` (which decodes floats exactly from their
//! bits with `ptxsim-softfloat`); no host floating point is involved except to print the exact
//! `f64` that holds a value.

use ptxsim_exec::report;
use ptxsim_isa::{Type, TypeKind};
use ptxsim_syntax::ast::{Immediate, ImmediateValue, Radix};

/// How `print` shows a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    /// `/x`: hex, zero-padded to the register's width (the default).
    Hex,
    /// `/d`: signed decimal (two's complement at the register's width).
    Signed,
    /// `/u`: unsigned decimal.
    Unsigned,
    /// `/f32`, `/e4m3x2`, ...: the low bits decoded as this floating-point or packed type.
    Type(Type),
}

/// The format names `print` accepts, for messages and `help`.
pub(crate) const FORMATS: &str = "x d u f32 f64 f16 bf16 tf32 f16x2 bf16x2 e4m3x2 e5m2x2 e2m1x2 \
                                  e2m3x2 e3m2x2 ue8m0x2 s2f6x2 e4m3x4 e5m2x4 e2m1x4 e2m3x4 e3m2x4";

impl Format {
    /// Parses a format name (without the `/`).
    pub(crate) fn parse(name: &str) -> Result<Format, String> {
        match name {
            "x" => Ok(Format::Hex),
            "d" => Ok(Format::Signed),
            "u" => Ok(Format::Unsigned),
            other => Type::from_name(other)
                .filter(|ty| ty.is_float() && !other.starts_with('.'))
                .map(Format::Type)
                .ok_or_else(|| format!("unknown format `/{name}`; formats: {FORMATS}")),
        }
    }
}

/// `0x...` at the type's width and the value decoded by the type: `0x3fc00000 (1.5)`.
pub(crate) fn value_text(value: u128, ty: Type) -> String {
    format!("{} ({})", report::hex(value, ty), decoded(value, ty))
}

/// The value decoded by the type ([`report::decode`]); a `.b8`..`.b64` register whose top bit is
/// set also as a signed integer, since untyped bits hold either (`4294967295, signed -1`).
pub(crate) fn decoded(value: u128, ty: Type) -> String {
    let text = report::decode(value, ty);
    let width = ty.bits();
    if ty.kind() == TypeKind::Bit && (8..=64).contains(&width) && value >> (width - 1) & 1 == 1 {
        format!("{text}, signed {}", signed(value, width))
    } else {
        text
    }
}

/// The signed decimal value of the low `bits` bits.
fn signed(value: u128, bits: u32) -> String {
    let shift = 128 - bits.clamp(1, 128);
    (((value << shift) as i128) >> shift).to_string()
}

/// `print`'s output for a register (or special register) `name` of type `ty` holding `value`.
pub(crate) fn print(name: &str, value: u128, ty: Type, format: Format) -> Result<String, String> {
    let width = ty.bits();
    Ok(match format {
        Format::Hex => format!("{name} = {}\n", value_text(value, ty)),
        Format::Signed => format!("{name} = {}\n", signed(value, width)),
        Format::Unsigned => format!("{name} = {value}\n"),
        Format::Type(as_type) => {
            let bits = as_type.bits();
            if bits > width {
                return Err(format!(
                    "`{name}` is a {width}-bit {ty} register; /{} needs {bits} bits",
                    as_type.name()
                ));
            }
            let part = ptxsim_exec::semantics::chop(value, bits);
            let range = if bits < width {
                format!("[{}:0]", bits - 1)
            } else {
                String::new()
            };
            let mut text = format!(
                "{name}{range} = {} as {} = {}\n",
                report::hex(part, as_type),
                as_type.name(),
                report::decode(part, as_type)
            );
            let lanes = report::lanes(part, as_type);
            if lanes.len() > 1 {
                for lane in lanes {
                    let digits = ((lane.high - lane.low + 1) as usize).div_ceil(4);
                    text.push_str(&format!(
                        "  [{}:{}] {} 0x{:0digits$x} = {}\n",
                        lane.high, lane.low, lane.element, lane.bits, lane.value
                    ));
                }
            }
            text
        }
    })
}

/// Parses a value for `set` into the bits of a register of type `ty`: decimal integers (`-5`),
/// decimal floats (`1.5`; for a float register an integer is its value), hex bits
/// (`0x3fc00000`, must fit the register), PTX float literals (`0f3fc00000`, `0d...`, converted
/// with `.rn` to the register's float type) and `true`/`false` for predicates.
pub(crate) fn parse_value(text: &str, ty: Type) -> Result<u128, String> {
    let width = ty.bits();
    let limit = if width >= 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    };
    match text {
        "true" if ty == Type::Pred => return Ok(1),
        "false" if ty == Type::Pred => return Ok(0),
        _ => {}
    }
    let (negative, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let lower = body.to_ascii_lowercase();
    if let Some(hex) = lower.strip_prefix("0x") {
        if negative {
            return Err(format!("hex bits take no sign: `{text}`"));
        }
        let value = u128::from_str_radix(hex, 16).map_err(|_| format!("bad hex `{text}`"))?;
        if value > limit {
            return Err(format!("`{text}` does not fit a {width}-bit {ty} register"));
        }
        return Ok(value);
    }
    let float_bits = |digits: &str, count: usize| -> Result<u64, String> {
        if digits.len() != count {
            return Err(format!("`{text}` needs exactly {count} hex digits"));
        }
        u64::from_str_radix(digits, 16).map_err(|_| format!("bad float literal `{text}`"))
    };
    let is_float = ty.kind() == TypeKind::Float;
    let value = if let Some(digits) = lower.strip_prefix("0f") {
        ImmediateValue::F32Bits(float_bits(digits, 8)? as u32)
    } else if let Some(digits) = lower.strip_prefix("0d") {
        ImmediateValue::F64Bits(float_bits(digits, 16)?)
    } else if !body.is_empty() && body.chars().all(|c| c.is_ascii_digit()) {
        if is_float {
            ImmediateValue::Decimal(body.to_string())
        } else {
            let magnitude: u64 = body
                .parse()
                .map_err(|_| format!("`{text}` does not fit a {width}-bit {ty} register"))?;
            let most = if negative {
                1u128 << width.saturating_sub(1)
            } else {
                limit
            };
            if u128::from(magnitude) > most {
                return Err(format!("`{text}` does not fit a {width}-bit {ty} register"));
            }
            ImmediateValue::Integer {
                value: magnitude,
                radix: Radix::Decimal,
                unsigned: false,
            }
        }
    } else if is_float && is_decimal_float(body) {
        ImmediateValue::Decimal(body.to_string())
    } else if is_decimal_float(body) {
        return Err(format!(
            "`{text}` is a float but `{ty}` is not a float register; give hex bits"
        ));
    } else {
        return Err(format!(
            "`{text}` is not a value (decimal, 0x hex bits, 0f/0d float bits, 1.5)"
        ));
    };
    ptxsim_check::program::encode_immediate(&Immediate { negative, value }, ty)
}

/// Whether `text` looks like a decimal float (`1.5`, `2e-3`, `.5`).
fn is_decimal_float(text: &str) -> bool {
    !text.is_empty()
        && text.chars().any(|c| c.is_ascii_digit())
        && text
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))
        && text.parse::<f64>().is_ok()
}

/// Whether a register name matches a `regs` pattern: a glob with `*` and `?` when it has one,
/// else a prefix (with or without the leading `%`).
pub(crate) fn matches_pattern(name: &str, pattern: &str) -> bool {
    if pattern.contains(['*', '?']) {
        glob(name.as_bytes(), pattern.as_bytes())
            || (!pattern.starts_with('%')
                && glob(name.trim_start_matches('%').as_bytes(), pattern.as_bytes()))
    } else {
        name.starts_with(pattern) || name.trim_start_matches('%').starts_with(pattern)
    }
}

fn glob(text: &[u8], pattern: &[u8]) -> bool {
    // Iterative matching with one backtracking point (the last `*`).
    let (mut t, mut p) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() && (pattern[p] == b'?' || pattern[p] == text[t]) {
            t += 1;
            p += 1;
        } else if p < pattern.len() && pattern[p] == b'*' {
            star = Some((p, t));
            p += 1;
        } else if let Some((star_p, star_t)) = star {
            p = star_p + 1;
            t = star_t + 1;
            star = Some((star_p, star_t + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_and_prefixes() {
        assert!(matches_pattern("%r1", "%r"));
        assert!(matches_pattern("%rd1", "rd"));
        assert!(matches_pattern("%r1", "%r?"));
        assert!(!matches_pattern("%rd1", "%r?"));
        assert!(matches_pattern("%rd12", "%rd*2"));
        assert!(matches_pattern("%f1", "f*"));
        assert!(!matches_pattern("%f1", "%r*"));
    }

    #[test]
    fn values_for_set() {
        assert_eq!(parse_value("1.5", Type::F32), Ok(0x3fc0_0000));
        assert_eq!(parse_value("3", Type::F32), Ok(0x4040_0000));
        assert_eq!(parse_value("-1", Type::S16), Ok(0xffff));
        assert_eq!(parse_value("-1", Type::B32), Ok(0xffff_ffff));
        assert_eq!(parse_value("0x3c00", Type::F16), Ok(0x3c00));
        assert_eq!(parse_value("0f3f800000", Type::F16), Ok(0x3c00));
        assert_eq!(parse_value("true", Type::Pred), Ok(1));
        assert!(parse_value("0x10000", Type::B16).is_err());
        assert!(parse_value("65536", Type::U16).is_err());
        assert!(parse_value("1.5", Type::B32).is_err());
        assert!(parse_value("abc", Type::B32).is_err());
        assert!(parse_value("-0x1", Type::B32).is_err());
        assert!(parse_value("", Type::B32).is_err());
    }

    #[test]
    fn formats_decode_lanes() {
        let text = print("%h", 0x3c00, Type::B16, Format::Type(Type::E4m3x2)).unwrap();
        assert_eq!(
            text,
            "%h = 0x3c00 as e4m3x2 = (1.5, 0.0)\n  [15:8] e4m3 0x3c = 1.5\n  [7:0] e4m3 0x00 = 0.0\n"
        );
        let text = print("%r", 0x1_3c00, Type::B32, Format::Type(Type::F16)).unwrap();
        assert_eq!(text, "%r[15:0] = 0x3c00 as f16 = 1.0\n");
        assert!(print("%h", 0, Type::B16, Format::Type(Type::F32)).is_err());
        assert_eq!(
            print("%r", 0xffff_fffb, Type::B32, Format::Signed).unwrap(),
            "%r = -5\n"
        );
        assert!(Format::parse("q").is_err());
        assert!(Format::parse("b32").is_err());
    }

    #[test]
    fn untyped_bits_with_the_top_bit_set_show_both_readings() {
        // Two's complement (PTX ISA 5.2.1: `.sN` are two's complement, `.bN` untyped bits).
        assert_eq!(
            print("%r", 0xffff_fffb, Type::B32, Format::Hex).unwrap(),
            "%r = 0xfffffffb (4294967291, signed -5)\n"
        );
        assert_eq!(decoded(0x80, Type::B8), "128, signed -128");
        assert_eq!(decoded(0x7fff_ffff, Type::B32), "2147483647");
        assert_eq!(decoded(0xffff_ffff, Type::U32), "4294967295");
        assert_eq!(
            decoded(u128::from(u64::MAX), Type::B64),
            "18446744073709551615, signed -1"
        );
    }
}
