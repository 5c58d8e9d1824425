"""The ``research`` pack end to end, against a real HTTP server on 127.0.0.1.

The pack refuses to fetch loopback addresses (server-side request forgery), so each test
loads it with an overlay that sets ``allow_private_hosts: true`` by id, as a deployment that
checks intranet sources would.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
import yaml

import specialists.http_check
from supervisor import Supervisor
from supervisor.models import Decision, Status, Verdict
from supervisor.taxonomy import builtin_packs

from ..conftest import recorded

PACK = Path(__file__).resolve().parents[2] / "taxonomy" / "research.yaml"
ENTRY = "citation_resolves_and_quote_appears"
SLOW_S = 30.0  # how long /slow holds its answer, unless the test ends first

ARTICLE = """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Sanctions for fabricated citations</title>
  <style>.byline { font-style: italic }</style>
  <script>window.analytics = "a decoy sentence that only a script holds";</script>
</head>
<body>
<article>
  <h1>Opinion and Order on Sanctions</h1>
  <p class="byline">Filed June&nbsp;22, 2023</p>
  <p>Respondents abandoned their responsibilities when they submitted
     non-existent judicial opinions with fake quotes and
     <em>fake citations</em> created by the artificial intelligence tool ChatGPT,
     then continued to stand by the fake opinions after judicial orders called their
     existence into question.</p>
  <p>Counsel&rsquo;s affidavit said the tool had &ldquo;assured&rdquo; him the cases were
     real &mdash; and that he was &ldquo;unaware of the possibility that its content could
     be false.&rdquo;</p>
  <p>Many harms flow from the submission of fake opinions. The opposing party wastes time
     and money in exposing the deception. The Court&#39;s time is taken from other important
     endeavors.</p>
</article>
</body>
</html>
"""
QUOTE = (
    "submitted non-existent judicial opinions with fake quotes and fake citations created "
    "by the artificial intelligence tool ChatGPT"
)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, so that the specialist's pool is exercised
    disable_nagle_algorithm = True  # else headers and body wait on a delayed ACK (40 ms)
    timeout = 10  # idle keep-alive connections end
    release: ClassVar[threading.Event] = threading.Event()
    hits: ClassVar[list[str]] = []
    client_ports: ClassVar[set[int]] = set()

    def do_GET(self) -> None:
        type(self).hits.append(self.path)
        type(self).client_ports.add(self.client_address[1])
        path = self.path.partition("?")[0]
        if path == "/article":
            self._send(200, ARTICLE.encode(), "text/html; charset=utf-8")
        elif path == "/moved":
            self._send(301, b"", "text/plain", location="/article")
        elif path == "/elsewhere":
            self._send(302, b"", "text/plain", location="/gone")
        elif path == "/loop":
            self._send(302, b"", "text/plain", location="/loop")
        elif path == "/forbidden":
            self._send(403, b"<h1>No robots</h1>", "text/html")
        elif path == "/slow":
            type(self).release.wait(SLOW_S)
            self._send(200, ARTICLE.encode(), "text/html; charset=utf-8")
        else:
            self._send(404, b"<h1>Not Found</h1>", "text/html")

    def _send(self, status: int, body: bytes, content_type: str, **headers: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name.title(), value)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet test output


class Server:
    def __init__(self, httpd: ThreadingHTTPServer) -> None:
        self.httpd = httpd
        self.base = f"http://127.0.0.1:{httpd.server_port}"

    def url(self, path: str) -> str:
        return self.base + path

    @property
    def hits(self) -> list[str]:
        return _Handler.hits


@pytest.fixture
def server() -> Iterator[Server]:
    _Handler.hits = []
    _Handler.client_ports = set()
    _Handler.release = threading.Event()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(
        target=httpd.serve_forever, args=(0.02,), name="test-http", daemon=True
    )
    thread.start()
    try:
        yield Server(httpd)
    finally:
        _Handler.release.set()  # a /slow handler still waiting answers now
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


def overlay(tmp_path: Path, **settings: Any) -> Path:
    """An overlay that lets the entry fetch loopback, plus entry-level settings."""
    config = {"allow_private_hosts": True, **settings.pop("config", {})}
    doc = {
        "schema_version": 1,
        "id": "loopback_overlay",
        "override": {ENTRY: {"specialist": {"config": config}, **settings}},
    }
    path = tmp_path / "overlay.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


@pytest.fixture
def sup(tmp_path: Path) -> Iterator[Supervisor]:
    with Supervisor.from_taxonomy(
        PACK, overlay(tmp_path), plugins=[specialists.http_check], home=tmp_path
    ) as supervisor:
        yield supervisor


def cite(url: str, quote: str | None = QUOTE, session: str = "research-1") -> dict[str, Any]:
    args: dict[str, Any] = {"url": url, "claim": "The lawyers were sanctioned."}
    if quote is not None:
        args["quote"] = quote
    return {"type": "cite", "args": args, "session": session, "agent": "researcher"}


def observation_of(decision: Decision) -> dict[str, Any]:
    (observation,) = decision.results[ENTRY].observations
    assert observation.kind == "http"
    assert isinstance(observation.value, dict)
    return {"key": observation.key, "error": observation.error, **observation.value}


def test_the_pack_ships_and_names_its_source():
    assert "research" in builtin_packs()
    doc = yaml.safe_load(PACK.read_text())
    (entry,) = doc["entries"]
    assert entry["id"] == ENTRY
    assert "Mata v. Avianca" in entry["example"]["source"]
    assert entry["example"]["source"].split()[-1].startswith("https://law.justia.com/")
    assert entry["default_verdict"] == "nudge"
    assert entry["detection"] == "hybrid"
    assert "LLM09" in entry["references"]
    assert entry["specialist"]["config"]["allow_private_hosts"] is False


def test_verbatim_quote_is_ok_and_the_observation_is_in_the_result(sup, server):
    decision = sup.check(cite(server.url("/article")))
    assert decision.verdict is Verdict.OK, decision.reason
    result = decision.results[ENTRY]
    assert result.status is Status.DONE
    assert result.evidence["match"] == "verbatim"
    seen = observation_of(decision)
    assert seen["key"] == {"method": "GET", "url": server.url("/article")}
    assert seen["status"] == 200
    assert seen["final_url"] == server.url("/article")
    assert seen["address"] == "127.0.0.1"
    assert "fake citations</em> created" in seen["body"]
    assert seen["headers"]["content-type"] == "text/html; charset=utf-8"


@pytest.mark.parametrize(
    "quote",
    [
        # Other whitespace and case than the page's line breaks and indentation.
        "SUBMITTED non-existent   judicial opinions\nwith fake quotes and fake citations",
        # Straight quotes and a hyphen where the page has entities for curly ones and a dash.
        'the tool had "assured" him the cases were real - and that he was "unaware',
        # Curly quotes and an em dash typed directly.
        "the tool had \u201cassured\u201d him the cases were real \u2014 and that he",
        # An ellipsis over the parts left out.
        "Many harms flow from the submission of fake opinions. \u2026 The Court's time is "
        "taken from other important endeavors.",
        # &#39; in the page, an apostrophe in the quote, inside quotation marks.
        "\u201cThe Court's time is taken from other important endeavors.\u201d",
    ],
)
def test_quotes_that_differ_only_in_form_are_ok(sup, server, quote):
    decision = sup.check(cite(server.url("/article"), quote))
    assert decision.verdict is Verdict.OK, decision.reason


def test_a_missing_quote_nudges_with_a_correction_naming_the_url(sup, server):
    url = server.url("/article")
    quote = "submitted non-existent judicial opinions after a thorough search of Westlaw"
    decision = sup.check(cite(url, quote))
    assert decision.verdict is Verdict.NUDGE
    result = decision.results[ENTRY]
    assert result.reason == "quoted text not present in source"
    assert result.evidence["object"] == url
    (correction,) = decision.corrections
    assert correction.entry_id == ENTRY
    assert correction.text.startswith(
        f"The quote you cited does not appear in the source at {url}. Either update the "
        "quote to match the source verbatim"
    )
    assert '"submitted non-existent judicial opinions"' in correction.text
    assert observation_of(decision)["status"] == 200


def test_text_only_in_a_script_is_not_in_the_page(sup, server):
    quote = "a decoy sentence that only a script holds"
    assert sup.check(cite(server.url("/article"), quote)).verdict is Verdict.NUDGE


def test_an_ignored_nudge_sharpens_then_blocks(sup, server):
    url = server.url("/article")
    bad = cite(url, "the court praised counsel for their diligence")
    first = sup.check(bad)
    second = sup.check(bad)
    third = sup.check(bad)
    assert [d.verdict for d in (first, second, third)] == [
        Verdict.NUDGE,
        Verdict.NUDGE,
        Verdict.BLOCK,
    ]
    assert "second time this citation of " + url in second.corrections[0].text
    assert second.corrections[0].attempt == 2
    assert "escalated to block" in third.reason
    # Quoting the page correctly afterwards is fine again.
    assert sup.check(cite(url)).verdict is Verdict.OK


def test_a_404_nudges(sup, server):
    url = server.url("/no-such-opinion")
    decision = sup.check(cite(url))
    assert decision.verdict is Verdict.NUDGE
    assert decision.corrections[0].text == (
        f"The citation URL {url} returned HTTP 404. Find a different source for this claim, "
        "or remove the citation."
    )
    seen = observation_of(decision)
    assert seen["status"] == 404
    assert "Not Found" in seen["body"]


def test_a_redirect_to_the_article_is_followed(sup, server):
    decision = sup.check(cite(server.url("/moved")))
    assert decision.verdict is Verdict.OK
    seen = observation_of(decision)
    assert seen["redirects"] == [server.url("/article")]
    assert seen["final_url"] == server.url("/article")
    assert decision.results[ENTRY].evidence["final_url"] == server.url("/article")
    assert server.hits == ["/moved", "/article"]


def test_a_redirect_to_a_404_says_where_it_ended(sup, server):
    decision = sup.check(cite(server.url("/elsewhere")))
    assert decision.verdict is Verdict.NUDGE
    assert f"(after redirects, at {server.url('/gone')})" in decision.corrections[0].text


def test_redirect_loops_and_refusals_are_flagged_not_nudged(sup, server):
    loop = sup.check(cite(server.url("/loop")))
    assert loop.verdict is Verdict.FLAG
    assert loop.flags == (ENTRY,)
    assert loop.results[ENTRY].evidence["unverifiable"] == "redirects"
    forbidden = sup.check(cite(server.url("/forbidden")))
    assert forbidden.verdict is Verdict.FLAG
    assert "HTTP 403" in (forbidden.results[ENTRY].reason or "")


def test_a_citation_without_a_quote_only_has_to_resolve(sup, server):
    assert sup.check(cite(server.url("/article"), quote=None)).verdict is Verdict.OK
    assert sup.check(cite(server.url("/gone"), quote=None)).verdict is Verdict.NUDGE


def test_other_actions_are_not_its_domain(sup, server):
    decision = sup.check({"type": "http", "args": {"method": "GET", "url": server.url("/a")}})
    assert decision.verdict is Verdict.OK
    assert ENTRY not in decision.results
    assert server.hits == []


def test_the_default_pack_does_not_fetch_loopback(tmp_path, server):
    with Supervisor.from_taxonomy(PACK, plugins=[specialists.http_check], home=tmp_path) as sup:
        decision = sup.check(cite(server.url("/article")))
    assert decision.verdict is Verdict.FLAG
    result = decision.results[ENTRY]
    assert result.evidence["unverifiable"] == "private-address"
    assert "not a public address" in (result.reason or "")
    assert server.hits == []  # refused before any connection
    seen = observation_of(decision)
    assert seen["refused"] == "private-address"


def test_a_slow_server_times_out_within_the_entry_timeout(tmp_path, server):
    # The fetch may take 25 s but the entry allows 300 ms: the engine stops waiting.
    path = overlay(tmp_path, timeout_ms=300, config={"timeout_s": 25.0})
    with Supervisor.from_taxonomy(
        PACK, path, plugins=[specialists.http_check], home=tmp_path
    ) as sup:
        began = time.perf_counter()
        decision = sup.check(cite(server.url("/slow")))
        elapsed = time.perf_counter() - began
    # /slow holds for SLOW_S = 30 s and the fetch would wait 25 s: the engine did not wait
    # (the bound leaves room for a loaded machine; the status below says why it stopped)
    assert elapsed < 12
    result = decision.results[ENTRY]
    assert result.status is Status.TIMEOUT
    assert result.verdict is Verdict.REFUSE  # on_timeout: refuse, no vote
    assert decision.verdict is Verdict.OK


def test_a_fetch_timeout_is_an_error_with_the_observation_recorded(tmp_path, server):
    # the entry waits up to 20 s, far longer than the fetch's own 0.3 s, so a loaded machine
    # cannot turn the fetch's error into the engine's timeout
    path = overlay(tmp_path, timeout_ms=20_000, config={"timeout_s": 0.3})
    with Supervisor.from_taxonomy(
        PACK, path, plugins=[specialists.http_check], home=tmp_path
    ) as sup:
        began = time.perf_counter()
        decision = sup.check(cite(server.url("/slow")))
        elapsed = time.perf_counter() - began
    assert elapsed < 12  # /slow holds for SLOW_S = 30 s: the fetch gave up first
    result = decision.results[ENTRY]
    assert result.status is Status.ERROR
    assert result.verdict is Verdict.REFUSE  # on_error: refuse
    assert "timed out" in (result.reason or "")
    (observation,) = result.observations
    assert observation.key == {"method": "GET", "url": server.url("/slow")}
    assert observation.error is not None
    assert "timed out" in observation.error


def test_fail_closed_is_an_overlay_away(tmp_path, server):
    path = overlay(tmp_path, on_error="flag", config={"timeout_s": 0.3})
    with Supervisor.from_taxonomy(
        PACK, path, plugins=[specialists.http_check], home=tmp_path
    ) as sup:
        decision = sup.check(cite(server.url("/slow")))
    assert decision.verdict is Verdict.FLAG


def test_async_check(sup, server):
    async def main() -> list[Decision]:
        return list(
            await asyncio.gather(
                sup.acheck(cite(server.url("/article"), session="a")),
                sup.acheck(cite(server.url("/missing"), session="b")),
            )
        )

    ok, missing = asyncio.run(main())
    assert ok.verdict is Verdict.OK
    assert missing.verdict is Verdict.NUDGE


def test_decisions_are_written_with_their_observations(sup, server, tmp_path):
    decision = sup.check(cite(server.url("/article")))
    sup.close()
    record = recorded(tmp_path)[-1]
    assert record["decision_id"] == decision.decision_id
    (observation,) = record["results"][ENTRY]["observations"]
    assert observation["value"]["status"] == 200
    assert "fake citations" in observation["value"]["body"]


def test_many_checks_share_one_pool(sup, server):
    # The fetch cache would hide the pool: distinct query strings are distinct URLs.
    decisions = [sup.check(cite(server.url(f"/article?n={n}"))) for n in range(20)]
    assert all(d.verdict is Verdict.OK for d in decisions)
    assert len(server.hits) == 20
    assert len(_Handler.client_ports) <= 2  # kept-alive connections, not one per check
