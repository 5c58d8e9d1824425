"""Security safeguards that a change takes out of application code, in any common language.

An agent asked to make a request, a login or a page work can make it work by taking the
protection out: certificate checks switched off, a token decoded without checking its
signature, the access decorator or guard removed from a handler, CORS opened to every origin
with credentials, passwords hashed with a fast digest. This module reads the text of a file
before and after a change (:mod:`specialists.understand.changes`) and says which safeguards
the change takes out (:func:`taken_out`), judged on what the change adds or removes: each
construct is counted on both sides, so a file that already held ``InsecureSkipVerify: true``
is not held against an edit that leaves it alone.

The language is the file's (:func:`language_of`): Python, JavaScript/TypeScript, Go, Rust,
Java/Kotlin/Groovy/Scala (``jvm``), C#, Ruby, PHP, and configuration files (YAML, JSON,
TOML, ``.properties``, ``.env``). Lines that are comments in that language do not count, so
commenting a guard out removes it. What is read, as small tables of constructs per class
(:data:`Safeguard`):

- ``tls``: certificate or host-name verification off (``rejectUnauthorized: false``,
  ``NODE_TLS_REJECT_UNAUTHORIZED`` set to ``0`` in code, ``InsecureSkipVerify: true``,
  ``danger_accept_invalid_certs(true)``, a trust-all ``X509TrustManager``, a
  ``HostnameVerifier`` that returns true, ``CURLOPT_SSL_VERIFYPEER`` false,
  ``VERIFY_NONE``, ``ServerCertificateValidationCallback`` returning true), and a database
  connection with ``sslmode=disable`` to a host that is not local. Python's ``verify=False``
  and ``ssl`` module are read by :mod:`specialists.python_ast`, whose reading is exact;
- ``token``: a token's signature or expiry no longer checked (PyJWT ``verify_signature:
  False``, ``algorithms=["none"]``, ``ignoreExpiration: true``, ``jwt.verify`` replaced by
  ``jwt.decode``, ``ParseUnverified``, ``insecure_disable_signature_validation``,
  ``ValidateIssuerSigningKey = false``, ``JWT.decode(t, nil, false)``);
- ``access``: an authentication or authorization guard removed (``@login_required``,
  ``@permission_required``, ``@jwt_required``, ``Depends(get_current_user)``,
  ``permission_classes``, ``@PreAuthorize``, ``@Secured``, ``[Authorize]``,
  ``@UseGuards``, ``requireAuth``/``isAuthenticated`` middleware, ``before_action
  :authenticate_user!``, Laravel's ``middleware('auth')``), or an access rule opened
  (``.authenticated()`` replaced by ``.permitAll()``, ``IsAuthenticated`` by ``AllowAny``),
  and cross-site request forgery protection taken out (``@csrf_exempt`` added,
  ``CsrfViewMiddleware`` removed, ``csrf().disable()``, ``skip_before_action
  :verify_authenticity_token``, ``WTF_CSRF_ENABLED = False``), and the check written out of
  the handler: a 401/403 answer or a redirect to login under a condition, removed or
  commented out; a webhook's or a request's signature check (``construct_event``,
  ``compare_digest``, ``timingSafeEqual``, ``verify_signature``) removed; a guard function
  (``is_authorized``, ``canActivate``, ``Allowed``, ``admin?``) whose body becomes ``return
  true``; a check made to depend on an environment variable or a ``SKIP_AUTH`` flag; a guard
  given a way around it, an early exit on a header, a query parameter, a cookie or an
  environment flag (:mod:`specialists.understand.bypasses`). A guard
  removal is not one when the same change adds a guard of its class (moved to the router or
  the class, or replaced by a stricter one) or removes the handlers it guarded;
- ``permissive``: CORS that admits any origin (``*``, ``origin: true``, the request's own
  origin) together with credentials, ``ALLOWED_HOSTS = ['*']`` outside a settings file
  named for development or tests, and debugging switched on in a settings file named for
  production (``DEBUG = True``, ``APP_DEBUG=true``);
- ``password_hash``: a password hashed with a fast digest (MD5, SHA-1, SHA-2) rather than
  a key-derivation function (``hashlib.sha256(password…)``, ``createHash('md5')
  .update(password)``, ``md5.Sum([]byte(password))``, ``DigestUtils.sha256Hex(password)``,
  ``md5($password)``); a line that names a reset token, an HMAC or a KDF is not one.
- ``infra``: a data store's or a cluster's safeguard in infrastructure code (Terraform/
  OpenTofu ``.tf``, CloudFormation, Kubernetes manifests and Helm values in YAML, CDK and
  Pulumi in TypeScript or Python): deletion protection or ``prevent_destroy`` off or
  removed, ``skip_final_snapshot``, backups set to 0, ``force_destroy``, a retained
  ``DeletionPolicy``/``RemovalPolicy`` dropped, a public ACL or access block off,
  ``publicly_accessible``, encryption off, host namespaces, root, ``runAsNonRoot`` or
  ``readOnlyRootFilesystem`` removed (a ``kept`` setting lost counts unless the resources
  it protected are removed with it), and, read with their surroundings by
  :mod:`specialists.understand.infra`, inbound rules open to the internet on a port that is
  not a web port, policies allowing any principal, privileged containers outside
  Docker-in-Docker, role bindings for anonymous users or cluster-admin for everyone, and
  identity policies that allow every action on every resource (or an administrator's
  policy or role attached);
- ``hardening``: security headers (helmet, CSP, HSTS, frame options, Talisman,
  ``SecurityMiddleware``) or an upload's type or size check removed; a server that bound
  127.0.0.1/localhost now bound to every interface (0.0.0.0 or ``":8080"``; not in container
  or process-manager files); a production ``Web.config`` that shows detailed errors
  (``customErrors mode="Off"``, ``compilation debug="true"``; not a debug transform);
- ``injection``: an SQL query built from values where the driver's placeholders would
  bind them (an f-string, ``%`` or ``.format`` in ``execute``, a template literal or ``+``
  in ``query``, ``fmt.Sprintf`` in ``QueryRow``, Java/C# concatenation, ``String.format`` or
  ``$"..."``, Ruby ``"#{}"`` in ``where``, PHP ``"$id"`` in ``query``);
- ``release``: in a CI/CD pipeline, CODEOWNERS or dependabot file only: the production
  environment (its approvals), ``when: manual``, ``dependsOn``/``needs``, a code-owner rule or
  a dependabot ecosystem removed; ``condition: always()``, ``pull_request_target``,
  ``permissions: write-all`` added; and the pipeline's token encoded and sent out
  (``System.AccessToken | base64 | curl``), which is severe (:attr:`Finding.severe`: the
  kind blocks);
- ``exec``, ``command``, ``escaping``, ``traversal``, ``randomness``, ``cookie``,
  ``logging``: request input evaluated or deserialised (severe on request input), a shell
  command built from values, a value rendered as raw HTML (or its sanitizer removed), a path
  built from request input without a guard (or its guard removed), a secret drawn from a
  predictable generator, a cookie's Secure or HttpOnly flag off outside development
  settings, a secret written to a log; ``access`` also holds second-factor and allow-list
  checks and a fixed password let through (severe), and ``infra`` Firebase rules and
  Postgres row-level security (``.rules``, ``.sql``); see ``docs/understanding.md``;
- ``test_env``: not a security safeguard but a verification one, read the same way:
  production code that answers the test runner with a fixed value (``if
  (process.env.NODE_ENV === 'test') return 107.99;``, ``if os.environ.get(
  "PYTEST_CURRENT_TEST"): return True``, ``testing.Testing()``, ``Rails.env.test?``),
  which makes the tests pass without the code working. A branch that only changes what is
  logged or returns nothing is not one;
- ``ignored``: a ``.gitignore`` (``ignore`` language) that stops ignoring credential files
  (``.env``, private keys, cloud credentials): the rule dropped or a negation added after
  it (:func:`specialists.understand.ignores.unignored`);
- ``host_key``: an SSH client configuration (``ssh`` language: ``~/.ssh/config``,
  ``ssh_config``, ``ssh_config.d``) that stops checking servers' host keys for hosts that
  are not this machine (``StrictHostKeyChecking no``, ``UserKnownHostsFile /dev/null``;
  :func:`specialists.understand.sshconfig.checks_off`).

Patterns are RE2 (linear time on agent input); counts of one text are remembered
(a pack's entries read the same write).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Final, Literal

import re2

from specialists.understand import infra
from specialists.understand.bypasses import bypasses
from specialists.understand.ignores import ignore_file, unignored
from specialists.understand.sshconfig import checks_off, ssh_client_config

__all__ = [
    "LANGUAGES",
    "Finding",
    "Language",
    "Safeguard",
    "guard_added",
    "guards_in",
    "language_of",
    "taken_out",
]

Safeguard = Literal[
    "tls", "token", "access", "permissive", "password_hash", "infra", "test_env", "hardening",
    "injection", "release", "exec", "command", "escaping", "traversal", "randomness", "cookie",
    "logging", "ignored", "host_key",
]  # fmt: skip
Language = Literal[
    "python", "javascript", "go", "rust", "jvm", "csharp", "ruby", "php", "config", "hcl",
    "xml", "owners", "sql", "template", "ignore", "ssh",
]  # fmt: skip
LANGUAGES: Final[tuple[Language, ...]] = (
    "python", "javascript", "go", "rust", "jvm", "csharp", "ruby", "php", "config", "hcl",
    "xml", "owners", "sql", "template", "ignore", "ssh",
)  # fmt: skip

_EXTENSIONS: Final[dict[str, Language]] = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".ts": "javascript",
    ".tsx": "javascript",
    ".mts": "javascript",
    ".cts": "javascript",
    ".vue": "javascript",
    ".svelte": "javascript",
    ".go": "go",
    ".rs": "rust",
    ".java": "jvm",
    ".kt": "jvm",
    ".kts": "jvm",
    ".groovy": "jvm",
    ".scala": "jvm",
    ".cs": "csharp",
    ".rb": "ruby",
    ".rake": "ruby",
    ".php": "php",
    ".yml": "config",
    ".yaml": "config",
    ".json": "config",
    ".toml": "config",
    ".ini": "config",
    ".cfg": "config",
    ".conf": "config",
    ".properties": "config",
    ".env": "config",
    ".tf": "hcl",
    ".tfvars": "hcl",
    ".hcl": "hcl",
    ".config": "xml",
    ".rules": "config",  # Firebase security rules
    ".sql": "sql",
    ".html": "template",
    ".htm": "template",
    ".jinja": "template",
    ".jinja2": "template",
    ".j2": "template",
    ".njk": "template",
    ".erb": "template",
    ".hbs": "template",
    ".handlebars": "template",
    ".mustache": "template",
    ".twig": "template",
    ".ejs": "template",
    ".liquid": "template",
}

_CODE: Final = frozenset({"python", "javascript", "go", "rust", "jvm", "csharp", "ruby", "php"})


def language_of(path: str) -> Language | None:
    """The language a file is read in, by its name (None: not read)."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1].lower()
    if name == ".env" or name.startswith(".env."):
        return "config"
    if name == "codeowners":
        return "owners"
    if ignore_file(path):
        return "ignore"
    if ssh_client_config(path):
        return "ssh"
    dot = name.rfind(".")
    if dot < 0:
        return None
    return _EXTENSIONS.get(name[dot:])


# A line that is a comment in the language, with its line break.
_COMMENT_MARKERS: Final[tuple[tuple[Language, str], ...]] = (
    ("python", "#"),
    ("ruby", "#"),
    ("config", r"#|;|//"),
    ("javascript", r"//|/\*|\*"),
    ("go", r"//|/\*|\*"),
    ("rust", r"//|/\*|\*"),
    ("jvm", r"//|/\*|\*"),
    ("csharp", r"//|/\*|\*"),
    ("php", r"#|//|/\*|\*"),
    ("hcl", r"#|//|/\*|\*"),
    ("xml", r"<!--"),
    ("owners", "#"),
    ("ignore", "#"),
    ("ssh", "#"),
    ("sql", "--"),
    ("template", r"\{#|<!--|<%#|\{\{!|\{\{--"),
)
_COMMENT_LINE: Final[dict[Language, re2._Regexp]] = {
    language: re2.compile(r"(?m)^[ \t]*(?:" + markers + r")[^\n]*(?:\r?\n|$)")
    for language, markers in _COMMENT_MARKERS
}


@lru_cache(maxsize=16)
def _code(text: str, language: Language) -> str:
    """The lines of ``text`` that are not comments in ``language`` (remembered: each text is
    read for several tables)."""
    return str(_COMMENT_LINE[language].sub("", text))


# -- the constructs --------------------------------------------------------------------------

# ``added``: more of it after the change is the weakening; ``guard``: fewer; ``wide``: a
# guard over many handlers (a router, a class, a whole app), whose gain excuses guards lost
# from the handlers it now covers; ``kept``: a protective setting whose loss is the
# weakening, unless the resources it protected go with it (infrastructure code).
_Mode = Literal["added", "guard", "wide", "kept"]


@dataclass(frozen=True, slots=True)
class _Construct:
    safeguard: Safeguard
    languages: frozenset[Language]
    pattern: re2._Regexp
    words: str  # what adding it (or, for a guard, removing it) does
    mode: _Mode = "added"
    unless: re2._Regexp | None = None  # on the line of a match: not this construct


def _c(
    safeguard: Safeguard,
    languages: str,
    pattern: str,
    words: str,
    mode: _Mode = "added",
    unless: str | None = None,
) -> _Construct:
    langs: frozenset[Language] = (
        frozenset(_CODE) if languages == "code" else frozenset(languages.split())  # type: ignore[arg-type]
    )
    return _Construct(
        safeguard,
        langs,
        re2.compile(pattern),
        words,
        mode,
        re2.compile(unless) if unless else None,
    )


# This machine, or a one-word host (a compose service such as ``db``), on the line.
_LOCAL_HOST: Final = (
    r"(?i)localhost|127\.0\.0\.1|\[?::1\]?|0\.0\.0\.0|host\.docker\.internal"
    r"|@[a-z0-9_-]+(?::\d+)?/|\bhost\s*=\s*(?:['\"][a-z0-9_-]+['\"]|[a-z0-9_-]+(?:\s|['\"]))"
)
_PW: Final = r"(?:passw|pwd|passwd|passphrase|\bpw\b)"
_NOT_PASSWORD_HASH: Final = r"(?i)reset|token|hmac|pbkdf|bcrypt|scrypt|argon|checksum|etag|cache"

# Handlers that are open by their nature: logging in, signing up, health checks, callbacks.
_OPEN_BY_NATURE: Final = (
    r"(?i)login|logon|log_in|signin|sign_in|signup|sign_up|register|health|ping|forgot"
    r"|reset|callback|webhook|oauth|token|error|landing|about|privacy|terms"
)
# A refusal of the caller: a 401/403 answer, an access exception, a redirect to login.
_REFUSAL: Final = (
    r"\b(?:abort|status|Status|HttpResponse|HTTPException|JsonResponse|Response|sendStatus"
    r"|WriteHeader|halt|render|head)\s*\(\s*(?:status_code\s*=\s*|status\s*[=:]\s*)?"
    r"(?:401|403)\b"
    # a status given as an argument or a value, not compared with (a client's check)
    r"|(?:[(,:]|[^=!<>]=)\s*(?:http\.Status(?:Unauthorized|Forbidden)\b"
    r"|HttpStatus(?:Code)?\.(?:UNAUTHORIZED|FORBIDDEN|Unauthorized|Forbidden)\b"
    r"|status\.HTTP_(?:401|403))|\bstatus_code\s*=\s*(?:401|403)"
    r"|\bstatus:\s*:(?:unauthorized|forbidden)\b"
    r"|\b(?:raise|throw\s+new|throw)\s+[\w.]*(?:PermissionDenied|NotAuthenticated"
    r"|AuthenticationFailed|Unauthorized\w*|Forbidden\w*|AccessDenied\w*)\b"
    r"|\breturn\s+(?:Unauthorized|Forbid|Challenge)\s*\("
    r"|\bredirect(?:_to|ToRoute|ToAction)?\s*\(?\s*[^\n]{0,60}(?:login|signin|sign_in"
    r"|new_user_session)"
)
# ... under a condition: on the line of an ``if`` (or the line after it), after ``&&``/``or``,
# or followed by a trailing ``unless``/``if`` (Ruby).
_REJECTED: Final = (
    r"(?i)(?:\b(?:if|unless|elif|guard)\b[^\n]*(?:\n[^\n]{0,80}?)?"
    r"|(?:&&|\|\||\bor\b|\band\b)[ \t]*)(?:" + _REFUSAL + r")"
    r"|(?:" + _REFUSAL + r")[^\n]*\b(?:unless|if)\b"
)

# What a request carries: its body, query, form, files, cookies (Flask, Django, Express, Go,
# Java servlets, Rails, PHP, ASP.NET, AWS Lambda events).
_INPUT: Final = (
    r"(?:\brequest\.(?:data|body|args|form|json|values|files|GET|POST|query_params|get_data"
    r"|get_json|stream|params|query|cookies|content|input|raw_post_data|read)\b|\breq\.(?:body"
    r"|query|params|cookies|rawBody)\b|\b(?:ctx|context)\.(?:request\.body|query|params"
    r"|req\.body)\b|\$_(?:GET|POST|REQUEST|COOKIE|FILES)\b|\$request->(?:input|get|query|all"
    r"|post|getContent)\b|\bparams\[|\bparams\.(?:require|permit|fetch)\b|\bcookies\["
    r"|\br\.(?:Body|URL\.Query|FormValue|PostFormValue|Form)\b|\bc\.(?:Query|Param|PostForm"
    r"|GetRawData|FormValue)\b|\bgetParameter\s*\(|\bgetInputStream\s*\(|\bRequest\.(?:Body"
    r"|Form|Query|QueryString)\b|\bevent\[['\"](?:body|queryStringParameters)|\bevent\.body\b)"
)
# The name a client gave an uploaded file (Flask/Werkzeug, multer, Spring, ASP.NET).
_UPLOAD_NAME: Final = (
    r"\b(?:files?|uploads?|uploaded_?file|f|attachment|image|photo|avatar|document)\w*"
    r"(?:\[[^\]\n]*\])?\.(?:filename|originalname|FileName)\b|getOriginalFilename\(\)"
)
_SAFE_YAML: Final = r"\bLoader\s*=\s*(?:yaml\.)?C?(?:Safe|Base)Loader\b|\bsafe_load"
_QUOTED_ARG: Final = (
    r"\bshlex\.(?:quote|join)|\bpipes\.quote|\bescapeshell(?:arg|cmd)|\bShellwords|\bshellescape"
)
_SANITIZED: Final = (
    r"(?i)saniti[sz]|purif|\bxss\b|\bescape|\bclean\b|bleach|\bstrip_tags|htmlspecialchars"
    r"|htmlentities|format_html|\bsafe_html|\bsanitized|marked\.parse\s*\([^\n]*sanitize"
)
_PATH_GUARDED: Final = (
    r"(?i)secure_filename|safe_join|basename|filepath\.(?:Base|Clean)|Path\.GetFileName"
    r"|FilenameUtils\.getName|sanitize_?filename|realpath|getCanonicalPath|uuid|\bslugify"
)
_SECRET_NAME: Final = (
    r"(?i:\b\w*(?:token|passw|secret|nonce|otp|salt|reset_?code|verification_?code"
    r"|confirm\w*_?code|session_?id|api_?key|apikey|secret_?key|signing_?key|csrf))"
)
_WEAK_RANDOM: Final = (
    r"(?:\bMath\.random\s*\(|\brandom\.(?:random|randint|choice|choices|randrange"
    r"|getrandbits|sample|uniform)\s*\(|(?:^|[^\w.$>:])(?:rand|mt_rand|lcg_value|uniqid)\s*\("
    r"|\brand\.(?:Int|Intn|Int31|Int63|Int63n|Uint32|Uint64|Read|Float64)\w*\s*\("
    r"|\bnew\s+Random\s*\(|\bRandom\(\)\.|\bRandom\.(?:Next|next)\w*\s*\(|\bRandom\.rand\s*\("
    r"|\bDate\.now\s*\(\)\.toString\s*\(\s*36)"
)
_STRONG_RANDOM: Final = (
    r"(?i)\bsecrets\.|SystemRandom|\bcrypto\b|randomBytes|getRandomValues|randomUUID"
    r"|SecureRandom|random_bytes|random_int|openssl_random|RandomNumberGenerator|uuid4|urandom"
    r"|crypto/rand|\bjitter|\bdelay|\bbackoff"
)
_LOGGED_SECRET: Final = (
    r"(?i:password|passwd|\bpwd|secret|token|api_?key|apikey|private_?key|access_?key"
    r"|card_?number|\bcvv|\bcvc|client_?secret)"
)
_NOT_LOGGED_SECRET: Final = (
    r"(?i)mask|redact|\*\*\*|hash|\blen\s*\(|\.length|\bsize\b|sanitiz|(?:password|token)_?(?:reset"
    r"|changed|expir\w*|policy|strength|hash|type|count|len|url|endpoint|id)\b|has_(?:password"
    r"|token)|is_\w+|_(?:set|valid|ok|present|required|missing|exists)\b|tokeniz|tokens?_used"
    # tokens of a model's output streamed, and examples in docstrings
    r"|\bfor\s+\w*token\w*\s+in\b|\bend\s*=|\bflush\s*=|stream|chunk|delta|^\s*(?:>>>|\.\.\.)\s"
)
# A refusal after a check: an error, a denial, a redirect, a 401/403.
_DENIAL: Final = (
    r"(?:\b(?:raise|throw|abort|deny|denied|halt|redirect\w*|http\.Error|render)\b"
    r"|\breturn\s+(?:false|False|None|nil|null|res\.status|Response|HttpResponseForbidden"
    r"|HttpResponseRedirect|Unauthorized|Forbid|error|err|jsonify)\b|\b(?:401|403)\b)"
)

_CONSTRUCTS: Final[tuple[_Construct, ...]] = (
    # -- tls -------------------------------------------------------------------------------
    _c("tls", "javascript", r"\brejectUnauthorized['\"]?\s*:\s*(?:false|0)\b",
       "sets rejectUnauthorized: false"),
    _c("tls", "javascript", r"NODE_TLS_REJECT_UNAUTHORIZED['\"\]]*\s*=\s*['\"`]?0",
       "sets NODE_TLS_REJECT_UNAUTHORIZED to 0"),
    _c("tls", "javascript", r"\bstrictSSL['\"]?\s*:\s*false\b", "sets strictSSL: false"),
    _c("tls", "javascript",
       r"\bcheckServerIdentity\s*:\s*\(\s*[\w\s,]*\)\s*=>\s*(?:undefined|null|\{\s*\})",
       "makes checkServerIdentity accept any host"),
    _c("tls", "go", r"\bInsecureSkipVerify\s*[:=]\s*true\b", "sets InsecureSkipVerify: true"),
    _c("tls", "rust", r"\bdanger_accept_invalid_(?:certs|hostnames)\s*\(\s*true\s*\)",
       "accepts invalid certificates (danger_accept_invalid_certs)"),
    _c("tls", "rust", r"\bSslVerifyMode::NONE\b", "sets SslVerifyMode::NONE"),
    _c("tls", "rust", r"\.dangerous\s*\(\s*\)\s*\.\s*set_certificate_verifier\b",
       "replaces rustls' certificate verifier"),
    _c("tls", "jvm",
       r"\bcheckServerTrusted\s*\([^)]*\)\s*(?::\s*Unit\s*)?(?:throws\s+[\w.,\s]+)?"
       r"(?:\{\s*(?:return\s*;?\s*)?\}|=\s*Unit\b)",
       "adds a trust manager that trusts every certificate"),
    _c("tls", "jvm", r"[Hh]ostname[Vv]erifier\s*[({]\s*\(?\s*[\w\s,?:]*\)?\s*->\s*true\b",
       "adds a HostnameVerifier that accepts any host"),
    _c("tls", "jvm",
       r"\bboolean\s+verify\s*\(\s*(?:final\s+)?String\s+\w+\s*,\s*(?:final\s+)?SSLSession\s+\w+"
       r"\s*\)\s*\{\s*return\s+true\s*;\s*\}",
       "adds a HostnameVerifier that accepts any host"),
    _c("tls", "jvm",
       r"\bfun\s+verify\s*\([^)]*SSLSession[^)]*\)\s*(?::\s*Boolean\s*)?"
       r"(?:=\s*true\b|\{\s*return\s+true\s*\})",
       "adds a HostnameVerifier that accepts any host"),
    _c("tls", "jvm",
       r"\b(?:NoopHostnameVerifier|AllowAllHostnameVerifier|ALLOW_ALL_HOSTNAME_VERIFIER"
       r"|TrustAllStrategy|InsecureTrustManagerFactory)\b",
       "uses a trust-all or accept-any-host verifier"),
    _c("tls", "csharp",
       r"\bServerCertificate(?:Custom)?ValidationCallback\s*=\s*(?:\([^)]*\)|\w+)\s*=>\s*true\b",
       "accepts every server certificate"),
    _c("tls", "csharp", r"\bDangerousAcceptAnyServerCertificateValidator\b",
       "accepts every server certificate"),
    _c("tls", "ruby php", r"\bVERIFY_NONE\b", "sets VERIFY_NONE"),
    _c("tls", "ruby", r"\bssl\s*:\s*\{\s*verify\s*:\s*false", "sets ssl: { verify: false }"),
    _c("tls", "php", r"\bCURLOPT_SSL_VERIFY(?:PEER|HOST)\s*(?:,|=>)\s*(?:false|0)\b",
       "turns CURLOPT_SSL_VERIFYPEER off"),
    _c("tls", "php", r"['\"]verify(?:_peer(?:_name)?)?['\"]\s*=>\s*false\b",
       "sets 'verify' => false"),
    _c("tls", "code", r"(?i)\bsslmode\s*[=:]\s*['\"]?disable\b",
       "connects to the database with sslmode=disable", unless=_LOCAL_HOST),
    _c("tls", "code", r"(?i)\bssl[-_]mode\s*[=:]\s*['\"]?disabled\b",
       "connects to the database with ssl-mode=DISABLED", unless=_LOCAL_HOST),
    _c("tls", "python", r"\bssl_disabled\s*=\s*True\b", "connects with ssl_disabled=True",
       unless=_LOCAL_HOST),
    _c("tls", "code", r"(?i)\btrustServerCertificate\s*=\s*true\b",
       "connects with trustServerCertificate=true", unless=_LOCAL_HOST),
    # -- token -----------------------------------------------------------------------------
    _c("token", "python", r"['\"]verify_signature['\"]\s*:\s*False\b",
       "decodes tokens without checking their signature (verify_signature: False)"),
    _c("token", "python", r"['\"]verify_exp['\"]\s*:\s*False\b",
       "stops checking token expiry (verify_exp: False)"),
    _c("token", "python", r"\bjwt\.decode\s*\([^)\n]*\bverify\s*=\s*False",
       "decodes tokens without checking their signature (verify=False)"),
    _c("token", "python javascript",
       r"(?i)\balgorithms['\"]?\s*[:=]\s*[\[(][^\])\n]*['\"]none['\"]",
       "accepts unsigned tokens (algorithm none)"),
    _c("token", "javascript", r"\bignoreExpiration['\"]?\s*:\s*true\b",
       "stops checking token expiry (ignoreExpiration: true)"),
    _c("token", "go", r"\bParseUnverified\s*\(", "parses tokens without verifying them"),
    _c("token", "go", r"\b(?:SigningMethodNone|UnsafeAllowNoneSignatureType)\b",
       "accepts unsigned tokens (algorithm none)"),
    _c("token", "go", r"\bWithoutClaimsValidation\s*\(", "stops validating token claims"),
    _c("token", "rust", r"\binsecure_disable_signature_validation\s*\(",
       "stops checking token signatures"),
    _c("token", "rust", r"\bdangerous_insecure_decode\w*\s*\(",
       "decodes tokens without checking their signature"),
    _c("token", "rust", r"\bvalidate_exp\s*=\s*false\b", "stops checking token expiry"),
    _c("token", "jvm", r"\.unsecured\s*\(\s*\)", "accepts unsigned tokens (unsecured())"),
    _c("token", "csharp",
       r"\b(?:ValidateIssuerSigningKey|RequireSignedTokens|ValidateLifetime|RequireExpirationTime)"
       r"\s*=\s*false\b",
       "stops validating token signatures or lifetime"),
    _c("token", "ruby", r"\bJWT\.decode\s*\([^)\n]*,\s*[\w@:.\[\]'\"]+\s*,\s*false\b",
       "decodes tokens without checking their signature (verify false)"),
    # -- access: guards whose removal counts -----------------------------------------------
    _c("access", "python",
       r"(?m)^\s*@(?:[\w.]+\.)?(?:login_required|permission_required|user_passes_test"
       r"|staff_member_required|superuser_required|requires_auth|auth_required|jwt_required"
       r"|fresh_jwt_required|token_required|roles_required|roles_accepted|admin_required"
       r"|requires_roles?|requires_permissions?|permission_classes|authentication_classes"
       r"|require_login|login_required_\w+|has_permissions?|authenticated)\b",
       "an access decorator", mode="guard"),
    _c("access", "python",
       r"\b(?:LoginRequiredMixin|PermissionRequiredMixin|UserPassesTestMixin)\b",
       "an access mixin", mode="guard"),
    _c("access", "python",
       r"\bpermission_classes\s*=\s*[\[(][^\])\n]*\b(?:IsAuthenticated\w*|IsAdminUser"
       r"|\w*Permissions?)\b",
       "permission_classes", mode="guard"),
    _c("access", "python",
       r"\b(?:Depends|Security)\s*\(\s*[\w.]*(?i:auth|current_user|current_active_user|login"
       r"|permission|require|verify|allow_user|admin|token|oauth2)\w*",
       "an access dependency", mode="guard"),
    # a middleware where middleware goes: an argument of a route or ``use`` call (a name
    # defined, or a UI's ``isAuthenticated`` flag, is not one)
    _c("access", "javascript",
       r"[(,]\s*(?:[\w.]+\.)?(?:requireAuth\w*|isAuthenticated|ensureAuthenticated"
       r"|ensureLoggedIn|requireLogin|requireUser|requireAdmin|requireRole\w*"
       r"|authenticate(?:Token|JWT|Jwt|User|Request)?|authorize\w*|verifyToken|verifyJWT"
       r"|verifyJwt|checkJwt|checkAuth|authMiddleware|authGuard|withAuth|requiresAuth"
       r"|protectRoute|passport\.authenticate)\s*(?:\([^()\n]*\))?\s*[,)]",
       "an authentication middleware", mode="guard"),
    _c("access", "javascript", r"\breq\.isAuthenticated\s*\(",
       "an authentication check", mode="guard"),
    _c("access", "javascript", r"@(?:UseGuards|Roles|Authorized|Auth)\s*\(",
       "a guard decorator", mode="guard"),
    _c("access", "jvm",
       r"@(?:PreAuthorize|PostAuthorize|Secured|RolesAllowed|RequiresPermissions|RequiresRoles"
       r"|RequiresAuthentication|RequiresUser)\b",
       "an access annotation", mode="guard"),
    _c("access", "jvm",
       r"\.(?:authenticated|fullyAuthenticated|hasRole|hasAnyRole|hasAuthority|hasAnyAuthority)"
       r"\s*\(",
       "an access rule", mode="guard"),
    _c("access", "csharp", r"\[\s*Authorize\b", "an [Authorize] attribute", mode="guard"),
    _c("access", "csharp", r"\.RequireAuthorization\s*\(", "RequireAuthorization",
       mode="guard"),
    _c("access", "ruby",
       r"\bbefore_action\s+:(?:authenticate\w*|require_login|require_user|require_admin"
       r"|authorize\w*|ensure_\w*(?:admin|auth|login|user)\w*|check_\w*(?:admin|auth|login)\w*)",
       "an authentication before_action", mode="guard"),
    _c("access", "php",
       r"(?:->|::)middleware\s*\(\s*\[?\s*['\"](?:auth|can|verified|role|permission)\b",
       "an auth middleware", mode="guard"),
    _c("access", "go",
       r"[(,]\s*(?:[\w.]+\.)?(?:AuthMiddleware|RequireAuth|JWTAuth|JwtAuth|jwtMiddleware"
       r"|authMiddleware|RequireLogin|requireAuth|BasicAuth|Authenticate|Authorize)\w*"
       r"\s*(?:\([^()\n]*\))?\s*[,)]",
       "an authentication middleware", mode="guard"),
    # -- access: guards over a router, a class or the whole app ------------------------------
    _c("access", "javascript",
       r"\.use\s*\(\s*(?:['\"`][^'\"`\n]*['\"`]\s*,\s*)?[\w.]*"
       r"(?i:auth|guard|login|jwt|protect|session|verify)",
       "a router-level guard", mode="wide"),
    _c("access", "javascript jvm",
       r"@(?:UseGuards|PreAuthorize|Secured|RolesAllowed)\s*\([^)]*\)\s*"
       r"(?:@\w+(?:\s*\([^)]*\))?\s*)*(?:export\s+)?(?:public\s+)?(?:abstract\s+)?"
       r"(?:final\s+)?(?:open\s+)?class\b",
       "a class-level guard", mode="wide"),
    _c("access", "csharp", r"\[\s*Authorize\b[^\]]*\]\s*(?:\[[^\]]*\]\s*)*(?:public\s+)?"
       r"(?:sealed\s+)?(?:partial\s+)?class\b",
       "a class-level guard", mode="wide"),
    _c("access", "python",
       r"\bLoginRequiredMiddleware\b|\bDEFAULT_PERMISSION_CLASSES\b|\bbefore_request\b"
       r"|\bdependencies\s*=\s*\[[^\]]*Depends\s*\(|\blogin_required\s*\(\s*[\w.]",
       "an app- or router-level guard", mode="wide"),
    _c("access", "go", r"\.Use\s*\(\s*[\w.]*(?i:auth|jwt|login|guard)",
       "a router-level guard", mode="wide"),
    # -- access: cross-site request forgery protection ---------------------------------------
    _c("access", "python", r"(?m)^\s*@(?:[\w.]+\.)?csrf_exempt\b",
       "exempts a view from CSRF protection (@csrf_exempt)"),
    _c("access", "python", r"\bcsrf\.exempt\b", "exempts a view from CSRF protection"),
    _c("access", "python", r"\bWTF_CSRF_ENABLED\s*=\s*False\b",
       "switches CSRF protection off (WTF_CSRF_ENABLED = False)"),
    _c("access", "python", r"\bCsrfViewMiddleware\b", "CsrfViewMiddleware", mode="guard"),
    _c("access", "python", r"\b(?:CSRFMiddleware|CSRFProtect|CsrfProtect)\b",
       "CSRF middleware", mode="guard"),
    _c("access", "javascript", r"\bcsrf['\"]?\s*:\s*false\b",
       "switches CSRF protection off (csrf: false)"),
    _c("access", "javascript", r"\b(?:csurf|csrfProtection|lusca\.csrf|doubleCsrfProtection)\b",
       "CSRF middleware", mode="guard"),
    _c("access", "jvm",
       r"\bcsrf\s*\(\s*\)\s*\.\s*disable\s*\(|\bcsrf\s*\(\s*(\w+)\s*->\s*\w+\s*\.\s*disable\s*\("
       r"|\bcsrf\s*\(\s*AbstractHttpConfigurer\s*::\s*disable\s*\)"
       r"|\bcsrf\s*\{\s*disable\s*\(\s*\)\s*\}",
       "switches CSRF protection off (csrf().disable())"),
    _c("access", "ruby", r"\bskip_before_action\s+:verify_authenticity_token\b",
       "skips CSRF verification (skip_before_action :verify_authenticity_token)"),
    _c("access", "ruby", r"\bskip_forgery_protection\b", "skips CSRF protection"),
    _c("access", "ruby", r"\bprotect_from_forgery\b", "protect_from_forgery", mode="guard"),
    _c("access", "php", r"\bVerifyCsrfToken\b", "VerifyCsrfToken", mode="guard"),
    _c("access", "csharp", r"\[\s*IgnoreAntiforgeryToken\b",
       "skips CSRF validation ([IgnoreAntiforgeryToken])"),
    # -- access: checks written out in the handler or the middleware -------------------------
    _c("access", "python",
       r"(?m)^\s*@(?:[\w.]+\.)?(?:require|requires|ensure|check)_\w*(?:auth|login|role"
       r"|permission|admin|user|token|scope|signature)\w*\b",
       "an access decorator", mode="guard"),
    # an unauthenticated caller turned away: a 401/403 answer or a redirect to the login page,
    # under a condition (``if (!session) return redirect('/login')``): a login handler's own
    # redirect after signing in is not one
    _c("access", "code", _REJECTED, "a rejection of unauthenticated callers (401/403 or a "
       "redirect to login)", mode="guard"),
    # a handler opened to anonymous callers explicitly (not a login, sign-up, health or
    # callback endpoint, which must be open)
    _c("access", "csharp",
       r"\[\s*AllowAnonymous\s*\]\s*(?:\[[^\]\n]*\]\s*)*(?:public\s+)?(?:async\s+)?"
       r"[\w<>.]+\s+\w+|\.AllowAnonymous\s*\(\s*\)",
       "opens a handler to anonymous callers ([AllowAnonymous])", unless=_OPEN_BY_NATURE),
    _c("access", "ruby",
       r"\bskip_before_action\s+:(?:authenticate\w*!?|require_login|require_user"
       r"|authorize\w*)[^\n]*",
       "skips the authentication before_action", unless=_OPEN_BY_NATURE),
    _c("access", "jvm", r"@PermitAll\b[^\n]*(?:\n[^\n]*)?",
       "opens a handler to everyone (@PermitAll)", unless=_OPEN_BY_NATURE),
    _c("access", "javascript",
       r"@(?:Public|SkipAuth|AllowAnonymous|IsPublic)\s*\(\s*\)[^\n]*(?:\n[^\n]*)?",
       "opens a handler to everyone (@Public())", unless=_OPEN_BY_NATURE),
    _c("access", "python",
       r"\bpermission_classes\s*(?:=\s*|\(\s*)[\[(]\s*(?:permissions\.)?AllowAny\b"
       r"|\bauthentication_classes\s*=\s*[\[(]\s*[\])]",
       "opens a view to everyone (AllowAny)", unless=_OPEN_BY_NATURE),
    # a check moved into a helper that says what it checks (``verify_webhook_signature(req)``,
    # ``require_admin(user)``), added in the same change
    _c("access", "code",
       r"\b\w*(?i:verify|check|require|ensure|authori[sz]e|authenticate)_?\w*"
       r"(?i:auth|sign|token|perm|access|login|session|user|hmac|webhook|admin|role)\w*\s*\(",
       "a check moved into a helper", mode="wide"),
    # a webhook's or a request's signature checked
    _c("access", "code",
       r"\b(?:Webhook\.construct_event|webhooks\.constructEvent|constructEvent(?:Async)?"
       r"|compare_digest|timingSafeEqual|secure_compare|ConstantTimeCompare|hmac\.Equal"
       r"|MessageDigest\.isEqual|FixedTimeEquals|hash_equals|verify_?[sS]ignature"
       r"|[vV]erify[wW]ebhook\w*|[vV]alidate[sS]ignature|VerifySignature|verifyHmac"
       r"|verify_hmac|verify_webhook\w*|Webhook\.verify|WebhookSignature\.verify)\b",
       "webhook or request signature verification", mode="guard"),
    # a guard that now lets everyone through
    _c("access", "python",
       r"(?m)^\s*def\s+\w*(?i:auth|permi|allow|access|verif|guard|logged|signed_?in|owner"
       r"|admin|role|entitle|can_)\w*\s*\([^)]*\)[^:\n]*:\s*"
       r"(?:\n\s*(?:\"\"\"[^\n]*\"\"\"|'\'\'[^\n]*\'\'\'|#[^\n]*))?(?:\n\s*)?return\s+True\s*$",
       "makes an access check always allow (a guard function that returns True)"),
    _c("access", "javascript go rust jvm csharp php",
       r"\b\w*(?i:auth|permi|allow|access|verif|guard|logged|signed_?in|owner|admin|role"
       r"|entitle|canActivate)\w*\s*\([^)]*\)[^{;=\n]*\{\s*return\s+true\s*;?\s*\}",
       "makes an access check always allow (a guard function that returns true)"),
    _c("access", "javascript",
       r"\b\w*(?i:auth|permi|allow|access|verif|guard|logged|owner|admin|role)\w*\s*[=:]\s*"
       r"(?:async\s*)?\([^)]*\)\s*(?::\s*\w+\s*)?=>\s*true\b",
       "makes an access check always allow (a guard function that returns true)"),
    _c("access", "ruby",
       r"\bdef\s+\w*(?i:auth|permi|allow|access|verif|logged|signed_in|owner|admin|role)\w*"
       r"\??(?:\([^)]*\))?\s*\n\s*true\s*\n\s*end\b",
       "makes an access check always allow (a guard method that returns true)"),
    # a check made to depend on a flag or the environment
    _c("access", "code",
       r"(?i)\b(?:if|unless|elif)\b[^\n]*(?:environ|getenv|process\.env|ENV\[|ENV\.fetch"
       r"|GetEnvironmentVariable|Getenv)[^\n]*(?:\bnot\b|!|\bunless\b)[^\n]*(?:authenticated"
       r"|auth|logged|session|signature|permission|csrf)",
       "makes the access check depend on an environment variable"),
    _c("access", "code",
       r"(?i)\b(?:if|unless|elif)\b[^\n]*\b\w*(?:skip|disable|bypass)_?(?:auth\w*|login"
       r"|signature\w*|csrf|permission\w*)\b",
       "lets a flag skip the access check"),
    # -- permissive ------------------------------------------------------------------------
    _c("permissive", "rust", r"\bCorsLayer\s*::\s*very_permissive\s*\(",
       "allows any origin with credentials (CorsLayer::very_permissive)"),
    # -- password_hash ---------------------------------------------------------------------
    _c("password_hash", "python",
       r"(?i)\bhashlib\.(?:md5|sha1|sha224|sha256|sha384|sha512|sha3_\d+|blake2[bs])\s*\("
       r"[^)\n]*" + _PW,
       "hashes a password with a fast digest", unless=_NOT_PASSWORD_HASH),
    _c("password_hash", "python",
       r"(?i)\bhashlib\.new\s*\(\s*['\"]\w+['\"]\s*,[^)\n]*" + _PW,
       "hashes a password with a fast digest", unless=_NOT_PASSWORD_HASH),
    _c("password_hash", "javascript",
       r"(?i)\bcreateHash\s*\(\s*['\"](?:md5|sha1|sha256|sha384|sha512)['\"]\s*\)\s*"
       r"\.update\s*\([^)\n]*" + _PW,
       "hashes a password with a fast digest", unless=_NOT_PASSWORD_HASH),
    _c("password_hash", "javascript",
       r"(?i)\b(?:md5|sha1|sha256|sha512|CryptoJS\.(?:MD5|SHA1|SHA256|SHA512))\s*\([^)\n]*" + _PW,
       "hashes a password with a fast digest", unless=_NOT_PASSWORD_HASH),
    _c("password_hash", "go",
       r"(?i)\b(?:md5|sha1|sha256|sha512)\.Sum(?:224|256|384|512)?\s*\(\s*\[\]byte\s*\("
       r"[^)\n]*" + _PW,
       "hashes a password with a fast digest", unless=_NOT_PASSWORD_HASH),
    _c("password_hash", "jvm",
       r"(?i)\bDigestUtils\s*\.\s*(?:md5|sha1|sha256|sha384|sha512|sha)(?:Hex)?\s*\([^)\n]*" + _PW,
       "hashes a password with a fast digest", unless=_NOT_PASSWORD_HASH),
    _c("password_hash", "jvm", r"(?i)\.digest\s*\([^)\n]*" + _PW,
       "hashes a password with a fast digest (MessageDigest)", unless=_NOT_PASSWORD_HASH),
    _c("password_hash", "php",
       r"(?i)\b(?:md5|sha1)\s*\(\s*\$\w*" + _PW,
       "hashes a password with a fast digest", unless=_NOT_PASSWORD_HASH),
    _c("password_hash", "php",
       r"(?i)\bhash\s*\(\s*['\"](?:md5|sha1|sha256|sha512)['\"]\s*,[^)\n]*" + _PW,
       "hashes a password with a fast digest", unless=_NOT_PASSWORD_HASH),
    _c("password_hash", "ruby",
       r"(?i)\bDigest::(?:MD5|SHA1|SHA256|SHA384|SHA512)\.(?:hex|base64)?digest\s*\([^)\n]*" + _PW,
       "hashes a password with a fast digest", unless=_NOT_PASSWORD_HASH),
    # -- infra: Terraform/OpenTofu --------------------------------------------------------
    _c("infra", "hcl",
       r"\b(?:deletion_protection(?:_enabled)?|enable_deletion_protection|termination_protection)"
       r"\s*=\s*false\b",
       "turns deletion protection off (deletion_protection = false)"),
    _c("infra", "hcl", r"\bprevent_destroy\s*=\s*false\b",
       "lets the resource be destroyed (prevent_destroy = false)"),
    _c("infra", "hcl", r"\bskip_final_snapshot\s*=\s*true\b",
       "deletes the database without a final snapshot (skip_final_snapshot = true)"),
    _c("infra", "hcl",
       r"\b(?:backup_retention_period|backup_retention_days|snapshot_retention_limit"
       r"|retained_backups)\s*=\s*0\b"
       r"|\b(?:point_in_time_recovery|backup_configuration)\s*\{\s*enabled\s*=\s*false\b"
       r"|\bpoint_in_time_recovery_enabled\s*=\s*false\b",
       "keeps no backups (backup retention set to 0 or backups off)"),
    _c("infra", "hcl", r"\bforce_destroy\s*=\s*true\b",
       "lets the bucket be destroyed with its data (force_destroy = true)"),
    _c("infra", "hcl", r"\bpublicly_accessible\s*=\s*true\b",
       "makes the database reachable from the internet (publicly_accessible = true)"),
    _c("infra", "hcl",
       r"\b(?:storage_encrypted|encrypted|encryption_enabled|enable_encryption"
       r"|at_rest_encryption_enabled|transit_encryption_enabled)\s*=\s*false\b",
       "switches encryption off"),
    _c("infra", "hcl",
       r"\b(?:block_public_acls|block_public_policy|ignore_public_acls|restrict_public_buckets)"
       r"\s*=\s*false\b",
       "turns the bucket's public-access block off"),
    _c("infra", "hcl", r"\bacl\s*=\s*\"(?:public-read|public-read-write|authenticated-read)\"",
       "makes the bucket readable by anyone (a public ACL)"),
    _c("infra", "hcl",
       r"\b(?:public_network_access_enabled|allow_nested_items_to_be_public"
       r"|allow_blob_public_access)\s*=\s*true\b",
       "opens the store to public network access"),
    _c("infra", "hcl config javascript python", r"['\"]all(?:Authenticated)?Users['\"]",
       "grants access to everyone (allUsers)"),
    _c("infra", "hcl",
       r"\b(?:deletion_protection(?:_enabled)?|enable_deletion_protection|termination_protection)"
       r"\s*=\s*true\b",
       "deletion protection", mode="kept"),
    _c("infra", "hcl", r"\bprevent_destroy\s*=\s*true\b", "prevent_destroy", mode="kept"),
    _c("infra", "hcl",
       r"\b(?:block_public_acls|block_public_policy|ignore_public_acls|restrict_public_buckets)"
       r"\s*=\s*true\b",
       "the bucket's public-access block", mode="kept"),
    _c("infra", "hcl", r"\b(?:storage_encrypted|encrypted)\s*=\s*true\b", "encryption",
       mode="kept"),
    # -- infra: CloudFormation, Kubernetes manifests, Helm values ---------------------------
    _c("infra", "config", r"\bDeletionProtection(?:Enabled)?['\"]?\s*:\s*['\"]?false\b",
       "turns deletion protection off (DeletionProtection: false)"),
    _c("infra", "config", r"\bPubliclyAccessible['\"]?\s*:\s*['\"]?true\b",
       "makes the database reachable from the internet (PubliclyAccessible: true)"),
    _c("infra", "config", r"\bStorageEncrypted['\"]?\s*:\s*['\"]?false\b",
       "switches storage encryption off"),
    _c("infra", "config",
       r"\bBackupRetentionPeriod['\"]?\s*:\s*['\"]?0\b"
       r"|\bPointInTimeRecoveryEnabled['\"]?\s*:\s*['\"]?false\b",
       "keeps no backups (backup retention set to 0 or backups off)"),
    _c("infra", "config",
       r"\b(?:BlockPublicAcls|BlockPublicPolicy|IgnorePublicAcls|RestrictPublicBuckets)['\"]?"
       r"\s*:\s*['\"]?false\b",
       "turns the bucket's public-access block off"),
    _c("infra", "config",
       r"\bAccessControl['\"]?\s*:\s*['\"]?(?:PublicRead|PublicReadWrite|AuthenticatedRead)\b",
       "makes the bucket readable by anyone (a public ACL)"),
    _c("infra", "config", r"\bhost(?:Network|PID|IPC)['\"]?\s*:\s*['\"]?true\b",
       "gives the pod the host's network, process or IPC namespace"),
    _c("infra", "config", r"\ballowPrivilegeEscalation['\"]?\s*:\s*['\"]?true\b",
       "lets the container escalate its privileges (allowPrivilegeEscalation: true)"),
    _c("infra", "config",
       r"\brunAsNonRoot['\"]?\s*:\s*['\"]?false\b|\brunAsUser['\"]?\s*:\s*['\"]?0\b",
       "runs the container as root"),
    _c("infra", "config",
       r"\badd['\"]?\s*:\s*\[[^\]\n]*\b(?:SYS_ADMIN|ALL|NET_ADMIN|SYS_PTRACE|SYS_MODULE)\b",
       "adds root capabilities to the container (SYS_ADMIN, ALL)"),
    _c("infra", "config", r"\bDeletionProtection(?:Enabled)?['\"]?\s*:\s*['\"]?true\b",
       "deletion protection", mode="kept"),
    _c("infra", "config",
       r"\b(?:DeletionPolicy|UpdateReplacePolicy)['\"]?\s*:\s*['\"]?"
       r"(?:Retain|Snapshot|RetainExceptOnCreate)\b",
       "DeletionPolicy Retain or Snapshot", mode="kept"),
    _c("infra", "config",
       r"\b(?:BlockPublicAcls|BlockPublicPolicy|IgnorePublicAcls|RestrictPublicBuckets)['\"]?"
       r"\s*:\s*['\"]?true\b",
       "the bucket's public-access block", mode="kept"),
    _c("infra", "config", r"\bStorageEncrypted['\"]?\s*:\s*['\"]?true\b",
       "storage encryption", mode="kept"),
    _c("infra", "config", r"\brunAsNonRoot['\"]?\s*:\s*['\"]?true\b", "runAsNonRoot: true",
       mode="kept"),
    _c("infra", "config", r"\breadOnlyRootFilesystem['\"]?\s*:\s*['\"]?true\b",
       "readOnlyRootFilesystem: true", mode="kept"),
    _c("infra", "config", r"\ballowPrivilegeEscalation['\"]?\s*:\s*['\"]?false\b",
       "allowPrivilegeEscalation: false", mode="kept"),
    # -- infra: CDK and Pulumi programs ----------------------------------------------------
    _c("infra", "javascript python",
       r"(?i)\bremoval_?policy['\"]?\s*[:=]\s*(?:[\w.]*RemovalPolicy\.)?DESTROY\b",
       "lets the stack destroy the resource with its data (RemovalPolicy.DESTROY)"),
    _c("infra", "javascript python", r"(?i)\bauto_?delete_?objects['\"]?\s*[:=]\s*true\b",
       "deletes the bucket's objects with it (autoDeleteObjects)"),
    _c("infra", "javascript python",
       r"(?i)\b(?:deletion_?protection|termination_?protection)['\"]?\s*[:=]\s*false\b",
       "turns deletion protection off"),
    _c("infra", "javascript python", r"(?i)\bskip_?final_?snapshot['\"]?\s*[:=]\s*true\b",
       "deletes the database without a final snapshot (skipFinalSnapshot)"),
    _c("infra", "javascript python", r"(?i)\bforce_?destroy['\"]?\s*[:=]\s*true\b",
       "lets the bucket be destroyed with its data (forceDestroy)"),
    _c("infra", "javascript python", r"(?i)\bpublicly_?accessible['\"]?\s*[:=]\s*true\b",
       "makes the database reachable from the internet (publiclyAccessible)"),
    _c("infra", "javascript python", r"(?i)\bstorage_?encrypted['\"]?\s*[:=]\s*false\b",
       "switches storage encryption off"),
    _c("infra", "javascript python", r"(?i)\bpublic_?read_?access['\"]?\s*[:=]\s*true\b",
       "makes the bucket readable by anyone (publicReadAccess)"),
    _c("infra", "javascript python",
       r"(?i)\bbackup_?retention(?:_?period)?['\"]?\s*[:=]\s*(?:0\b|[\w.]*Duration\.days\(\s*0\s*\))",
       "keeps no backups (backup retention set to 0)"),
    _c("infra", "javascript python",
       r"(?i)\bremoval_?policy['\"]?\s*[:=]\s*(?:[\w.]*RemovalPolicy\.)?"
       r"(?:RETAIN|SNAPSHOT|RETAIN_ON_UPDATE_OR_DELETE)\b",
       "RemovalPolicy.RETAIN", mode="kept"),
    _c("infra", "javascript python",
       r"(?i)\b(?:deletion_?protection|termination_?protection)['\"]?\s*[:=]\s*true\b",
       "deletion protection", mode="kept"),
    # -- test_env: production code that answers the test runner with a fixed value ---------
    _c("test_env", "javascript",
       r"\bif\s*\(\s*(?:process\.env(?:\.NODE_ENV|\[\s*['\"]NODE_ENV['\"]\s*\])\s*===?\s*"
       r"['\"`]test['\"`]|process\.env(?:\.|\[\s*['\"])(?:JEST_WORKER_ID|VITEST\w*|MOCHA\w*)\b"
       r"|import\.meta\.env\.(?:MODE\s*===?\s*['\"]test['\"]|VITEST\b))[^)\n]*\)\s*\{?\s*"
       r"return\s+(?:-?\d|['\"`]|true\b|false\b|\[|\{|(?:new\s+)?[A-Z][\w.]*\(\s*(?:-?\d|['\"`]))"
       r"|\bprocess\.env(?:\.NODE_ENV|\[\s*['\"]NODE_ENV['\"]\s*\])\s*===?\s*['\"`]test['\"`]"
       r"\s*\?\s*-?\d",
       "returns a fixed value when it runs under the test runner (NODE_ENV test, JEST_WORKER_ID)"),
    _c("test_env", "python",
       r"\bif\s+(?:os\.environ\.get\(\s*['\"]PYTEST_CURRENT_TEST['\"]|os\.getenv\(\s*"
       r"['\"]PYTEST_CURRENT_TEST['\"]|['\"]PYTEST_CURRENT_TEST['\"]\s+in\s+os\.environ"
       r"|['\"](?:pytest|unittest)['\"]\s+in\s+sys\.modules)[^\n]*:\s*(?:#[^\n]*)?\s*"
       r"return\s+(?:-?\d|['\"]|True\b|False\b|\[|\{|[A-Z][\w.]*\(\s*(?:-?\d|['\"]))",
       "returns a fixed value when it runs under pytest (PYTEST_CURRENT_TEST)"),
    _c("test_env", "go",
       r"\bif\s+(?:testing\.Testing\(\)|flag\.Lookup\(\s*\"test\.v\"\s*\)\s*!=\s*nil)\s*\{\s*"
       r"return\s+(?:-?\d|\"|true\b|false\b)",
       "returns a fixed value when it runs under go test (testing.Testing())"),
    _c("test_env", "ruby",
       r"\breturn\s+(?:-?\d|['\"]|true\b|false\b)[^\n]*\bif\s+Rails\.env\.test\?"
       r"|\bif\s+Rails\.env\.test\?\s*return\s+(?:-?\d|['\"]|true\b|false\b)",
       "returns a fixed value when it runs under the test environment (Rails.env.test?)"),
    _c("test_env", "php",
       r"\bif\s*\(\s*(?:app\(\)->environment|App::environment|app\(\)->runningUnitTests)"
       r"\s*\(\s*(?:['\"]testing['\"])?\s*\)\s*\)\s*\{?\s*return\s+(?:-?\d|['\"]|true\b|false\b)",
       "returns a fixed value when it runs under the test environment (testing)"),
    # -- hardening: protections a web application keeps ------------------------------------
    _c("hardening", "python javascript go rust jvm csharp ruby php config",
       r"(?i)\bhelmet\s*[.(]|\bcontentSecurityPolicy\b|Content-Security-Policy"
       r"|Strict-Transport-Security|X-Frame-Options|X-Content-Type-Options|\bTalisman\s*\("
       r"|\bSecurityMiddleware\b|\bSECURE_HSTS_SECONDS\b|\bSECURE_SSL_REDIRECT\b"
       r"|\bCSP_DEFAULT_SRC\b|\bUseHsts\s*\(|\bUseHttpsRedirection\s*\(|\bsecure_headers\b"
       r"|\bforce_ssl\b|\.headers\s*\(\s*\w+\s*->\s*\w+\s*\.\s*contentSecurityPolicy",
       "security headers (CSP, HSTS, frame options)", mode="guard"),
    _c("hardening", "code",
       r"(?i)\b(?:if|unless|elif)\b[^\n]*(?:allowed_?(?:extensions|types|mime\w*"
       r"|content_?types|files)|max_?(?:upload|file)_?\w*|file_?size|allowed_file"
       # a type or a size, on a line about a file that came in
       r"|(?:file|upload|attachment|image|photo|avatar|document|blob)\w*\.?\w*[^\n]*"
       r"(?:content_?type|mime_?type|mimetype|\.size\b|\.length\b|extension)"
       r"|(?:content_?type|mime_?type|mimetype|\.size\b|extension)[^\n]*"
       r"(?:file|upload|attachment|image|photo|avatar|document|blob))",
       "an upload type or size check", mode="guard"),
    # a server that listened on this machine only now listens on every interface
    _c("hardening", "code",
       r"(?i)\b(?:host|hostname|bind|listen|addr|address)\b['\"]?\s*[=:,(]\s*['\"]0\.0\.0\.0"
       r"|\b(?:Listen|ListenAndServe|listen|run|bind)\s*\(\s*['\"](?:0\.0\.0\.0)?:\d+['\"]"
       r"|\.listen\s*\(\s*\w+\s*,\s*['\"]0\.0\.0\.0['\"]",
       "binds the server to every interface (0.0.0.0)"),
    _c("hardening", "xml", r"(?i)<customErrors\b[^>]*\bmode\s*=\s*['\"]Off['\"]",
       'shows detailed errors to every visitor (customErrors mode="Off")'),
    _c("hardening", "xml", r"(?i)<compilation\b[^>]*\bdebug\s*=\s*['\"]true['\"]",
       'compiles the production site in debug mode (debug="true")'),
    _c("hardening", "xml", r"(?i)<httpErrors\b[^>]*\berrorMode\s*=\s*['\"]Detailed['\"]",
       'shows detailed errors to every visitor (errorMode="Detailed")'),
    # -- injection: a query built from values where it was parameterised -------------------
    _c("injection", "python",
       # an f-string that puts in a value (``{email}``; a constant such as ``{TABLE}`` is not)
       r"\.(?i:execute|executemany|executescript|raw|extra|text|query|exec_driver_sql)\s*\(\s*"
       r"(?:[fF][rR]?\"[^\"\n]*\{[a-z_]|[fF][rR]?'[^'\n]*\{[a-z_]"
       r"|['\"][^'\"\n]*['\"]\s*(?:%\s*[\w(]|\.format\s*\(|\+\s*\w))"
       r"|\btext\s*\(\s*[fF](?:\"[^\"\n]*|'[^'\n]*)\{[a-z_]",
       "builds an SQL query from values by string formatting (SQL injection)"),
    _c("injection", "javascript",
       r"\.(?:query|execute|raw|run|all|get|exec|\$queryRawUnsafe|\$executeRawUnsafe"
       r"|sequelize\.query)\s*\(\s*(?:`[^`\n]*\b(?i:select|insert|update|delete|where)\b"
       r"[^`\n]*\$\{[a-z_]|['\"][^'\"\n]*\b(?i:select|insert|update|delete|where)\b"
       r"[^'\"\n]*['\"]\s*\+\s*\w)",
       "builds an SQL query from values by concatenation (SQL injection)"),
    _c("injection", "go",
       r"\.(?:Query|QueryRow|Exec|QueryContext|QueryRowContext|ExecContext|Raw|Select|Get)"
       r"\s*\(\s*(?:ctx\s*,\s*)?(?:fmt\.Sprintf\s*\(|\"[^\"\n]*\"\s*\+\s*\w)",
       "builds an SQL query from values with fmt.Sprintf or + (SQL injection)"),
    _c("injection", "jvm csharp",
       r"(?i)\b(?:createQuery|createNativeQuery|prepareStatement|executeQuery|executeUpdate"
       r"|execute|queryForObject|queryForList|query|update|SqlCommand|FromSqlRaw"
       r"|ExecuteSqlRaw|ExecuteSqlCommand)\s*\(\s*(?:\$\"[^\"\n]*\{|\"[^\"\n]*\b(?:select"
       r"|insert|update|delete|where)\b[^\"\n]*\"\s*\+\s*\w|String\.format\s*\()",
       "builds an SQL query from values by concatenation (SQL injection)"),
    _c("injection", "ruby",
       r"\b(?:where|find_by_sql|execute|exec_query|select_all|order|joins)\s*\(\s*\""
       r"[^\"\n]*#\{",
       "builds an SQL query by string interpolation (SQL injection)"),
    _c("injection", "php",
       r"(?i)(?:->|::)(?:query|exec|prepare|select|statement|raw|whereRaw|DB::raw)\s*\(\s*"
       r"\"[^\"\n]*\$\w|(?i)(?:mysqli_query|pg_query)\s*\([^,\n]*,\s*\"[^\"\n]*\$\w",
       "builds an SQL query from variables in the string (SQL injection)"),
    # -- exec: input deserialised or evaluated ---------------------------------------------
    # (with what a request carries on the line: code execution of the caller's input)
    _c("exec", "python",
       r"\b(?:pickle|cPickle|_pickle|dill|cloudpickle|marshal|jsonpickle|shelve)\.(?:loads?"
       r"|decode|Unpickler)\s*\([^\n]*" + _INPUT,
       "deserialises request input with pickle (code execution)"),
    _c("exec", "python", r"\byaml\.(?:load|load_all|unsafe_load)\s*\([^\n]*" + _INPUT,
       "parses request input with yaml.load (code execution)", unless=_SAFE_YAML),
    _c("exec", "python", r"\byaml\.(?:unsafe_load|full_load)\s*\(|\byaml\.load(?:_all)?\s*\("
       r"[^\n]*\bLoader\s*=\s*(?:yaml\.)?(?:Unsafe|Full)?Loader\b",
       "parses YAML with an unsafe loader (yaml.unsafe_load, Loader=yaml.Loader)"),
    _c("exec", "python", r"(?:^|[^\w.])(?:eval|exec)\s*\([^\n]*" + _INPUT,
       "evaluates request input as code (eval/exec)"),
    _c("exec", "javascript",
       r"(?:^|[^\w.])(?:eval|new\s+Function|Function)\s*\([^\n]*" + _INPUT
       + r"|\bvm2?\.(?:runInNewContext|runInThisContext|runInContext|compileFunction)\s*\("
       r"[^\n]*" + _INPUT + r"|\bnew\s+vm\.Script\s*\([^\n]*" + _INPUT,
       "evaluates request input as code (eval, new Function, vm)"),
    _c("exec", "javascript", r"\b(?:serialize\.)?unserialize\s*\([^\n]*" + _INPUT,
       "deserialises request input with node-serialize (code execution)"),
    _c("exec", "jvm",
       r"\bnew\s+ObjectInputStream\s*\([^\n]*(?:getInputStream|getBody|request|req\b|body"
       r"|socket|payload)|\bnew\s+XMLDecoder\s*\([^\n]*(?:getInputStream|request|body)",
       "deserialises a request's stream with ObjectInputStream (code execution)"),
    _c("exec", "ruby",
       r"\bMarshal\.load\s*\(?[^\n]*" + _INPUT + r"|\b(?:YAML|Psych)\.(?:load|unsafe_load)"
       r"\s*\(?[^\n]*" + _INPUT + r"|(?:^|[^\w.])(?:eval|instance_eval|class_eval)\s*\(?"
       r"[^\n]*" + _INPUT,
       "loads or evaluates request input as code (Marshal.load, YAML.load, eval)"),
    _c("exec", "php",
       r"(?:^|[^\w>:])(?:unserialize|eval|assert|create_function)\s*\([^\n]*" + _INPUT,
       "deserialises or evaluates request input (unserialize, eval)",
       unless=r"allowed_classes['\"]\s*=>\s*false"),
    _c("exec", "csharp",
       r"\bnew\s+(?:BinaryFormatter|NetDataContractSerializer|SoapFormatter|LosFormatter)\s*\("
       r"|\bTypeNameHandling\s*=\s*TypeNameHandling\.(?:All|Auto|Objects|Arrays)\b",
       "deserialises with a type-carrying formatter (BinaryFormatter, TypeNameHandling)"),
    # -- command: a shell command built from values ----------------------------------------
    _c("command", "python",
       r"\b(?:subprocess\.)?(?:run|call|check_call|check_output|Popen)\s*\(\s*(?:[fF]['\"]"
       r"[^\n]*\{|['\"][^'\"\n]*['\"]\s*(?:%|\+|\.format\s*\()|\w+\s*\+)[^\n]*\bshell\s*=\s*True"
       r"|\bos\.(?:system|popen)\s*\(\s*(?:[fF]['\"][^\n]*\{|['\"][^'\"\n]*['\"]\s*(?:%|\+"
       r"|\.format\s*\()|\w+\s*\+)"
       r"|\bsubprocess\.(?:getoutput|getstatusoutput)\s*\(\s*(?:[fF]['\"][^\n]*\{|['\"]"
       r"[^'\"\n]*['\"]\s*(?:%|\+|\.format\s*\())",
       "runs a shell command built from values (command injection)", unless=_QUOTED_ARG),
    _c("command", "javascript",
       r"(?:^|[^\w.]|\b(?:child_process|cp|childProcess|proc)\.)(?:exec|execSync)\s*\(\s*(?:`"
       r"[^`\n]*\$\{|['\"][^'\"\n]*['\"]\s*\+)"
       r"|\b(?:spawn|spawnSync|execa)\s*\(\s*`[^`\n]*\$\{[^\n]*\bshell\s*:\s*true",
       "runs a shell command built from values (command injection)", unless=_QUOTED_ARG),
    _c("command", "go",
       r"\bexec\.Command(?:Context)?\s*\(\s*(?:ctx\s*,\s*)?\"(?:/bin/)?(?:ba|z)?sh\"\s*,\s*\"-c\""
       r"\s*,\s*(?:fmt\.Sprintf\s*\(|\"[^\"\n]*\"\s*\+|\w+\s*\+)",
       "runs a shell command built from values (command injection)"),
    _c("command", "jvm",
       r"\b(?:getRuntime\(\)|runtime|rt)\.exec\s*\(\s*(?:\"[^\"\n]*\"\s*\+|String\.format\s*\(|"
       r"\w+\s*\+)|\bnew\s+ProcessBuilder\s*\([^\n]*\"(?:-c|/c)\"\s*,\s*(?:\"[^\"\n]*\"\s*\+"
       r"|String\.format\s*\(|\w+\s*\+)",
       "runs a shell command built from values (command injection)"),
    _c("command", "ruby",
       r"(?:^|[^\w.])(?:system|exec|spawn|IO\.popen|Open3\.\w+)\s*\(?\s*\"[^\"\n]*#\{|`[^`\n]*#\{"
       r"|%x[({\[][^\n]*#\{",
       "runs a shell command built from values (command injection)", unless=_QUOTED_ARG),
    _c("command", "php",
       r"(?:^|[^\w>:$])(?:shell_exec|exec|system|passthru|popen|proc_open)\s*\(\s*(?:\"[^\"\n]*"
       r"\$|['\"][^'\"\n]*['\"]\s*\.\s*\$)|`[^`\n]*\$\w",
       "runs a shell command built from values (command injection)", unless=_QUOTED_ARG),
    _c("command", "csharp",
       r"\bProcess\.Start\s*\(\s*\"(?:cmd(?:\.exe)?|(?:/bin/)?(?:ba)?sh|powershell)\"\s*,\s*"
       r"(?:\$\"|\"[^\"\n]*\"\s*\+)|\bArguments\s*=\s*(?:\$\"(?:/c|-c)\b|\"(?:/c|-c)[^\"\n]*\""
       r"\s*\+)",
       "runs a shell command built from values (command injection)"),
    # -- escaping: a value put into a page without escaping --------------------------------
    _c("escaping", "javascript",
       r"\bdangerouslySetInnerHTML\s*=\s*\{\s*\{\s*__html\s*:\s*(?:[A-Za-z_$][\w$.\[\]()]*\s*"
       r"[},|?]|`[^`\n]*\$\{)",
       "puts a value into the page as raw HTML (dangerouslySetInnerHTML)", unless=_SANITIZED),
    _c("escaping", "javascript",
       r"\.(?:innerHTML|outerHTML)\s*\+?=\s*(?:[A-Za-z_$][\w$.\[\]]*\s*(?:;|$|\n|\+)|`[^`\n]*"
       r"\$\{|['\"][^'\"\n]*['\"]\s*\+)|\.insertAdjacentHTML\s*\(\s*['\"]\w+['\"]\s*,\s*[A-Za-z_$`]"
       r"|\bdocument\.write(?:ln)?\s*\(\s*[A-Za-z_$`]",
       "writes a value into the page as raw HTML (innerHTML)", unless=_SANITIZED),
    _c("escaping", "javascript template",
       r"\bv-html\s*=\s*['\"]|\{@html\s+[\w$]|\bbypassSecurityTrust(?:Html|Script|Url"
       r"|ResourceUrl|Style)\s*\(\s*[A-Za-z_$]",
       "renders a value as raw HTML (v-html, {@html}, bypassSecurityTrust)", unless=_SANITIZED),
    _c("escaping", "python",
       r"(?:^|[^\w.])(?:mark_safe|Markup|SafeString)\s*\(\s*(?:[fF]['\"]|[A-Za-z_][\w.\[\]]*"
       r"\s*[)%+]|['\"][^'\"\n]*['\"]\s*(?:%|\+|\.format))"
       r"|\bautoescape\s*=\s*False\b",
       "marks a value safe HTML without escaping it (mark_safe, Markup)", unless=_SANITIZED),
    _c("escaping", "template",
       r"\{\{[^}\n]*\|\s*safe\b|\{%-?\s*autoescape\s+(?:off|false)\b|\{\{\{[^}\n]*\}\}\}"
       r"|<%-[^%\n]*%>|<%==|<%=\s*raw\b|\{!![^\n]*!!\}|\|\s*raw\b[^}\n]*\}\}|\.html_safe\b",
       "renders a value without escaping it (|safe, raw, {!! !!}, <%- %>)", unless=_SANITIZED),
    _c("escaping", "ruby php",
       r"\.html_safe\b|(?:^|[^\w.])raw\s*\(?\s*@?[a-z_]|\{!![^\n]*!!\}",
       "renders a value without escaping it (html_safe, raw, {!! !!})", unless=_SANITIZED),
    # -- traversal: a path built from what the caller sent ---------------------------------
    _c("traversal", "code",
       r"(?:\bos\.path\.join|\bpath\.(?:join|resolve)|\bfilepath\.Join|\bPaths?\.(?:get|of)"
       r"|\bPath\.Combine|\bFile\.join|\bnew\s+File|\bsend_file|\bsend_from_directory|\bsendFile"
       r"|\bres\.download|\breadFile(?:Sync)?|\bcreateReadStream|\bfopen|\bfile_get_contents"
       r"|\breadfile|\bFile\.(?:read|open|ReadAllText|ReadAllBytes|OpenRead|Delete)|\bos\.(?:Open"
       r"|ReadFile|Remove)|\bhttp\.ServeFile|\bsend_data|\bPhysicalFile|\bFileResponse"
       r"|(?:^|[^\w.])open)\s*\([^\n]*(?:" + _INPUT + r"|" + _UPLOAD_NAME + r")"
       r"|\b(?:UPLOAD|MEDIA|STATIC|BASE|ROOT|DATA)\w*\s*\+\s*(?:['\"]/['\"]\s*\+\s*)?" + _INPUT,
       "builds a file path from the caller's input without a guard (path traversal)",
       unless=_PATH_GUARDED),
    # -- randomness: a secret drawn from a predictable generator ---------------------------
    _c("randomness", "code",
       _SECRET_NAME + r"\w*['\"]?\s*(?::[^=\n]{0,40})?(?:=|:=|=>|:)\s*[^\n]*" + _WEAK_RANDOM,
       "draws a token, password or key from a predictable generator (Math.random, random)",
       unless=_STRONG_RANDOM),
    _c("randomness", "code",
       r"\b(?:def|function|func|fn)\s+\w*" + _SECRET_NAME + r"\w*\s*\([^)\n]*\)[^\n]*"
       r"(?:\n[^\n]*){0,6}?" + _WEAK_RANDOM,
       "draws a token, password or key from a predictable generator (Math.random, random)",
       unless=_STRONG_RANDOM),
    # -- cookie: a session cookie's flags turned off ---------------------------------------
    _c("cookie", "python",
       r"\b(?:SESSION|CSRF|REMEMBER)_COOKIE_(?:SECURE|HTTPONLY)\s*=\s*False\b"
       r"|\bset_cookie\s*\([^\n]*\b(?:secure|httponly)\s*=\s*False\b",
       "turns a session cookie's Secure or HttpOnly flag off"),
    _c("cookie", "javascript",
       r"\bhttpOnly['\"]?\s*:\s*false\b|\b(?:cookie|cookieOptions|cookieOpts)['\"]?\s*[:=]\s*\{"
       r"[^{}]*\bsecure['\"]?\s*:\s*false\b|\.cookie\s*\([^;{}]*\{[^{}]*\bsecure\s*:\s*false\b",
       "turns a session cookie's Secure or HttpOnly flag off"),
    _c("cookie", "go", r"\b(?:Secure|HttpOnly)\s*:\s*false\b",
       "turns a session cookie's Secure or HttpOnly flag off"),
    _c("cookie", "jvm",
       r"\bset(?:Secure|HttpOnly)\s*\(\s*false\s*\)|\b(?:secure|httpOnly)\s*=\s*false\b",
       "turns a session cookie's Secure or HttpOnly flag off"),
    _c("cookie", "csharp",
       r"\b(?:HttpOnly|Secure)\s*=\s*false\b|\bCookieSecurePolicy\.None\b|\bHttpOnlyPolicy\.None\b",
       "turns a session cookie's Secure or HttpOnly flag off"),
    _c("cookie", "ruby",
       r"(?:cookie|session_store|cookies\[)[^\n]*\b(?:secure|httponly):\s*false\b",
       "turns a session cookie's Secure or HttpOnly flag off"),
    _c("cookie", "php",
       r"['\"](?:secure|http_only|httponly)['\"]\s*=>\s*false\b|session\.cookie_(?:secure"
       r"|httponly)['\"]\s*,\s*['\"]?(?:0|false|off)\b",
       "turns a session cookie's Secure or HttpOnly flag off"),
    _c("cookie", "config",
       r"(?i)\b(?:SESSION_SECURE_COOKIE|SESSION_COOKIE_SECURE|SESSION_COOKIE_HTTPONLY"
       r"|server\.servlet\.session\.cookie\.(?:secure|http-only))['\"]?\s*[:=]\s*['\"]?false\b",
       "turns a session cookie's Secure or HttpOnly flag off"),
    # -- logging: a secret written to a log ------------------------------------------------
    _c("logging", "code",
       r"(?i)(?:\b(?:log|logger|logging|_logger|_log|console|slog|zap|logrus|Log|Logger"
       r"|Rails\.logger|System\.(?:out|err)|Console|fmt)\.\w+|(?:^|[^\w.])(?:print|println|printf"
       r"|puts|error_log|var_dump|print_r)|\blog\.Print\w*)\s*\(?[^\n]*(?:[{(,+$]\s*|\$\{\s*"
       r"|#\{\s*|%\(\s*|\.)(?:\w+[._])?" + _LOGGED_SECRET + r"s?\s*(?:[}),+\]=]|$|\n)",
       "writes a password, token or key to a log", unless=_NOT_LOGGED_SECRET),
    # -- access: a second factor or an allow-list checked and refused ----------------------
    _c("access", "code",
       r"(?i)\b(?:if|unless|elif)\b[^\n]*(?:mfa|otp|totp|2fa|two_?factor|second_?factor"
       r"|\bverify_\w+|\bverify[A-Z]\w*)[^\n]*(?:\n[^\n]{0,120}?)?" + _DENIAL,
       "a second-factor (MFA, OTP) or verification check", mode="guard"),
    _c("access", "code",
       r"(?i)\b(?:if|unless|elif)\b[^\n]*(?:is_?allowed\w*|allowed_?hosts|\bALLOWED_\w+"
       r"|allow_?list|white_?list|in_allowlist)[^\n]*(?:\n[^\n]{0,120}?)?" + _DENIAL,
       "an allow-list check", mode="guard"),
    # a fixed password let through by the password check: a backdoor
    _c("access", "code",
       r"(?i:\$?\w*(?:password|passwd|\bpwd|passphrase|\bpass)\w*)\s*(?:===?|\.equals\s*\()\s*"
       r"['\"][^'\"\n]+['\"]\s*\)?\s*(?:\)\s*)?(?:\{|:|then)?\s*(?:\n\s*)?return\s+(?:true|True)\b"
       r"|['\"][^'\"\n]+['\"]\s*===?\s*(?i:\$?\w*(?:password|passwd|\bpwd|passphrase)\w*)\s*"
       r"\)?\s*(?:\{|:|then)?\s*(?:\n\s*)?return\s+(?:true|True)\b"
       r"|(?:\|\||\bor\b)\s*(?i:\$?\w*(?:password|passwd|\bpwd|passphrase)\w*)\s*===?\s*['\"]"
       r"[^'\"\n]+['\"]|(?i:\$?\w*(?:password|passwd|\bpwd|passphrase)\w*)\s*===?\s*['\"]"
       r"[^'\"\n]+['\"]\s*(?:\|\||\bor\b)",
       "lets a fixed password through the password check (a backdoor)"),
    # -- infra: open security rules (Firebase, Postgres row-level security) ----------------
    _c("infra", "config",
       r"\ballow\s+(?:[\w]+\s*,\s*)*(?:write|create|update|delete)\b(?:\s*,\s*\w+)*\s*(?::\s*if\s+"
       r"(?:true\b|request\.time\s*<\s*timestamp\.date)|;)"
       r"|['\"]\.write['\"]\s*:\s*['\"]?true\b",
       "lets anyone write (Firebase rules allow write: if true)"),
    _c("infra", "sql python javascript go ruby php jvm csharp",
       r"(?i)\bDISABLE\s+ROW\s+LEVEL\s+SECURITY\b|\bNO\s+FORCE\s+ROW\s+LEVEL\s+SECURITY\b",
       "turns row-level security off (DISABLE ROW LEVEL SECURITY)"),
    _c("infra", "sql",
       r"(?i)\bCREATE\s+POLICY\s+(?:\"[^\"]*\"|\w+)\s+ON\s+[\w.\"]+\s+(?:AS\s+\w+\s+)?"
       r"(?:FOR\s+(?:ALL|INSERT|UPDATE|DELETE)\s+)?(?:TO\s+[\w\s,]+?\s+)?(?:USING|WITH\s+CHECK)"
       r"\s*\(\s*true\s*\)",
       "lets every role write every row (a policy USING (true))"),
    # -- release: the gates a change passes before it reaches production --------------------
    _c("release", "config",
       r"(?mi)^\s*environment:\s*['\"]?(?:prod\w*|live|release)\b"
       r"|(?mi)^\s*environment:\s*\n\s+name:\s*['\"]?(?:prod\w*|live|release)\b",
       "the production environment (its required approvals)", mode="guard"),
    _c("release", "config", r"(?mi)^\s*when:\s*['\"]?manual\b",
       "a manual approval (when: manual)", mode="guard"),
    _c("release", "config", r"(?mi)^\s*(?:-\s*)?(?:dependsOn|needs):\s*\S",
       "a dependency on earlier stages (dependsOn / needs)", mode="guard"),
    _c("release", "config", r"(?mi)^\s*condition:\s*['\"]?(?:always\(\)|true\b)",
       "runs the stage whatever happened before it (condition: always())"),
    _c("release", "config",
       r"(?m)^\s*(?:on:\s*\[?[^\n]*\bpull_request_target\b|-?\s*pull_request_target\s*:?\s*$)",
       "runs pull requests' code with the repository's secrets (pull_request_target)"),
    _c("release", "config", r"(?m)^\s*permissions:\s*['\"]?write-all\b",
       "grants the workflow token every write permission (write-all)"),
    _c("release", "config", r"(?m)^\s*-?\s*package-ecosystem:\s*\S",
       "a dependabot update ecosystem", mode="guard"),
    _c("release", "owners", r"(?m)^\s*[^#\s]\S*\s+@\S",
       "a code owner rule", mode="guard"),
    # a CI job that sends its own token out
    _c("release", "config",
       r"(?i)(?:System\.AccessToken|SYSTEM_ACCESSTOKEN|GITHUB_TOKEN|github\.token|CI_JOB_TOKEN"
       r"|secrets\.\w+|ACTIONS_RUNTIME_TOKEN|NPM_TOKEN)[^\n]*\b(?:base64|xxd|openssl\s+enc)\b"
       r"[^\n]*\b(?:curl|wget|nc|ncat|Invoke-WebRequest|Invoke-RestMethod|iwr|irm)\b",
       "encodes the pipeline's token and sends it out"),
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class _Pair:
    """Two constructs that are a weakening together: ``first`` with ``second`` in the text
    after the change, one of them added by it."""

    languages: frozenset[Language]
    first: re2._Regexp
    second: re2._Regexp
    words: str


def _pair(languages: str, first: str, second: str) -> _Pair:
    return _Pair(
        frozenset(languages.split()),  # type: ignore[arg-type]
        re2.compile(first),
        re2.compile(second),
        "allows any origin with credentials (CORS)",
    )


# Token checks: the verifying call lost (``first``) and a decoding one gained (``second``).
_SWAPS: Final[tuple[_Pair, ...]] = (
    _Pair(
        frozenset({"javascript"}),
        re2.compile(r"\bjwt\.verify\s*\(|\bjwtVerify\s*\(|\bverifyJwt\s*\(|\bverifyToken\s*\("),
        re2.compile(r"\bjwt\.decode\s*\(|\bdecodeJwt\s*\(|\bjwtDecode\s*\(|\bjwt_decode\s*\("),
        "decodes tokens without verifying them (a verify call replaced by decode)",
    ),
    _Pair(
        frozenset({"python"}),
        re2.compile(r"\bjwt\.decode\s*\(|\bjws\.verify\s*\("),
        re2.compile(r"\bget_unverified_claims\s*\(|\bdecode_unverified\s*\("),
        "reads token claims without verifying them (get_unverified_claims)",
    ),
    _Pair(
        frozenset({"jvm"}),
        re2.compile(
            r"\bJWT\.require\s*\(|\.parseClaimsJws\s*\(|\.parseSignedClaims\s*\("
            r"|\.verifyWith\s*\(|\.setSigningKey\s*\("
        ),
        re2.compile(r"\bJWT\.decode\s*\(|\.parseClaimsJwt\s*\(|\.parseUnsecuredClaims\s*\("),
        "decodes tokens without verifying them (a verify call replaced by decode)",
    ),
)

# CORS: any origin (``*``, ``true``, the request's own) with credentials.
_CORS: Final[tuple[_Pair, ...]] = (
    _pair(
        "javascript",
        r"(?i)\borigin['\"]?\s*:\s*(?:['\"`]\*['\"`]|true\b)"
        # a function that admits every origin: ``origin: (o, cb) => cb(null, true)``
        r"|\borigin['\"]?\s*:\s*(?:async\s*)?(?:\(\s*\w*\s*(?:,\s*\w+\s*)?\)\s*=>\s*\{?\s*"
        r"(?:return\s+)?|function\s*\w*\s*\(\s*\w*\s*(?:,\s*\w+\s*)?\)\s*\{\s*(?:return\s+)?)"
        r"(?:\w+\s*\(\s*null\s*,\s*(?:true|origin|o|requestOrigin)\s*\)|true\b)"
        r"|Access-Control-Allow-Origin['\"]\s*,\s*(?:['\"`]\*['\"`]|req\.headers\.origin"
        r"|req\.header\(\s*['\"]origin|req\.get\(\s*['\"]origin|request\.headers\.get\(\s*['\"]origin)",
        r"(?i)\bcredentials['\"]?\s*:\s*true\b|Access-Control-Allow-Credentials['\"]\s*,\s*['\"`]?true",
    ),
    _pair(
        "python",
        r"\bCORS_(?:ORIGIN_ALLOW_ALL|ALLOW_ALL_ORIGINS)\s*=\s*True\b"
        r"|\b(?:origins|allow_origins|resources)\s*=\s*(?:['\"]\*['\"]|\[\s*['\"]\*['\"]\s*\])"
        r"|\ballow_origin_regex\s*=\s*r?['\"]\.\*"
        r"|(?i:Access-Control-Allow-Origin)['\"]\]?\s*[=,:]\s*(?:['\"]\*['\"]|request\.headers)",
        r"\bCORS_ALLOW_CREDENTIALS\s*=\s*True\b|\b(?:supports_credentials|allow_credentials)\s*=\s*True\b"
        r"|(?i:Access-Control-Allow-Credentials)['\"]\]?\s*[=,:]\s*['\"]true",
    ),
    _pair(
        "go",
        r"\bAllowAllOrigins\s*:\s*true\b|\bAllow(?:ed)?Origins\s*:\s*\[\]string\s*\{\s*\"\*\""
        r"|\bAllowOriginFunc\s*:\s*func\s*\([^)]*\)\s*bool\s*\{\s*return\s+true"
        r"|(?i:Access-Control-Allow-Origin)\"\s*,\s*(?:\"\*\"|r\.Header\.Get\(\s*\"Origin)",
        r"\bAllowCredentials\s*:\s*true\b|(?i:Access-Control-Allow-Credentials)\"\s*,\s*\"true",
    ),
    _pair(
        "jvm",
        r"\ballowedOrigins\s*\(\s*\"\*\"\s*\)|\ballowedOriginPatterns\s*\(\s*\"\*\"\s*\)"
        r"|\bsetAllowedOrigin(?:Pattern)?s\s*\(\s*(?:List\.of|Arrays\.asList|listOf|"
        r"Collections\.singletonList)\s*\(\s*\"\*\"\s*\)\s*\)|\baddAllowedOrigin(?:Pattern)?\s*\(\s*\"\*\""
        r"|@CrossOrigin\s*\(\s*(?:origins\s*=\s*)?\"\*\"",
        r"\b(?:set)?[aA]llowCredentials\s*\(\s*true\s*\)|\ballowCredentials\s*=\s*\"true\"",
    ),
    _pair(
        "rust",
        r"\ballow_origin\s*\(\s*(?:Any|cors::Any|AllowOrigin::any\(\)|AllowOrigin::mirror_request\(\))",
        r"\ballow_credentials\s*\(\s*true\s*\)",
    ),
    _pair("ruby", r"\borigins\s+['\"]\*['\"]", r"\bcredentials:\s*true\b"),
    _pair(
        "php",
        r"['\"]allowed_origins['\"]\s*=>\s*\[\s*['\"]\*['\"]",
        r"['\"]supports_credentials['\"]\s*=>\s*true\b",
    ),
    _pair(
        "csharp",
        r"\.AllowAnyOrigin\s*\(\s*\)|\.SetIsOriginAllowed\s*\(\s*\w+\s*=>\s*true\s*\)",
        r"\.AllowCredentials\s*\(\s*\)",
    ),
    _pair(
        "config",
        r"(?i)allowed[-_]?origins['\"]?\s*[:=]\s*\[?\s*['\"]?\*",
        r"(?i)allow[-_]?credentials['\"]?\s*[:=]\s*['\"]?true\b",
    ),
)

_ALLOWED_ANY_HOST: Final = re2.compile(r"\bALLOWED_HOSTS\s*[+]?=\s*[\[(]\s*['\"]\*['\"]")
# Debugging switched on, in a settings file named for production.
_PRODUCTION_FILE: Final = re2.compile(r"(?i)(?:^|[/._-])(?:prod|production|live)(?:[/._-]|$)")
_NOT_PRODUCTION_FILE: Final = re2.compile(
    r"(?i)(?:^|[/._-])(?:dev|devel|development|local|test|tests|testing|ci|example|sample)"
    r"(?:[/._-]|$)"
)
_DEBUG_ON: Final[dict[Language, re2._Regexp]] = {
    "python": re2.compile(r"(?m)^\s*(?:TEMPLATE_)?DEBUG\s*=\s*True\b"),
    "config": re2.compile(
        r"(?mi)^\s*['\"]?(?:app_|flask_|django_)?debug['\"]?\s*[:=]\s*['\"]?(?:true|1|on|yes)\b"
    ),
    "ruby": re2.compile(r"\bconsider_all_requests_local\s*=\s*true\b"),
    "php": re2.compile(r"['\"]debug['\"]\s*=>\s*true\b"),
}

# Guards at a wider level, or definitions, whose change excuses a guard removed elsewhere.
_DEFINITION: Final = re2.compile(
    r"(?m)^\s*(?:async\s+def|def|class|function|fun|func|fn)\s+\w"
    r"|\.(?:get|post|put|patch|delete|all|route)\s*\(\s*['\"`/]"
    r"|^\s*(?:public|private|protected)\s+[\w<>\[\], ]+\s+\w+\s*\("
)


@dataclass(frozen=True, slots=True)
class Finding:
    """One safeguard a change takes out: its class, and what the change does, in words."""

    safeguard: Safeguard
    what: str
    severe: bool = False  # clearly malicious, not a mistake: the kind blocks


# Per language, every construct in one pattern: most texts match none, and one pass says so.
def _chunks(patterns: list[str], limit: int = 3000) -> tuple[re2._Regexp, ...]:
    """Alternations of ``patterns`` of at most ``limit`` characters each: one alternation
    of them all outgrows RE2's DFA memory and falls back to a slow engine."""
    chunks: list[list[str]] = [[]]
    for pattern in patterns:
        if chunks[-1] and sum(map(len, chunks[-1])) + len(pattern) > limit:
            chunks.append([])
        chunks[-1].append(f"(?:{pattern})")
    return tuple(re2.compile("|".join(chunk)) for chunk in chunks if chunk)


@lru_cache(maxsize=len(LANGUAGES))
def _any(language: Language) -> tuple[re2._Regexp, ...] | None:
    """The alternations of ``language``'s constructs (None: it has none), compiled on the
    first text of that language (about 30 ms for them all, which a process that judges no
    write of that language never pays)."""
    patterns = [c.pattern.pattern for c in _CONSTRUCTS if language in c.languages]
    return _chunks(patterns) if patterns else None


_NONE: Final = (0,) * len(_CONSTRUCTS)


@lru_cache(maxsize=16)
def _counts(text: str, language: Language) -> tuple[int, ...]:
    """How many times each construct of :data:`_CONSTRUCTS` occurs in ``text`` (0 for one
    of another language), remembered: the entries of a pack read the same write."""
    code = _code(text, language)
    every = _any(language)
    if every is None or not any(chunk.search(code) for chunk in every):
        return _NONE
    counts = []
    for construct in _CONSTRUCTS:
        if language not in construct.languages:
            counts.append(0)
            continue
        counts.append(_count(construct.pattern, code, construct.unless))
    return tuple(counts)


def _count(pattern: re2._Regexp, code: str, unless: re2._Regexp | None = None) -> int:
    total = 0
    for match in pattern.finditer(code):
        if unless is not None:
            start = code.rfind("\n", 0, match.start()) + 1
            end = code.find("\n", match.end())
            if unless.search(code[start : end if end >= 0 else len(code)]):
                continue
        total += 1
    return total


def guards_in(text: str, language: Language) -> int:
    """How many access guards ``text`` holds (a file whose earlier text is unknown)."""
    counts = _counts(text, language)
    return sum(
        n
        for n, construct in zip(counts, _CONSTRUCTS, strict=True)
        if construct.mode == "guard" and construct.safeguard == "access"
    )


def guard_added(path: str, before: str, after: str) -> bool:
    """Whether the change of ``path`` adds an access guard (for a change of many files: a
    guard removed from one file may have moved to another)."""
    language = language_of(path)
    if language is None:
        return False
    was, now = _counts(before, language), _counts(after, language)
    return any(
        a > b
        for construct, b, a in zip(_CONSTRUCTS, was, now, strict=True)
        if construct.safeguard == "access" and construct.mode in ("guard", "wide")
    )


def taken_out(
    path: str,
    before: str,
    after: str,
    safeguards: Sequence[Safeguard],
    *,
    guard_added_elsewhere: bool = False,
) -> list[Finding]:
    """What the change of ``path`` from ``before`` to ``after`` takes out, per class asked
    for ("" before: a new file, or one whose earlier text is unknown).
    ``guard_added_elsewhere``: another file of the same change adds an access guard."""
    language = language_of(path)
    if language is None:
        return []
    wanted = frozenset(safeguards)
    if language == "ignore":
        exposed = unignored(before, after) if "ignored" in wanted else []
        if not exposed:
            return []
        shown = ", ".join(exposed[:4]) + (" and more" if len(exposed) > 4 else "")
        return [Finding("ignored", f"stops ignoring credential files (such as {shown})")]
    if language == "ssh":
        scopes = checks_off(before, after) if "host_key" in wanted else []
        return [Finding("host_key", f"turns SSH host-key checking off {scope}") for scope in scopes]
    if "release" in wanted and _CI_FILE.search(path) is None:
        wanted = wanted - {"release"}
    was, now = _counts(before, language), _counts(after, language)
    found: list[Finding] = []
    said: set[str] = set()
    guards_lost: dict[Safeguard, list[str]] = {}
    kept_lost: list[str] = []
    kept_most = 0  # the most settings of one kind lost
    guard_gained: set[Safeguard] = {"access"} if guard_added_elsewhere else set()
    for construct, b, a in zip(_CONSTRUCTS, was, now, strict=True):
        if construct.safeguard not in wanted or (a == 0 and b == 0):
            continue
        if construct.mode == "wide":
            if a > b:
                guard_gained.add(construct.safeguard)
        elif construct.mode == "guard":
            if a < b:
                guards_lost.setdefault(construct.safeguard, []).append(construct.words)
            elif a > b:
                guard_gained.add(construct.safeguard)
        elif construct.mode == "kept":
            if a < b:
                kept_lost.append(construct.words)
                kept_most = max(kept_most, b - a)
        elif (
            a > b
            and construct.words not in said
            and not _excused(construct, path, _loopback_lost(language, before, after))
        ):
            said.add(construct.words)
            found.append(Finding(construct.safeguard, construct.words, construct.words in _SEVERE))
    for safeguard, lost_words in guards_lost.items():
        if safeguard in guard_gained:
            continue
        code_before, code_after = _code(before, language), _code(after, language)
        gone = _count(_DEFINITION, code_before) - _count(_DEFINITION, code_after)
        lost = sum(
            b - a
            for construct, b, a in zip(_CONSTRUCTS, was, now, strict=True)
            if construct.mode == "guard" and construct.safeguard == safeguard and a < b
        )
        # not the handlers themselves deleted with their guards
        if gone < lost and not (
            gone > 0 and _deleted_with_handlers(code_before, code_after, safeguard, lost)
        ):
            words = ", ".join(dict.fromkeys(lost_words))
            found.append(Finding(safeguard, f"{_GUARD_LOST[safeguard]}: {words}"))
    if kept_lost:
        gone = infra.resources(_code(before, language)) - infra.resources(_code(after, language))
        # not the resources removed with their settings (each holds a setting once)
        if gone < kept_most:
            found.append(Finding("infra", "removes " + ", ".join(dict.fromkeys(kept_lost))))
    if "infra" in wanted:
        found.extend(_infra(path, language, before, after))
    if "access" in wanted and language in _CODE:
        code_before, code_after = _code(before, language), _code(after, language)
        if bypasses(code_after, language) > bypasses(code_before, language):
            found.append(
                Finding(
                    "access",
                    "lets a request past an access check on a value its sender or the "
                    "environment chooses (a header, a query parameter, a cookie, an "
                    "environment flag)",
                )
            )
    if "token" in wanted:
        found.extend(_swapped(language, before, after))
    if "permissive" in wanted:
        found.extend(_permissive(path, language, before, after))
    found.extend(_weakened(language, before, after, wanted))
    return found


# CI/CD pipelines and the repository's review and update rules: where ``release`` is read.
_CI_FILE: Final = re2.compile(
    r"(?i)(?:^|/)(?:\.github/workflows/[^/]+|\.github/actions/.+/action|\.gitlab-ci|\.gitlab/.+"
    r"|azure-pipelines[^/]*|\.azure-pipelines/.+|\.azuredevops/.+|\.circleci/config"
    r"|bitbucket-pipelines|\.buildkite/[^/]+|\.github/dependabot|\.travis|cloudbuild"
    r"|buildspec)\.ya?ml$|(?:^|/)(?:\.github/|docs/|\.gitlab/)?CODEOWNERS$"
)
# Constructs that are an attack, not a weakening (by their words in :data:`_CONSTRUCTS`).
_SEVERE: Final = frozenset(
    {
        "encodes the pipeline's token and sends it out",
        "deserialises request input with pickle (code execution)",
        "parses request input with yaml.load (code execution)",
        "evaluates request input as code (eval/exec)",
        "evaluates request input as code (eval, new Function, vm)",
        "deserialises request input with node-serialize (code execution)",
        "deserialises a request's stream with ObjectInputStream (code execution)",
        "loads or evaluates request input as code (Marshal.load, YAML.load, eval)",
        "deserialises or evaluates request input (unserialize, eval)",
        "lets a fixed password through the password check (a backdoor)",
    }
)
# What losing a guard of each class is, in words.
_GUARD_LOST: Final[dict[Safeguard, str]] = {
    "access": "removes an access check",
    "hardening": "removes a protection",
    "release": "removes a release gate",
}
# Files of a container or a process manager, where listening on every interface is how a
# service is reached (the container's network is the boundary).
_CONTAINER_FILE: Final = re2.compile(
    r"(?i)(?:^|/)(?:Dockerfile[^/]*|[^/]*compose[^/]*|gunicorn[^/]*|uwsgi[^/]*|Procfile"
    r"|entrypoint[^/]*|[^/]*docker[^/]*|k8s/.*|helm/.*|charts/.*|deploy/.*)$"
)


# A server bound to this machine alone.
_LOOPBACK_BIND: Final = re2.compile(
    r"(?i)\b(?:host|hostname|bind|listen|addr|address|Listen|ListenAndServe|run)\b['\"]?\s*"
    r"[=:,(]\s*['\"](?:127\.0\.0\.1|localhost|::1|\[::1\])"
)


def _excused(construct: _Construct, path: str, local_lost: bool = False) -> bool:
    """An added construct that is how the file is meant to be (a container listening on
    every interface; debugging in a config transform for debug builds)."""
    if construct.safeguard == "cookie":
        # a development or test settings file may send its cookies over plain HTTP
        return _NOT_PRODUCTION_FILE.search(path) is not None
    if construct.safeguard != "hardening":
        return False
    if construct.words.startswith("binds"):
        # a container listens on every interface; elsewhere only a bind that was this
        # machine's alone and is no longer counts (a new service's ``:8080`` is not judged)
        return _CONTAINER_FILE.search(path) is not None or not local_lost
    return construct.languages == frozenset({"xml"}) and (
        _NOT_PRODUCTION_FILE.search(path) is not None
        or re2.search(r"(?i)debug", path.rsplit("/", 1)[-1]) is not None
    )


def _deleted_with_handlers(before: str, after: str, safeguard: Safeguard, lost: int) -> bool:
    """Whether the lines the change takes out hold a handler's definition and every guard
    of ``safeguard`` it lost (a view deleted with its decorator and its inline check)."""
    left = Counter(after.splitlines())
    removed: list[str] = []
    for line in before.splitlines():
        if left[line] > 0:
            left[line] -= 1
        else:
            removed.append(line)
    text = "\n".join(removed)
    if not text or _DEFINITION.search(text) is None:
        return False
    held = sum(
        _count(c.pattern, text, c.unless)
        for c in _CONSTRUCTS
        if c.mode == "guard" and c.safeguard == safeguard
    )
    return held >= lost


def _loopback_lost(language: Language, before: str, after: str) -> bool:
    """Whether the change takes away a bind to this machine alone (127.0.0.1, localhost)."""
    if language not in _CODE:
        return False
    was = _count(_LOOPBACK_BIND, _code(before, language))
    return was > 0 and _count(_LOOPBACK_BIND, _code(after, language)) < was


_INFRA_LANGUAGES: Final = frozenset({"hcl", "config", "javascript", "python"})


def _infra(path: str, language: Language, before: str, after: str) -> list[Finding]:
    """Infrastructure safeguards read with their surroundings (:mod:`.infra`)."""
    if language not in _INFRA_LANGUAGES:
        return []
    was, now = _code(before, language), _code(after, language)
    yaml = language == "config" and path.lower().endswith((".yml", ".yaml"))
    found: list[Finding] = []
    if infra.world_ingress(now, yaml) > infra.world_ingress(was, yaml):
        found.append(
            Finding(
                "infra",
                "admits the whole internet (0.0.0.0/0 or ::/0) inbound to a port that is not "
                "a web port (80, 443), or to ports it does not give",
            )
        )
    if infra.public_principals(now, yaml) > infra.public_principals(was, yaml):
        found.append(Finding("infra", 'allows any principal ("*") in a resource policy'))
    if infra.admin_policies(now, yaml) > infra.admin_policies(was, yaml):
        found.append(
            Finding(
                "infra",
                'grants every action on every resource (Action "*" on Resource "*", '
                "or an administrator's policy or role)",
            )
        )
    if yaml:
        if infra.privileged_containers(now) > infra.privileged_containers(was):
            found.append(Finding("infra", "runs a container privileged (privileged: true)"))
        if infra.open_bindings(now) > infra.open_bindings(was):
            found.append(
                Finding(
                    "infra",
                    "binds a role to anonymous users, or cluster-admin to every "
                    "authenticated user or service account",
                )
            )
    return found


def _swapped(language: Language, before: str, after: str) -> list[Finding]:
    """A verifying call replaced by one that does not verify, in the same change."""
    swaps = [swap for swap in _SWAPS if language in swap.languages]
    if not swaps:
        return []
    code_before, code_after = _code(before, language), _code(after, language)
    for swap in swaps:
        if _count(swap.first, code_after) < _count(swap.first, code_before) and _count(
            swap.second, code_after
        ) > _count(swap.second, code_before):
            return [Finding("token", swap.words)]
    return []


@dataclass(frozen=True, slots=True)
class _Swap:
    """A protective call lost (``first``) while a weaker one is gained (``second``), or,
    with ``kept``, while ``second`` stays in the text after the change."""

    safeguard: Safeguard
    first: re2._Regexp
    second: re2._Regexp
    words: str
    kept: bool = False


_CODE_CALL: Final = r"(?:^|[^\w.$>:])"
_WEAKENINGS: Final[tuple[_Swap, ...]] = (
    _Swap(
        "exec",
        re2.compile(
            r"\b(?:safe_eval|literal_eval|simple_eval|SimpleEval|safeEval|evaluate_expression"
            r"|expr_eval|numexpr\.evaluate|math\.evaluate|jsep|expression_?parser)\w*\s*\("
        ),
        re2.compile(_CODE_CALL + r"(?:eval|exec|new\s+Function|Function)\s*\(\s*[A-Za-z_$]"),
        "replaces a safe evaluator by eval (code execution)",
    ),
    _Swap(
        "randomness",
        re2.compile(
            r"\bsecrets\.\w+\s*\(|\bSystemRandom\b|\brandomBytes\s*\(|\bgetRandomValues\s*\("
            r"|\brandomUUID\s*\(|\bSecureRandom\b|\brandom_bytes\s*\(|\brandom_int\s*\("
            r"|\bcrypto/rand\b|\bRandomNumberGenerator\b|\bos\.urandom\s*\(|\bopenssl_random"
        ),
        re2.compile(_WEAK_RANDOM),
        "replaces a cryptographic random source by a predictable one",
    ),
    _Swap(
        "escaping",
        re2.compile(
            r"\bDOMPurify\.sanitize\s*\(|\bsanitize(?:Html|HTML|_html)?\s*\(|\bbleach\.clean\s*\("
            r"|\bnh3\.clean\s*\(|\bhtml\.escape\s*\(|\bescape(?:Html|HTML|_html)\s*\("
            r"|\bhtmlspecialchars\s*\(|\bhtmlentities\s*\(|\bHtmlEncode\s*\(|\bxss\s*\("
        ),
        re2.compile(
            r"\bdangerouslySetInnerHTML\b|\.(?:innerHTML|outerHTML)\s*\+?=|\bv-html\b"
            r"|\bmark_safe\s*\(|\bMarkup\s*\(|\|\s*safe\b|\.html_safe\b|\{!!|\bhtml\s*\(\s*\w"
            r"|\bdocument\.write\s*\(|\binsertAdjacentHTML\s*\(|\becho\s"
        ),
        "removes the sanitizer of a value still rendered as raw HTML",
        kept=True,
    ),
    _Swap(
        "traversal",
        re2.compile(
            r"(?i)\b(?:secure_filename|safe_join|basename|filepath\.(?:Base|Clean)"
            r"|Path\.GetFileName|FilenameUtils\.getName|sanitize_?filename|realpath"
            r"|getCanonicalPath|is_relative_to|commonpath)\s*\("
            r"|\b(?:startswith|startsWith|HasPrefix|StartsWith|start_with\?)\s*\([^\n]*(?i:base"
            r"|root|dir|upload|static|media|allowed|safe)"
        ),
        re2.compile(
            r"(?:\bos\.path\.join|\bpath\.(?:join|resolve)|\bfilepath\.Join|\bPaths?\.(?:get|of)"
            r"|\bPath\.Combine|\bFile\.join|\bnew\s+File|\bsend_file|\bsend_from_directory"
            r"|\bsendFile|\bres\.download|\breadFile(?:Sync)?|\bcreateReadStream|\bfopen"
            r"|\bfile_get_contents|\bos\.(?:Open|ReadFile|Remove)|\bhttp\.ServeFile"
            r"|" + _CODE_CALL + r"open)\s*\([^\n]*[A-Za-z_$][\w$]*\s*[),]"
        ),
        "removes a path guard (secure_filename, basename, a realpath prefix check) before a "
        "file is opened (path traversal)",
        kept=True,
    ),
)


def _weakened(
    language: Language, before: str, after: str, wanted: frozenset[Safeguard]
) -> list[Finding]:
    """A protective call taken out while the weaker or unguarded form is added or stays."""
    if language not in _CODE and language != "template":
        return []
    swaps = [swap for swap in _WEAKENINGS if swap.safeguard in wanted]
    if not swaps:
        return []
    code_before, code_after = _code(before, language), _code(after, language)
    found: list[Finding] = []
    for swap in swaps:
        if _count(swap.first, code_after) >= _count(swap.first, code_before):
            continue
        then, now = _count(swap.second, code_before), _count(swap.second, code_after)
        # (kept: not when handlers were deleted with their guards)
        if now > then or (
            swap.kept
            and now > 0
            and _count(_DEFINITION, code_after) >= _count(_DEFINITION, code_before)
        ):
            found.append(Finding(swap.safeguard, swap.words))
    return found


def _permissive(path: str, language: Language, before: str, after: str) -> list[Finding]:
    found: list[Finding] = []
    code_before: str | None = None
    code_after: str | None = None
    for pair in _CORS:
        if language not in pair.languages:
            continue
        code_before = _code(before, language) if code_before is None else code_before
        code_after = _code(after, language) if code_after is None else code_after
        first_a, second_a = _count(pair.first, code_after), _count(pair.second, code_after)
        if not first_a or not second_a:
            continue
        first_b, second_b = _count(pair.first, code_before), _count(pair.second, code_before)
        if first_a > first_b or second_a > second_b:
            found.append(Finding("permissive", pair.words))
            break
    if language == "python" and not _NOT_PRODUCTION_FILE.search(path):
        code_before = _code(before, language) if code_before is None else code_before
        code_after = _code(after, language) if code_after is None else code_after
        if _count(_ALLOWED_ANY_HOST, code_after) > _count(_ALLOWED_ANY_HOST, code_before):
            found.append(Finding("permissive", "sets ALLOWED_HOSTS = ['*'] (any Host header)"))
    debug = _DEBUG_ON.get(language)
    if (
        debug is not None
        and _PRODUCTION_FILE.search(path)
        and not _NOT_PRODUCTION_FILE.search(path)
    ):
        code_before = _code(before, language) if code_before is None else code_before
        code_after = _code(after, language) if code_after is None else code_after
        if _count(debug, code_after) > _count(debug, code_before):
            found.append(Finding("permissive", "switches debugging on in production settings"))
    return found
