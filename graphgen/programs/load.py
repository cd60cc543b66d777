"""Find a vertex program by name: a built-in, or ``path/to/file.py:ClassName``."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from .builtins import PROGRAMS
from .expr import ProgramError
from .program import Program, VertexProgram, build

__all__ = ["load_program"]


def load_program(spec: str) -> Program:
    """The built-in program ``spec`` names, or the :class:`VertexProgram` subclass
    ``ClassName`` defined in ``path/to/file.py:ClassName``, built and validated. Anything
    else is refused with a :class:`ProgramError` of one line."""
    text = str(spec).strip()
    if text.lower() in PROGRAMS:
        return PROGRAMS[text.lower()]
    path_text, sep, class_name = text.rpartition(":")
    if not sep or not path_text.endswith(".py"):
        raise ProgramError(f"unknown program {text!r}: give a built-in "
                           f"({', '.join(PROGRAMS)}) or path/to/file.py:ClassName")
    path = Path(path_text)
    if not path.is_file():
        raise ProgramError(f"no program file {path_text!r}")
    if not class_name.isidentifier():
        raise ProgramError(f"{text!r}: {class_name!r} is not a class name")
    module_name = f"_graphgen_program_{abs(hash(str(path.resolve())))}"
    loader = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(loader)
    sys.modules[module_name] = module           # as an import would, for dataclasses et al.
    try:
        loader.loader.exec_module(module)
    except ProgramError as error:
        raise ProgramError(f"{path_text}: {error}") from None
    except (Exception, SystemExit) as error:  # the user's file: any failure, on one line
        raise ProgramError(f"{path_text} does not load: {_one_line(error)}") from None
    finally:
        sys.modules.pop(module_name, None)
    definition = getattr(module, class_name, None)
    if definition is None:
        raise ProgramError(f"{path_text} defines no class {class_name}")
    if not (isinstance(definition, type) and issubclass(definition, VertexProgram)):
        raise ProgramError(f"{path_text}: {class_name} is not a VertexProgram subclass")
    try:
        return build(definition)
    except ProgramError:
        raise
    except (Exception, SystemExit) as error:  # the user's class, beyond its functions
        raise ProgramError(f"{path_text}: {class_name} does not build: {_one_line(error)}"
                           ) from None


def _one_line(error: BaseException) -> str:
    text = (str(error).strip().splitlines() or [""])[0]
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
