"""docs/RULES.md is the rulebook every `RULES §x.y` citation points to."""

from __future__ import annotations

import re
from pathlib import Path

from shengji.options import OPTION_INFO

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "RULES.md"


def sections() -> set[str]:
    text = RULES.read_text(encoding="utf-8")
    return {m.group(1) for m in re.finditer(r"^#{2,3} (\d+(?:\.\d+)?)\.? ", text, re.M)}


def test_every_rules_citation_in_the_package_names_a_section_of_docs_rules_md():
    known = sections()
    assert {"3.3", "3.5", "5.4", "6.1", "6.4", "8.1", "9", "10"} <= known
    cited: dict[str, set[str]] = {}
    for path in (ROOT / "src" / "shengji").rglob("*.py"):
        for m in re.finditer(r"§(\d+(?:\.\d+)?)", path.read_text(encoding="utf-8")):
            cited.setdefault(m.group(1), set()).add(path.name)
    unknown = {s: files for s, files in cited.items() if s not in known}
    assert not unknown, f"citations of sections RULES.md does not have: {unknown}"


def test_every_rule_option_is_named_in_rules_md_section_10():
    text = RULES.read_text(encoding="utf-8")
    section_10 = text[text.index("## 10. Rule options"): text.index("## 11.")]
    for name in OPTION_INFO:
        assert f"`{name}`" in section_10, name
        assert f"## {OPTION_INFO[name].rule[1:].split('.')[0]}" in text


def test_readme_links_the_rulebook():
    assert "docs/RULES.md" in (ROOT / "README.md").read_text(encoding="utf-8")
