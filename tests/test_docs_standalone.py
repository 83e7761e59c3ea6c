"""The repository stands alone: its docs never send a reader outside the clone.

Every ruling id cited in the code or the tests (M-n, S-n) has an anchored entry in docs/rules.md,
so a citation can always be looked up.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules.md"
OUTSIDE = ("../shared", "shared/seeds", "shared/RULINGS")
RULING_ID = re.compile(r"\b(?:M|S)-\d+\b")
CITING_SUFFIXES = {".py", ".json", ".mako", ".js", ".html", ".css", ".md", ".txt"}


def _docs() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def _citing_files() -> list[Path]:
    return [
        path
        for folder in (ROOT / "src", ROOT / "tests")
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.suffix in CITING_SUFFIXES and "__pycache__" not in path.parts
    ]


def _cited_ids() -> dict[str, str]:
    cited: dict[str, str] = {}
    for path in _citing_files():
        for ruling in RULING_ID.findall(path.read_text(encoding="utf-8", errors="replace")):
            cited.setdefault(ruling, str(path.relative_to(ROOT)))
    return cited


def _anchors(text: str) -> set[str]:
    return set(re.findall(r'<a id="([^"]+)"></a>', text))


def test_readme_and_docs_never_point_outside_the_repository() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()[:80]}"
        for path in _docs()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if any(marker in line for marker in OUTSIDE)
    ]
    assert offenders == []


def test_the_docs_scan_covers_the_readme_and_the_rules_reference() -> None:
    docs = _docs()
    assert ROOT / "README.md" in docs
    assert RULES in docs
    assert len(docs) > 2


def test_every_ruling_id_cited_in_src_and_tests_has_an_entry_in_rules_md() -> None:
    cited = _cited_ids()
    assert {"M-1", "M-41", "S-1", "S-23"} <= set(cited)  # the scan finds the citations
    text = RULES.read_text(encoding="utf-8")
    anchors = _anchors(text)
    missing = {
        ruling: where
        for ruling, where in sorted(cited.items())
        if ruling not in anchors or f"**{ruling} " not in text
    }
    assert missing == {}


def test_rules_md_anchors_are_unique_and_its_internal_links_resolve() -> None:
    text = RULES.read_text(encoding="utf-8")
    ids = re.findall(r'<a id="([^"]+)"></a>', text)
    assert len(ids) == len(set(ids))
    links = set(re.findall(r"\]\(#([^)]+)\)", text))
    headings = {
        re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
        for line in text.splitlines()
        if line.startswith("#")
    }
    assert links - set(ids) - headings == set()


def test_rules_md_lists_the_repository_addenda_files() -> None:
    text = RULES.read_text(encoding="utf-8")
    for name in ("rulings-addenda.md", "strife.md", "web.md"):
        assert f"]({name}" in text
        assert (ROOT / "docs" / name).is_file()
