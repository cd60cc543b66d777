"""``--algo``, the vertex program a command runs (issue 50, item 5): a built-in's name
(:data:`graphgen.programs.PROGRAMS`) or ``path/to/file.py:ClassName``, loaded and validated
by :func:`graphgen.programs.load_program` when the command line is read, so that a bad file,
a missing class or a Reduce that is not commutative and associative is refused before any
work, with one line naming the program. Which design runs which program is the design's own
word (its simulation hook ``check_program``), asked by :func:`with_algo`."""

from .common import UsageError


__all__ = ["ALGO_METAVAR", "add_algo_option", "add_param_option", "program_params",
           "program_spec", "with_algo"]

ALGO_METAVAR = "NAME|FILE.py:CLASS"


def program_spec(text: str) -> str:
    """``--algo`` checked (an argparse ``type``): the built-in's name in lower case, or the
    ``path/to/file.py:ClassName`` as given once its class loads and builds; else a
    :class:`UsageError` of one line (never argparse's "invalid value", which would hide
    the reason)."""
    from .programs import PROGRAMS, ProgramError, load_program
    try:
        program = load_program(text)
    except ProgramError as error:
        raise UsageError(str(error).strip().splitlines()[0]) from None
    name = str(text).strip().lower()
    return name if PROGRAMS.get(name) is program else str(text).strip()


def add_algo_option(command, help_text: str, **options) -> None:
    """The ``--algo`` option of ``command``, checked by :func:`program_spec`."""
    command.add_argument("--algo", type=program_spec, metavar=ALGO_METAVAR,
                         help=f"{help_text}: a built-in program (graphgen programs) or "
                              f"path/to/file.py:ClassName", **options)


def with_algo(design, overrides: dict[str, str], algo: str | None, *,
              build: bool = False) -> dict[str, str]:
    """``overrides`` (``--set``) with the program ``algo`` (``--algo``) for ``design``: into
    a configuration that has an ``algo`` parameter (a differing ``--set algo`` is refused),
    checked by the design's ``check_program`` when it has one. ``build``: the hardware alone
    is made (``graphgen verilog``, ``synth``), so a design whose hardware does not depend on
    the program (the dynamic graph unit, whose ``--algo`` runs Graphicionado after it) is
    refused too."""
    if algo is None:
        return overrides
    simulation = design.simulation
    takes = () if simulation is None else simulation.requires if build else simulation.options
    if "algo" in design.config_class.field_names():
        if overrides.setdefault("algo", algo) != algo:
            raise UsageError(f"--set algo={overrides['algo']} contradicts --algo {algo}")
    elif "algo" not in takes:
        raise UsageError(f"--design {design.name} builds no vertex program: --algo does not "
                         f"apply")
    if simulation is not None:
        simulation.check_program(algo)
    return overrides


def add_param_option(command, help_text: str = "") -> None:
    """``--param NAME=VALUE``, repeatable: a value of one of the program's parameters."""
    command.add_argument("--param", action="append", metavar="NAME=VALUE",
                         help="a parameter of the vertex program (its Param; graphgen "
                              "programs NAME lists them)" + help_text)


def program_params(algo: str | None, pairs: list[str] | None) -> dict | None:
    """``--param`` pairs as the program's parameter values (an integer for a UInt
    parameter, a number for a Float32 one), or None when none is given; an unknown name or a
    value of the wrong kind is a :class:`UsageError` of one line."""
    if not pairs:
        return None
    if algo is None:
        raise UsageError("--param sets a parameter of the program: give --algo")
    from golden.graph import GraphError
    from golden.programs import param_values
    from .common import parse_sets
    from .programs import Float32, load_program
    program = load_program(algo)
    values = {}
    for name, text in parse_sets(pairs, "--param").items():
        param = program.params.get(name)
        if param is None:
            known = ", ".join(program.params) or "none"
            raise UsageError(f"--param {name}: {program.name} has no such parameter "
                             f"(parameters: {known})")
        try:
            values[name] = float(text) if param.type is Float32 else int(text, 0)
        except ValueError:
            kind = "a number" if param.type is Float32 else "an integer"
            raise UsageError(f"--param {name} expects {kind}, got {text!r}") from None
    try:
        param_values(program, values)
    except GraphError as error:
        raise UsageError(str(error)) from None
    return values
