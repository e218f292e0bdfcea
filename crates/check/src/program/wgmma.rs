//! The executable form of `wgmma.mma_async` (PTX ISA 9.7.15.5.2), built by
//! [`super::build`] and run by the executor warpgroup by warpgroup.

use super::{Destination, PredicateSource, Source};
use ptxsim_isa::wgmma::WgmmaForm;

/// Where A comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WgmmaA {
    /// `a-desc`: a 64-bit matrix descriptor of A in shared memory.
    Descriptor(Source),
    /// `a`: four registers of A's fragment per thread.
    Registers(Vec<Source>),
}

/// The sparsity operands of `wgmma.mma_async.sp` (9.7.15.6.3): "Operands sp-meta and sp-sel
/// represent sparsity metadata and sparsity selector respectively".
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WgmmaSparse {
    /// `sp-meta`: each thread's 32 bits of metadata.
    pub metadata: Source,
    /// `sp-sel`: the constant selecting which threads of each quad supply the metadata.
    pub selector: u32,
}

/// One `wgmma.mma_async{.sp}.sync.aligned` instruction: `d, a-desc|a, b-desc{, sp-meta,
/// sp-sel}, scale-d{,
/// imm-scale-a, imm-scale-b{, imm-trans-a}, imm-trans-b}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wgmma {
    /// The shape and types.
    pub form: WgmmaForm,
    /// The registers of `d` (also the accumulator read when `scale-d` is true).
    pub d: Vec<Destination>,
    /// A.
    pub a: WgmmaA,
    /// `b-desc`.
    pub b: Source,
    /// `sp-meta, sp-sel` of `wgmma.mma_async.sp` (9.7.15.6.3).
    pub sparse: Option<WgmmaSparse>,
    /// `scale-d`: "The operation of the form D = A*B is issued when the input predicate
    /// argument scale-d is false."
    pub scale_d: PredicateSource,
    /// `imm-scale-a` is -1 (each element of A negated).
    pub negate_a: bool,
    /// `imm-scale-b` is -1.
    pub negate_b: bool,
    /// `imm-trans-a` is 1 (A is M-major in shared memory).
    pub trans_a: bool,
    /// `imm-trans-b` is 1 (B is N-major in shared memory).
    pub trans_b: bool,
}
