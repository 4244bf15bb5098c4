"""Agreement on the package's own checks, as the C library agrees its errors: a collective
call's checks may fail on some ranks only (an option, a dtype, a length), and a rank that
raised alone would leave the others waiting in the collective call for ever. So each rank
runs its checks, then one reduction tells every rank (of both groups of an
intercommunicator) whether any rank's failed, before any collective call of C: if one did,
every rank raises, the failing rank its own exception, the others the same class naming it.
The reduction also gathers the ranks' `values` (a dtype each rank knows, ...), for what must
be the same everywhere."""
import builtins

from mpi4py import MPI

from ._errors import Error


def _merge(a, b, _datatype=None):
    """Two ranks' records into one: the lowest failing rank's failure, the union of values."""
    fa, fb = a[0], b[0]
    fail = fb if fa is None or (fb is not None and fb[0] < fa[0]) else fa
    return fail, a[1] | b[1]


_OP = []


def _op():
    if not _OP:  # made on first use: MPI is initialised by then (mpi4py's import)
        _OP.append(MPI.Op.Create(_merge, commute=True))
    return _OP[0]


def _reduce(comm, record):
    """record merged over every rank of comm; over both groups of an intercommunicator (whose
    reduction gives each group the other's: a second one gives each its own)."""
    theirs = comm.allreduce(record, op=_op())
    if not comm.Is_inter():
        return theirs
    return _merge(theirs, comm.allreduce(theirs, op=_op()))


def _failure(rank, exc):
    """What the other ranks need to raise the same: (rank, class name, code, message)."""
    if isinstance(exc, Error):
        return rank, "Error", exc.code, exc.detail
    return rank, type(exc).__name__, 0, str(exc)


def _raise_for(failure):
    """The exception of another rank's failure, raised here."""
    rank, name, code, message = failure
    said = message.removeprefix("redist: ")
    if name == "Error":
        raise Error(code, f"rank {rank} refused its arguments: {said}")
    cls = getattr(builtins, name, None)
    if not (isinstance(cls, type) and issubclass(cls, Exception)):
        cls = RuntimeError
    try:
        exc = cls(f"redist: rank {rank} refused its arguments: {said}")
    except Exception:  # noqa: BLE001 - a class that takes other arguments
        exc = RuntimeError(f"redist: rank {rank} refused its arguments ({name}): {said}")
    raise exc


def agreed(comm, check):
    """check() here, agreed over comm (collective): the set of every rank's check() value
    (None left out: a rank with nothing to tell). Raises on every rank where check() raised
    on any, before the caller's collective call."""
    value, err = None, None
    try:
        value = check()
    except Exception as e:  # noqa: BLE001 - every failure must reach the other ranks
        err = e
    # an intercommunicator's ranks number each group apart: name them by MPI_COMM_WORLD's
    rank = (MPI.COMM_WORLD if comm.Is_inter() else comm).Get_rank()
    record = (None if err is None else _failure(rank, err),
              frozenset() if value is None else frozenset([value]))
    fail, values = _reduce(comm, record)
    if err is not None:
        raise err
    if fail is not None:
        _raise_for(fail)
    return values
