"""Progress events of long calls: to tqdm when it is installed, else to a line on stderr."""
import sys


class _Printer:
    """Draws one bar per task from the library's events; prints messages and warnings."""

    def __init__(self):
        try:
            import tqdm  # noqa: F401
            self._tqdm = tqdm.tqdm
        except ImportError:
            self._tqdm = None
        self._bars = {}

    def __call__(self, kind, task, done, total, message):
        if kind == "step":
            self._step(task, done, total)
        else:
            self._close()
            prefix = "warning: " if kind == "warning" else ""
            print(f"edgeq: {task}: {prefix}{message}", file=sys.stderr, flush=True)
        return True

    def _step(self, task, done, total):
        if self._tqdm is not None:
            bar = self._bars.get(task)
            if bar is None:
                bar = self._bars[task] = self._tqdm(total=total or None, desc=task, leave=False)
            bar.update(done - bar.n)
            if total and done >= total:
                bar.close()
                del self._bars[task]
            return
        if done == 0:
            return
        end = "\n" if total and done >= total else ""
        print(f"\r{task} {done}/{total}" if total else f"\r{task} {done}", end=end,
              file=sys.stderr, flush=True)

    def _close(self):
        for bar in self._bars.values():
            bar.close()
        self._bars.clear()


def progress_callback(progress):
    """progress=True: a printer; False/None: nothing; a callable(kind, task, done, total,
    message) returning False to cancel (edgeq.Cancelled)."""
    if progress is True:
        return _Printer()
    if progress is False or progress is None:
        return None
    if not callable(progress):
        from ._edgeq import Error
        raise Error("progress: expected True, False or a callable(kind, task, done, total, "
                    f"message), got {type(progress).__name__}")
    return progress
