"""The static site: rulesets, the rules matrix, golden games, conformance and diffs as HTML.

`escoba site --out DIR` (cli/site.py) calls `build.build`; docs/site.md describes the pages.
Needs the optional extra `site` (Jinja2).
"""
