"""The issue's rule "every hw/ module has a test that imports it": each module under hw/
(``__init__.py`` aside) is named by some test, as ``hw.x.y`` or in ``from hw.x import y``."""

import pathlib
import re
from tests.support import REPO_ROOT

ROOT = REPO_ROOT


def untested_modules(root=ROOT, skip=pathlib.Path(__file__).name):
    """The modules under ``root/hw`` that no test under ``root/tests`` (but ``skip``) names."""
    tests = "\n".join(path.read_text() for path in (root / "tests").rglob("*.py")
                      if path.name != skip)
    missing = set()
    for path in sorted((root / "hw").rglob("*.py")):
        if path.name == "__init__.py":
            continue
        parts = path.relative_to(root).with_suffix("").parts
        dotted, package, module = ".".join(parts), ".".join(parts[:-1]), parts[-1]
        if re.search(re.escape(dotted) + r"\b", tests):
            continue
        imports = re.finditer(r"from\s+" + re.escape(package) + r"\s+import\s+(\([^)]*\)|[^\n]*)",
                              tests)
        if any(re.search(r"\b" + re.escape(module) + r"\b", m.group(1)) for m in imports):
            continue
        missing.add(dotted)
    return missing


def test_every_hw_module_is_imported_by_a_test():
    missing = untested_modules()
    assert not missing, f"hw modules no test imports: {sorted(missing)}"


def test_a_module_no_test_names_is_found(tmp_path):
    for name in ("hw/d/__init__.py", "hw/d/named.py", "hw/d/imported.py", "hw/d/alone.py",
                 "hw/d/alone_too.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_d.py").write_text(
        "from hw.d.named import Block\nfrom hw.d import (imported,\n    other)\n"
        "# hw.d.alone_toolong is another module\n")
    assert untested_modules(tmp_path) == {"hw.d.alone", "hw.d.alone_too"}
