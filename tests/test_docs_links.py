"""Every relative link and image of README.md, docs/*.md and docs/reports/*.md leads
somewhere, and the README stays an index: short, linking every docs page; every report
is listed in docs/reports/README.md.

A link names an existing file or folder of the checkout; a ``#anchor`` names a heading of
its target page, slugged as GitHub slugs headings. External links (http, https, mailto)
are not fetched: the suite runs offline.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]

#: Inline links and images: ``[text](target)`` or ``![alt](target "title")``.
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_FENCE = re.compile(r"^\s*(```|~~~)")
_INLINE_CODE = re.compile(r"`+[^`]*`+")
_HEADING = re.compile(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_EXTERNAL = ("http://", "https://", "mailto:")


def pages() -> list[Path]:
    return [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]


def reports() -> list[Path]:
    return sorted((REPO_ROOT / "docs" / "reports").glob("*.md"))


def _prose_lines(text: str) -> list[tuple[int, str]]:
    """The lines outside fenced code blocks, numbered from 1."""
    lines, fenced = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            lines.append((number, line))
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text as rendered, lower-cased, punctuation
    dropped (hyphens and underscores kept), spaces turned into hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link shows its text
    text = text.replace("`", "").replace("*", "")
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every heading's anchor; repeated headings get -1, -2, ... as GitHub numbers them."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    for _, line in _prose_lines(page.read_text(encoding="utf-8")):
        match = _HEADING.match(line)
        if not match:
            continue
        base = slug(match.group(1))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def broken_links(page: Path) -> list[str]:
    """``page:line: target (why)`` for each relative link or image that leads nowhere."""
    problems = []
    text = page.read_text(encoding="utf-8")
    for number, line in _prose_lines(text):
        # a link written inside inline code is an example, not a link
        for match in _LINK.finditer(_INLINE_CODE.sub("", line)):
            target = match.group(1)
            if target.startswith(_EXTERNAL):
                continue
            path_part, _, anchor = target.partition("#")
            destination = (page.parent / unquote(path_part)).resolve() if path_part else page
            why = None
            if not destination.exists():
                why = "no such file"
            elif anchor and destination.suffix != ".md":
                why = "an anchor into a file that is not a markdown page"
            elif anchor and anchor not in anchors(destination):
                why = f"no heading with anchor #{anchor} in {destination.name}"
            if why:
                problems.append(f"{page.name}:{number}: {target} ({why})")
    return problems


@pytest.mark.parametrize(
    "page", pages() + reports(), ids=lambda p: p.relative_to(REPO_ROOT).as_posix()
)
def test_every_link_resolves(page: Path) -> None:
    assert not broken_links(page), "\n".join(broken_links(page))


def test_the_docs_pages_are_linked_from_the_readme() -> None:
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    linked = {m.group(1).partition("#")[0] for m in _LINK.finditer(readme)}
    missing = [p.name for p in pages()[1:] if f"docs/{p.name}" not in linked]
    assert not missing, f"docs pages the README does not link: {missing}"


def test_every_report_is_indexed_and_cited() -> None:
    """docs/reports/README.md lists every report, and a topic page links each one."""
    index = (REPO_ROOT / "docs" / "reports" / "README.md").read_text(encoding="utf-8")
    listed = {m.group(1).partition("#")[0] for m in _LINK.finditer(index)}
    topics = " ".join(p.read_text(encoding="utf-8") for p in pages()[1:])
    studies = [p for p in reports() if p.name != "README.md"]
    assert studies, "no reports in docs/reports/"
    unlisted = [p.name for p in studies if p.name not in listed]
    uncited = [p.name for p in studies if f"reports/{p.name}" not in topics]
    assert not unlisted, f"reports docs/reports/README.md does not list: {unlisted}"
    assert not uncited, f"reports no docs page links: {uncited}"


def test_every_benchmark_is_named_in_the_docs() -> None:
    """A script in benchmarks/ reruns a figure of a page or report, so a page names it;
    a study's one-off scripts leave with the study."""
    docs = " ".join(p.read_text(encoding="utf-8") for p in pages() + reports())
    scripts = sorted((REPO_ROOT / "benchmarks").glob("*.py"))
    assert scripts
    unnamed = [p.name for p in scripts if p.name not in docs]
    assert not unnamed, f"benchmarks no docs page or report names: {unnamed}"


def test_the_readme_reads_in_five_minutes() -> None:
    lines = (REPO_ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) < 150, f"README.md has {len(lines)} lines: move detail to docs/"


def test_broken_links_are_found(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# Other page\n\n## A `code` heading\n", encoding="utf-8")
    (tmp_path / "plot.png").write_bytes(b"png")
    page = tmp_path / "page.md"
    page.write_text(
        "# Here\n\n"
        "[fine](other.md) [fine](other.md#a-code-heading) ![fine](plot.png) [fine](#here)\n"
        "[web](https://example.org/nowhere) `[in code](missing.md)`\n"
        "```\n[in a fence](missing.md)\n```\n"
        "[gone](missing.md)\n"
        "![gone](missing.png)\n"
        "[bad anchor](other.md#no-such-heading)\n"
        "[bad local anchor](#nowhere)\n",
        encoding="utf-8",
    )
    assert broken_links(page) == [
        "page.md:8: missing.md (no such file)",
        "page.md:9: missing.png (no such file)",
        "page.md:10: other.md#no-such-heading (no heading with anchor #no-such-heading "
        "in other.md)",
        "page.md:11: #nowhere (no heading with anchor #nowhere in page.md)",
    ]


def test_slugs_follow_github() -> None:
    assert slug("Learning strength (issue 11)") == "learning-strength-issue-11"
    assert slug("The reproduction: `treestrap reproduce veness2009`") == (
        "the-reproduction-treestrap-reproduce-veness2009"
    )
    assert slug("Scale-out: actors and Ray") == "scale-out-actors-and-ray"
    assert slug("What was tried, 2e-5 to 2e-4") == "what-was-tried-2e-5-to-2e-4"
