"""cranfield._output.interruptible: Ctrl-C handled in the main thread, nothing changed elsewhere."""

from __future__ import annotations

import signal
import threading

from cranfield._output import interrupted, interruptible


def test_the_handler_is_set_in_the_main_thread_and_restored() -> None:
    before = signal.getsignal(signal.SIGINT)
    with interruptible():
        assert signal.getsignal(signal.SIGINT) is not before
    assert signal.getsignal(signal.SIGINT) is before


def test_outside_the_main_thread_nothing_changes() -> None:
    seen: list[object] = []

    def work() -> None:
        with interruptible():
            seen.append(interrupted())

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert seen == [False]
