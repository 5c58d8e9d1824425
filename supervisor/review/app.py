"""The review app: Starlette routes over :mod:`supervisor.review.pages`, Jinja2 templates.

Every request must carry the token ``supervise review`` prints (as Jupyter does): in the
first URL's ``?token=`` (answered by a redirect that drops it from the address and sets an
HttpOnly, SameSite=Strict cookie), then the cookie. A POST must also carry it in the
``X-Review-Token`` header, which a page of another site cannot set: the cookie alone never
changes anything. Tokens are compared in constant time. All agent text is escaped by the
templates' autoescaping.
"""

from __future__ import annotations

import hmac
import json
import secrets
from dataclasses import dataclass, field
from datetime import UTC
from pathlib import Path
from typing import Any, Final, Literal

import jinja2
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from supervisor.errors import StoreError, SupervisorError
from supervisor.feedback import VERDICTS, EntryFigures, percent, record_label
from supervisor.models import SpecialistResult, Status, Verdict
from supervisor.plugins import KindRegistry
from supervisor.review import pages
from supervisor.review.present import STYLE, action_html, volume_svg
from supervisor.store import FeedbackFilter, FeedbackItem, Label, Store
from supervisor.taxonomy import Taxonomy

__all__ = ["COOKIE", "TOKEN_HEADER", "ReviewSettings", "create_app", "new_token"]

COOKIE: Final = "supervise_review"
TOKEN_HEADER: Final = "x-review-token"
_SAFE: Final = frozenset({"GET", "HEAD"})


def new_token() -> str:
    """A fresh random token: 32 bytes, URL-safe."""
    return secrets.token_urlsafe(32)


@dataclass(frozen=True)
class ReviewSettings:
    """What the app serves: the store, the state directory (records, keys), the taxonomy."""

    store: Store
    home: Path
    taxonomy: Taxonomy
    kinds: KindRegistry
    token: str = field(default_factory=new_token, repr=False)
    labeller: str | None = None  # None: $SUPERVISE_LABELLER, else the OS user
    page_size: int = pages.PAGE_SIZE


def _same(given: str | None, token: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode(), token.encode())


class TokenGate:
    """Refuses every request without the token (see the module's docstring)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        safe = request.method in _SAFE
        in_url = request.query_params.get("token")
        if safe and _same(in_url, self.token):
            url = request.url.remove_query_params("token")
            target = url.path + (f"?{url.query}" if url.query else "")
            response: Any = RedirectResponse(target, status_code=303)
            response.set_cookie(COOKIE, self.token, httponly=True, samesite="strict", path="/")
        elif _same(request.headers.get(TOKEN_HEADER), self.token) or (
            safe and _same(request.cookies.get(COOKIE), self.token)
        ):
            await self.app(scope, receive, send)
            return
        else:
            response = PlainTextResponse(
                "forbidden: open the URL with the token that `supervise review` printed\n",
                status_code=403,
            )
        await response(scope, receive, send)


class LabelRequest(BaseModel):
    """The body of POST /label."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    decision_id: str = Field(min_length=1, max_length=200)
    entry_id: str = Field(min_length=1, max_length=200)
    label: Literal["right", "wrong"]
    corrected: Literal["ok", "flag", "nudge", "block"] | None = None
    note: str | None = Field(default=None, max_length=4000)


class BacktestRequest(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    yaml: str = Field(max_length=200_000)


def label_text(label: Label | None) -> str:
    if label is None:
        return "unlabelled"
    if label.correct:
        return "right"
    return f"wrong → {label.corrected or 'ok'}"


def _objections(item: FeedbackItem) -> list[tuple[str, str, str | None, str | None]]:
    """(entry, verdict, reason, correction) of every entry that objected in the decision,
    the item's own entry first."""
    out = []
    for entry_id, result in item.decision.results.items():
        if result.verdict.refuses_action or result.verdict is Verdict.FLAG:
            out.append((entry_id, result.verdict.value, result.reason, result.correction))
    out.sort(key=lambda row: row[0] != item.entry_id)
    return out


def _ranked(item: FeedbackItem) -> list[tuple[str, SpecialistResult]]:
    """Every specialist's result but the refusals, the strictest verdict first, then the
    ones that did not finish (timeout, error, skipped)."""
    results = [(e, r) for e, r in item.decision.results.items() if r.verdict is not Verdict.REFUSE]
    return sorted(results, key=lambda pair: (-pair[1].verdict.rank, pair[1].status is Status.DONE))


def _pretty(value: object) -> str:
    """JSON for people (the template escapes it)."""
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("supervisor.review", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["action_html"] = action_html
    env.filters["pct"] = percent
    env.filters["label_text"] = label_text
    env.filters["pretty"] = _pretty
    env.globals["ranked"] = _ranked
    env.filters["when"] = lambda moment: moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")
    env.globals["objections"] = _objections
    env.globals["volume_svg"] = volume_svg
    env.globals["VERDICTS"] = VERDICTS
    env.globals["LABEL_STATES"] = pages.LABEL_STATES
    env.globals["STYLE"] = STYLE
    return env


def _figures_json(entry: EntryFigures | None, entry_id: str) -> dict[str, Any]:
    total = entry.total if entry is not None else None
    return {
        "entry_id": entry_id,
        "objections": total.objections if total else 0,
        "labelled": total.labelled if total else 0,
        "correct": total.correct if total else 0,
        "precision": percent(total.precision if total else None),
        "heed_rate": percent(total.heed_rate if total else None),
    }


def create_app(settings: ReviewSettings) -> Starlette:
    """The review app for these settings (serve it with any ASGI server, or TestClient)."""
    env = _environment()
    store = settings.store

    def render(request: Request, name: str, status_code: int = 200, **context: Any) -> HTMLResponse:
        page = env.get_template(name).render(
            token=settings.token, store_url=store.url, request=request, **context
        )
        return HTMLResponse(page, status_code=status_code)

    def not_found(request: Request, what: str) -> HTMLResponse:
        return render(request, "missing.html", status_code=404, what=what)

    def queue(request: Request) -> HTMLResponse:
        query = pages.queue_query(request.query_params)
        page = pages.queue_page(store, query, settings.page_size)
        return render(request, "queue.html", page=page, taxonomy=settings.taxonomy)

    def item(request: Request) -> HTMLResponse:
        decision_id = request.path_params["decision_id"]
        entry_id = request.path_params["entry_id"]
        found = store.feedback_page(
            FeedbackFilter(decision_id=decision_id, entry_id=entry_id), limit=1
        )
        if not found:
            return not_found(request, f"no objection of {entry_id} in decision {decision_id}")
        return render(
            request,
            "item.html",
            item=found[0],
            neighbours=store.neighbours(decision_id, 5),
            history=store.label_history(decision_id, entry_id),
        )

    def entry(request: Request) -> HTMLResponse:
        entry_id = request.path_params["entry_id"]
        weekly = store.feedback_figures(FeedbackFilter(entry_id=entry_id), weekly=True)
        text = pages.entry_yaml(settings.taxonomy, entry_id)
        if not weekly and text is None:
            return not_found(request, f"no entry {entry_id} in the taxonomy or the store")
        wrong = store.feedback_page(FeedbackFilter(entry_id=entry_id, correct=False), limit=10)
        return render(
            request,
            "entry.html",
            entry_id=entry_id,
            figures=weekly[0] if weekly else None,
            entry=None if text is None else settings.taxonomy[entry_id],
            yaml_text=text,
            false_positives=wrong,
        )

    def record(request: Request) -> HTMLResponse:
        decision_id = request.path_params["decision_id"]
        public = _public_key(settings.home)
        view = pages.record_view(settings.home, decision_id, store, public)
        if view is None:
            return not_found(request, f"no signed record of decision {decision_id}")
        return render(request, "record.html", view=view, decision_id=decision_id)

    async def label(request: Request) -> JSONResponse:
        try:
            body = LabelRequest.model_validate_json(await request.body())
        except ValidationError as exc:
            return JSONResponse({"error": _first_error(exc)}, status_code=400)

        def do() -> dict[str, Any]:
            record_label(
                store,
                body.decision_id,
                body.entry_id,
                body.label == "right",
                note=body.note or None,
                corrected=body.corrected,
                labeller=settings.labeller,
            )
            history = store.label_history(body.decision_id, body.entry_id)
            figures = store.feedback_figures(FeedbackFilter(entry_id=body.entry_id))
            current = history[-1]
            return {
                "label": {
                    "text": label_text(current),
                    "correct": current.correct,
                    "corrected": current.corrected,
                    "labeller": current.labeller,
                    "labelled_at": current.labelled_at.astimezone(UTC).isoformat(),
                    "note": current.note,
                },
                "history": len(history),
                "entry": _figures_json(figures[0] if figures else None, body.entry_id),
            }

        try:
            return JSONResponse(await run_in_threadpool(do))
        except StoreError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)

    async def run_backtest(request: Request) -> JSONResponse:
        entry_id = request.path_params["entry_id"]
        if entry_id not in settings.taxonomy:
            return JSONResponse(
                {"error": f"{entry_id} is not in the taxonomy this page was started with"},
                status_code=404,
            )
        try:
            body = BacktestRequest.model_validate_json(await request.body())
        except ValidationError as exc:
            return JSONResponse({"error": _first_error(exc)}, status_code=400)

        def do() -> pages.BacktestResult:
            return pages.run_backtest(
                settings.taxonomy,
                entry_id,
                body.yaml,
                settings.kinds,
                settings.home,
                _private_key(settings.home),
            )

        try:
            result = await run_in_threadpool(do)
        except SupervisorError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        html = env.get_template("backtest.html").render(result=result)
        return JSONResponse(
            {
                "html": html,
                "flips": len(result.result.flips) if result.result else None,
                "errors": result.errors,
            }
        )

    routes = [
        Route("/", queue),
        Route("/item/{decision_id}/{entry_id}", item),
        Route("/entry/{entry_id}", entry),
        Route("/record/{decision_id}", record),
        Route("/label", label, methods=["POST"]),
        Route("/entry/{entry_id}/backtest", run_backtest, methods=["POST"]),
    ]
    app = Starlette(routes=routes)
    app.add_middleware(TokenGate, token=settings.token)
    return app


def _first_error(exc: ValidationError) -> str:
    first = exc.errors()[0]
    place = ".".join(str(p) for p in first["loc"]) or "body"
    return f"{place}: {first['msg']}"


def _public_key(home: Path) -> Any:
    from supervisor.signing import KEYS_DIR, PUBLIC_FILE, load_public_key

    path = home / KEYS_DIR / PUBLIC_FILE
    return load_public_key(path) if path.exists() else None


def _private_key(home: Path) -> Any:
    """The key that opens sealed originals for the backtest, when the state directory has it."""
    from supervisor.signing import KEYS_DIR, PRIVATE_FILE, load_private_key

    path = home / KEYS_DIR / PRIVATE_FILE
    return load_private_key(path, retired=True) if path.exists() else None
