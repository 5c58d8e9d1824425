"""Security safeguards taken out of application code: the reader and the ``safeguards`` kind."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from specialists import safeguards as kind
from specialists.understand.safeguards import Safeguard, language_of, taken_out
from supervisor.models import Action, Context, Verdict
from supervisor.taxonomy import Entry

ALL: list[Safeguard] = ["tls", "token", "access", "permissive", "password_hash"]
CTX = Context(cwd="/w/app", repo_root="/w/app", home="/w")


def found(path: str, before: str, after: str) -> set[str]:
    return {f.safeguard for f in taken_out(path, before, after, ALL)}


# (path, before, after, class): what each change takes out
WEAKENED = [
    # tls, one construct per language
    ("src/a.ts", "", "new https.Agent({ rejectUnauthorized: false })", "tls"),
    ("src/a.js", "", "process.env['NODE_TLS_REJECT_UNAUTHORIZED'] = '0';", "tls"),
    ("src/a.js", "", "request({ url, strictSSL: false })", "tls"),
    ("main.go", "", "cfg := &tls.Config{InsecureSkipVerify: true}", "tls"),
    ("main.go", "", "cfg.InsecureSkipVerify = true", "tls"),
    ("src/c.rs", "", "Client::builder().danger_accept_invalid_certs(true)", "tls"),
    ("src/c.rs", "", "b.set_verify(SslVerifyMode::NONE);", "tls"),
    (
        "T.java",
        "",
        "public void checkServerTrusted(X509Certificate[] c, String a)\n"
        "        throws CertificateException {\n}\n",
        "tls",
    ),
    ("T.kt", "", "override fun checkServerTrusted(c: Array<X509Certificate>, a: String) {}", "tls"),
    ("H.java", "", "HttpsURLConnection.setDefaultHostnameVerifier((h, s) -> true);", "tls"),
    ("H.java", "", "public boolean verify(String host, SSLSession s) { return true; }", "tls"),
    ("H.java", "", ".setSSLHostnameVerifier(NoopHostnameVerifier.INSTANCE)", "tls"),
    ("H.kt", "", "builder.hostnameVerifier { _, _ -> true }", "tls"),
    (
        "C.cs",
        "",
        "handler.ServerCertificateCustomValidationCallback = (m, c, ch, e) => true;",
        "tls",
    ),
    ("c.rb", "", "http.verify_mode = OpenSSL::SSL::VERIFY_NONE", "tls"),
    ("c.php", "", "curl_setopt($ch, CURLOPT_SSL_VERIFYPEER, 0);", "tls"),
    ("c.php", "", "$client = new Client(['verify' => false]);", "tls"),
    ("db.py", "", 'psycopg.connect("host=db.internal sslmode=disable")', "tls"),
    ("db.go", "", 'sql.Open("postgres", "postgres://u@db.internal/x?sslmode=disable")', "tls"),
    # token
    ("a.py", "", 'jwt.decode(t, options={"verify_signature": False})', "token"),
    ("a.py", "", "jwt.decode(t, options={'verify_exp': False}, key=K)", "token"),
    ("a.py", "", 'jwt.decode(t, K, algorithms=["HS256", "none"])', "token"),
    ("a.js", "jwt.verify(t, S)", "jwt.decode(t)", "token"),
    ("a.js", "", "jwt.verify(t, S, { ignoreExpiration: true })", "token"),
    ("a.go", "", "p.ParseUnverified(raw, claims)", "token"),
    ("a.rs", "", "validation.insecure_disable_signature_validation();", "token"),
    (
        "A.java",
        "Jwts.parser().verifyWith(key).build()",
        "Jwts.parser().unsecured().build()",
        "token",
    ),
    ("A.cs", "", "ValidateIssuerSigningKey = false,", "token"),
    ("a.rb", "", "JWT.decode(token, nil, false)", "token"),
    # access
    ("v.py", "@login_required\ndef f(r):\n", "def f(r):\n", "access"),
    (
        "v.py",
        "@app.route('/x')\n@jwt_required()\ndef x():\n",
        "@app.route('/x')\ndef x():\n",
        "access",
    ),
    ("v.py", "class V(LoginRequiredMixin, View):\n", "class V(View):\n", "access"),
    (
        "v.py",
        "    permission_classes = [IsAuthenticated]\n",
        "    permission_classes = [AllowAny]\n",
        "access",
    ),
    ("r.js", "app.get('/a', isAuthenticated, h);\n", "app.get('/a', h);\n", "access"),
    (
        "c.ts",
        "  @UseGuards(AuthGuard('jwt'))\n  @Get()\n  all() {}\n",
        "  @Get()\n  all() {}\n",
        "access",
    ),
    ("C.java", '@Secured("ROLE_ADMIN")\npublic void d() {', "public void d() {", "access"),
    ("S.java", ".anyRequest().authenticated()", ".anyRequest().permitAll()", "access"),
    ("S.java", "", "http.csrf(AbstractHttpConfigurer::disable);", "access"),
    ("S.kt", "", "csrf { disable() }", "access"),
    ("C.cs", "[Authorize]\npublic IActionResult X() {", "public IActionResult X() {", "access"),
    ("o.rb", "  before_action :authenticate_user!\n  def index\n", "  def index\n", "access"),
    ("o.rb", "", "  skip_before_action :verify_authenticity_token\n", "access"),
    (
        "web.php",
        "Route::get('/a', A::class)->middleware('auth');",
        "Route::get('/a', A::class);",
        "access",
    ),
    ("s.py", "    'django.middleware.csrf.CsrfViewMiddleware',\n", "", "access"),
    ("s.py", "", "WTF_CSRF_ENABLED = False\n", "access"),
    ("v.py", "def hook(r):\n", "@csrf_exempt\ndef hook(r):\n", "access"),
    ("m.go", 'r.GET("/a", AuthMiddleware(), h)', 'r.GET("/a", h)', "access"),
    # permissive
    ("s.js", "", "app.use(cors({ origin: '*', credentials: true }))", "permissive"),
    (
        "s.js",
        "",
        "res.setHeader('Access-Control-Allow-Origin', req.headers.origin);\n"
        "res.setHeader('Access-Control-Allow-Credentials', 'true');",
        "permissive",
    ),
    ("s.py", "", "CORS(app, origins='*', supports_credentials=True)", "permissive"),
    ("s.py", "", "CORS_ORIGIN_ALLOW_ALL = True\nCORS_ALLOW_CREDENTIALS = True\n", "permissive"),
    ("settings.py", "", "ALLOWED_HOSTS = ['*']\n", "permissive"),
    ("config/settings/production.py", "", "DEBUG = True\n", "permissive"),
    (".env.production", "APP_DEBUG=false\n", "APP_DEBUG=true\n", "permissive"),
    (
        "config/environments/production.rb",
        "",
        "config.consider_all_requests_local = true",
        "permissive",
    ),
    ("C.java", "", '.allowedOrigins("*")\n.allowCredentials(true)', "permissive"),
    ("c.go", "", "cors.Config{AllowAllOrigins: true, AllowCredentials: true}", "permissive"),
    ("m.rs", "", "CorsLayer::very_permissive()", "permissive"),
    ("P.cs", "", "p.AllowAnyOrigin().AllowCredentials()", "permissive"),
    ("application.yml", "", "allowed-origins: '*'\nallow-credentials: true\n", "permissive"),
    # password_hash
    ("u.py", "", "h = hashlib.sha256(password.encode()).hexdigest()", "password_hash"),
    ("u.py", "", "h = hashlib.new('md5', user_password.encode())", "password_hash"),
    ("u.ts", "", "createHash('md5').update(password).digest('hex')", "password_hash"),
    ("u.js", "", "const h = CryptoJS.SHA256(newPassword).toString()", "password_hash"),
    ("u.go", "", "sum := sha1.Sum([]byte(pwd))", "password_hash"),
    ("U.java", "", "String h = DigestUtils.sha256Hex(password);", "password_hash"),
    ("U.java", "", "byte[] h = md.digest(password.getBytes(UTF_8));", "password_hash"),
    ("u.php", "", "$hash = md5($password);", "password_hash"),
    ("u.rb", "", "Digest::SHA256.hexdigest(password)", "password_hash"),
]


@pytest.mark.parametrize(("path", "before", "after", "safeguard"), WEAKENED)
def test_a_safeguard_taken_out_is_named(path: str, before: str, after: str, safeguard: str):
    assert safeguard in found(path, before, after)


# (path, before, after): look-alikes that take nothing out
KEPT = [
    ("src/a.ts", "", "new https.Agent({ rejectUnauthorized: true })"),
    ("src/a.ts", "new https.Agent({ rejectUnauthorized: false })", "new https.Agent({ ca })"),
    ("src/a.ts", "// rejectUnauthorized: false would be wrong here\n", "const x = 1;\n"),
    ("src/a.ts", "", "// never write rejectUnauthorized: false\n"),
    ("main.go", "", 'if cfg.InsecureSkipVerify == true { log.Warn("insecure") }'),
    (
        "main.go",
        "cfg := &tls.Config{InsecureSkipVerify: true}\n",
        "cfg := &tls.Config{InsecureSkipVerify: true}\nx := 1\n",
    ),
    ("db.py", "", 'psycopg.connect("host=localhost dbname=x sslmode=disable")'),
    ("db.py", "", 'psycopg.connect("host=db.internal sslmode=verify-full")'),
    (
        "a.js",
        "",
        "const claims = jwt.decode(t); // read the kid, then verify below\njwt.verify(t, key)",
    ),
    ("a.js", "jwt.decode(t)", "jwt.verify(t, S)"),
    ("a.py", "", 'jwt.decode(t, K, algorithms=["RS256"])'),
    ("v.py", "def f(r):\n", "@login_required\ndef f(r):\n"),
    ("v.py", "@login_required\ndef f(r):\n", "@permission_required('a.b')\ndef f(r):\n"),
    ("v.py", "@login_required\ndef f(r):\n    return 1\n", ""),
    (
        "r.js",
        "app.get('/a', requireAuth, a);\napp.get('/b', requireAuth, b);\n",
        "app.use(requireAuth);\napp.get('/a', a);\napp.get('/b', b);\n",
    ),
    (
        "c.ts",
        "export class C {\n  @UseGuards(G)\n  a() {}\n  @UseGuards(G)\n  b() {}\n}\n",
        "@UseGuards(G)\nexport class C {\n  a() {}\n  b() {}\n}\n",
    ),
    (
        "C.cs",
        "public class C {\n  [Authorize]\n  public IActionResult X() {",
        "[Authorize]\npublic class C {\n  public IActionResult X() {",
    ),
    ("v.py", "@login_required\ndef f(r):\n", "@login_required\ndef f(r, page=1):\n"),
    ("s.js", "", "app.use(cors({ origin: '*' }))"),
    ("s.js", "", "app.use(cors({ origin: ['https://a.example'], credentials: true }))"),
    (
        "s.js",
        "app.use(cors({ origin: true, credentials: true }))",
        "app.use(cors({ origin: allow, credentials: true }))",
    ),
    ("settings/dev.py", "", "ALLOWED_HOSTS = ['*']\nDEBUG = True\n"),
    ("settings/test_production.py", "", "DEBUG = True\n"),
    ("settings.py", "", "DEBUG = True\n"),
    ("config/settings/production.py", "DEBUG = True\n", "DEBUG = False\n"),
    ("u.py", "", "h = hashlib.sha256(reset_token.encode()).hexdigest()"),
    ("u.py", "", "h = hashlib.pbkdf2_hmac('sha256', password.encode(), salt, 600_000)"),
    ("u.py", "", "digest = hashlib.sha256(body).hexdigest()"),
    ("u.ts", "", "await bcrypt.hash(password, 12)"),
    ("README.md", "", "app.use(cors({ origin: '*', credentials: true }))"),
]


@pytest.mark.parametrize(("path", "before", "after"), KEPT)
def test_a_look_alike_takes_nothing_out(path: str, before: str, after: str):
    assert found(path, before, after) == set()


def test_languages_by_file_name():
    assert language_of("src/app/views.py") == "python"
    assert language_of("web/src/App.tsx") == "javascript"
    assert language_of("src/main/kotlin/A.kt") == "jvm"
    assert language_of(".env.production") == "config"
    assert language_of("Makefile") is None
    assert language_of("README.md") is None


# -- the kind --------------------------------------------------------------------------------


def build(safeguards: list[str] = ALL, **extra: Any) -> kind.SafeguardsSpecialist:
    config = {"safeguards": safeguards, **extra}
    entry = Entry.model_validate(
        {
            "id": "code_safeguards",
            "title": "A safeguard taken out of code",
            "description": "A change that takes a security safeguard out of code.",
            "example": {"summary": "An agent removed a check.", "source": "https://x"},
            "severity": "high",
            "default_verdict": "nudge",
            "references": ["CWE-693"],
            "detection": "deterministic",
            "applies_to": {"action_types": ["file_write", "file_edit"]},
            "specialist": {"kind": "safeguards", "config": config},
        }
    )
    k = kind.SAFEGUARDS_KIND
    return k.build(entry, k.config_model.model_validate(config))  # type: ignore[return-value]


def edit(path: str, old: str, new: str) -> Action:
    return Action(type="file_edit", args={"path": path, "old": old, "new": new})


def write(path: str, content: str) -> Action:
    return Action(type="file_write", args={"path": path, "content": content})


def test_an_edit_that_takes_a_safeguard_out_is_nudged_with_its_words():
    result = build(["tls"]).evaluate(
        edit(
            "internal/c.go",
            "cfg := &tls.Config{}\n",
            "cfg := &tls.Config{InsecureSkipVerify: true}\n",
        ),
        CTX,
    )
    assert result.verdict is Verdict.NUDGE
    assert "InsecureSkipVerify" in (result.reason or "")
    assert result.evidence["object"] == "internal/c.go"
    assert result.evidence["safeguards"] == ["tls"]


def test_only_the_configured_classes_are_judged():
    action = write("src/u.py", "h = hashlib.md5(password.encode()).hexdigest()\n")
    assert build(["tls"]).evaluate(action, CTX).verdict is Verdict.OK
    assert build(["password_hash"]).evaluate(action, CTX).verdict is Verdict.NUDGE


@pytest.mark.parametrize(
    "path",
    [
        "tests/test_api.py",
        "internal/c/client_test.go",
        "web/src/api.spec.ts",
        "web/src/api.test.js",
        "src/test/java/shop/ApiTest.java",
        "conftest.py",
        "spec/requests/api_spec.rb",
        "testdata/server.go",
    ],
)
def test_test_files_are_not_judged(path: str):
    content = "verify = dict(rejectUnauthorized: false, InsecureSkipVerify: true)\n"
    assert build().evaluate(write(path, content), CTX).verdict is Verdict.REFUSE


def test_files_in_no_language_read_are_refused():
    assert build().evaluate(write("docs/tls.md", "InsecureSkipVerify: true\n"), CTX).verdict is (
        Verdict.REFUSE
    )
    assert build().evaluate(Action(type="shell", args={"command": "ls"}), CTX).verdict is (
        Verdict.REFUSE
    )


def test_python_certificate_checks_go_through_the_python_reader():
    """``verify=False`` is judged by the call it is on (python_ast), not by a pattern."""
    tls = build(["tls"])
    http = write("src/c.py", "import requests\nrequests.get(URL, verify=False)\n")
    assert tls.evaluate(http, CTX).verdict is Verdict.NUDGE
    numpy = write("src/n.py", "array_function_dispatch(verify=False)\n")
    assert tls.evaluate(numpy, CTX).verdict is Verdict.OK
    local = write("tests/test_c.py", "requests.get('https://localhost:8443', verify=False)\n")
    assert tls.evaluate(local, CTX).verdict is Verdict.REFUSE


def test_a_write_is_compared_with_the_file_on_disk(tmp_path: Path):
    (tmp_path / "views.py").write_text("@login_required\ndef orders(request):\n    return 1\n")
    ctx = Context(cwd=str(tmp_path), repo_root=str(tmp_path))
    action = write("views.py", "def orders(request):\n    return 1\n")
    assert build(["access"]).evaluate(action, ctx).verdict is Verdict.NUDGE
    same = write("views.py", "@login_required\ndef orders(request):\n    return 2\n")
    assert build(["access"]).evaluate(same, ctx).verdict is Verdict.OK


def test_an_edit_is_placed_in_the_file_on_disk(tmp_path: Path):
    """Credentials added beside an origin that was already a wildcard: only the whole file
    shows both."""
    (tmp_path / "server.js").write_text("app.use(cors({\n  origin: '*',\n  maxAge: 600,\n}));\n")
    ctx = Context(cwd=str(tmp_path), repo_root=str(tmp_path))
    action = edit("server.js", "  maxAge: 600,\n", "  maxAge: 600,\n  credentials: true,\n")
    assert build(["permissive"]).evaluate(action, ctx).verdict is Verdict.NUDGE
    alone = edit("server.js", "  maxAge: 600,\n", "  maxAge: 900,\n")
    assert build(["permissive"]).evaluate(alone, ctx).verdict is Verdict.OK


def test_existing_weakness_left_alone_is_not_held_against_an_edit(tmp_path: Path):
    (tmp_path / "c.go").write_text("var c = &tls.Config{InsecureSkipVerify: true}\nvar n = 1\n")
    ctx = Context(cwd=str(tmp_path), repo_root=str(tmp_path))
    action = edit("c.go", "var n = 1\n", "var n = 2\n")
    assert build(["tls"]).evaluate(action, ctx).verdict is Verdict.OK


def test_a_write_over_a_file_that_cannot_be_read_names_the_missing_fact(tmp_path: Path):
    """A file that is there but not read (larger than max_bytes): what the new text adds is
    judged and the reason says the earlier text was unknown; a new text holding access
    guards may have lost others, so it is asked about; anything else is ok with a reason."""
    (tmp_path / "views.py").write_text("@login_required\ndef a(r):\n    pass\n" * 40)
    ctx = Context(cwd=str(tmp_path), repo_root=str(tmp_path))
    sut = build(max_bytes=64)
    adds = sut.evaluate(write("views.py", "@csrf_exempt\ndef a(r):\n    pass\n"), ctx)
    assert adds.verdict is Verdict.NUDGE
    assert "earlier text could not be read" in (adds.reason or "")
    guarded = sut.evaluate(write("views.py", "@login_required\ndef a(r):\n    pass\n"), ctx)
    assert guarded.verdict is Verdict.NUDGE
    assert guarded.evidence["missing"] == "file text"
    (tmp_path / "util.py").write_text("X = 1\n" * 40)
    plain = sut.evaluate(write("util.py", "X = 2\n"), ctx)
    assert plain.verdict is Verdict.OK
    assert "unknown" in (plain.reason or "")


def test_a_write_without_a_working_directory_judges_what_it_adds():
    ctx = Context()
    adds = build().evaluate(
        write("src/c.go", "var c = tls.Config{InsecureSkipVerify: true}\n"), ctx
    )
    assert adds.verdict is Verdict.NUDGE
    assert "could not be read" in (adds.reason or "")
    plain = build().evaluate(write("src/v.py", "@login_required\ndef a(r):\n    pass\n"), ctx)
    assert plain.verdict is Verdict.OK
    assert "unknown" in (plain.reason or "")


def test_a_diff_is_read_by_its_hunks():
    diff = (
        "--- a/src/routes.js\n+++ b/src/routes.js\n@@ -1,2 +1,2 @@\n const r = Router();\n"
        "-r.get('/admin', requireAdmin, admin);\n+r.get('/admin', admin);\n"
    )
    action = Action(type="file_edit", args={"path": "src/routes.js", "diff": diff})
    result = build(["access"]).evaluate(action, CTX)
    assert result.verdict is Verdict.NUDGE
    assert "access check" in (result.reason or "")


def test_a_bad_config_says_what_is_wrong():
    with pytest.raises(ValidationError):
        kind.SafeguardsConfig.model_validate({"safeguards": ["firewall"]})
    with pytest.raises(ValidationError, match="once"):
        kind.SafeguardsConfig.model_validate({"safeguards": ["tls", "tls"]})


@pytest.mark.parametrize(
    ("path", "before", "after"),
    [
        # a function renamed, or a UI flag: not middleware removed from a route
        ("auth.js", "async function authenticateUser(u) {}\n", "async function login(u) {}\n"),
        ("Nav.tsx", "{isAuthenticated && <Logout />}\n", "{session && <Logout />}\n"),
        (
            "auth.go",
            "func Authenticate(w http.ResponseWriter) {}\n",
            "func Login(w http.ResponseWriter) {}\n",
        ),
        # a compose service's database, by its one-word name
        ("db.go", "", 'dsn := "postgres://app:app@db:5432/app?sslmode=disable"'),
        ("db.py", "", 'psycopg.connect("host=postgres dbname=app sslmode=disable")'),
    ],
)
def test_names_outside_middleware_positions_and_local_databases_pass(
    path: str, before: str, after: str
):
    assert found(path, before, after) == set()


def test_middleware_in_route_positions_counts():
    assert found(
        "r.js", "app.post('/a', passport.authenticate('jwt'), h)", "app.post('/a', h)"
    ) == {"access"}
    assert found("r.js", "if (!req.isAuthenticated()) return res.sendStatus(401);\n", "") == {
        "access"
    }
    assert found("m.go", 'r.GET("/a", middleware.RequireAuth(), h)', 'r.GET("/a", h)') == {"access"}


def test_a_host_from_a_variable_is_not_local():
    """``host=DB_HOST`` names a variable, not a one-word host: the database may be remote."""
    after = 'conn = psycopg.connect(host=DB_HOST, dbname="shop", sslmode="disable")'
    assert found("db.py", "", after) == {"tls"}
    assert found("db.py", "", after.replace("DB_HOST", '"db"')) == set()


def test_production_settings_are_named_inside_the_repository_not_by_its_parents():
    # a home directory called dev, a repository below it: its production settings are not
    # a development file because of where the repository lives
    context = Context(cwd="/home/dev/proj/shop", repo_root="/home/dev/proj/shop", home="/home/dev")
    action = edit(
        "/home/dev/proj/shop/config/settings/production.py",
        "DEBUG = False\nALLOWED_HOSTS = ['shop.example.com']\n",
        "DEBUG = True\nALLOWED_HOSTS = ['*']\n",
    )
    assert build(["permissive"]).evaluate(action, context).verdict is Verdict.NUDGE
    local = edit("/home/dev/proj/shop/config/settings/dev.py", "DEBUG = False\n", "DEBUG = True\n")
    assert build(["permissive"]).evaluate(local, context).verdict is Verdict.OK


def test_a_password_abbreviated_pw_and_a_csrf_middleware_are_read():
    assert found(
        "app/auth/passwords.py",
        "    return bcrypt.hashpw(pw.encode(), bcrypt.gensalt())\n",
        "    return hashlib.md5(pw.encode()).hexdigest()\n",
    ) == {"password_hash"}
    assert found(
        "app/main.py",
        "app.add_middleware(CSRFMiddleware, secret=settings.CSRF_SECRET)\napp.include_router(r)\n",
        "app.include_router(r)\n",
    ) == {"access"}


def test_each_languages_alternation_compiles():
    """Compiled on the first text of their language (not at import): each must compile."""
    from specialists.understand import safeguards

    compiled = {language: safeguards._any(language) for language in safeguards.LANGUAGES}
    having = {lang for c in safeguards._CONSTRUCTS for lang in c.languages}
    assert {language for language, chunks in compiled.items() if chunks} == having
