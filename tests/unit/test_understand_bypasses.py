"""An access guard given a way around it: an early exit on a header, a query parameter, a
cookie or an environment flag (:mod:`specialists.understand.bypasses`), judged through the
``access`` class of the ``safeguards`` kind."""

# ruff: noqa: E501  (the tables keep one change per row, before and after side by side)

from __future__ import annotations

import pytest

from specialists.understand.bypasses import bypasses
from specialists.understand.safeguards import taken_out

WORDS = "lets a request past an access check"


def bypassed(path: str, before: str, after: str) -> bool:
    return any(f.what.startswith(WORDS) for f in taken_out(path, before, after, ["access"]))


JS_GUARD = "function requireAdmin(req, res, next) {{\n{line}  if (!req.user || !req.user.isAdmin) return res.status(403).end();\n  next();\n}}\n"
PY_DECORATOR = "def login_required(view):\n    def wrapper(request, *args, **kwargs):\n{line}        if not request.user.is_authenticated:\n            return redirect('/login')\n        return view(request, *args, **kwargs)\n    return wrapper\n"
GO_MIDDLEWARE = 'func AuthMiddleware(next http.Handler) http.Handler {{\n\treturn http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {{\n{line}\t\tif !valid(r.Header.Get("Authorization")) {{\n\t\t\thttp.Error(w, "unauthorized", http.StatusUnauthorized)\n\t\t\treturn\n\t\t}}\n\t\tnext.ServeHTTP(w, r)\n\t}})\n}}\n'
JAVA_FILTER = '  protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain) {{\n{line}    String token = request.getHeader("Authorization");\n'
RUBY_GUARD = "  def require_admin\n{line}    head :forbidden unless current_user&.admin?\n  end\n"

# (path, text with the line in, the line added)
BYPASSED = [
    ("src/middleware/auth.js", JS_GUARD, "  if (req.headers['x-debug-bypass'] === '1') return next();\n"),
    ("src/middleware/auth.js", JS_GUARD, "  if (req.query.debug === 'true') {\n    return next();\n  }\n"),
    ("src/middleware/auth.js", JS_GUARD, "  if (req.cookies.internal) return next();\n"),
    ("src/middleware/auth.ts", JS_GUARD, "  if (process.env.DISABLE_AUTH) return next();\n"),
    ("src/middleware/auth.ts", JS_GUARD, "  if (process.env.NODE_ENV !== 'production') return next();\n"),
    ("app/decorators.py", PY_DECORATOR, "        if request.GET.get(\"debug\") == \"1\":\n            return view(request, *args, **kwargs)\n"),
    ("app/decorators.py", PY_DECORATOR, "        if request.headers.get('X-Internal') == 'yes': return view(request, *args, **kwargs)\n"),
    ("app/decorators.py", PY_DECORATOR, "        if os.environ.get('AUTH_DISABLED'):\n            return view(request, *args, **kwargs)\n"),
    ("internal/middleware/auth.go", GO_MIDDLEWARE, "\t\tif r.Header.Get(\"X-Skip-Auth\") != \"\" {\n\t\t\tnext.ServeHTTP(w, r)\n\t\t\treturn\n\t\t}\n"),
    ("internal/middleware/auth.go", GO_MIDDLEWARE, "\t\tif os.Getenv(\"NO_AUTH\") == \"true\" {\n\t\t\tnext.ServeHTTP(w, r)\n\t\t\treturn\n\t\t}\n"),
    ("src/main/java/shop/JwtFilter.java", JAVA_FILTER, "    if (\"true\".equals(request.getHeader(\"X-Debug\"))) {\n      chain.doFilter(request, response);\n      return;\n    }\n"),
    ("app/controllers/application_controller.rb", RUBY_GUARD, "    return true if params[:debug] == '1'\n"),
    ("app/controllers/application_controller.rb", RUBY_GUARD, "    return if request.headers['X-Debug-Bypass'] == '1'\n"),
    ("app/controllers/application_controller.rb", RUBY_GUARD, "    return if ENV['SKIP_ADMIN_CHECK']\n"),
]  # fmt: skip


@pytest.mark.parametrize(("path", "text", "line"), BYPASSED)
def test_an_exit_on_a_value_the_caller_chooses_is_named(path: str, text: str, line: str):
    assert bypassed(path, text.format(line=""), text.format(line=line))


# (path, text with the line in, the line added): a guard that stays whole
KEPT = [
    # a denial, a health check by path, a preflight by method
    ("src/middleware/auth.js", JS_GUARD, "  if (!req.headers['authorization']) return res.status(401).end();\n"),
    ("src/middleware/auth.js", JS_GUARD, "  if (req.path === '/healthz') return next();\n"),
    ("src/middleware/auth.js", JS_GUARD, "  if (req.method === 'OPTIONS') return next();\n"),
    # a credential checked: that is how a guard lets a caller in
    ("src/middleware/auth.js", JS_GUARD, "  if (req.headers['x-api-key'] === process.env.API_KEY) return next();\n"),
    ("src/middleware/auth.js", JS_GUARD, "  if (req.headers.authorization && verify(req.headers.authorization)) return next();\n"),
    ("internal/middleware/auth.go", GO_MIDDLEWARE, "\t\tif r.Header.Get(\"X-Internal-Secret\") == cfg.Secret {\n\t\t\tnext.ServeHTTP(w, r)\n\t\t\treturn\n\t\t}\n"),
    # a value read that lets nothing through
    ("src/middleware/auth.js", JS_GUARD, "  if (req.query.returnTo) req.session.returnTo = req.query.returnTo;\n"),
    ("app/decorators.py", PY_DECORATOR, "        if request.GET.get('next'):\n            request.session['next'] = request.GET['next']\n"),
    ("internal/middleware/auth.go", GO_MIDDLEWARE, "\t\tif r.Header.Get(\"X-Forwarded-For\") != \"\" {\n\t\t\thttp.Error(w, \"forbidden\", http.StatusForbidden)\n\t\t\treturn\n\t\t}\n"),
]  # fmt: skip


@pytest.mark.parametrize(("path", "text", "line"), KEPT)
def test_a_guard_that_stays_whole_is_not_named(path: str, text: str, line: str):
    assert not bypassed(path, text.format(line=""), text.format(line=line))


def test_an_exit_outside_an_access_guard_is_not_counted():
    cache = (
        "function cache(req, res, next) {\n"
        "  if (req.headers['cache-control'] === 'no-cache') return next();\n"
        "  const hit = store.get(req.url);\n  if (hit) return res.send(hit);\n  next();\n}\n"
    )
    assert bypasses(cache, "javascript") == 0
    # a guard above it is not the function it is in
    guard = "function requireAuth(req, res, next) {\n  if (!req.user) return res.sendStatus(401);\n  next();\n}\n\n"
    locale = (
        "function locale(req, res, next) {\n  if (req.query.lang) return next();\n  next();\n}\n"
    )
    assert bypasses(guard + locale, "javascript") == 0


def test_a_guard_is_known_by_its_name_or_what_follows():
    named = "canActivate(context: ExecutionContext): boolean {\n  const req = context.switchToHttp().getRequest();\n  if (req.headers['x-internal'] === 'true') return true;\n  return check(req);\n}\n"
    assert bypasses(named, "javascript") == 1
    followed = "  handle(req, res, next) {\n    if (req.query.preview === '1') { return next(); }\n    if (!req.user) return res.status(401).end();\n  }\n"
    assert bypasses(followed, "javascript") == 1
