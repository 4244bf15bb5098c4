"""redist.Error and the C library's codes the package raises itself."""
from . import _lib

# REDIST_ERR_ARG, _MISMATCH, _STATE (include/redist.h)
ERR_ARG, ERR_MISMATCH, ERR_STATE = -1, -6, -9


class Error(Exception):
    """A redist error: code (a negative REDIST_ERR_* value), name ("REDIST_ERR_ARG", ...) and
    detail (the library's sentence about this failure). Collective calls raise it on every
    rank alike (the same code). sentence: what str() says instead of the code's generic one
    (C's REDIST_ERR_STATE sentence is about MPI errors, wrong for a freed plan)."""

    def __init__(self, code, detail=None, sentence=None):
        self.code = code
        self.name = _lib.error_name(code).decode()
        self.detail = detail if detail is not None else _lib.last_error_detail().decode()
        said = sentence if sentence is not None else _lib.strerror(code).decode()
        super().__init__(f"{self.name}: {said}"
                         + (f" ({self.detail})" if self.detail and self.detail != said else ""))


def check(code):
    if code != 0:
        raise Error(code)


def freed():
    """A freed plan's error, raised by every method without reaching C (which would see a
    NULL plan: REDIST_ERR_ARG, or STATE's sentence about MPI)."""
    return Error(ERR_STATE, "the plan was freed", sentence="the plan was freed")


def mismatch(what, values):
    """Ranks passed different values of what (dtypes, ...): C's code for it."""
    return Error(ERR_MISMATCH, f"ranks pass different {what}: {', '.join(sorted(values))}")
