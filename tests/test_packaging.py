"""What a package index shows: the licence, the changelog and the project's metadata agree."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_license_file_is_the_mit_licence_pyproject_declares() -> None:
    """LICENSE holds the MIT licence text, pyproject declares MIT and ships LICENSE, and the sdist includes it."""
    project = PROJECT["project"]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    assert text.startswith("MIT License\n\nCopyright (c) ")
    assert "Permission is hereby granted, free of charge, to any person obtaining a copy" in text
    assert 'THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND' in text
    assert "LICENSE" in PROJECT["tool"]["hatch"]["build"]["targets"]["sdist"]["include"]


def test_changelog_has_the_current_version() -> None:
    """CHANGELOG.md has a section for the package's version (escoba/version.py, which
    pyproject.toml reads), and an Unreleased one on top."""
    from escoba.version import __version__

    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    sections = re.findall(r"^## (.+)$", text, re.M)
    assert sections[0] == "Unreleased" and __version__ in sections


def test_metadata_a_package_index_shows() -> None:
    """Keywords, authors and classifiers are there; the Python classifiers start at requires-python's version."""
    project = PROJECT["project"]
    assert project["keywords"] and project["authors"]
    classifiers = project["classifiers"]
    assert not any(c.startswith("License ::") for c in classifiers)  # the SPDX `license` says it (PEP 639)
    versions = sorted(c.rsplit(" ", 1)[1] for c in classifiers if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c))
    assert project["requires-python"] == f">={versions[0]}"
    assert "Typing :: Typed" not in classifiers or (ROOT / "reference_impl" / "escoba" / "py.typed").is_file()
