"""Provides the build hook that compiles ``piview/model/_fill.c`` (the node store's compiled
loop) into the package folder, for wheels and editable installs alike.

It uses the compiler and flags this Python was built with (``sysconfig``). When there is no
compiler, or the compile fails, the build goes on without the module and piview runs the
Python loop (``piview/model/fill.py``). ``python hatch_build.py`` builds it in place.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import sysconfig
import zlib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
SOURCE = Path("piview") / "model" / "_fill.c"


def source_tag(code: bytes) -> str:
    """The tag of a ``_fill.c`` (``piview/model/fill.py`` computes it the same way)."""
    return f"{zlib.crc32(code):08x}-{len(code)}"


def target() -> Path:
    """Where the module goes: beside its source, named for this interpreter."""
    return SOURCE.with_name("_fill" + (sysconfig.get_config_var("EXT_SUFFIX") or ".so"))


def compile_fill(root: Path = ROOT) -> Path | None:
    """Compile the module under ``root``; its path, or None (a warning said why)."""
    src, out = root / SOURCE, root / target()
    cc = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")
    ldshared = shlex.split(sysconfig.get_config_var("LDSHARED") or "cc -shared")
    # The link command names the compiler first; a CC given in the environment replaces it.
    link = [*cc, *ldshared[1:]] if os.environ.get("CC") else ldshared
    flags = [
        *shlex.split(sysconfig.get_config_var("CFLAGS") or ""),
        *shlex.split(sysconfig.get_config_var("CCSHARED") or "-fPIC"),
        "-I" + sysconfig.get_paths()["include"],
        # Which source it was built from: piview ignores a module built from another.
        f'-DFILL_SOURCE="{source_tag(src.read_bytes())}"',
    ]
    tmp = out.with_name(out.name + ".tmp")
    cmd = [*link, *flags, str(src), "-o", str(tmp)]
    try:
        subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.SubprocessError) as exc:
        detail = getattr(exc, "stderr", None) or str(exc)
        print(f"piview: _fill not built, the pure-Python loop will run ({detail.strip()})",
              file=sys.stderr)  # fmt: skip
        tmp.unlink(missing_ok=True)
        return None
    tmp.replace(out)  # never a half-written module where Python would import it
    return out


try:
    from hatchling.builders.hooks.plugin.interface import BuildHookInterface
except ImportError:  # run as a script, outside a build
    BuildHookInterface = object  # type: ignore[assignment,misc]


class FillBuildHook(BuildHookInterface):  # type: ignore[misc,valid-type]
    """Compile ``_fill`` before the wheel (or the editable wheel) is made."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        """Build the module; a wheel carries it (it is ignored by git) and is then tagged for
        this interpreter and platform. An editable install imports it from the tree."""
        built = compile_fill(Path(self.root))
        if built is None or version == "editable":
            return
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        build_data["force_include"][str(built)] = str(target())


if __name__ == "__main__":
    sys.exit(0 if compile_fill() is not None else 1)
