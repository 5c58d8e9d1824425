// Keyboard labelling for the review page: no framework, no build step.
(() => {
  "use strict";
  const token = document.querySelector('meta[name="review-token"]').content;
  const rows = Array.from(document.querySelectorAll("article.item"));
  const help = document.getElementById("help");
  const toast = document.getElementById("toast");
  let at = -1;
  let picking = false;

  function say(text) {
    toast.textContent = text;
    toast.classList.add("on");
    clearTimeout(say.timer);
    say.timer = setTimeout(() => toast.classList.remove("on"), 2500);
  }

  function select(index) {
    if (!rows.length) return;
    index = Math.max(0, Math.min(rows.length - 1, index));
    if (rows[at]) rows[at].classList.remove("selected");
    at = index;
    rows[at].classList.add("selected");
    rows[at].focus({ preventScroll: true });
    rows[at].scrollIntoView({ block: "nearest" });
    showPicker(false);
  }

  function showPicker(on) {
    picking = on;
    rows.forEach((row, i) => {
      row.querySelector(".pick").hidden = !(on && i === at);
    });
  }

  async function post(url, body) {
    const response = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Review-Token": token },
      body: JSON.stringify(body),
    });
    let data = {};
    try { data = await response.json(); } catch (e) { data = { error: response.statusText }; }
    if (!response.ok) throw new Error(data.error || response.statusText);
    return data;
  }

  async function label(row, correct, corrected) {
    const note = row.querySelector("input.note");
    const error = row.querySelector(".error");
    error.textContent = "";
    try {
      const data = await post("/label", {
        decision_id: row.dataset.decision,
        entry_id: row.dataset.entry,
        label: correct ? "right" : "wrong",
        corrected: corrected,
        note: note.value || null,
      });
      row.classList.add("labelled");
      row.querySelector("[data-label]").textContent =
        data.label.text + (data.history > 1 ? " (relabelled)" : "");
      const by = row.querySelector("[data-labeller]");
      if (by) by.textContent = data.label.labeller ? `by ${data.label.labeller}` : "";
      note.value = "";
      const entry = data.entry;
      document.querySelectorAll("[data-precision]").forEach((cell) => {
        if (cell.dataset.precision === entry.entry_id) cell.textContent = entry.precision;
      });
      document.querySelectorAll("[data-labelled]").forEach((cell) => {
        if (cell.dataset.labelled === entry.entry_id) cell.textContent = entry.labelled;
      });
      say(`${entry.entry_id}: ${data.label.text}; precision now ${entry.precision}`);
      if (rows[at] === row) select(at + 1);
    } catch (e) {
      error.textContent = e.message;
    }
  }

  const KEYS = { o: "ok", f: "flag", n: "nudge", b: "block" };

  document.addEventListener("keydown", (event) => {
    const target = event.target;
    if (target.matches("input, textarea, select")) {
      if (event.key === "Escape" || (event.key === "Enter" && target.classList.contains("note"))) {
        target.blur();
        if (rows[at]) rows[at].focus({ preventScroll: true });
        event.preventDefault();
      }
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "?") { help.hidden = !help.hidden; event.preventDefault(); return; }
    if (!rows.length) return;
    const row = rows[at];
    if (picking) {
      const verdict = KEYS[event.key];
      showPicker(false);
      if (verdict) label(row, false, verdict);
      event.preventDefault();
      return;
    }
    switch (event.key) {
      case "j": case "ArrowDown": select(at + 1); break;
      case "k": case "ArrowUp": select(at - 1); break;
      case "r": label(row, true, null); break;
      case "w": label(row, false, null); break;
      case "v": showPicker(true); break;
      case "e": row.querySelector("input.note").focus(); break;
      case "Enter": window.location.href = row.dataset.href; break;
      default: return;
    }
    event.preventDefault();
  });

  rows.forEach((row, index) => {
    row.addEventListener("click", (event) => {
      if (at !== index && !event.target.matches("input")) select(index);
      const button = event.target.closest("button[data-act]");
      if (!button) return;
      const act = button.dataset.act;
      if (act === "right") label(row, true, null);
      else if (act === "wrong") label(row, false, null);
      else if (act === "pick") { at = index; showPicker(!picking); }
      else if (act === "verdict") { showPicker(false); label(row, false, button.dataset.value); }
    });
  });

  document.querySelector(".help-toggle").addEventListener("click", () => { help.hidden = !help.hidden; });

  const run = document.getElementById("backtest");
  if (run) {
    run.addEventListener("click", async () => {
      const state = document.getElementById("backtest-state");
      const out = document.getElementById("backtest-result");
      run.disabled = true;
      state.textContent = "replaying the recorded decisions…";
      try {
        const data = await post(`/entry/${encodeURIComponent(run.dataset.entry)}/backtest`, {
          yaml: document.getElementById("entry-yaml").value,
        });
        out.innerHTML = data.html;  // rendered and escaped by the server's template
        state.textContent = data.flips === null ? "" : `done: ${data.flips} would change`;
      } catch (e) {
        state.textContent = "";
        out.textContent = e.message;
      } finally {
        run.disabled = false;
      }
    });
  }
  if (rows.length) select(0);
})();
