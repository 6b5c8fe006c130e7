"""The version of escoba, written once: the package, the wheel (`[tool.hatch.version]` in
pyproject.toml), `escoba --version`, an engine's `hello` and the verdicts cache all read it here."""

__version__ = "0.1.0"
