"""The defaults of the Python functions' options, from the default-constructed C++ options of
include/edgeq/ (``_edgeq._defaults()``): a function marks each such option with DEFAULT and
``defaults_from`` fills in the C++ value at import, so ``help()`` shows it and it lives in one
place."""
from . import _edgeq


class _Default:
    """Marks an option whose default is the C++ options' (filled in at import)."""

    def __repr__(self):
        return "DEFAULT"


DEFAULT = _Default()


def defaults_from(name):
    """Fills the DEFAULT options (keyword-only or positional) of a function with the C++
    defaults of ``name``. Every C++ default must be such an option, and every such option have
    one: a mismatch is an ImportError."""
    cpp = _edgeq._defaults()[name]

    def fill(fn):
        code = fn.__code__
        positional = list(fn.__defaults__ or ())
        names = code.co_varnames[code.co_argcount - len(positional):code.co_argcount]
        keywords = dict(fn.__kwdefaults__ or {})
        marked = {k for k, v in keywords.items() if v is DEFAULT}
        marked |= {k for k, v in zip(names, positional) if v is DEFAULT}
        if marked != set(cpp):
            raise ImportError(f"edgeq: {fn.__qualname__}'s defaults {sorted(marked)} do not "
                              f"match the C++ options' {sorted(cpp)}")
        if positional:
            fn.__defaults__ = tuple(cpp[k] if v is DEFAULT else v
                                    for k, v in zip(names, positional))
        if keywords:
            fn.__kwdefaults__ = {k: cpp[k] if v is DEFAULT else v for k, v in keywords.items()}
        return fn

    return fill
