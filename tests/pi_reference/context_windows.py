"""Writes ``piview/data/context_windows.json``: every built-in model's context window, as
Pi 0.85.1's pi-ai lists them (``@earendil-works/pi-ai/dist/providers/data/*.json``).

    python tests/pi_reference/context_windows.py /tmp/pi085   # an npm folder with Pi 0.85.1
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "piview" / "data" / "context_windows.json"


def windows(npm: Path) -> dict[str, int]:
    """``{"provider/model": contextWindow}`` of pi-ai's provider data under ``npm``."""
    data = npm / "node_modules" / "@earendil-works" / "pi-ai" / "dist" / "providers" / "data"
    out: dict[str, int] = {}
    for f in sorted(data.glob("*.json")):
        for models in json.loads(f.read_text()).values():
            if not isinstance(models, dict):
                continue
            for mid, m in models.items():
                if isinstance(m, dict) and isinstance(m.get("contextWindow"), int):
                    out[f"{m.get('provider') or f.stem}/{mid}"] = m["contextWindow"]
    return dict(sorted(out.items()))


def main() -> None:
    """Write the table from the npm folder given."""
    npm = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/pi085")
    table = windows(npm)
    if not table:
        sys.exit(f"no pi-ai provider data under {npm}")
    version = json.loads(
        (npm / "node_modules" / "@earendil-works" / "pi-ai" / "package.json").read_text()
    )["version"]
    doc = {"source": f"@earendil-works/pi-ai {version}", "windows": table}
    OUT.write_text(json.dumps(doc, separators=(",", ":"), sort_keys=True) + "\n")
    print(f"{len(table)} models -> {OUT}")


if __name__ == "__main__":
    main()
