//! The bit-manipulation family: `prmt`, `lop3`, `bfe`, `bfi` and `shf` (PTX ISA 9.7.1.18-19,
//! 9.7.8.6-7, 9.7.9.7).

use ptxsim_isa::ops::PrmtMode;
use ptxsim_isa::{Type, TypeKind};

use super::{mask, width};

/// `prmt.b32{.mode} d, a, b, c` (PTX ISA 9.7.9.7): "Pick four arbitrary bytes from two 32-bit
/// registers, and reassemble them into a 32-bit destination register."
///
/// * No mode: "The bytes in the two source registers are numbered from 0 to 7: {b, a} = {{b7,
///   b6, b5, b4}, {b3, b2, b1, b0}}. For each byte in the target register, a 4-bit selection
///   value is defined. The 3 lsbs of the selection value specify which of the 8 source bytes
///   should be moved into the target position. The msb defines if the byte value should be
///   copied, or if the sign (msb of the byte) should be replicated over all 8 bits".
/// * Modes: "uses the two lsb's of operand c" to pick a row of the spec's table (bytes of d
///   from b3 down to b0): `.f4e` 3210/4321/5432/6543, `.b4e` 5670/6701/7012/0123, `.rc8`
///   0000/1111/2222/3333, `.ecl` 3210/3211/3222/3333, `.ecr` 0000/1110/2210/3210, `.rc16`
///   1010/3232/1010/3232.
pub fn prmt(mode: PrmtMode, a: u32, b: u32, selector: u32) -> u32 {
    let source = u64::from(b) << 32 | u64::from(a);
    let byte = |i: u32| ((source >> (8 * (i & 7))) & 0xff) as u32;
    let row: [u32; 4] = match mode {
        PrmtMode::Default => {
            let mut d = 0;
            for position in 0..4 {
                let control = (selector >> (4 * position)) & 0xf;
                let mut value = byte(control);
                if control & 8 != 0 {
                    value = if value & 0x80 != 0 { 0xff } else { 0 };
                }
                d |= value << (8 * position);
            }
            return d;
        }
        // Rows are [d.b0, d.b1, d.b2, d.b3].
        PrmtMode::F4e => {
            let s = selector & 3;
            [s, s + 1, s + 2, s + 3]
        }
        PrmtMode::B4e => {
            let s = selector & 3;
            [s, s + 7, s + 6, s + 5]
        }
        PrmtMode::Rc8 => [selector & 3; 4],
        PrmtMode::Ecl => {
            let s = selector & 3;
            [s, s.max(1), s.max(2), 3]
        }
        PrmtMode::Ecr => {
            let s = selector & 3;
            [0, s.min(1), s.min(2), s]
        }
        PrmtMode::Rc16 => {
            let s = (selector & 1) * 2;
            [s, s + 1, s, s + 1]
        }
    };
    row.iter()
        .enumerate()
        .fold(0, |d, (position, &i)| d | byte(i) << (8 * position))
}

/// `lop3.b32 d, a, b, c, immLut` (PTX ISA 9.7.8.6): "Compute bitwise logical operation on
/// inputs a, b, c and store the result in destination d", where `immLut` is the truth table
/// `F(0xF0, 0xCC, 0xAA)`: bit `4a + 2b + c` of `lut` is the result for input bits `a, b, c`.
pub fn lop3(a: u32, b: u32, c: u32, lut: u8) -> u32 {
    let mut d = 0;
    for i in 0..8u32 {
        if lut >> i & 1 != 0 {
            let x = if i & 4 != 0 { a } else { !a };
            let y = if i & 2 != 0 { b } else { !b };
            let z = if i & 1 != 0 { c } else { !c };
            d |= x & y & z;
        }
    }
    d
}

/// `bfe.type d, a, b, c` (PTX ISA 9.7.1.19): "Extract bit field from a and place the
/// zero or sign-extended result in d", with `pos = b & 0xff`, `len = c & 0xff`; "`sbit = 0`"
/// for `.u` types or `len == 0`, else "`a[min(pos+len-1, msb)]`"; "`d[i] = (i<len &&
/// pos+i<=msb) ? a[pos+i] : sbit`".
///
/// Hardware over text: an sm_90 GPU takes the whole 32-bit `b` and `c` as position and length
/// for the 64-bit types (only the 32-bit types keep 8 bits of each), measured on every input of
/// `tests/hardware/ops` (docs/divergences.md, "Hardware over text").
pub fn bfe(ty: Type, a: u64, position: u32, length: u32) -> u64 {
    let msb = u64::from(width(ty) - 1);
    let (position, length) = field(ty, position, length);
    let bit = |i: u64| if i > msb { 0 } else { (a >> i) & 1 };
    let sign = if ty.kind() != TypeKind::Signed || length == 0 {
        0
    } else {
        bit((position + length - 1).min(msb))
    };
    let mut d = 0;
    for i in 0..=msb {
        let value = if i < length && position + i <= msb {
            bit(position + i)
        } else {
            sign
        };
        d |= value << i;
    }
    d
}

/// The position and length operands of `bfe`/`bfi`: 8 bits of each for the 32-bit types (the
/// ISA's `& 0xff`), the whole 32-bit values for the 64-bit types (what an sm_90 GPU does).
fn field(ty: Type, position: u32, length: u32) -> (u64, u64) {
    if width(ty) == 64 {
        (u64::from(position), u64::from(length))
    } else {
        (u64::from(position & 0xff), u64::from(length & 0xff))
    }
}

/// `bfi.type f, a, b, c, d` (PTX ISA 9.7.1.20): "Align and insert a bit field from a into b,
/// and place the result in f", `pos = c & 0xff`, `len = d & 0xff`; "`f = b; for (i=0; i<len &&
/// pos+i<=msb; i++) f[pos+i] = a[i]`". For `.b64` the position and length are the whole 32-bit
/// operands, as for [`bfe`] (measured on an sm_90 GPU).
pub fn bfi(ty: Type, a: u64, b: u64, position: u32, length: u32) -> u64 {
    let msb = u64::from(width(ty) - 1);
    let (position, length) = field(ty, position, length);
    let mut f = b & mask(width(ty));
    let mut i = 0;
    while i < length && position + i <= msb {
        f = (f & !(1 << (position + i))) | ((a >> i) & 1) << (position + i);
        i += 1;
    }
    f
}

/// `shf.l`/`shf.r` (PTX ISA 9.7.8.7): "`n = (.mode == .clamp) ? min(c, 32) : c & 0x1f`"; the
/// 64-bit value `b:a` shifted left (the upper 32 bits kept) or right (the lower 32 bits kept)
/// by `n`. [`super::int_ternary`] chops the result to the type.
#[inline]
pub fn shf(left: bool, clamp: bool, a: u64, b: u64, c: u64) -> u64 {
    let n = if clamp { c.min(32) } else { c & 0x1f } as u32;
    let value = (u128::from(b) << 32) | u128::from(a);
    if left {
        ((value << n) >> 32) as u64
    } else {
        (value >> n) as u64
    }
}
