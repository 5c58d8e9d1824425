"""``supervise review``: a local web page where people work through the feedback log.

Flags, nudges and blocks newest first, labelled in one keystroke; per entry, precision,
heed rate and volume by week with a backtest of an edited entry over the recorded
decisions; one signed record with its verification. Served on 127.0.0.1 behind a random
token (see :mod:`supervisor.review.app`). Needs the ``review`` extra (Starlette, Jinja2,
uvicorn, Pygments); importing :mod:`supervisor` never imports it.
"""

from __future__ import annotations

from supervisor.review.app import ReviewSettings, create_app

__all__ = ["ReviewSettings", "create_app"]
