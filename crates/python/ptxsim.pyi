"""ptxsim: a PTX interpreter. Load PTX text once, launch its kernels on numpy arrays."""

from typing import Final, Sequence, SupportsFloat, SupportsIndex, Tuple, Union, final

from typing_extensions import Buffer

__all__ = [
    "DEFAULT_MAX_STEPS",
    "Error",
    "LaunchError",
    "LaunchReport",
    "Module",
    "PtxError",
    "__version__",
]

__version__: Final[str]

DEFAULT_MAX_STEPS: Final[int]
"""The default step limit of each thread of a launch."""

_Dim = Union[int, Tuple[int], Tuple[int, int], Tuple[int, int, int], Sequence[int]]
"""A grid or block shape: x, or (x,), (x, y), (x, y, z); missing dimensions are 1."""

_Argument = Union[Buffer, SupportsIndex, SupportsFloat]
"""A kernel argument: an array (buffer protocol: numpy arrays, bytearray, bytes) for a pointer
parameter, or a number (Python or numpy scalar) for a scalar parameter."""

class Error(Exception):
    """The base class of ptxsim's own errors."""

class PtxError(Error):
    """The module does not check (syntax, names, operand types, target or version gating).

    ``str(error)`` has one ``line:column: error[CODE]: message`` line per error."""

    diagnostics: list[tuple[int, int, str, str]]
    """The errors as (line, column, code, message), in source order."""

class LaunchError(Error):
    """A kernel stopped: ``trap``, a memory fault (out of bounds, misaligned), the step limit,
    or an instruction ptxsim does not implement. Arrays hold what the kernel stored before."""

    line: int | None
    """The instruction's line (None for the step limit)."""
    column: int | None
    """The instruction's column (None for the step limit)."""
    cta: tuple[int, int, int]
    """The CTA of the first thread that stopped."""
    thread: tuple[int, int, int]
    """That thread, in its CTA."""

@final
class LaunchReport:
    """What a completed launch did."""

    @property
    def steps(self) -> int:
        """Instructions executed, all threads together."""
    @property
    def ctas(self) -> int:
        """CTAs that ran."""

@final
class Module:
    """A checked PTX module, ready to launch its kernels many times."""

    def __new__(cls, source: str, target: str | None = "sm_90") -> Module:
        """Parses and checks ``source`` as if its ``.target`` were ``target`` (``None``: the
        module's own) and builds its kernels.

        Raises PtxError (with every error located) when it does not check, ValueError for a
        target name that is not one (``sm_XX``, ``sm_XXa``, ``sm_XXf``, ``compute_XX``)."""
    @property
    def entries(self) -> list[str]:
        """The kernels (``.entry`` with a body), in source order."""
    @property
    def target(self) -> str | None:
        """The architecture the module was checked for (None: its own ``.target``)."""
    def launch(
        self,
        entry: str,
        grid: _Dim,
        block: _Dim,
        args: Sequence[_Argument],
        shared: int = 0,
        max_steps: int = ...,
    ) -> LaunchReport:
        """Runs kernel ``entry`` over ``grid`` CTAs of ``block`` threads, one argument per
        kernel parameter.

        An array (C-contiguous, little-endian) is copied into simulated global memory, the
        kernel gets its address, and its bytes are copied back after the launch, also when the
        kernel faults (read-only buffers are inputs only). A number is converted to the
        parameter's type: integers for integer and bit types (OverflowError out of range), any
        real number for .f16/.bf16/.f32/.f64 (rounded to nearest even). A byte-array
        parameter (``.param .align 8 .b8 s[16]``, a struct passed by value) takes a buffer of
        exactly its size (bytes, a numpy structured scalar), an input only. ``shared`` is the
        dynamic shared memory per CTA in bytes; ``max_steps`` the step limit of each thread.

        Raises LaunchError when a thread stops (trap, bad address, step limit, unsupported
        instruction), ValueError for an unknown kernel, a bad grid or bytes of the wrong size,
        TypeError for arguments that do not fit the parameters."""
