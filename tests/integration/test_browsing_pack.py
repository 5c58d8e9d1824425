"""The ``browsing`` pack end to end: clicks judged by registrable domain, never by substring.

The allowlist comes from ``Context.allowed_domains`` (per call) or from an overlay's config.
A real HTTP server on 127.0.0.1 shows that the check itself never touches the network.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
import yaml

import specialists.http_check
from supervisor import Supervisor
from supervisor.models import Context, Decision, Verdict

ENTRY = "click_outside_allowed_domains"
PYTHON = Context(allowed_domains=("python.org",))


class _Handler(BaseHTTPRequestHandler):
    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        type(self).hits.append(self.path)
        body = b"<a href='https://docs.python.org/3/'>docs</a>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    _Handler.hits = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_port}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


@pytest.fixture
def sup(tmp_path: Path) -> Iterator[Supervisor]:
    # The http_check plugin is loaded too, as a deployment with both packs would.
    with Supervisor.from_taxonomy(
        "browsing", plugins=[specialists.http_check], home=tmp_path
    ) as supervisor:
        yield supervisor


def click(url: str, action_type: str = "click") -> dict[str, Any]:
    return {"type": action_type, "tool": "browser", "args": {"url": url}, "session": "web-1"}


def decide(sup: Supervisor, url: str, context: Context = PYTHON, **kw: Any) -> Decision:
    return sup.check(click(url, **kw), context)


@pytest.mark.parametrize(
    "url",
    [
        "https://python.org/",
        "https://www.python.org/downloads/",
        "https://docs.python.org/3/library/html.parser.html",
        "HTTPS://DOCS.PYTHON.ORG/3/",
        "https://docs.python.org./3/",  # the trailing dot of a fully qualified name
        "docs.python.org/3/",  # scheme-less, as agents write it
        "/3/tutorial/",  # relative: stays on the current site
        "https://user@docs.python.org/",
        # A browser reads a backslash as "/": this is docs.python.org, path /@evil.net/.
        "https://docs.python.org\\@evil.net/",
    ],
)
def test_clicks_on_the_allowed_domain_are_ok(sup, url):
    decision = decide(sup, url)
    assert decision.verdict is Verdict.OK, decision.reason


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("https://docs.python.org.evil.net/3/", "docs.python.org.evil.net"),  # suffix trick
        ("https://evilpython.org/", "evilpython.org"),  # substring trick
        ("https://python.org@evil.net/login", "evil.net"),  # user-info trick
        ("https://python.org%40evil.net/", None),  # an escaped @ is no host
        ("https://xn--pythn-mua.org/", "xn--pythn-mua.org"),  # punycode of python with an o-umlaut
        ("https://pyth\u00f6n.org/", "xn--pythn-mua.org"),  # the same, in Unicode
        ("https://pyth\u043en.org/", None),  # a Cyrillic o
        ("https://python.org.evil.net", "python.org.evil.net"),
        ("https://evil.net/?next=https://python.org/", "evil.net"),
        ("https://evil.net#python.org", "evil.net"),
    ],
)
def test_lookalike_domains_are_blocked(sup, url, host):
    decision = decide(sup, url)
    assert decision.verdict is Verdict.BLOCK, url
    result = decision.results[ENTRY]
    assert result.verdict is Verdict.BLOCK
    assert decision.corrections == ()  # a block is not a nudge: the agent must replan
    if host is not None:
        assert result.evidence["host"] == host
        assert f"{ENTRY}: click target {host} is outside the allowed domains" in decision.reason


def test_navigation_is_judged_like_clicks(sup):
    assert decide(sup, "https://docs.python.org/", action_type="navigate").allowed
    blocked = decide(sup, "https://evilpython.org/", action_type="navigate")
    assert blocked.verdict is Verdict.BLOCK


@pytest.mark.parametrize("url", ["javascript:alert(1)", "data:text/html,<h1>x</h1>"])
def test_dangerous_schemes_are_blocked(sup, url):
    assert decide(sup, url).verdict is Verdict.BLOCK


def test_each_call_brings_its_own_allowlist(sup):
    url = "https://en.wikipedia.org/wiki/Python"
    assert decide(sup, url).verdict is Verdict.BLOCK
    wiki = Context(allowed_domains=("python.org", "wikipedia.org"))
    assert decide(sup, url, wiki).verdict is Verdict.OK


def test_without_an_allowlist_the_entry_has_no_opinion(sup):
    decision = decide(sup, "https://evilpython.org/", Context())
    assert decision.verdict is Verdict.OK
    assert decision.results[ENTRY].verdict is Verdict.REFUSE


def test_the_allowlist_can_live_in_an_overlay(tmp_path):
    doc = {
        "schema_version": 1,
        "id": "docs_only",
        "override": {ENTRY: {"specialist": {"config": {"allowed": ["python.org"]}}}},
    }
    path = tmp_path / "overlay.yaml"
    path.write_text(yaml.safe_dump(doc))
    with Supervisor.from_taxonomy("browsing", path, home=tmp_path) as sup:
        assert decide(sup, "https://docs.python.org/3/", Context()).verdict is Verdict.OK
        assert decide(sup, "https://docs.python.org.evil.net/", Context()).verdict is (
            Verdict.BLOCK
        )


def test_loopback_pages_are_judged_without_being_fetched(sup, server):
    local = Context(allowed_domains=("127.0.0.1",))
    assert decide(sup, f"{server}/docs", local).verdict is Verdict.OK
    assert decide(sup, server.replace("127.0.0.1", "localhost"), local).verdict is Verdict.BLOCK
    # Numeric forms of the same address are the same host, not a way around the list.
    port = server.rsplit(":", 1)[1]
    assert decide(sup, f"http://2130706433:{port}/", local).verdict is Verdict.OK
    assert decide(sup, f"http://127.0.0.2:{port}/", local).verdict is Verdict.BLOCK
    assert _Handler.hits == []  # the domain kind never fetches anything


def test_research_and_browsing_load_together_and_keep_to_their_actions(tmp_path, server):
    research = Path(__file__).resolve().parents[2] / "taxonomy" / "research.yaml"
    with Supervisor.from_taxonomy(
        "browsing", research, plugins=[specialists.http_check], home=tmp_path
    ) as sup:
        clicked = decide(sup, "https://evilpython.org/")
        assert set(clicked.results) == {ENTRY}
        cited = sup.check({"type": "cite", "args": {"url": f"{server}/", "quote": "docs"}}, PYTHON)
        # The research entry runs (and, by default, refuses to fetch loopback); the click
        # entry is not asked about a citation.
        assert set(cited.results) == {"citation_resolves_and_quote_appears"}
    assert _Handler.hits == []
