//! ptxsim-softfloat (skeleton).
