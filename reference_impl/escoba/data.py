"""Where the bundled rulesets, schemas and golden data are.

In a source checkout (or an editable install) they are the top-level `spec/`, `schemas/` and
`conformance/` folders; an installed wheel carries copies in `escoba/_data/`.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


@cache
def data_root() -> Path:
    bundled = _PACKAGE / "_data"
    if (bundled / "spec").is_dir():
        return bundled
    checkout = _PACKAGE.parent.parent  # reference_impl/escoba -> repository root
    if (checkout / "spec").is_dir():
        return checkout
    raise RuntimeError(f"escoba data folders not found beside {_PACKAGE}")


def spec_dir() -> Path:
    return data_root() / "spec"


def schemas_dir() -> Path:
    return data_root() / "schemas"


def conformance_dir() -> Path:
    return data_root() / "conformance"


def sources_dir() -> Path:
    return spec_dir() / "sources"
