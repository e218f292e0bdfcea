//! ptxsim-isa (skeleton).
