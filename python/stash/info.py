"""What the running interpreter can import: the plpython3u bridge check and `stash status`."""

import importlib
import platform
import sys

import stash

# The modules the server-side code depends on; importing them here proves the install is whole.
REQUIRED = ("numpy", "onnxruntime", "tokenizers", "openai")


def runtime_info() -> dict:
    """Versions of this package, the interpreter and the required modules.

    Raises ImportError when a required module is missing, so a broken install fails loudly.
    """
    modules = {name: importlib.import_module(name).__version__ for name in REQUIRED}
    return {
        "stash": stash.__version__,
        "python": platform.python_version(),
        "executable": sys.executable,
        "modules": modules,
    }
