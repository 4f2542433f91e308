"""MkDocs hook (``hooks:`` in mkdocs.yml): pages generated at build time, so they cannot drift.

- ``index.md``: the README, its ``docs/`` links made site links;
- ``cli/<command>.md``: the ``--help`` of each command, from :func:`cranfield.cli.main.build_parser`;
- ``measures/<name>.md``: one page per registered measure, from the registry
  (:data:`cranfield.measures.registry.REGISTRY` and the nugget measures);
- ``api/*.md``: the API reference, rendered from the docstrings by mkdocstrings.

The Markdown pages of ``docs/`` link ``../README.md`` so that they work on GitHub; in the site that
link is the home page. A page of ``docs/`` missing from the nav joins the guides. The nav entries
``cli/index.md``, ``measures/index.md`` and ``api/index.md`` of mkdocs.yml are expanded with the
generated pages.
"""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
API = {
    "api/cranfield.md": ("cranfield", "The package: evaluate, Evaluator, Results, Report, readers, plugins."),
    "api/meta.md": ("cranfield.meta", "Meta-evaluation: significance tests, discriminative power, correlations."),
    "api/io.md": ("cranfield.io", "Readers and writers of qrels, runs, intents and nuggets."),
    "api/evaluation.md": ("cranfield.evaluation", "Result objects of evaluation: Results, Collection, nuggets."),
    "api/analysis.md": ("cranfield.analysis", "Result objects of the studies: comparison, axioms, truncation, ..."),
    "api/measures.md": ("cranfield.measures.registry", "The measure registry: MeasureSpec, Param, parse_measure."),
}
_SLUG_CHARS = {"#": "-sharp", "*": "-x-", "+": "-plus"}


def slug(name: str, taken: set[str]) -> str:
    """A file name for a measure name: lower case, ``#``/``*``/``+`` spelt out, unique in ``taken``
    (trec_eval's ``rbp`` and the registry's ``RBP`` differ only in case)."""
    base = "".join(_SLUG_CHARS.get(c, c) for c in name).lower().strip("-")
    out, n = base, 1
    while out in taken:
        n += 1
        out = f"{base}-{n}"
    taken.add(out)
    return out


def _commands() -> dict[str, argparse.ArgumentParser]:
    from cranfield.cli.main import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def _cli_pages() -> dict[str, str]:
    from cranfield.cli.main import GROUPS, build_parser

    commands = _commands()
    index = ["# CLI reference", "",
             "Generated from the argument parser at build time: each page is the command's `--help`.", ""]
    index += ["```text", build_parser().format_help().rstrip(), "```", ""]
    pages = {}
    for title, names in GROUPS:
        index += [f"## {title[0].upper()}{title[1:]}", ""]
        for name in names:
            parser = commands[name]
            index.append(f"- [`cranfield {name}`]({name}.md): {parser.description or ''}".rstrip())
            pages[f"cli/{name}.md"] = "\n".join([f"# cranfield {name}", "", "```text",
                                                 parser.format_help().rstrip(), "```", ""])
        index.append("")
    pages["cli/index.md"] = "\n".join(index)
    return pages


def _specs() -> list[Any]:
    from cranfield.measures.nuggets import iter_nugget_specs
    from cranfield.measures.registry import iter_specs

    return [*iter_specs(), *iter_nugget_specs()]


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _measure_page(s: Any) -> str:
    from cranfield.measures.nuggets import is_nugget_measure
    from cranfield.render.tables import to_jsonable

    cut = {"required": "required (`@k`)", "optional": "optional (`@k`)", "none": "none"}[s.cutoff]
    lo, hi = s.value_range
    facts = [("Cutoff", cut), ("Range", f"[{lo:g}, {hi:g}]"),
             ("Ideal ranking scores 1", "yes" if s.normalised else "no"),
             ("Input", "nugget assignments (`cranfield nuggets`)" if is_nugget_measure(s) else
              "stochastic rankings (fairness.md)" if s.sampled else "rankings"),
             ("Needs intents", "yes" if s.needs_intents else "no"),
             ("Truncation-aware", "yes" if s.truncation_aware else "no"),
             ("Better", "lower" if s.lower_is_better else "higher"),
             ("Topics combined by", s.aggregate)]
    if s.aliases:
        facts.insert(0, ("Aliases", ", ".join(f"`{a}`" for a in s.aliases)))
    lines = [f"# {s.name}", "", s.doc, "", "| | |", "|---|---|"]
    lines += [f"| {k} | {_cell(v)} |" for k, v in facts]
    params = [p for p in s.params if p.name != "cutoff"]
    lines += ["", "## Parameters", ""]
    if params:
        lines += ["| Name | Default | Valid values | Meaning |", "|---|---|---|---|"]
        for p in params:
            default = ("file's highest label" if p.default is None and p.name == "max_rel"
                       else to_jsonable(p.default))
            lines.append(f"| `{p.name}` | `{_cell(default)}` | {_cell(p.describe())} | {_cell(p.doc)} |")
    else:
        lines.append("None" + (" but the cutoff." if s.cutoff != "none" else "."))
    lines += ["", "## Source", "", _cell(s.cite), ""]
    lines += ["## Agrees with", "",
              _cell(s.reference) if s.reference else "No external tool implements it: the tests compute cases by "
              "hand from the source above.", ""]
    example = f"{s.name}@10" if s.cutoff == "required" else s.name
    use = [f"cranfield measures '{s.name}'"]
    if not (is_nugget_measure(s) or s.sampled or s.needs_intents):
        use.append(f"cranfield eval qrels.txt run.txt -m '{example}'")
    lines += ["## Use", "", "```bash", *use, "```", ""]
    return "\n".join(lines)


def _measure_pages() -> tuple[dict[str, str], list[tuple[str, str]]]:
    taken: set[str] = {"index"}
    pages, entries = {}, []
    index = ["# Measures", "",
             "One page per registered measure, generated from the registry at build time "
             "(the same facts as `cranfield measures NAME`).", "",
             "| Measure | What it measures |", "|---|---|"]
    for s in _specs():
        path = f"measures/{slug(s.name, taken)}.md"
        pages[path] = _measure_page(s)
        entries.append((s.name, path))
        index.append(f"| [{_cell(s.name)}]({path.split('/')[1]}) | {_cell(s.doc)} |")
    pages["measures/index.md"] = "\n".join(index) + "\n"
    return pages, entries


def _api_pages() -> dict[str, str]:
    index = ["# API reference", "", "Rendered from the docstrings.", ""]
    index += [f"- [`{mod}`]({path.split('/')[1]}): {what}" for path, (mod, what) in API.items()]
    pages = {"api/index.md": "\n".join(index) + "\n"}
    pages.update({path: f"# `{mod}`\n\n{what}\n\n::: {mod}\n" for path, (mod, what) in API.items()})
    return pages


def _readme() -> str:
    """The README, its ``docs/`` links made site links and its links to the repository's root files
    made links to the changelog page (CHANGELOG.md) or plain file names (CITATION.cff, ...)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    text = re.sub(r"\]\(docs/", "](", text).replace("](CHANGELOG.md)", "](changelog.md)")
    return re.sub(r"\[([^\]]+)\]\((CITATION\.cff|CONTRIBUTING\.md|LICENSE)\)", r"`\2`", text)


_PAGES: dict[str, str] = {}


def on_config(config: Any) -> Any:
    """Generate the pages and expand the generated sections of the nav."""
    os.environ.setdefault("COLUMNS", "100")  # argparse wraps --help to the terminal width
    _PAGES.clear()
    _PAGES["index.md"] = _readme()
    _PAGES["changelog.md"] = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    _PAGES.update(_cli_pages())
    measures, entries = _measure_pages()
    _PAGES.update(measures)
    _PAGES.update(_api_pages())
    from cranfield.cli.main import GROUPS

    expand = {
        "cli/index.md": ["cli/index.md", *(f"cli/{name}.md" for _, names in GROUPS for name in names)],
        "measures/index.md": ["measures/index.md", *({name: path} for name, path in entries)],
        "api/index.md": ["api/index.md", *API],
    }

    def walk(items: list[Any]) -> list[Any]:
        out = []
        for item in items:
            if isinstance(item, dict):
                (title, value), = item.items()
                if isinstance(value, list):
                    value = walk(value)
                elif value in expand:
                    value = expand[value]
                item = {title: value}
            out.append(item)
        return out

    config["nav"] = walk(config["nav"])
    _add_unlisted(config["nav"], Path(config["docs_dir"]))
    return config


def _paths(items: list[Any]) -> set[str]:
    out: set[str] = set()
    for item in items:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        out |= _paths(value) if isinstance(value, list) else {value}
    return out


def _add_unlisted(nav: list[Any], docs: Path) -> None:
    """A page of docs/ that the nav does not list (one merged from another branch) joins the guides,
    titled by its first heading, so that the strict build does not fail on it."""
    listed = _paths(nav)
    guides = next(item["Guides"] for item in nav if isinstance(item, dict) and "Guides" in item)
    for page in sorted(docs.glob("*.md")):
        if page.name not in listed:
            title = next((line[2:].strip() for line in page.read_text(encoding="utf-8").splitlines()
                          if line.startswith("# ")), page.stem)
            guides.append({title: page.name})


def on_files(files: Files, config: Any) -> Files:
    for path, text in _PAGES.items():
        files.append(File.generated(config, path, content=text))
    return files


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """``../README.md`` (a docs/ page's link to the README on GitHub) is the site's home page."""
    return markdown.replace("](../README.md", "](index.md")
