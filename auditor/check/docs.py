"""The rule packs as documents people read: `auditor rules show` and `docs/rules.md`.

Both are generated from the pack YAML and the facts vocabulary, never written by hand, so what a
regulator reads is exactly what the auditor enforces. `docs/rules.md` is checked in (it must be
readable without installing anything); a test fails when it no longer matches the packs.

    python -m auditor.check.docs --write     # regenerate docs/rules.md
    python -m auditor.check.docs --check     # exit 1 if docs/rules.md is stale
"""

from __future__ import annotations

import argparse
import re
import sys
import textwrap
from pathlib import Path
from typing import Any

import yaml

from auditor.check import money, words
from auditor.check.packs import Example, Pack, Rule, builtin_pack_paths, load_pack
from auditor.paths import IS_CHECKOUT, ROOT
from auditor.replay.facts import FACT_COLUMNS, HAND_COLUMNS, TABLE_ROWS
from auditor.replay.variants import VARIANTS

DOCS_PATH = ROOT / "docs" / "rules.md"
REGENERATE = "python -m auditor.check.docs --write"

#: the hand-level columns joined onto every facts table (facts.py documents only the engine's columns)
HAND_COLUMN_MEANINGS = {
    "hand_id": "the hand's id in the log", "table_id": "the table's id in the log", "variant": "the game played",
    "structure": "the betting structure", "file": "the input file the hand came from",
    "line": "the hand's line in that file", "rule_pack": "the pack the hand is audited under",
    "chip_unit": "the table's smallest chip", "table_min": "the table's minimum wager, as the log's stakes declare it",
    "table_max": "the table's maximum wager, as the log's stakes declare it", "max_seats": "seats at the table",
}
#: catalogue topics in the catalogue's own order (the catalogue itself is not part of the project)
CATALOGUE_TOPICS = ("SEAT", "BTN", "BLD", "DEAL", "ACT", "BET", "CAP", "AI", "POT", "SHOW", "EVAL", "SPLIT", "RAKE",
                    "CHIP", "REC")


def repo_path(path: Path) -> str:
    """A path as a reader of the repository sees it (relative to its root when inside it)."""
    if not IS_CHECKOUT:  # an installed package: the full path, not one relative to site-packages
        return str(path.resolve())
    try:
        return path.resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return str(path)


def facts_used(rule: Rule, pack: Pack) -> list[tuple[str, str]]:
    """(fact, meaning) for every fact the rule reads, in the order the facts table defines them."""
    names = rule.reads
    columns = [(c, meaning) for c, _, meaning in FACT_COLUMNS[rule.facts]]
    columns += [(c, HAND_COLUMN_MEANINGS.get(c, "")) for c in HAND_COLUMNS if c not in dict(columns)]
    return [(c, meaning) for c, meaning in columns if c in names and c not in pack.parameters]


def parameters_used(rule: Rule, pack: Pack) -> list[tuple[str, Any]]:
    names, values = rule.reads, pack.parameters if rule.parameters is None else rule.parameters
    return [(name, value) for name, value in values.items() if name in names]


def show_value(value: Any) -> str:
    """A parameter value as it would be written in the pack."""
    if isinstance(value, str):
        return value
    return yaml.safe_dump(value, default_flow_style=True, sort_keys=False).strip().removesuffix("...").strip()


def _examples(rule: Rule) -> list[tuple[str, Example]]:
    return [("violating", e) for e in rule.violating] + [("clean", e) for e in rule.clean]


def _findings(kind: str, example: Example) -> str:
    if kind == "clean":
        return "0"
    return "at least 1" if example.findings is None else str(example.findings)


def _clean(text: str | None) -> str:
    return " ".join((text or "").split())


# -- plain text: `auditor rules show` -----------------------------------------------------------------

def render_rule_text(pack: Pack, rule: Rule) -> str:
    """Everything about one rule, for a terminal."""
    def para(label: str, text: str | None) -> list[str]:
        return [f"{label}:", textwrap.fill(_clean(text), 100, initial_indent="    ", subsequent_indent="    ")]

    where = f"{repo_path(rule.file)}:{rule.line}" if rule.file else repo_path(pack.path)
    lines = [
        f"{rule.id} — {rule.title}",
        f"  pack:       {pack.name} {pack.version} — {pack.title}"
        + (f" (extends {pack.extends})" if pack.extends else ""),
        f"  defined at: {where}",
        f"  category:   {rule.category}",
        f"  severity:   {rule.severity}",
        f"  citation:   {rule.citation}",
        f"  catalogue:  {', '.join(rule.catalogue) or '-'}",
        f"  applies:    variants {', '.join(rule.variants)}; structures {', '.join(rule.structures)}",
        "",
        *para("What the rule book says", rule.text),
        *para("Why it matters", rule.why),
        *(para("How the wording is read (notes)", rule.notes) if rule.notes else []),
        "How it is checked:",
        f"    facts:      {rule.facts} ({TABLE_ROWS.get(rule.facts, '')})",
        f"    needs:      {', '.join(rule.needs) or '-'}   (a row missing one is not assessable, never a pass)",
        f"    when:       {rule.when.text.strip() if rule.when else '(every row)'}",
        f"    violation:  {rule.violation.text.strip()}",
        f"    seat/player: {rule.seat_column} / {rule.player_column}",
        "Facts used:",
        *(f"    {name:<28} {meaning}" for name, meaning in facts_used(rule, pack)),
    ]
    params = parameters_used(rule, pack)
    if params:
        lines += ["Pack parameters used:", *(f"    {name} = {show_value(value)}" for name, value in params)]
    lines += ["Finding:", f"    message:    {rule.message.text}"]
    lines += [f"    {key + ':':<11} {t.text}" for key, t in (("expected", rule.expected), ("actual", rule.actual)) if t]
    lines.append("Example hands:")
    for kind, example in _examples(rule):
        lines.append(f"    {kind:<10} {repo_path(example.path)}  (findings: {_findings(kind, example)})")
        lines.append(f"               {example.about}")
    return "\n".join(lines) + "\n"


# -- Markdown: docs/rules.md -----------------------------------------------------------------------

def _cell(text: Any) -> str:
    return _clean(str(text)).replace("|", "\\|")


def _code(text: str) -> str:
    text = _clean(text)
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def _anchor(pack: Pack, rule: Rule) -> str:
    return re.sub(r"[^a-z0-9-]+", "-", f"{pack.name}-{rule.id}".lower())


def _table(header: tuple[str, ...], rows: list[tuple[Any, ...]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows] + [""]


def render_rule_markdown(pack: Pack, rule: Rule) -> str:
    """One rule, everything `rules show` prints, in a form a regulator can read."""
    checked = (f"Facts table `{rule.facts}` ({TABLE_ROWS.get(rule.facts, '')}). "
               + (f"A row is judged when {_code(rule.when.text)}" if rule.when else "Every row is judged")
               + f"; it is a violation when {_code(rule.violation.text)}.")
    if rule.needs:
        needs = ", ".join(f"`{n}`" for n in rule.needs)
        checked += (f" A row missing {'any of ' if len(rule.needs) > 1 else ''}{needs} is reported as not assessable,"
                    " never as a pass.")
    checked += f" A finding names the seat in `{rule.seat_column}` and the player in `{rule.player_column}`."
    lines = [
        f'<a id="{_anchor(pack, rule)}"></a>',
        f"### {rule.id} — {rule.title}",
        "",
        *_table(("", ""), [
            ("Pack", f"{pack.name} {pack.version}"), ("Category", rule.category), ("Severity", rule.severity),
            ("Citation", rule.citation), ("Catalogue rows", ", ".join(rule.catalogue) or "—"),
            ("Variants", ", ".join(rule.variants)), ("Structures", ", ".join(rule.structures)),
        ]),
        f"**What the rule book says.** {_clean(rule.text)}",
        "",
        f"**Why it matters.** {_clean(rule.why)}",
        "",
    ]
    if rule.notes:
        lines += [f"**How the wording is read.** {_clean(rule.notes)}", ""]
    lines += [f"**How it is checked.** {checked}", ""]
    lines += _table(("fact used", "meaning"), [(f"`{n}`", m) for n, m in facts_used(rule, pack)])
    params = parameters_used(rule, pack)
    if params:
        lines += _table(("pack parameter", "value"), [(f"`{n}`", show_value(v)) for n, v in params])
    finding = [("message", rule.message)] + [(k, t) for k, t in (("expected", rule.expected),
                                                                 ("actual", rule.actual)) if t]
    lines += _table(("finding", "template"), [(k, _code(t.text)) for k, t in finding])
    lines += _table(("example", "hand log", "what it shows", "findings"),
                    [(kind, f"`{repo_path(e.path)}`", e.about, _findings(kind, e)) for kind, e in _examples(rule)])
    return "\n".join(lines)


def _catalogue_key(row: str) -> tuple[int, str]:
    topic = row.rsplit("-", 1)[0]
    return (CATALOGUE_TOPICS.index(topic) if topic in CATALOGUE_TOPICS else len(CATALOGUE_TOPICS), row)


def render_coverage(packs: list[Pack]) -> list[str]:
    rows = sorted({row for pack in packs for rule in pack.rules for row in rule.catalogue}, key=_catalogue_key)
    table = []
    for row in rows:
        cells = [", ".join(f"[{r.id}](#{_anchor(p, r)})" for r in p.rules if row in r.catalogue) or "—"
                 for p in packs]
        table.append((row, *cells))
    header = ("catalogue row", *(f"`{p.name}`" for p in packs))
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(row) + " |" for row in table] + [""]


def render_pack_markdown(pack: Pack) -> str:
    lines = [f"## {pack.name} {pack.version} — {pack.title}", ""]
    if pack.description:
        lines += [_clean(pack.description), ""]
    lines += ["**Documents enforced**", ""]
    lines += _table(("id", "cited as", "title", "source"),
                    [(d["id"], d["cite_as"], d["title"], d.get("source", "")) for d in pack.documents])
    lines += ["**Parameters** (house settings the rule book leaves open; rules may name them)", ""]
    lines += _table(("parameter", "value"), [(f"`{k}`", show_value(v)) for k, v in pack.parameters.items()])
    lines += [f"**Rules** ({len(pack.rules)})", ""]
    lines += _table(("rule", "title", "category", "severity", "citation"),
                    [(f"[{r.id}](#{_anchor(pack, r)})", r.title, r.category, r.severity, r.citation)
                     for r in pack.rules])
    return "\n".join(lines) + "\n" + "\n".join(render_rule_markdown(pack, rule) for rule in pack.rules)


def render_words() -> list[str]:
    """How a template's placeholders are written in a finding (auditor.check.words, auditor.check.money).

    Generated from the formatters' own tables, so the page cannot promise a wording the code does not write.
    """
    games = [(f"`{name}`", ", ".join(words.street_names(name))) for name in VARIANTS]
    phrases = [(f"`{name}`", f"{yes} / {no}" + (f" / missing: {rest[0]}" if rest else ""))
               for name, (yes, no, *rest) in sorted(words.PHRASES.items())]
    return [
        "## How finding texts are written",
        "",
        "A template's placeholders are written as a floor supervisor says them, not as the facts tables keep",
        "them: amounts in the hand's own money (`$0.50`, `1,500`), pots, blinds and streets by name, seat lists",
        "as a list, booleans as phrases, a fact the log lacks as `unknown`. The templates below are written",
        "around these words (`raised {round}` reads \"raised on the flop\").",
        "",
        *_table(("placeholder", "written as"), [
            ("amounts (" + ", ".join(f"`{n}`" for n in sorted(money.MONEY_FACTS)[:6]) + ", ...)",
             "the hand's currency and scale: `$0.50`, `€2`, `1,500` chips, `12.5` half chips"),
            ("`pot`", f"{words.pot_name(0)}, {words.pot_name(1)}, {words.pot_name(2)}, ..."),
            ("`blind`", f"{words.blind_name(1, 2)} and {words.blind_name(2, 2)} at a two-blind table; "
                        f"{words.blind_name(1, 3)}, {words.blind_name(2, 3)}, {words.blind_name(3, 3)} at a table of "
                        "three or more"),
            (", ".join(f"`{n}`" for n in words.STREET_FACTS), "the street by game, below"),
            ("counts (" + ", ".join(f"`{n}`" for n in sorted(words.COUNT_NOUNS)[:3]) + ", ...)",
             ", ".join(words.counted(n, *words.COUNT_NOUNS[k]) for n, k in ((0, "burns"), (1, "odd_chips"),
                                                                          (4, "board_cards")))),
            ("seats (`seat`, `expected_seat`, ...)", "`3 (button)` when the row's button is there; `none` if missing"),
            ("players (`player`, `expected_player`, ...)", "the name; `nobody` if missing"),
            ("seat lists (" + ", ".join(f"`{n}`" for n in sorted(words.SEAT_LIST_FACTS)[:3]) + ", ...)",
             f"{words.seat_list('3')}, {words.seat_list('3,5')}, {words.seat_list('1,3,5')}"),
            ("`shares`", words.shares_text("3:550 / 5:525")),
            ("`top_hole_cards_used`, " + ", ".join(f"`{n}`" for n in sorted(words.CARD_FACTS)),
             "cards as the log writes them; an unknown card is `hidden`"),
            (", ".join(f"`{n}`" for n in sorted(words.BLIND_CODE_FACTS)), words.blind_codes_text("bb,sb")),
            ("`pots_misawarded`", words.misawarded_text("pot 0: held 300, paid 250; pot 1: held 100, paid 0")),
            ("`seating_conflicts`", words.seating_text("Ann in seats 1,4; seat 5 listed for Bo, Cy")),
            ("`closed_by`", f"{words.closed_by_text('next round')}, {words.closed_by_text('end of hand')}"),
            ("other booleans", "yes / no"),
        ]),
        *_table(("game", "betting rounds, first to last"), games),
        *_table(("boolean", "written as (true / false)"), phrases),
    ]


def builtin_packs() -> list[Pack]:
    return [load_pack(path) for path in builtin_pack_paths().values()]


def render_rules_markdown() -> str:
    """docs/rules.md: the catalogue coverage table, then every built-in pack and rule."""
    packs = builtin_packs()
    lines = [
        "# Rule packs",
        "",
        f"<!-- Generated from rules/*.yaml by `{REGENERATE}`; do not edit by hand. -->",
        "",
        "Every rule the auditor enforces, as its pack file states it: the rule book's words, why the rule matters,",
        "how ambiguous wording was read, the facts and predicate that decide it, the finding it reports, and the",
        "example hands that show it firing and not firing. A rule only judges hands of the variants and betting",
        "structures it applies to; a hand missing a fact the rule needs is reported as not assessable, never as a",
        "pass.",
        "",
        "Packs: " + ", ".join(f"`{p.name}` {p.version} ({len(p.rules)} rules)" for p in packs) + ".",
        "",
        *render_words(),
        "## Catalogue coverage",
        "",
        "Each row of the poker-auditor rule catalogue that a built-in rule implements (the rule's `catalogue:`",
        "list), with the rules that implement it in each pack. Catalogue rows no built-in rule implements are",
        "not listed.",
        "",
        *render_coverage(packs),
    ]
    return "\n".join(lines) + "\n" + "\n".join(render_pack_markdown(p) for p in packs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m auditor.check.docs", description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--write", action="store_true", help=f"write {repo_path(DOCS_PATH)}")
    group.add_argument("--check", action="store_true", help=f"exit 1 if {repo_path(DOCS_PATH)} is stale")
    args = parser.parse_args(argv)
    text = render_rules_markdown()
    if args.write:
        DOCS_PATH.write_text(text, encoding="utf-8")
    elif args.check:
        current = DOCS_PATH.read_text(encoding="utf-8") if DOCS_PATH.exists() else ""
        if current != text:
            print(f"{repo_path(DOCS_PATH)} is stale; run: {REGENERATE}", file=sys.stderr)
            return 1
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
