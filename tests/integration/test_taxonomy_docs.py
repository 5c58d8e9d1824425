"""``supervise taxonomy docs``: the catalogue rendered from the YAML; docs/packs/ is made so."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from click.testing import CliRunner, Result

from supervisor.catalogue import GENERATED_MARK
from supervisor.cli import cli
from supervisor.taxonomy import builtin_packs

DOCS_PACKS = Path(__file__).resolve().parents[2] / "docs" / "packs"

TEAM = """\
schema_version: 1
id: team
title: Our team's additions
docs:
  intro: |
    Rules the platform team keeps. Ask in #platform before changing one.
  groups:
    - {title: Databases, prefixes: [db_]}
  notes: |
    ## Rolling out

    New entries start at `authority: flag` for a week.
entries:
  - id: db_prod_url
    title: Production database URL
    description: A command that names the production database | directly.
    example: {summary: An agent migrated production by mistake., source: https://example.org/pm}
    severity: critical
    default_verdict: nudge
    references: [CWE-284]
    detection: deterministic
    applies_to: {action_types: [shell]}
    specialist: {kind: regex, config: {match: {command: ['db\\.prod\\.internal']}}}
    correction: {first: "Use staging.", second: "Stop and ask."}
    examples:
      match:
        - psql -h db.prod.internal -c 'select 1' | tee out.txt
      not_match:
        - {action: psql -h db.staging.internal, note: staging is fine}
  - id: big_upload
    title: Big upload
    description: An upload of a large file.
    example: {summary: An agent uploaded a dump., source: postmortem 12}
    severity: low
    default_verdict: flag
    authority: flag
    references: [CWE-200]
    detection: deterministic
    applies_to: {action_types: [http], tools: ["mcp__s3__*"]}
    specialist: {kind: regex, config: {match: {url: ['upload']}}}
"""


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_committed_pack_pages_are_what_the_command_renders(tmp_path):
    out = run("taxonomy", "docs", "-o", str(tmp_path))
    assert out.exit_code == 0, out.output
    rendered = {p.name: p.read_text(encoding="utf-8") for p in tmp_path.glob("*.md")}
    assert set(rendered) == {f"{name}.md" for name in builtin_packs()}
    committed = {p.name for p in DOCS_PACKS.glob("*.md")}
    assert committed == set(rendered), "each page of docs/packs is a pack's, each pack has one"
    stale = [
        name
        for name, text in rendered.items()
        if (DOCS_PACKS / name).read_text(encoding="utf-8") != text
    ]
    assert not stale, (
        f"docs/packs/{', '.join(stale)} differ from the YAML: run "
        "`supervise taxonomy docs -o docs/packs` and commit the result"
    )


def test_a_pack_page_says_it_is_generated_and_how_to_regenerate(tmp_path):
    text = run("taxonomy", "docs", "coding").output
    first = text.splitlines()[0]
    assert first.startswith(GENERATED_MARK)
    assert "taxonomy/coding.yaml" in first
    assert "supervise taxonomy docs -o docs/packs" in first


def test_every_entry_its_incident_verdict_and_examples_are_on_the_page():
    from supervisor.taxonomy import load_taxonomy

    text = run("taxonomy", "docs", "coding").output

    def cell(value: str) -> str:
        return " ".join(value.split()).replace("|", "\\|")

    for entry in load_taxonomy(["coding"]):
        assert f"### `{entry.id}`" in text
        assert f"[`{entry.id}`](#{entry.id})" in text
        assert cell(entry.description) in text
        assert cell(entry.example.summary) in text
    assert "| `git push --force origin main` | as above | nudge |  |" in text
    deselect = "`pytest --deselect tests/test_orders.py::test_refund_twice`"
    assert f"| {deselect} | as above | flag |" in text
    assert "## Databases: where SQL goes" in text  # the pack's notes


def test_an_overlay_page_groups_notes_escapes_and_links(tmp_path):
    path = tmp_path / "team.yaml"
    path.write_text(TEAM, encoding="utf-8")
    out = run("taxonomy", "docs", str(path), "-o", str(tmp_path / "site"))
    assert out.exit_code == 0, out.output
    assert out.output == f"wrote {tmp_path / 'site' / 'team.md'} (2 entries from {path})\n"
    text = (tmp_path / "site" / "team.md").read_text(encoding="utf-8")
    assert f"supervise taxonomy docs {path} -o DIR" in text.splitlines()[0]
    assert "# Our team's additions" in text
    assert "Rules the platform team keeps." in text
    assert "### Databases (1)" in text
    assert "### Other entries (1)" in text
    assert "## Rolling out" in text
    assert text.index("## Rolling out") < text.index("## Entries")
    # a pipe in a description or a command stays inside its cell
    assert "names the production database \\| directly." in text
    assert "| `psql -h db.prod.internal -c 'select 1' \\| tee out.txt` |  | nudge |  |" in text
    assert "| `psql -h db.staging.internal` |  | staging is fine |" in text
    assert "| Verdict | flag (at most flag) |" in text
    assert "| Escalation | block after 2 nudges on one object |" in text
    assert "| Incident | An agent uploaded a dump. (postmortem 12) |" in text
    assert "http; tools `mcp__s3__*`" in text


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: set[str] = set()
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        found = dict(attrs)
        if found.get("id"):
            self.ids.add(str(found["id"]))
        href = found.get("href") or ""
        if tag == "a" and href.startswith("#"):
            self.links.add(href[1:])


def test_html_is_the_same_page_with_working_anchors(tmp_path):
    out = run("taxonomy", "docs", "--format", "html", "-o", str(tmp_path))
    assert out.exit_code == 0, out.output
    for name in builtin_packs():
        html = (tmp_path / f"{name}.html").read_text(encoding="utf-8")
        assert html.startswith("<!DOCTYPE html>\n" + GENERATED_MARK)
        page = _Page()
        page.feed(html)
        assert "table" in page.tags
        assert page.links, name
        assert page.links <= page.ids, (name, page.links - page.ids)
        assert f"<title>The {name} pack</title>" in html
        assert "<script" not in html
    browsing = (tmp_path / "browsing.html").read_text(encoding="utf-8")
    assert '<h3 id="click_outside_allowed_domains">' in browsing


def test_html_escapes_what_the_yaml_says(tmp_path):
    path = tmp_path / "team.yaml"
    path.write_text(TEAM.replace("Ask in #platform", "<script>alert(1)</script>"), "utf-8")
    html = run("taxonomy", "docs", str(path), "--format", "html").output
    assert "<script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert re.search(r'<h3 id="db_prod_url"><code>db_prod_url</code></h3>', html)
