"""`escoba show`: print a resolved ruleset."""

from __future__ import annotations

import argparse
import json

from escoba.cli.main import add_format_argument

HELP = "print a ruleset with its extends chain resolved, as YAML or JSON"
DESCRIPTION = """\
Print the resolved ruleset: the parent's rules with the child's changes laid over
them, every provenance citation kept (inherited ones say 'inherited_from'), and the
chain in 'resolved_from'. This is the document that is validated, diffed and played."""
EPILOG = """\
examples:
  escoba show base
  escoba show da-velo2                         a variant: base, then da, then its change
  escoba show spec/house/tie-shared.yaml --json  a house file, as JSON"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("ruleset", metavar="FILE-OR-ID", help="a ruleset file or bundled id")
    add_format_argument(parser, choices=("yaml", "json"))


def run(args: argparse.Namespace) -> int:
    from escoba.rules import load_resolved

    doc = load_resolved(args.ruleset).doc
    if args.format == "json":
        print(json.dumps(doc, ensure_ascii=False, indent=2))
    else:
        print(to_yaml(doc), end="")
    return 0


def to_yaml(doc: dict) -> str:
    """YAML that loads back (with escoba's own loader) to the same document."""
    import yaml

    from escoba.rules.yamlload import reads_as_text

    class Dumper(yaml.SafeDumper):
        def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
            # Indent list items under their key, as the rulesets in spec/ are written.
            super().increase_indent(flow, False)

        def write_double_quoted(self, text: str, split: bool = True) -> None:
            # PyYAML writes any character it counts printable as it is, a bidirectional
            # override (U+202E) or a zero-width space too: in text holding one, every
            # character beyond ASCII is written as its escape, so nothing invisible reaches
            # the terminal (the document loads back the same).
            shown, self.allow_unicode = self.allow_unicode, self.allow_unicode and all(c.isprintable() or c in "\n\t" for c in text)
            try:
                super().write_double_quoted(text, split)
            finally:
                self.allow_unicode = shown

    def text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
        # Quote what another YAML reader would take for a boolean or a number (`n`, `1e3`).
        # Escape what is invisible or a line break to YAML (NEL, U+2028): a plain one would change.
        style: str | None
        if any(not c.isprintable() and c not in "\n\t" for c in value):
            style = '"'
        else:
            style = None if reads_as_text(value) else "'"
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    Dumper.add_representer(str, text)
    return yaml.dump(doc, Dumper=Dumper, sort_keys=False, allow_unicode=True, width=100, default_flow_style=False)
