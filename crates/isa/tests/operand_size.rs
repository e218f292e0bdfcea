//! Tables 27 and 28 (PTX ISA 9.4.1), transcribed here from the spec as the independent source,
//! compared cell by cell with the crate's data; and checked against the tables' own notes.

use ptxsim_isa::operand_size::TABLE_TYPES;
use ptxsim_isa::{DestinationRule, SourceRule, Type, TypeKind, destination_rule, source_rule};

/// Table 27 as printed: instruction type, then one cell per source operand type in the order
/// b8 b16 b32 b64 b128 s8 s16 s32 s64 u8 u16 u32 u64 f16 f32 f64.
const TABLE_27: &str = "
b8   | – | chop | chop | chop | chop | – | chop | chop | chop | – | chop | chop | chop | chop | chop | chop
b16  | inv | – | chop | chop | chop | inv | – | chop | chop | inv | – | chop | chop | – | chop | chop
b32  | inv | inv | – | chop | chop | inv | inv | – | chop | inv | inv | – | chop | inv | – | chop
b64  | inv | inv | inv | – | chop | inv | inv | inv | – | inv | inv | inv | – | inv | inv | –
b128 | inv | inv | inv | inv | – | inv | inv | inv | inv | inv | inv | inv | inv | inv | inv | inv
s8   | – | chop | chop | chop | chop | – | chop | chop | chop | – | chop | chop | chop | inv | inv | inv
s16  | inv | – | chop | chop | chop | inv | – | chop | chop | inv | – | chop | chop | inv | inv | inv
s32  | inv | inv | – | chop | chop | inv | inv | – | chop | inv | inv | – | chop | inv | inv | inv
s64  | inv | inv | inv | – | chop | inv | inv | inv | – | inv | inv | inv | – | inv | inv | inv
u8   | – | chop | chop | chop | chop | – | chop | chop | chop | – | chop | chop | chop | inv | inv | inv
u16  | inv | – | chop | chop | chop | inv | – | chop | chop | inv | – | chop | chop | inv | inv | inv
u32  | inv | inv | – | chop | chop | inv | inv | – | chop | inv | inv | – | chop | inv | inv | inv
u64  | inv | inv | inv | – | chop | inv | inv | inv | – | inv | inv | inv | – | inv | inv | inv
f16  | inv | – | chop | chop | chop | inv | inv | inv | inv | inv | inv | inv | inv | – | inv | inv
f32  | inv | inv | – | chop | chop | inv | inv | inv | inv | inv | inv | inv | inv | inv | – | inv
f64  | inv | inv | inv | – | chop | inv | inv | inv | inv | inv | inv | inv | inv | inv | inv | –
";

/// Table 28 as printed, same layout, destination operand types.
const TABLE_28: &str = "
b8   | – | zext | zext | zext | zext | – | zext | zext | zext | – | zext | zext | zext | zext | zext | zext
b16  | inv | – | zext | zext | zext | inv | – | zext | zext | inv | – | zext | zext | – | zext | zext
b32  | inv | inv | – | zext | zext | inv | inv | – | zext | inv | inv | – | zext | inv | – | zext
b64  | inv | inv | inv | – | zext | inv | inv | inv | – | inv | inv | inv | – | inv | inv | –
b128 | inv | inv | inv | inv | – | inv | inv | inv | inv | inv | inv | inv | inv | inv | inv | inv
s8   | – | sext | sext | sext | sext | – | sext | sext | sext | – | sext | sext | sext | inv | inv | inv
s16  | inv | – | sext | sext | sext | inv | – | sext | sext | inv | – | sext | sext | inv | inv | inv
s32  | inv | inv | – | sext | sext | inv | inv | – | sext | inv | inv | – | sext | inv | inv | inv
s64  | inv | inv | inv | – | sext | inv | inv | inv | – | inv | inv | inv | – | inv | inv | inv
u8   | – | zext | zext | zext | zext | – | zext | zext | zext | – | zext | zext | zext | inv | inv | inv
u16  | inv | – | zext | zext | zext | inv | – | zext | zext | inv | – | zext | zext | inv | inv | inv
u32  | inv | inv | – | zext | zext | inv | inv | – | zext | inv | inv | – | zext | inv | inv | inv
u64  | inv | inv | inv | – | zext | inv | inv | inv | – | inv | inv | inv | – | inv | inv | inv
f16  | inv | – | zext | zext | zext | inv | inv | inv | inv | inv | inv | inv | inv | – | inv | inv
f32  | inv | inv | – | zext | zext | inv | inv | inv | inv | inv | inv | inv | inv | inv | – | inv
f64  | inv | inv | inv | – | zext | inv | inv | inv | inv | inv | inv | inv | inv | inv | inv | –
";

const COLUMNS: [&str; 16] = [
    "b8", "b16", "b32", "b64", "b128", "s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64", "f16",
    "f32", "f64",
];

fn rows(table: &str) -> Vec<(Type, Vec<String>)> {
    table
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let cells: Vec<String> = l.split('|').map(|c| c.trim().to_string()).collect();
            let ty = Type::from_name(&cells[0]).expect("row type");
            (ty, cells[1..].to_vec())
        })
        .collect()
}

#[test]
fn table_order_is_the_spec_order() {
    let names: Vec<&str> = TABLE_TYPES.iter().map(|t| t.name()).collect();
    assert_eq!(names, COLUMNS);
}

#[test]
fn table_27_matches_the_spec_cell_by_cell() {
    let rows = rows(TABLE_27);
    assert_eq!(rows.len(), 16);
    for (instruction, cells) in rows {
        assert_eq!(cells.len(), 16, "row {instruction}");
        for (column, cell) in COLUMNS.iter().zip(&cells) {
            let register = Type::from_name(column).expect("column type");
            let expected = match cell.as_str() {
                "–" => SourceRule::NoConversion,
                "chop" => SourceRule::Chop,
                "inv" => SourceRule::Invalid,
                other => panic!("unexpected cell {other}"),
            };
            assert_eq!(
                source_rule(instruction, register),
                Some(expected),
                "Table 27 {instruction} x {register}"
            );
        }
    }
}

#[test]
fn table_28_matches_the_spec_cell_by_cell() {
    let rows = rows(TABLE_28);
    assert_eq!(rows.len(), 16);
    for (instruction, cells) in rows {
        for (column, cell) in COLUMNS.iter().zip(&cells) {
            let register = Type::from_name(column).expect("column type");
            let expected = match cell.as_str() {
                "–" => DestinationRule::NoConversion,
                "zext" => DestinationRule::ZeroExtend,
                "sext" => DestinationRule::SignExtend,
                "inv" => DestinationRule::Invalid,
                other => panic!("unexpected cell {other}"),
            };
            assert_eq!(
                destination_rule(instruction, register),
                Some(expected),
                "Table 28 {instruction} x {register}"
            );
        }
    }
}

/// The tables' notes, as rules: register at least as wide (note 1); bit-size registers fit any
/// instruction type (2); integer registers fit bit-size and integer types (3); float registers
/// fit bit-size types when wider and only their own float type otherwise (4). `.b128`
/// instructions take only `.b128`, and the table's one exception: a `.b8` instruction takes
/// every wider register, `.f16` included.
#[test]
fn tables_follow_their_notes() {
    for &instruction in &TABLE_TYPES {
        for &register in &TABLE_TYPES {
            let wide_enough = register.bits() >= instruction.bits();
            let same = register.bits() == instruction.bits();
            let allowed = wide_enough
                && match (instruction.kind(), register.kind()) {
                    (_, TypeKind::Bit) => instruction != Type::B128 || same,
                    (TypeKind::Bit, TypeKind::Signed | TypeKind::Unsigned) => {
                        instruction != Type::B128
                    }
                    (
                        TypeKind::Signed | TypeKind::Unsigned,
                        TypeKind::Signed | TypeKind::Unsigned,
                    ) => true,
                    (TypeKind::Bit, TypeKind::Float) => {
                        instruction != Type::B128 && (same || register.bits() > instruction.bits())
                    }
                    (TypeKind::Float, TypeKind::Float) => same,
                    _ => false,
                };
            let source = source_rule(instruction, register).expect("table type");
            let destination = destination_rule(instruction, register).expect("table type");
            assert_eq!(
                source.is_allowed(),
                allowed,
                "Table 27 {instruction} x {register}"
            );
            assert_eq!(
                destination.is_allowed(),
                allowed,
                "Table 28 {instruction} x {register}"
            );
            if allowed {
                let extend = if instruction.kind() == TypeKind::Signed {
                    DestinationRule::SignExtend
                } else {
                    DestinationRule::ZeroExtend
                };
                if same {
                    assert_eq!(
                        source,
                        SourceRule::NoConversion,
                        "{instruction} x {register}"
                    );
                    assert_eq!(
                        destination,
                        DestinationRule::NoConversion,
                        "{instruction} x {register}"
                    );
                } else {
                    assert_eq!(source, SourceRule::Chop, "{instruction} x {register}");
                    assert_eq!(destination, extend, "{instruction} x {register}");
                }
            }
        }
    }
}

#[test]
fn types_outside_the_tables_have_no_cell() {
    for t in [
        Type::F16x2,
        Type::Bf16,
        Type::Pred,
        Type::Tf32,
        Type::E4m3x2,
    ] {
        assert_eq!(source_rule(Type::B32, t), None);
        assert_eq!(destination_rule(t, Type::B32), None);
    }
}
