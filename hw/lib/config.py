"""Design parameters as data.

Every design has one frozen dataclass deriving from :class:`DesignConfig`. It is validated on
construction (``__post_init__`` raises :class:`ConfigError` with one clear line), hashed for
build caches (:meth:`DesignConfig.digest`) and printed in every report
(:meth:`DesignConfig.as_dict`).
"""

import dataclasses
import hashlib
import json
import typing


__all__ = ["ConfigError", "DesignConfig", "is_power_of_two", "check_int", "parse_value"]


class ConfigError(ValueError):
    """A design parameter is unknown or out of range. The message is one line."""


def is_power_of_two(value: int) -> bool:
    return value > 0 and value & (value - 1) == 0


def check_int(owner: str, name: str, value, *, low: int = 1, high: int | None = None,
              power_of_two: bool = False) -> None:
    """Refuse ``value`` unless it is an ``int`` (not a ``bool``) from ``low`` to ``high`` (no
    upper bound when None), and a power of two when asked: :class:`ConfigError` naming
    ``owner`` (the class) and ``name`` (the parameter), one line."""
    if isinstance(value, bool) or not isinstance(value, int) or value < low or \
            (high is not None and value > high) or \
            (power_of_two and not is_power_of_two(value)):
        kind = "a power of two" if power_of_two else "an integer"
        span = f"from {low}" if high is None else f"from {low} to {high}"
        raise ConfigError(f"{owner}: {name} must be {kind} {span}, not {value!r}")


@dataclasses.dataclass(frozen=True)
class DesignConfig:
    """Base of the per-design parameter dataclasses.

    Subclasses declare their fields with defaults and check them in ``validate``; the checks
    run on construction so that an invalid configuration never reaches elaboration.

    ``PRESETS`` names configurations of the design as ``key=value`` overrides (``ecp5``: the
    largest that fits the ECP5-85k and meets its clock); ``preset=NAME`` among the overrides
    of :meth:`from_overrides` starts from one, and the other overrides change it.

    Fields named in ``RUN_SETTINGS`` (stall injection, the watchdog) are settings of a
    simulation run, not of the hardware: :meth:`digest` leaves them out, so they key no
    synthesis build, and :meth:`design_only` sets them back to their defaults.
    :meth:`run_digest` covers them too, for simulation builds (stall injection puts
    throttles into the simulated Verilog).
    """

    RUN_SETTINGS: typing.ClassVar[tuple[str, ...]] = ()
    PRESETS: typing.ClassVar[dict[str, dict[str, str]]] = {}

    def __post_init__(self):
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            expected = _field_type(type(self), field.name)
            if expected in (int, float) and isinstance(value, bool) or \
                    not isinstance(value, expected):
                raise ConfigError(f"{type(self).__name__}.{field.name} must be "
                                  f"{expected.__name__}, not {value!r}")
        self.validate()

    def validate(self):
        """Raise :class:`ConfigError` if the parameters are inconsistent."""

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)

    def digest(self) -> str:
        """A short hash of the class name and every design parameter (not the run settings),
        for synthesis build caches and reports."""
        design = {key: value for key, value in self.as_dict().items()
                  if key not in self.RUN_SETTINGS}
        return _hash([type(self).__qualname__, design])

    def run_digest(self) -> str:
        """A short hash of the class name and every field, run settings included, for
        simulation builds."""
        return _hash([type(self).__qualname__, self.as_dict()])

    def run_settings(self) -> dict:
        """The run settings that differ from their defaults."""
        defaults = type(self)()
        return {name: getattr(self, name) for name in self.RUN_SETTINGS
                if getattr(self, name) != getattr(defaults, name)}

    def design_only(self) -> "DesignConfig":
        """This configuration with its run settings at their defaults: the hardware alone."""
        defaults = type(self)()
        return dataclasses.replace(self, **{name: getattr(defaults, name)
                                            for name in self.RUN_SETTINGS})

    @classmethod
    def field_names(cls) -> list[str]:
        return [field.name for field in dataclasses.fields(cls)]

    @classmethod
    def expand_preset(cls, overrides: dict[str, str]) -> dict[str, str]:
        """``overrides`` with ``preset=NAME`` replaced by that preset's overrides (the others
        over them); unchanged for a class with a ``preset`` field of its own."""
        overrides = dict(overrides)
        if "preset" in cls.field_names() or "preset" not in overrides:
            return overrides
        preset = overrides.pop("preset")
        if preset not in cls.PRESETS:
            known = ", ".join(cls.PRESETS) or "none"
            raise ConfigError(f"unknown preset {preset!r} for {cls.__name__}; presets: {known}")
        return {**cls.PRESETS[preset], **overrides}

    @classmethod
    def from_overrides(cls, overrides: dict[str, str]) -> "DesignConfig":
        """Build a configuration from ``key=value`` strings given on the command line;
        ``preset=NAME`` starts from that preset's overrides (:data:`PRESETS`)."""
        overrides = cls.expand_preset(overrides)
        values = {}
        for key, text in overrides.items():
            if key not in cls.field_names():
                raise ConfigError(f"unknown parameter {key!r} for {cls.__name__}; "
                                  f"valid: {', '.join(cls.field_names())}")
            values[key] = parse_value(_field_type(cls, key), key, text)
        return cls(**values)


def _hash(value) -> str:
    text = json.dumps(value, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _field_type(cls, name: str) -> type:
    hints = typing.get_type_hints(cls)
    return hints[name]


def parse_value(kind: type, key: str, text: str):
    """``text`` as a ``kind`` (bool: 1/true/yes/on or 0/false/no/off; int: any base prefix;
    float; str); ConfigError if it is not one."""
    try:
        if kind is bool:
            lowered = text.lower()
            if lowered in ("1", "true", "yes", "on"):
                return True
            if lowered in ("0", "false", "no", "off"):
                return False
            raise ValueError
        if kind is int:
            return int(text, 0)
        if kind is float:
            return float(text)
        if kind is str:
            return text
    except ValueError:
        pass
    else:
        raise ConfigError(f"parameter {key!r} has unsupported type {kind.__name__}")
    raise ConfigError(f"parameter {key!r} expects {kind.__name__}, got {text!r}")
