//! ptxsim-syntax (skeleton).
