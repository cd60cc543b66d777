"""What the tests share: stream drivers and benches (:mod:`.stream_drivers`), small graphs
(:mod:`.graphs`), the example programs (:mod:`.examples`), and the repository's root
(:data:`REPO_ROOT`)."""

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
