"""The built-in specialist kinds.

Each module is a plugin that registers its kinds through the ``supervisor.plugins``
entry-point group, exactly as a third-party package would:

- ``regex`` (:mod:`specialists.regex`): linear-time (RE2) patterns over an action's fields,
  with exemptions.
- ``domain`` (:mod:`specialists.domain`): an allowlist and a denylist of registrable domains
  for URLs, hosts and email addresses, resolved offline with the Public Suffix List.
- ``http_check`` (:mod:`specialists.http_check`): a cited URL resolves and the quoted text
  appears in the page, every fetch recorded for replay.
- ``budget`` (:mod:`specialists.budget`): per-session action budgets and repeated failing
  actions, answered by the store.
- ``sql`` (:mod:`specialists.sql`): sqlglot over SQL actions and SQL in shell commands:
  destructive DDL, unbounded writes, stacked statements, grants, production targets.
- ``sql_state`` (:mod:`specialists.sql_state`): a parameterised, read-only query against the
  deployment's own database, its rows and the clock recorded for replay.
- ``shell`` (:mod:`specialists.shell`): declarative rules over what a shell command really
  runs, through :mod:`specialists.shellparse` (pipelines, ``sh -c``, ``eval``, prefixes,
  variables, decoded payloads, one-liners).
- ``git`` (:mod:`specialists.git`): force pushes to protected branches, discarding
  uncommitted work, history rewrites, hook bypass.
- ``path`` (:mod:`specialists.path`): workspace scope and sensitive paths, for file actions
  and for every path a shell command touches.
- ``allowlist`` (:mod:`specialists.allowlist`): exact-value allowlists and denylists over
  named argument fields (IBANs, email addresses, hosts, ids), normalised per value type.
- ``provenance`` (:mod:`specialists.provenance`): each sink argument (recipient, account,
  URL, amount, file, invitee) traced to the user's request, the deployment's records or
  third-party content, as typed tokens (:mod:`specialists.valuetokens`).
- ``instruction_relay`` (:mod:`specialists.relay`): an answer or message that carries what
  a passage of third-party content addressed to the assistant told it to say (its names,
  typed values or wording).
- ``python_ast`` (:mod:`specialists.python_ast`): what a Python write or edit changes: tests
  removed or skipped, assertions weakened, special-cased test inputs, eval/exec on input,
  shell injection, TLS verification turned off, secrets in literals.
- ``test_integrity`` (:mod:`specialists.test_integrity`): tests removed, skipped, focused
  away or weakened by a write, edit, diff or delete, in Python (the ``python_ast`` logic),
  JavaScript/TypeScript, Go, Rust and Java (tree-sitter readers in
  :mod:`specialists.testread`).
- ``package_install`` (:mod:`specialists.package_install`): installs from untrusted sources,
  unpinned URLs, and names a short edit distance from a popular package (offline lists).
- ``removal`` (:mod:`specialists.removal`): what a write, edit or delete takes out of a file
  (named patterns with fewer matches afterwards).
- ``gates`` (:mod:`specialists.gates`): what a change does to a project's checks (CI, Makefile,
  package.json scripts, tox, coverage, test-runner and type-checker settings): check commands
  removed or commented out, jobs switched off, failures masked, coverage floors lowered,
  tests deselected by configuration, type checking loosened.
- ``production_change`` (:mod:`specialists.production_change`): a deploy, apply, scale, DNS
  change or charge whose target reads as production, from a session that is not production
  (where it lands: :mod:`specialists.understand.landings`).
- ``secrets`` (:mod:`specialists.secrets`): known key formats and high-entropy tokens in
  commands, file contents, URLs, HTTP bodies and headers; never echoes the secret.
"""
