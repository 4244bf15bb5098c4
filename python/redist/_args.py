"""Argument checks, in one place: every value the package hands to C goes through these first.
ctypes wraps an integer that does not fit its C type (2^32 + 2 becomes 2) and C reads as many
entries as the array's dimensions or the grid say, whatever the list's length: a length or
range that does not fit is refused here, with the argument's name, before it reaches C.
Local: the collective entry points agree the outcome (_agree)."""
import math
import operator

C_INT = (-2 ** 31, 2 ** 31 - 1)
INT64 = (-2 ** 63, 2 ** 63 - 1)
UINT64 = (0, 2 ** 64 - 1)
SIZE = (0, 2 ** 63 - 1)  # sizes in bytes: int64 (redist_alloc) and size_t alike


def integer(value, what, bounds=C_INT):
    """value as a Python int within bounds (an inclusive (lo, hi)): TypeError for a
    non-integer, OverflowError outside."""
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"redist: {what} must be an integer, not {type(value).__name__}") \
            from None
    lo, hi = bounds
    if not lo <= v <= hi:
        raise OverflowError(f"redist: {what} = {v} is outside [{lo}, {hi}] (its C type)")
    return v


def integers(values, what, n=None, per="", bounds=C_INT):
    """values (a sequence) as a tuple of ints within bounds; with n, exactly n of them
    (ValueError saying `per`: what each entry stands for)."""
    try:
        vals = list(values)
    except TypeError:
        raise TypeError(f"redist: {what} must be a sequence of integers, not "
                        f"{type(values).__name__}") from None
    if n is not None and len(vals) != n:
        raise ValueError(f"redist: {what} has {len(vals)} entries, not {n} ({per})")
    return tuple(integer(v, f"{what}[{i}]", bounds) for i, v in enumerate(vals))


def choice(value, what, accepted):
    """accepted[value] (a dict of the names a C field takes); ValueError listing them."""
    if isinstance(value, str) and value in accepted:
        return accepted[value]
    names = ", ".join(repr(k) for k in accepted)
    raise ValueError(f"redist: {what} = {value!r} is not one of {names}")


def name_or_int(value, what, accepted):
    """An option given by name (accepted) or as the C field's int (C checks its range)."""
    return choice(value, what, accepted) if isinstance(value, str) else integer(value, what)


def text(value, what):
    """A string option (an algorithm's name), as C's bytes."""
    if not isinstance(value, str):
        raise TypeError(f"redist: {what} must be a str, not {type(value).__name__}")
    if "\0" in value:
        raise ValueError(f"redist: {what} holds a NUL character")
    return value.encode()


def grid_size(grid):
    """The positions of a grid (its entries' product), or None where an entry is below 1 (C
    refuses the grid, saying which)."""
    return math.prod(grid) if all(g >= 1 for g in grid) else None


def nbytes(shape, itemsize, what="shape"):
    """The bytes of an array of shape (entries >= 0), within int64."""
    total = math.prod(shape) * itemsize
    if any(s < 0 for s in shape):
        raise ValueError(f"redist: {what} {tuple(shape)} has a negative extent")
    if total > SIZE[1]:
        raise OverflowError(f"redist: {what} {tuple(shape)} of {itemsize}-byte elements is "
                            f"{total} bytes, more than 2^63 - 1")
    return total
