"""Generated documentation stays fresh."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_ops_coverage_table_is_fresh():
    # docs/ops.md is generated from the operator table: a new handler (or a
    # removed one) must come with the regenerated table.
    r = subprocess.run([sys.executable, str(ROOT / "utils" / "gen-ops-doc.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_ops_coverage_table_lists_the_handlers():
    from tgc._ops import HANDLERS

    text = (ROOT / "docs" / "ops.md").read_text()
    for name in ("scaled_dot_product_attention", "upsample_bicubic2d", "layer_norm"):
        assert name in HANDLERS and f"`{name}`" in text, name
