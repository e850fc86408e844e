/* waza-ci HTML report. Every text from the results file is untrusted: it only ever becomes a
   text node (textContent), never markup, and no string is ever run as code (tests/report/
   test_html.py lists the sinks this file must not use). The data is read from the page's JSON
   script elements, each run's evidence only when the run is opened. */
(function () {
  "use strict";

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function add(parent) {
    for (var i = 1; i < arguments.length; i++) if (arguments[i]) parent.appendChild(arguments[i]);
    return parent;
  }
  function readJson(id) {
    var node = document.getElementById(id);
    return node ? JSON.parse(node.textContent) : null;
  }

  var DATA = readJson("waza-index");
  var app = document.getElementById("app");
  if (!DATA || !app) return;
  var STRINGS = DATA.strings;
  var cache = new Map();
  function evidence(i) {
    if (!cache.has(i)) cache.set(i, readJson("ev-" + i));
    return cache.get(i);
  }

  var STATUS_WORDS = { passed: "passed", failed: "failed", error: "error" };
  var CELL_WORDS = { p: "pass", f: "fail", e: "error", k: "kept ✓", K: "kept ✗" };
  var CELL_LONG = {
    p: "passed", f: "failed", e: "grader error",
    k: "passed · kept from the run (LLM judge)", K: "failed · kept from the run (LLM judge)"
  };

  function ms(n) {
    if (n >= 60000) return (n / 60000).toFixed(1) + " min";
    if (n >= 1000) return (n / 1000).toFixed(1) + " s";
    return n + " ms";
  }
  function statusSpan(s) {
    var cls = s === "passed" ? "st st-p" : s === "error" ? "st st-e" : "st st-f";
    return el("span", cls, STATUS_WORDS[s] || s);
  }
  function pre(text) { return el("pre", null, text); }
  function collapsible(summary, text, open) {
    var d = el("details");
    if (open) d.open = true;
    add(d, el("summary", null, summary), pre(text));
    return d;
  }
  function longText(label, text) {
    if (!text) return null;
    if (text.length > 600 || text.split("\n").length > 12) return collapsible(label + " (" + text.length + " chars)", text, false);
    var box = el("div");
    add(box, el("div", "who", label), pre(text));
    return box;
  }
  function label(text, cls) { return el("span", "label " + (cls || ""), text); }
  function toggler(text, onOpen) {
    var b = el("button", "link", text);
    b.type = "button";
    b.setAttribute("aria-expanded", "false");
    var target = null;
    b.addEventListener("click", function () {
      var open = b.getAttribute("aria-expanded") === "true";
      if (open) {
        if (target) target.classList.add("hidden");
        b.setAttribute("aria-expanded", "false");
        return;
      }
      if (!target) target = onOpen();
      else target.classList.remove("hidden");
      b.setAttribute("aria-expanded", "true");
    });
    return b;
  }

  /* --- a verdict --------------------------------------------------------------------- */
  function verdictPanel(task, grader, gi, run) {
    var cell = run.cells[gi];
    var panel = el("div", "panel");
    add(panel, el("h4", null, grader.n + " · run " + run.n));
    var labels = el("div");
    if (!cell) {
      add(labels, label(run.s === "error" ? "errored run: evidence unscored" : "not graded", "st-n"));
    } else {
      add(labels, label(CELL_LONG[cell[0]], "st-" + (cell[0] === "p" ? "p" : cell[0] === "e" ? "e" : cell[0] === "f" ? "f" : "k")));
      if (cell[3]) add(labels, label("changed since the run: saved " + (cell[3] === "p" ? "passed" : "failed") + " → now " + (cell[0] === "p" ? "passed" : "failed"), "st-e"));
    }
    add(panel, labels);
    var kv = el("dl", "kv");
    function row(k, v) { if (v !== "" && v !== null && v !== undefined) add(kv, el("dt", null, k), add(el("dd"), v instanceof Node ? v : el("span", null, v))); }
    row("kind", grader.kind);
    if (cell) row("score", String(cell[1]));
    row("defined at", grader.src.p);
    add(panel, kv);
    var ev = evidence(run.ev);
    var details = ev && ev.verdicts[gi];
    if (details) {
      if (details.f) add(panel, el("div", "who", "feedback"), pre(details.f));
      if (details.d.length) {
        var dl = el("dl", "kv");
        details.d.forEach(function (pair) {
          var value = pair[1];
          var shown = value.indexOf("\n") >= 0 || value.length > 120 ? pre(value) : el("code", null, value);
          add(dl, el("dt", null, pair[0]), add(el("dd"), shown));
        });
        add(panel, el("div", "who", "details"), dl);
      }
    } else if (cell) {
      add(panel, el("div", "who", "feedback"), pre(STRINGS[cell[2]]));
    }
    grader.notes.forEach(function (n) { add(panel, el("p", "more", "waza-ci: " + n)); });
    return panel;
  }

  /* --- a run: the conversation beside the digest, the output and the grading context ---- */
  function message(item) {
    var kinds = { user: "user", assistant: "assistant", tool: "tool call", result: "tool result", error: "error", event: "event" };
    var box = el("div", "msg " + item.k);
    if (item.k === "cut") {
      box.textContent = "… " + item.n + " events cut (the report's size bound) …";
      return box;
    }
    var who = kinds[item.k] || item.k;
    if (item.k === "tool") who += ": " + item.n;
    if (item.k === "result") who += ": " + (item.n || item.id) + (item.ok ? "" : " (failed)");
    if (item.k === "event" || item.k === "error") who += ": " + item.t;
    add(box, el("div", "who", who));
    if (item.k === "user" || item.k === "assistant") add(box, el("div", "text", item.x));
    else if (item.x) add(box, item.x.length > 400 || item.x.split("\n").length > 8
      ? collapsible(item.k === "tool" ? "arguments" : "content", item.x, false) : pre(item.x));
    return box;
  }

  /* Bookkeeping events (turn_start, pending_messages.modified, …: an event with no content)
     folded, each run of them into one line, so the conversation opens on what was said. */
  function conversation(parent, items) {
    var quiet = [];
    function flush() {
      if (!quiet.length) return;
      var names = quiet.map(function (item) { return item.t; });
      var d = el("details", "msg event");
      add(d, el("summary", "who", quiet.length + " bookkeeping event" + (quiet.length > 1 ? "s" : "") + ": " + names.join(", ")));
      add(parent, d);
      quiet = [];
    }
    items.forEach(function (item) {
      if (item.k === "event" && !item.x) { quiet.push(item); return; }
      flush();
      add(parent, message(item));
    });
    flush();
  }

  function runPanel(task, run) {
    var ev = evidence(run.ev) || { conversation: [], digest: {}, verdicts: [] };
    var panel = el("div", "panel");
    add(panel, el("h4", null, task.key + " · run " + run.n + " · " + run.s + " · " + ms(run.ms)));
    if (run.s === "error") add(panel, el("p", "err", "This run errored in the original `waza run`: it is not graded; its saved verdicts are evidence only, unscored."));
    var grid = el("div", "run");
    var left = el("div");
    add(left, el("h4", null, "Transcript"));
    var first = ev.conversation[0];
    if (ev.prompt && !(first && first.k === "user" && first.x === ev.prompt)) add(left, add(el("div", "msg user"), el("div", "who", "prompt"), el("div", "text", ev.prompt)));
    if (!ev.conversation.length) add(left, el("p", "more", "No transcript in the results file."));
    conversation(left, ev.conversation);
    var right = el("div");
    var d = ev.digest || {};
    var kv = el("dl", "kv");
    function row(k, v) { if (v !== null && v !== undefined && v !== "") add(kv, el("dt", null, k), el("dd", null, v)); }
    row("turns", d.turns);
    row("input tokens", d.input_tokens);
    row("output tokens", d.output_tokens);
    row("tool calls", d.tool_calls);
    row("tools used", (d.tools || []).join(", "));
    add(right, el("h4", null, "Session digest"), kv);
    (d.errors || []).forEach(function (e) { add(right, el("p", "err", e)); });
    if (ev.error) add(right, el("div", "who", "run error"), pre(ev.error));
    add(right, el("h4", null, "Final output"), ev.output ? pre(ev.output) : el("p", "more", "(none)"));
    if (ev.context) add(right, collapsible("Grading context a program grader received (context.json)", ev.context, false));
    if (run.s === "error") {
      ev.verdicts.forEach(function (v, gi) {
        if (v) add(right, collapsible(task.graders[gi].n + ": saved verdict (unscored)", v.f || "(no feedback)", false));
      });
    }
    if (run.ungraded.length) add(right, el("p", "more", "Not graded (no saved verdict, not re-run): " + run.ungraded.join(", ")));
    add(grid, left, right);
    add(panel, grid);
    return panel;
  }

  /* --- a task: graders, baseline, the runs × graders grid ---------------------------- */
  function baselineText(base) {
    if (!base) return "";
    var count = function (c) { return c ? c[0] + "/" + c[1] : "—"; };
    var text = count(base.before) + " → " + count(base.after) + " · " + base.change;
    if (!base.comparable) text += " (not comparable)";
    if (base.regression) text += " · regression";
    if (base.noise) text += " · within noise";
    return text;
  }

  function taskView(task) {
    var box = el("div");
    var graders = el("table");
    add(graders, add(el("thead"), add(el("tr"), el("th", null, "Grader"), el("th", null, "Kind"), el("th", null, "Status"), el("th", "num", "Runs failed"), el("th", null, "Reason"))));
    var body = el("tbody");
    task.graders.forEach(function (g) {
      var status = add(el("td"), statusSpan(g.s));
      if (g.kept) add(status, label("kept from the run (LLM judge)", "st-k"));
      if (g.notGraded) add(status, label("not graded", "st-n"));
      if (g.flips.length) add(status, label("changed since the run (runs " + g.flips.join(", ") + ")", "st-e"));
      var reason = add(el("td"), g.reason ? el("code", null, g.reason) : null);
      if (g.hint) add(reason, el("div", "more", "What to do: " + g.hint));
      add(body, add(el("tr"), add(el("td"), el("code", null, g.n), el("div", "more", g.src.p)), el("td", null, g.kind), status, el("td", "num", g.failed + " / " + g.total), reason));
    });
    if (task.graders.length) add(box, add(graders, body));
    else {
      /* No grader verdict at all: every run errored in execution; say why, not an empty table. */
      var failed = task.runs.filter(function (r) { return r.s === "error"; });
      add(box, el("p", "err", failed.length
        ? "Not evaluated: every run errored in execution; the first error:"
        : "No grader verdict for this task."));
      if (failed.length && failed[0].error) add(box, pre(failed[0].error));
    }
    task.dropped.forEach(function (d) {
      add(box, el("p", "err", "Dropped: " + d[0] + " is no longer in the spec; its " + d[1] + " saved verdicts (" + d[2] + " passed, " + d[3] + " failed) no longer count (changed since the run)"));
    });
    if (task.base) add(box, el("p", null, "Baseline: " + baselineText(task.base)));
    else if (DATA.hasBaseline) add(box, el("p", "more", "Baseline: not comparable (no such task on the baseline)"));
    if (task.errored) add(box, el("p", "err", task.errored + " errored run(s): evidence unscored"));

    var grid = el("table", "grid");
    var head = add(el("tr"), el("th", null, "Run"));
    task.graders.forEach(function (g) { add(head, add(el("th"), el("code", null, g.n), el("div", "more", g.kind))); });
    add(grid, add(el("thead"), head));
    var gbody = el("tbody");
    task.runs.forEach(function (run) {
      var tr = el("tr");
      var panels = el("tr", "detail hidden");
      var holder = el("td");
      holder.colSpan = task.graders.length + 1;
      add(panels, holder);
      function opener(text, make) {
        return toggler(text, function () {
          var p = make();
          panels.classList.remove("hidden");
          add(holder, p);
          return p;
        });
      }
      var head = add(el("td"), opener("Run " + run.n + " ▸", function () { return runPanel(task, run); }), el("div", run.passed ? "st st-p" : run.s === "error" ? "st st-e" : "st st-f", run.s === "error" ? "errored: unscored" : run.passed ? "passed" : "did not pass"));
      add(tr, head);
      task.graders.forEach(function (g, gi) {
        var cell = run.cells[gi];
        var td = el("td");
        var word = cell ? CELL_WORDS[cell[0]] : run.s === "error" ? "unscored" : "not graded";
        var b = opener(word + (cell && cell[3] ? " (changed)" : ""), function () { return verdictPanel(task, g, gi, run); });
        b.className = "link cell " + (cell ? cell[0] : "n");
        b.title = cell ? STRINGS[cell[2]] : word;
        add(td, b);
        add(tr, td);
      });
      add(gbody, tr, panels);
    });
    add(box, el("h4", null, "Runs × graders"), add(grid, gbody));
    return box;
  }

  /* --- the tasks table: sortable, filterable, searchable ----------------------------- */
  var state = { filter: "all", query: "", sort: "status", desc: false, limit: 200 };
  var RANK = { error: 0, failed: 1, passed: 2 };
  var columns = [
    ["status", "Status", function (t) { return RANK[t.s]; }],
    ["task", "Task", function (t) { return t.key.toLowerCase(); }],
    ["runs", "Runs passed", function (t) { return t.total ? t.passed / t.total : 1; }],
    ["score", "Score", function (t) { return t.score; }],
    ["ms", "Duration", function (t) { return t.ms; }],
    ["tokens", "Tokens", function (t) { return t.tokens; }],
    ["flips", "Changed since the run", function (t) { return t.flips; }],
    ["base", "Baseline", function (t) { return t.base ? (t.base.regression ? 0 : 1) : 2; }]
  ];
  var filters = [
    ["all", "All", function () { return true; }],
    ["failing", "Failing", function (t) { return t.s !== "passed"; }],
    ["changed", "Changed since the run", function (t) { return t.flips > 0; }],
    ["regressions", "Regressions", function (t) { return !!(t.base && t.base.regression); }]
  ];
  var haystacks = DATA.tasks.map(function (t) {
    return [t.key, t.name, t.file].concat(t.graders.map(function (g) { return g.n; })).join("\n").toLowerCase();
  });

  var section = el("section");
  section.id = "tasks";
  add(section, el("h2", null, "Tasks"));
  var controls = el("div", "controls");
  var filterButtons = filters.map(function (f) {
    var b = el("button", null, f[1] + " (" + DATA.tasks.filter(f[2]).length + ")");
    b.type = "button";
    b.dataset.filter = f[0];
    b.addEventListener("click", function () { state.filter = f[0]; state.limit = 200; draw(); });
    add(controls, b);
    return b;
  });
  var search = el("input");
  search.type = "search";
  search.placeholder = "Search tasks and graders";
  search.setAttribute("aria-label", "Search tasks and graders");
  search.addEventListener("input", function () { state.query = search.value.toLowerCase(); state.limit = 200; draw(); });
  var shownCount = el("span", "more");
  add(controls, search, shownCount);
  add(section, controls);

  var table = el("table", "tasks");
  var headRow = el("tr");
  var sortButtons = columns.map(function (c) {
    var th = el("th", c[0] === "task" || c[0] === "status" || c[0] === "base" ? null : "num");
    var b = el("button", "sort", c[1]);
    b.type = "button";
    b.addEventListener("click", function () {
      state.desc = state.sort === c[0] ? !state.desc : false;
      state.sort = c[0];
      draw();
    });
    add(headRow, add(th, b));
    return th;
  });
  var tbody = el("tbody");
  add(table, add(el("thead"), headRow), tbody);
  var moreButton = el("button", "noprint", "");
  moreButton.type = "button";
  moreButton.addEventListener("click", function () { state.limit += 500; draw(); });
  add(section, table, moreButton);
  if (DATA.removed.length) {
    add(section, el("h3", null, "On the baseline, not graded now (not comparable)"));
    var ul = el("ul");
    DATA.removed.forEach(function (r) { add(ul, el("li", null, r.key + ": " + baselineText(r))); });
    add(section, ul);
  }
  add(section, el("p", "more", "Long texts are cut head-and-tail (the cut marked) to keep this file within its size bound: " + DATA.bound.textKiB + " KiB per text, " + Math.round(DATA.bound.runBytes / 1024) + " KiB per run's transcript (waza-ci --html-max-text-kib)."));
  add(app, section);

  function taskRow(task) {
    var tr = el("tr");
    var detail = el("tr", "detail hidden");
    var td = el("td");
    td.colSpan = columns.length;
    add(detail, td);
    var opener = toggler(task.key + " ▸", function () {
      var view = taskView(task);
      add(td, view);
      detail.classList.remove("hidden");
      return view;
    });
    opener.addEventListener("click", function () {
      detail.classList.toggle("hidden", opener.getAttribute("aria-expanded") !== "true");
    });
    var name = add(el("td"), opener);
    if (task.name && task.name !== task.key) add(name, el("div", "more", task.name));
    add(tr,
      add(el("td"), statusSpan(task.s)),
      name,
      el("td", "num", task.passed + " / " + task.total + (task.errored ? " (" + task.errored + " errored)" : "")),
      el("td", "num", task.score.toFixed(2)),
      el("td", "num", ms(task.ms)),
      el("td", "num", task.tokens ? task.tokens.toLocaleString("en") : "—"),
      el("td", "num", task.flips ? String(task.flips) : ""),
      el("td", null, baselineText(task.base)));
    return [tr, detail];
  }

  var rowsOf = new Map();
  function draw() {
    var keep = filters.filter(function (f) { return f[0] === state.filter; })[0][2];
    var key = columns.filter(function (c) { return c[0] === state.sort; })[0][2];
    var picked = [];
    DATA.tasks.forEach(function (t, i) {
      if (keep(t) && (!state.query || haystacks[i].indexOf(state.query) >= 0)) picked.push(i);
    });
    picked.sort(function (a, b) {
      var x = key(DATA.tasks[a]), y = key(DATA.tasks[b]);
      var c = x < y ? -1 : x > y ? 1 : a - b;
      return state.desc ? -c : c;
    });
    while (tbody.firstChild) tbody.removeChild(tbody.firstChild);
    picked.slice(0, state.limit).forEach(function (i) {
      if (!rowsOf.has(i)) rowsOf.set(i, taskRow(DATA.tasks[i]));
      add(tbody, rowsOf.get(i)[0], rowsOf.get(i)[1]);
    });
    filterButtons.forEach(function (b) { b.setAttribute("aria-pressed", String(b.dataset.filter === state.filter)); });
    sortButtons.forEach(function (th, i) {
      th.setAttribute("aria-sort", columns[i][0] === state.sort ? (state.desc ? "descending" : "ascending") : "none");
    });
    shownCount.textContent = picked.length + " of " + DATA.tasks.length + " tasks";
    var hidden = picked.length - Math.min(picked.length, state.limit);
    moreButton.textContent = "Show " + Math.min(hidden, 500) + " more of " + hidden;
    moreButton.classList.toggle("hidden", hidden === 0);
  }
  draw();
  app.hidden = false;
})();
