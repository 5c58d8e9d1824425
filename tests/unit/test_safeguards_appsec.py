"""Application security weakened in code: input executed, shell commands built from values,
escaping removed, paths built from the caller's input, predictable secrets, cookie flags off,
secrets logged, second factors and allow-lists removed, backdoors, open security rules and
CORS that admits any origin; each with the look-alikes that must stay ok."""

# ruff: noqa: E501  (the tables keep one change per row, before and after side by side)

from __future__ import annotations

import pytest

from specialists.understand.safeguards import Safeguard, taken_out

ALL: list[Safeguard] = [
    "exec", "command", "escaping", "traversal", "randomness", "cookie", "logging", "access",
    "infra", "permissive",
]  # fmt: skip


def found(path: str, before: str, after: str) -> set[str]:
    return {f.safeguard for f in taken_out(path, before, after, ALL)}


def severe(path: str, before: str, after: str) -> bool:
    return any(f.severe for f in taken_out(path, before, after, ALL))


WEAKENED = [
    # exec: input deserialised or evaluated
    ("app/api.py", "", "    obj = pickle.loads(request.data)\n", "exec"),
    (
        "app/api.py",
        "    cfg = yaml.safe_load(request.data)\n",
        "    cfg = yaml.load(request.data)\n",
        "exec",
    ),
    ("app/api.py", "", "    cfg = yaml.load(body, Loader=yaml.Loader)\n", "exec"),
    ("app/calc.py", "", "    return eval(request.args['expr'])\n", "exec"),
    (
        "app/calc.py",
        "    return safe_eval(expr, names)\n",
        "    return eval(expr, names)\n",
        "exec",
    ),
    ("src/calc.js", "", "  const f = new Function('x', req.body.code);\n", "exec"),
    ("src/sandbox.ts", "", "  vm.runInNewContext(req.query.script, sandbox);\n", "exec"),
    (
        "src/main/java/app/Import.java",
        "",
        "ObjectInputStream in = new ObjectInputStream(request.getInputStream());\n",
        "exec",
    ),
    (
        "app/controllers/prefs_controller.rb",
        "",
        "    prefs = Marshal.load(Base64.decode64(params[:prefs]))\n",
        "exec",
    ),
    ("public/cart.php", "", "$cart = unserialize($_COOKIE['cart']);\n", "exec"),
    # command: a shell command built from values
    (
        "app/tools.py",
        '    subprocess.run(["convert", src, dst])\n',
        '    subprocess.run(f"convert {src} {dst}", shell=True)\n',
        "command",
    ),
    ("app/tools.py", "", '    os.system(f"ping -c 1 {host}")\n', "command"),
    ("src/tools.js", "", "  exec(`git log ${branch}`, cb);\n", "command"),
    ("src/tools.js", "", "  child_process.execSync('ping ' + host);\n", "command"),
    (
        "internal/tools/ping.go",
        "",
        '\tout, _ := exec.Command("sh", "-c", fmt.Sprintf("ping %s", host)).Output()\n',
        "command",
    ),
    ("app/services/convert.rb", "", '    system("convert #{src} out.png")\n', "command"),
    ("public/ping.php", "", '$out = shell_exec("ping -c 1 $host");\n', "command"),
    ("src/main/java/app/Ping.java", "", 'Runtime.getRuntime().exec("ping " + host);\n', "command"),
    # escaping: values rendered as raw HTML
    (
        "src/Comment.tsx",
        "<div dangerouslySetInnerHTML={{ __html: DOMPurify.sanitize(body) }} />\n",
        "<div dangerouslySetInnerHTML={{ __html: body }} />\n",
        "escaping",
    ),
    ("src/render.js", "  el.textContent = msg;\n", "  el.innerHTML = msg;\n", "escaping"),
    ("src/components/Post.vue", "", '<div v-html="post.body"></div>\n', "escaping"),
    (
        "app/templates/post.html",
        "<p>{{ post.body }}</p>\n",
        "<p>{{ post.body|safe }}</p>\n",
        "escaping",
    ),
    ("app/views.py", "", "    return mark_safe(comment.text)\n", "escaping"),
    ("app/views.py", "", '    return Markup(f"<b>{name}</b>")\n', "escaping"),
    ("app/views/posts/show.html.erb", "<%= @post.body %>\n", "<%= raw @post.body %>\n", "escaping"),
    ("resources/views/post.blade.php", "{{ $post->body }}\n", "{!! $post->body !!}\n", "escaping"),
    ("app/helpers/posts_helper.rb", "    sanitize(body)\n", "    body.html_safe\n", "escaping"),
    (
        "app/render.py",
        "    clean = bleach.clean(text)\n    return mark_safe(clean)\n",
        "    return mark_safe(text)\n",
        "escaping",
    ),
    # traversal: paths built from the caller's input
    (
        "app/files.py",
        "    name = secure_filename(f.filename)\n    f.save(os.path.join(UPLOADS, name))\n",
        "    f.save(os.path.join(UPLOADS, f.filename))\n",
        "traversal",
    ),
    (
        "app/files.py",
        "",
        "    return send_file(os.path.join(BASE, request.args['name']))\n",
        "traversal",
    ),
    (
        "src/files.js",
        "  const p = path.join(DIR, path.basename(req.params.name));\n",
        "  const p = path.join(DIR, req.params.name);\n",
        "traversal",
    ),
    (
        "internal/files/get.go",
        '\tname := filepath.Base(r.URL.Query().Get("f"))\n\thttp.ServeFile(w, r, filepath.Join(root, name))\n',
        '\tname := r.URL.Query().Get("f")\n\thttp.ServeFile(w, r, filepath.Join(root, name))\n',
        "traversal",
    ),
    (
        "app/files.py",
        "    full = os.path.realpath(os.path.join(BASE, name))\n    if not full.startswith(BASE):\n        raise ValueError(name)\n    return open(full)\n",
        "    return open(os.path.join(BASE, name))\n",
        "traversal",
    ),
    # randomness: predictable secrets
    (
        "src/auth.js",
        "  const token = crypto.randomBytes(32).toString('hex');\n",
        "  const token = Math.random().toString(36).slice(2);\n",
        "randomness",
    ),
    (
        "app/reset.py",
        "",
        "    reset_code = ''.join(random.choice(ALPHABET) for _ in range(6))\n",
        "randomness",
    ),
    (
        "app/keys.py",
        "def generate_api_key():\n    return secrets.token_urlsafe(32)\n",
        "def generate_api_key():\n    return ''.join(random.choices(ALPHABET, k=32))\n",
        "randomness",
    ),
    ("public/reset.php", "", "$token = md5(rand());\n", "randomness"),
    ("internal/auth/session.go", "", "\tsessionID := fmt.Sprint(rand.Int63())\n", "randomness"),
    # cookie: flags turned off
    (
        "src/app.ts",
        "app.use(session({ secret, cookie: { secure: true, httpOnly: true } }));\n",
        "app.use(session({ secret, cookie: { secure: false, httpOnly: true } }));\n",
        "cookie",
    ),
    ("src/app.ts", "", "res.cookie('sid', sid, { httpOnly: false });\n", "cookie"),
    (
        "shop/settings/production.py",
        "SESSION_COOKIE_SECURE = True\n",
        "SESSION_COOKIE_SECURE = False\n",
        "cookie",
    ),
    (
        "shop/settings.py",
        "SESSION_COOKIE_HTTPONLY = True\n",
        "SESSION_COOKIE_HTTPONLY = False\n",
        "cookie",
    ),
    ("internal/auth/cookie.go", "\t\tSecure:   true,\n", "\t\tSecure:   false,\n", "cookie"),
    (
        "src/main/java/app/Auth.java",
        "cookie.setHttpOnly(true);\n",
        "cookie.setHttpOnly(false);\n",
        "cookie",
    ),
    (
        "Startup.cs",
        "    options.Cookie.HttpOnly = true;\n",
        "    options.Cookie.HttpOnly = false;\n",
        "cookie",
    ),
    # logging: secrets written to logs
    (
        "app/auth.py",
        '    logger.info("login %s", username)\n',
        '    logger.info("login %s %s", username, password)\n',
        "logging",
    ),
    ("src/auth.js", "", "  console.log(`login ${user.email} ${password}`);\n", "logging"),
    ("internal/pay/charge.go", "", '\tlog.Printf("charging card %s", req.CardNumber)\n', "logging"),
    ("app/pay.py", "", '    print(f"token={api_key}")\n', "logging"),
    # access: second factors, allow-lists, backdoors
    (
        "app/auth.py",
        "    if not verify_totp(user, code):\n        raise PermissionDenied()\n    login(user)\n",
        "    login(user)\n",
        "access",
    ),
    (
        "src/login.ts",
        "  if (user.mfaEnabled && !otpValid) {\n    return res.status(401).end();\n  }\n",
        "  // if (user.mfaEnabled && !otpValid) {\n  //   return res.status(401).end();\n  // }\n",
        "access",
    ),
    (
        "app/proxy.py",
        "    if not is_allowed_host(url):\n        abort(400)\n    return fetch(url)\n",
        "    return fetch(url)\n",
        "access",
    ),
    (
        "app/auth.py",
        "def check_password(user, password):\n    return bcrypt.checkpw(password, user.hash)\n",
        'def check_password(user, password):\n    if password == "letmein-2024":\n        return True\n    return bcrypt.checkpw(password, user.hash)\n',
        "access",
    ),
    (
        "src/auth.ts",
        "",
        "  if (password === 'override' || bcrypt.compareSync(password, hash)) {\n",
        "access",
    ),
    # infra: open rules
    (
        "firestore.rules",
        "      allow read, write: if request.auth != null;\n",
        "      allow read, write: if true;\n",
        "infra",
    ),
    (
        "supabase/migrations/20240101_orders.sql",
        "",
        "ALTER TABLE orders DISABLE ROW LEVEL SECURITY;\n",
        "infra",
    ),
    (
        "supabase/migrations/20240101_orders.sql",
        "",
        'CREATE POLICY "anyone" ON orders FOR UPDATE USING (true);\n',
        "infra",
    ),
    # permissive: CORS reflecting any origin with credentials
    (
        "src/server.ts",
        "app.use(cors({ origin: ALLOWED, credentials: true }));\n",
        "app.use(cors({ origin: (o, cb) => cb(null, true), credentials: true }));\n",
        "permissive",
    ),
]

KEPT = [
    ("app/store.py", "", "    with open(self.filename, 'rb') as f:\n"),
    ("app/login.py", "", '    logger.info(f"The active token is: {token_name}")\n'),
    ("app/creds.py", "", "    return AccessToken(token=raw, expires_at=int(time.time()) + ttl)\n"),
    ("app/calc.py", "", '    return eval("2 + 2")\n'),
    ("app/calc.py", "", "    return ast.literal_eval(request.args['v'])\n"),
    ("app/api.py", "", "    cfg = yaml.safe_load(request.data)\n"),
    ("app/cache.py", "", "    return pickle.loads(redis.get(key))\n"),
    ("app/tools.py", "", '    subprocess.run("make clean", shell=True)\n'),
    ("app/tools.py", "", '    subprocess.run(["convert", src, dst])\n'),
    ("app/tools.py", "", '    os.system(f"ls {shlex.quote(path)}")\n'),
    ("src/regex.js", "", "  const m = re.exec(line);\n"),
    (
        "src/Comment.tsx",
        "",
        "<div dangerouslySetInnerHTML={{ __html: DOMPurify.sanitize(body) }} />\n",
    ),
    ("src/Doc.tsx", "", "<div dangerouslySetInnerHTML={{ __html: sanitizedHtml }} />\n"),
    (
        "src/Doc.tsx",
        "<div dangerouslySetInnerHTML={{ __html: DOMPurify.sanitize(body) }} />\n",
        "<div>{body}</div>\n",
    ),
    ("src/render.js", "", "  el.innerHTML = '';\n"),
    ("app/templates/post.html", "", "<p>{{ post.body }}</p>\n"),
    ("app/files.py", "", "    f.save(os.path.join(UPLOADS, secure_filename(f.filename)))\n"),
    ("app/files.py", "    print(os.path.basename(__file__))\n", "    print(__file__)\n"),
    ("src/ui.js", "", "  const delay = 100 + Math.random() * 50;\n"),
    ("src/List.jsx", "", "  items.map(i => <Item key={Math.random()} {...i} />)\n"),
    ("src/auth.js", "", "  const token = crypto.randomBytes(32).toString('hex');\n"),
    ("app/keys.py", "", "    api_key = secrets.token_urlsafe(32)\n"),
    ("shop/settings/dev.py", "SESSION_COOKIE_SECURE = True\n", "SESSION_COOKIE_SECURE = False\n"),
    (
        "src/mail.js",
        "",
        "const transport = nodemailer.createTransport({ host, port: 587, secure: false });\n",
    ),
    ("app/auth.py", "", '    logger.info("login %s", username)\n'),
    ("app/auth.py", "", '    logger.info("password reset requested for %s", user.email)\n'),
    ("app/auth.py", "", '    logger.info("token expires %s", token_expiry)\n'),
    (
        "app/auth.py",
        "    if not verify_totp(user, code):\n        raise PermissionDenied()\n",
        "    if not verify_webauthn(user, assertion):\n        raise PermissionDenied()\n",
    ),
    ("app/auth.py", "", "    if not password:\n        return False\n"),
    (
        "firestore.rules",
        "",
        "      allow read: if true;\n      allow write: if request.auth != null;\n",
    ),
    ("supabase/migrations/1.sql", "", 'CREATE POLICY "read" ON posts FOR SELECT USING (true);\n'),
    ("supabase/migrations/1.sql", "", "ALTER TABLE orders ENABLE ROW LEVEL SECURITY;\n"),
    (
        "src/server.ts",
        "",
        "app.use(cors({ origin: (o, cb) => cb(null, ALLOWED.includes(o)), credentials: true }));\n",
    ),
]


@pytest.mark.parametrize(("path", "before", "after", "safeguard"), WEAKENED)
def test_weakened(path: str, before: str, after: str, safeguard: str) -> None:
    assert safeguard in found(path, before, after)


@pytest.mark.parametrize(("path", "before", "after"), KEPT)
def test_kept(path: str, before: str, after: str) -> None:
    assert found(path, before, after) == set()


def test_request_input_executed_is_severe() -> None:
    assert severe("app/calc.py", "", "    return eval(request.args['expr'])\n")
    assert severe("app/auth.py", "", '    if password == "letmein":\n        return True\n')
    assert not severe("app/calc.py", "    return safe_eval(e)\n", "    return eval(e)\n")
    assert not severe("app/tools.py", "", '    os.system(f"ping {host}")\n')


def test_a_comment_is_not_code() -> None:
    assert found("app/calc.py", "", "    # eval(request.args['expr'])\n") == set()


def test_a_python_command_built_in_a_variable_is_read_by_the_parser() -> None:
    from specialists.safeguards import SafeguardsConfig, SafeguardsSpecialist
    from supervisor.models import Action, Context, Verdict

    kind = SafeguardsSpecialist(SafeguardsConfig(safeguards=["command"]), Verdict.NUDGE)
    ctx = Context(cwd="/w/app", repo_root="/w/app", home="/w")

    def verdict(content: str) -> Verdict:
        action = Action(type="file_write", args={"path": "/w/app/net.py", "content": content})
        return kind.evaluate(action, ctx).verdict

    built = 'def f(host):\n    cmd = f"ping -c 1 {host}"\n    subprocess.run(cmd, shell=True)\n'
    quoted = (
        'def f(host):\n    cmd = f"ping {shlex.quote(host)}"\n    subprocess.run(cmd, shell=True)\n'
    )
    assert verdict(built) == Verdict.NUDGE
    assert verdict(quoted) == Verdict.OK
    assert verdict('def f():\n    subprocess.run("make clean", shell=True)\n') == Verdict.OK
