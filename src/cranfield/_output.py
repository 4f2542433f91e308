"""Output files that are either complete or absent.

Every file cranfield writes (results, provenance, plots, reports) goes through
:func:`check_writable` before any work starts, so a bad path fails in a second rather than
after a long evaluation, and through :func:`atomic_write`, which writes a temporary file in the
target's directory and renames it over the target only when writing succeeded: a full disk, an
interrupted run or an exception never leaves a half-written file that looks complete.

Under :func:`interruptible` (the command line), Ctrl-C is also remembered: an interrupt that
library code swallows (matplotlib ignores exceptions in some callbacks) still stops the next
write (:func:`check_interrupted`), so an interrupted command writes nothing.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator

from cranfield.errors import CranfieldError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (docs/architecture.md#start-up)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import IO

__all__ = ["check_writable", "atomic_write", "write_text", "interruptible", "interrupted", "check_interrupted"]

_interrupts: list[int] = []  # the SIGINTs received under interruptible()


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """Ctrl-C (SIGINT) raises ``KeyboardInterrupt`` as Python's own handler does, and is
    remembered until the block ends, so that :func:`check_interrupted` raises it again where
    it was swallowed; outside the main thread (where signal handlers cannot be set) or when
    SIGINT is ignored, nothing changes."""
    def handler(signum: int, frame: object) -> None:
        _interrupts.append(signum)
        raise KeyboardInterrupt

    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        yield  # Ctrl-C is to be ignored (a background job)
        return
    try:
        previous = signal.signal(signal.SIGINT, handler)  # at once: the command's first step
    except ValueError:  # not the main thread: no handler can be set here
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        _interrupts.clear()


def interrupted() -> bool:
    """Whether Ctrl-C was pressed under :func:`interruptible` (whatever became of its ``KeyboardInterrupt``)."""
    return bool(_interrupts)


def check_interrupted() -> None:
    """Raise ``KeyboardInterrupt`` if Ctrl-C was pressed under :func:`interruptible`, even if
    whatever it interrupted swallowed it: called before anything is written."""
    if interrupted():
        raise KeyboardInterrupt


def check_writable(path: str | os.PathLike[str], what: str = "output file") -> Path:
    """Fail early, with one clear message, when ``path`` cannot be written.

    Checks that the parent directory exists, is a directory and is writable, and that
    ``path`` itself is not a directory. Special files such as ``/dev/stdout`` pass; a write
    that still fails later (``/dev/full``) is reported by :func:`atomic_write`.
    """
    from pathlib import Path  # lazily: `cranfield --help` (under interruptible) needs no pathlib

    target = Path(path)
    if target.is_dir():
        raise CranfieldError(f"cannot write the {what} {str(target)!r}: it is a directory")
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.exists():
        raise CranfieldError(f"cannot write the {what} {str(target)!r}: the directory {str(parent)!r} does not exist")
    if not parent.is_dir():
        raise CranfieldError(f"cannot write the {what} {str(target)!r}: {str(parent)!r} is not a directory")
    if target.exists() and not _is_regular(target):
        if not os.access(target, os.W_OK):
            raise CranfieldError(f"cannot write the {what} {str(target)!r}: permission denied")
        return target
    if not os.access(parent, os.W_OK | os.X_OK):
        raise CranfieldError(f"cannot write the {what} {str(target)!r}: the directory {str(parent)!r} is not writable")
    return target


def _is_regular(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:
        return False


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike[str], mode: str = "w", what: str = "output file") -> Iterator[IO]:
    """Open a temporary file beside ``path``; rename it to ``path`` only if the block succeeds.

    ``mode`` is ``"w"`` (UTF-8 text) or ``"wb"``. For a special file (a device such as
    ``/dev/stdout`` or ``/dev/full``, or a named pipe) the target is written directly, since it
    cannot be replaced by a rename. Any ``OSError`` becomes a :class:`CranfieldError` naming the
    file, and the temporary file is removed.
    """
    target = check_writable(path, what)
    encoding = None if "b" in mode else "utf-8"
    if target.exists() and not _is_regular(target):
        check_interrupted()
        try:
            with open(target, mode, encoding=encoding) as f:
                yield f
        except OSError as exc:
            raise CranfieldError(f"cannot write the {what} {str(target)!r}: {exc.strerror or exc}") from None
        return
    import tempfile  # lazily: ~4 ms of start-up, needed only when a file is written

    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part",
                               dir=target.parent if str(target.parent) else ".")
    try:
        with os.fdopen(fd, mode, encoding=encoding) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
        check_interrupted()
        os.replace(tmp, target)
    except OSError as exc:
        _remove(tmp)
        raise CranfieldError(f"cannot write the {what} {str(target)!r}: {exc.strerror or exc}") from None
    except BaseException:
        _remove(tmp)
        raise


def write_text(path: str | os.PathLike[str], text: str, what: str = "output file") -> None:
    """Write ``text`` to ``path`` atomically (see :func:`atomic_write`)."""
    with atomic_write(path, "w", what) as f:
        f.write(text)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _remove(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)
