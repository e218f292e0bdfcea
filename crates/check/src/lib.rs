//! ptxsim-check (skeleton).
