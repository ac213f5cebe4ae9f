"""Where things are in the checkout, for every test (instead of each file counting parent folders)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app"
TOOLS = ROOT / "tools"
BENCHMARKS = ROOT / "benchmarks"
FIXTURES = ROOT / "tests" / "fixtures"
DEMO_MODEL = FIXTURES / "models" / "demo"  # the small model trained here (its README says how)
