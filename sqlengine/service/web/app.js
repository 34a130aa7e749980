// The sqlengine dashboard: Flink's web UI, small. Everything it shows is read from the
// REST API of the same process (Flink 2.3's paths and field names), polled every 1.5 s.
//
// Pages (the part of the URL after '#'): "/" the cluster and its jobs, "/jobs/<id>" a job:
// its DAG, per-vertex records and watermarks, checkpoints, exceptions, cancel and stop.
//
// Every node is built with createElement and textContent, never innerHTML: a string from the
// server (a job's name, an operator's, an exception) is always text, never markup.
"use strict";

const POLL_MS = 1500;
const NONE = "–";
const TERMINAL = new Set(["FINISHED", "CANCELED", "FAILED", "SUSPENDED"]);
const METRICS = ["numRecordsIn", "numRecordsOut", "numRecordsInPerSecond", "numRecordsOutPerSecond",
                 "currentInputWatermark"];
const SVG_NS = "http://www.w3.org/2000/svg";

// --- DOM ---------------------------------------------------------------------------------

function build(node, attrs, children) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** An HTML element: el("td", {class: "n"}, "text", otherNode). */
function el(tag, attrs, ...children) {
  return build(document.createElement(tag), attrs, children);
}

/** An SVG element, as el(). */
function svgEl(tag, attrs, ...children) {
  return build(document.createElementNS(SVG_NS, tag), attrs, children);
}

function section(title, id, ...body) {
  return el("section", {class: "card", id}, el("h2", {}, title), ...body);
}

function table(headers, rows, attrs) {
  return el("table", attrs || {}, el("thead", {}, el("tr", {}, headers.map(h => el("th", {}, h)))),
            el("tbody", {}, rows.length ? rows : el("tr", {}, el("td", {colspan: headers.length, class: "empty"},
                                                                     "None"))));
}

function badge(state) {
  return el("span", {class: `badge state-${String(state || "unknown").toLowerCase()}`}, state || NONE);
}

function setStatus(text, isError) {
  const status = document.getElementById("status");
  status.textContent = text;
  status.classList.toggle("error", Boolean(isError));
}

// --- REST --------------------------------------------------------------------------------

class RestError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** A REST call's JSON body; a non-2xx answer throws its first Flink error message. */
async function rest(path, options) {
  const response = await fetch(path, {headers: {"Accept": "application/json", "Content-Type": "application/json"},
                                      ...options});
  const body = await response.json().catch(() => null);
  if (!response.ok) {
    const errors = body && Array.isArray(body.errors) ? body.errors : [];
    throw new RestError(response.status, errors[0] || `${response.status} ${response.statusText}`);
  }
  return body;
}

/** A REST call that may not be served (yet): null instead of an error. */
async function optional(path) {
  try {
    return await rest(path);
  } catch (e) {
    return null;
  }
}

// --- formatting --------------------------------------------------------------------------

function fmtTime(ms) {
  if (typeof ms !== "number" || ms <= 0) return NONE;
  const d = new Date(ms);
  const pad = (n, w) => String(n).padStart(w || 2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` +
         `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

function fmtDuration(ms) {
  if (typeof ms !== "number" || ms < 0) return NONE;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  let s = Math.floor(ms / 1000);
  const parts = [];
  for (const [unit, size] of [["d", 86400], ["h", 3600], ["m", 60]]) {
    if (s >= size || parts.length) parts.push(`${Math.floor(s / size)}${unit}`);
    s %= size;
  }
  parts.push(`${s}s`);
  return parts.join(" ");
}

function fmtCount(n) {
  return Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : NONE;
}

function fmtRate(x) {
  return Number.isFinite(x) ? `${x.toLocaleString("en-US", {maximumFractionDigits: 1})}/s` : NONE;
}

function fmtBytes(n) {
  if (!Number.isFinite(n) || n < 0) return NONE;
  const units = ["B", "KB", "MB", "GB", "TB"];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return `${i ? n.toFixed(1) : n} ${units[i]}`;
}

/** A watermark (ms since the epoch); Flink's "no watermark yet" is Long.MIN_VALUE. */
function fmtWatermark(ms) {
  if (!Number.isFinite(ms) || ms <= -9e15) return NONE;
  return `${fmtTime(ms)}.${String(Math.abs(ms) % 1000).padStart(3, "0")}`;
}

// --- pages and polling -------------------------------------------------------------------

let page = null;  // the page on screen: {refresh()}; its loop ends when another replaces it

function route() {
  const match = location.hash.match(/^#\/jobs\/([0-9a-fA-F]{32})$/);
  page = match ? jobPage(match[1].toLowerCase()) : overviewPage();
  poll(page);
}

async function poll(current) {
  while (page === current) {
    try {
      await current.refresh();
      if (page === current) setStatus(`updated ${fmtTime(Date.now())}`, false);
    } catch (e) {
      if (page === current) setStatus(e instanceof RestError ? e.message : `REST API unreachable (${e.message})`, true);
    }
    await new Promise(resolve => setTimeout(resolve, POLL_MS));
  }
}

/** Replace `into`'s content with `make()`'s only when `data` changed (an open <details> stays open). */
function render(into, data, make) {
  const key = JSON.stringify(data === undefined ? null : data);
  if (into.dataset.key === key) return;
  into.dataset.key = key;
  into.replaceChildren(...[make(data)].flat());
}

function mount(...nodes) {
  document.getElementById("app").replaceChildren(...nodes);
}

// --- overview: the cluster and its jobs --------------------------------------------------

function overviewPage() {
  const cluster = el("div", {class: "stats", id: "cluster"});
  const running = el("div", {id: "jobs-running"});
  const finished = el("div", {id: "jobs-finished"});
  mount(section("Cluster", "overview", cluster), section("Running jobs", null, running),
        section("Completed jobs", null, finished));
  document.title = "sqlengine dashboard";

  async function refresh() {
    const [overview, jobs] = await Promise.all([rest("/v1/overview"), rest("/v1/jobs/overview")]);
    document.getElementById("version").textContent = `Flink ${overview["flink-version"]} API · ${overview["flink-commit"]}`;
    cluster.replaceChildren(...clusterStats(overview));
    const rows = (jobs.jobs || []).slice().sort((a, b) => b["start-time"] - a["start-time"]);
    running.replaceChildren(jobsTable(rows.filter(j => !TERMINAL.has(j.state))));
    finished.replaceChildren(jobsTable(rows.filter(j => TERMINAL.has(j.state))));
  }
  return {refresh};
}

function stat(label, value) {
  return el("div", {class: "stat"}, el("div", {class: "value"}, value), el("div", {class: "label"}, label));
}

function clusterStats(o) {
  return [stat("Task managers", o.taskmanagers ?? NONE),
          stat("Slots available", `${o["slots-available"] ?? NONE} / ${o["slots-total"] ?? NONE}`),
          stat("Running", o["jobs-running"] ?? NONE), stat("Finished", o["jobs-finished"] ?? NONE),
          stat("Canceled", o["jobs-cancelled"] ?? NONE), stat("Failed", o["jobs-failed"] ?? NONE)];
}

function jobsTable(jobs) {
  const rows = jobs.map(j => el("tr", {"data-job": j.jid},
    el("td", {}, el("a", {class: "job-link", href: `#/jobs/${encodeURIComponent(j.jid)}`}, j.name)),
    el("td", {class: "mono"}, j.jid), el("td", {}, j.jobType || NONE), el("td", {}, fmtTime(j["start-time"])),
    el("td", {}, fmtTime(j["end-time"])), el("td", {}, fmtDuration(j.duration)),
    el("td", {class: "n"}, j.tasks ? j.tasks.total : NONE), el("td", {}, badge(j.state))));
  return table(["Name", "Job ID", "Type", "Started", "Ended", "Duration", "Tasks", "State"], rows, {class: "jobs"});
}

// --- a job -------------------------------------------------------------------------------

function jobPage(jid) {
  const base = `/v1/jobs/${jid}`;
  const title = el("h1", {id: "job-name"}, NONE);
  const state = el("span", {id: "job-state"});
  const facts = el("dl", {class: "facts"});
  const controls = jobControls(base);
  const dag = el("div", {class: "dag-wrap"});
  const vertices = el("div", {id: "vertices"});
  const checkpoints = el("div", {id: "checkpoints"});
  const exceptions = el("div", {id: "exceptions"});
  mount(el("a", {class: "back", href: "#/"}, "← all jobs"),
        el("section", {class: "card job-head"}, el("div", {class: "title-row"}, title, state), facts, controls.node),
        section("DAG", "dag-card", dag, el("p", {class: "hint"},
          "A box is a task: its chained operators, one per line, run by as many subtasks as its parallelism. ",
          "An edge says how records move between tasks: HASH re-partitions them by key (each key group belongs to ",
          "one subtask), FORWARD keeps them on their subtask, GLOBAL sends them all to one.")),
        section("Vertices", null, vertices), section("Checkpoints", null, checkpoints),
        section("Exceptions", null, exceptions));
  let planKey = null;
  let nodes = new Map();  // vertex id -> its DAG node's live text elements
  const last = new Map();  // vertex id -> its last metrics (kept when a read fails)

  async function refresh() {
    const job = await rest(base);
    document.title = `${job.name} · sqlengine`;
    title.textContent = job.name;
    state.replaceChildren(badge(job.state));
    facts.replaceChildren(...jobFacts(job));
    controls.update(job);
    const key = JSON.stringify((job.plan && job.plan.nodes || []).map(n => [n.id, n.inputs]));
    if (key !== planKey) {
      planKey = key;
      nodes = drawDag(dag, job);
    }
    const [metrics, ckpts, excs] = await Promise.all([
      Promise.all(job.vertices.map(v => vertexMetrics(base, v))), optional(`${base}/checkpoints`),
      optional(`${base}/exceptions`)]);
    job.vertices.forEach((v, i) => { if (metrics[i]) last.set(v.id, metrics[i]); });
    vertices.replaceChildren(verticesTable(job.vertices, last));
    for (const [id, live] of nodes) live.update(last.get(id));
    render(checkpoints, ckpts, checkpointView);
    render(exceptions, excs, exceptionView);
  }
  return {refresh};
}

function jobFacts(job) {
  const fact = (name, value, cls) => [el("dt", {}, name), el("dd", {class: cls}, value)];
  return [fact("Job ID", job.jid, "mono"), fact("Type", job["job-type"] || NONE),
          fact("Started", fmtTime(job["start-time"])), fact("Ended", fmtTime(job["end-time"])),
          fact("Duration", fmtDuration(job.duration))].flat();
}

/** Cancel, and stop with a savepoint (then its trigger is polled until it completes). */
function jobControls(base) {
  const message = el("span", {id: "control-message", class: "message", role: "status"});
  const say = (text, isError) => { message.textContent = text; message.classList.toggle("error", Boolean(isError)); };
  const cancel = el("button", {id: "cancel", class: "danger", type: "button"}, "Cancel job");
  const target = el("input", {id: "savepoint-dir", type: "text", placeholder: "savepoint directory, e.g. /tmp/savepoints",
                              "aria-label": "savepoint target directory"});
  const stop = el("button", {id: "stop", type: "button"}, "Stop with savepoint");
  let name = "";

  cancel.addEventListener("click", async () => {
    if (!confirm(`Cancel job "${name}"? It stops now, without a savepoint.`)) return;
    try {
      await rest(`${base}?mode=cancel`, {method: "PATCH", body: "{}"});
      say("Cancellation requested.");
    } catch (e) {
      say(`Cancel failed: ${e.message}`, true);
    }
  });
  stop.addEventListener("click", async () => {
    const dir = target.value.trim();
    if (!confirm(`Stop job "${name}" with a savepoint${dir ? ` in ${dir}` : ""}?`)) return;
    stop.disabled = true;
    let trigger;
    try {
      trigger = await rest(`${base}/stop`, {method: "POST",
                                            body: JSON.stringify({drain: false, targetDirectory: dir || null})});
    } catch (e) {
      say(`Stop failed: ${e.message}`, true);
      return;
    }
    say("Stopping at the next epoch boundary…");
    try {
      say(...await savepointOutcome(`${base}/savepoints/${encodeURIComponent(trigger["request-id"])}`));
    } catch (e) {
      say(e.message, true);  // the REST API's own words ("Savepoint failed: ...")
    }
  });

  function update(job) {
    name = job.name;
    const done = TERMINAL.has(job.state);
    cancel.disabled = done;
    stop.disabled = done;
    target.disabled = done;
  }
  return {node: el("div", {class: "controls"}, cancel, target, stop, message), update};
}

/** Poll a stop-with-savepoint trigger: [message, isError] once it has an outcome. */
async function savepointOutcome(path) {
  for (;;) {
    const status = await rest(path);
    if (status.status && status.status.id === "COMPLETED") {
      const op = status.operation || {};
      if (op["failure-cause"]) return [`Savepoint failed: ${failureText(op["failure-cause"])}`, true];
      return [`Savepoint completed: ${op.location}`, false];
    }
    await new Promise(resolve => setTimeout(resolve, 1000));
  }
}

function failureText(cause) {
  if (typeof cause === "string") return cause;
  return cause["stack-trace"] || cause.class || JSON.stringify(cause);
}

// --- metrics -----------------------------------------------------------------------------

/** A vertex's metrics: {numRecordsIn, ..., watermark}; null if none could be read. Values
 * given per subtask ("0.numRecordsIn") are summed (counts, rates) or their minimum taken
 * (watermarks: a task's input watermark is its slowest subtask's). */
async function vertexMetrics(base, vertex) {
  const path = `${base}/vertices/${vertex.id}`;
  const [metrics, watermarks] = await Promise.all([optional(`${path}/metrics?get=${METRICS.join(",")}`),
                                                   optional(`${path}/watermarks`)]);
  const out = {};
  for (const {id, value} of [...(metrics || []), ...(watermarks || [])]) {
    const name = String(id).replace(/^\d+\./, "");
    const x = Number(value);
    if (!METRICS.includes(name) || value === null || value === "" || !Number.isFinite(x)) continue;
    if (name === "currentInputWatermark") out.watermark = Math.min(out.watermark ?? Infinity, x);
    else out[name] = (out[name] ?? 0) + x;
  }
  const vm = vertex.metrics || {};
  if (out.numRecordsIn === undefined && metrics === null && Number.isFinite(vm["read-records"])) {
    out.numRecordsIn = vm["read-records"];
    out.numRecordsOut = vm["write-records"];
  }
  return Object.keys(out).length ? out : null;
}

function verticesTable(vertices, metrics) {
  const rows = vertices.map(v => {
    const m = metrics.get(v.id) || {};
    return el("tr", {"data-vertex": v.id},
      el("td", {class: "name"}, v.name), el("td", {class: "n"}, v.parallelism), el("td", {}, badge(v.status)),
      el("td", {class: "n records-in"}, fmtCount(m.numRecordsIn)),
      el("td", {class: "n records-out"}, fmtCount(m.numRecordsOut)),
      el("td", {class: "n"}, fmtRate(m.numRecordsInPerSecond)), el("td", {class: "n"}, fmtRate(m.numRecordsOutPerSecond)),
      el("td", {class: "watermark"}, fmtWatermark(m.watermark)));
  });
  return table(["Task", "Parallelism", "Status", "Records in", "Records out", "In rate", "Out rate", "Watermark"],
               rows, {class: "vertices"});
}

// --- the DAG -----------------------------------------------------------------------------

const BOX = {width: 310, line: 17, pad: 10, gapX: 140, gapY: 28, chars: 40};

/** Draw the job's DAG into `into` as SVG, left to right: a column per depth (the longest
 * path from a source). Returns vertex id -> {update(metrics)} for the live numbers. */
function drawDag(into, job) {
  const plan = job.plan && job.plan.nodes ? job.plan.nodes : job.vertices.map(v => ({...v, description: v.name}));
  const byId = new Map(plan.map(n => [n.id, n]));
  const vertex = new Map(job.vertices.map(v => [v.id, v]));
  const boxes = layout(plan, byId);
  const width = Math.max(...boxes.map(b => b.x + BOX.width), 0) + BOX.pad;
  const height = Math.max(...boxes.map(b => b.y + b.height), 0) + BOX.pad;
  const svg = svgEl("svg", {id: "dag", class: "dag", viewBox: `0 0 ${width} ${height}`, width, height,
                            role: "img", "aria-label": `the DAG of ${job.name}`},
    svgEl("defs", {}, svgEl("marker", {id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 7,
                                       markerHeight: 7, orient: "auto-start-reverse"},
                            svgEl("path", {d: "M 0 0 L 10 5 L 0 10 z"}))));
  const at = new Map(boxes.map(b => [b.node.id, b]));
  for (const box of boxes) {
    for (const input of box.node.inputs || []) {
      if (at.has(input.id)) svg.append(edge(at.get(input.id), box, input, vertex.get(box.node.id)));
    }
  }
  const live = new Map();
  for (const box of boxes) {
    const [node, update] = vertexBox(box, vertex.get(box.node.id));
    svg.append(node);
    live.set(box.node.id, {update});
  }
  into.replaceChildren(svg);
  return live;
}

function operatorsOf(node) {
  return String(node.description || node.id).split(" -> ");
}

function boxHeight(node) {
  return BOX.pad * 2 + BOX.line * (operatorsOf(node).length + 3) + 6;
}

/** Columns by depth; in a column, nodes ordered by where their inputs are (fewer crossings). */
function layout(plan, byId) {
  const depth = new Map();
  const depthOf = (n, seen) => {
    if (depth.has(n.id)) return depth.get(n.id);
    if (seen.has(n.id)) return 0;  // a cycle (none in a job's DAG): cut it
    seen.add(n.id);
    const inputs = (n.inputs || []).map(i => byId.get(i.id)).filter(Boolean);
    const d = inputs.length ? 1 + Math.max(...inputs.map(i => depthOf(i, seen))) : 0;
    depth.set(n.id, d);
    return d;
  };
  plan.forEach(n => depthOf(n, new Set()));
  const columns = [];
  plan.forEach(n => (columns[depth.get(n.id)] ||= []).push(n));
  const rank = new Map();
  const boxes = [];
  const tallest = Math.max(...columns.map(c => c.reduce((h, n) => h + boxHeight(n) + BOX.gapY, -BOX.gapY)));
  columns.forEach((column, d) => {
    const centre = n => {
      const ranks = (n.inputs || []).map(i => rank.get(i.id)).filter(r => r !== undefined);
      return ranks.length ? ranks.reduce((a, b) => a + b, 0) / ranks.length : plan.indexOf(n);
    };
    column.sort((a, b) => centre(a) - centre(b));
    let y = BOX.pad + (tallest - column.reduce((h, n) => h + boxHeight(n) + BOX.gapY, -BOX.gapY)) / 2;
    column.forEach((n, i) => {
      rank.set(n.id, i);
      boxes.push({node: n, x: BOX.pad + d * (BOX.width + BOX.gapX), y, height: boxHeight(n)});
      y += boxHeight(n) + BOX.gapY;
    });
  });
  return boxes;
}

function clip(text) {
  return text.length > BOX.chars ? `${text.slice(0, BOX.chars - 1)}…` : text;
}

/** A task's box: its chained operators, its parallelism, then its live records and watermark. */
function vertexBox(box, vertex) {
  const {x, y, node} = box;
  const ops = operatorsOf(node);
  const text = (row, cls, value) => svgEl("text", {x: x + BOX.pad, y: y + BOX.pad + BOX.line * (row + 0.8), class: cls},
                                          value);
  const records = text(ops.length + 1.3, "metric records", NONE);
  const watermark = text(ops.length + 2.3, "metric wm", NONE);
  const g = svgEl("g", {class: "node", "data-vertex": node.id},
    svgEl("title", {}, `${node.description}\nparallelism ${node.parallelism}`),
    svgEl("rect", {x, y, width: BOX.width, height: box.height, rx: 6}),
    ops.map((op, i) => text(i, i ? "op chained" : "op", `${i ? "→ " : ""}${clip(op)}`)),
    svgEl("line", {x1: x, x2: x + BOX.width, y1: y + BOX.pad + BOX.line * ops.length + 4,
                   y2: y + BOX.pad + BOX.line * ops.length + 4, class: "divider"}),
    text(ops.length + 0.3, "parallelism", `parallelism ${node.parallelism}` +
                                          (vertex ? ` · ${String(vertex.status || "").toLowerCase()}` : "")),
    records, watermark);
  const update = m => {
    m = m || {};
    const rate = Number.isFinite(m.numRecordsOutPerSecond) ? ` (${fmtRate(m.numRecordsOutPerSecond)})` : "";
    records.textContent = `records in ${fmtCount(m.numRecordsIn)} · out ${fmtCount(m.numRecordsOut)}${rate}`;
    watermark.textContent = `watermark ${fmtWatermark(m.watermark)}`;
  };
  update(null);
  return [g, update];
}

/** An edge from `from`'s right side to `to`'s left, labelled with its ship strategy. */
function edge(from, to, input, target) {
  const x1 = from.x + BOX.width, y1 = from.y + from.height / 2;
  const x2 = to.x, y2 = to.y + to.height / 2;
  const mx = (x1 + x2) / 2, my = (y1 + y2) / 2;
  const ship = String(input.ship_strategy || "?");
  const hash = ship.toUpperCase() === "HASH";
  const keyGroups = hash && target && target.maxParallelism > 0 ? `${target.maxParallelism} key groups` : null;
  const tip = hash ? "HASH: each record goes to the subtask that owns its key's key group"
                   : `${ship}: how records move from one task to the next`;
  return svgEl("g", {class: `edge ship-${ship.toLowerCase()}`, "data-from": input.id, "data-to": to.node.id},
    svgEl("title", {}, tip),
    svgEl("path", {d: `M ${x1} ${y1} C ${mx} ${y1}, ${mx} ${y2}, ${x2} ${y2}`, "marker-end": "url(#arrow)"}),
    svgEl("rect", {x: mx - 52, y: my - 12, width: 104, height: keyGroups ? 32 : 18, rx: 9, class: "label-bg"}),
    svgEl("text", {x: mx, y: my + 1, class: "ship", "text-anchor": "middle"}, ship),
    keyGroups && svgEl("text", {x: mx, y: my + 15, class: "key-groups", "text-anchor": "middle"}, keyGroups));
}

// --- checkpoints and exceptions ----------------------------------------------------------

function checkpointView(stats) {
  if (!stats) return [el("p", {class: "empty"}, NONE)];
  const c = stats.counts || {};
  const counts = el("div", {class: "stats small"},
    stat("Completed", c.completed ?? NONE), stat("In progress", c.in_progress ?? NONE), stat("Failed", c.failed ?? NONE),
    stat("Restored", c.restored ?? NONE), stat("Total", c.total ?? NONE));
  const latest = stats.latest && stats.latest.completed;
  const rows = (stats.history || []).map(h => el("tr", {},
    el("td", {class: "n"}, h.id), el("td", {}, badge(h.status)), el("td", {}, fmtTime(h.trigger_timestamp)),
    el("td", {}, fmtTime(h.latest_ack_timestamp)), el("td", {class: "n"}, fmtDuration(h.end_to_end_duration)),
    el("td", {class: "n"}, fmtBytes(h.state_size)), el("td", {class: "n"}, fmtBytes(h.checkpointed_size))));
  return [counts,
          latest ? el("p", {}, `Latest completed: #${latest.id} at ${fmtTime(latest.latest_ack_timestamp)}`,
                      latest.external_path ? el("span", {class: "mono"}, ` ${latest.external_path}`) : null) : null,
          table(["ID", "Status", "Triggered", "Acknowledged", "Duration", "State size", "Checkpointed"], rows,
                {class: "checkpoints"})];
}

function exceptionView(body) {
  if (!body) return [el("p", {class: "empty"}, NONE)];
  const entries = (body.exceptionHistory && body.exceptionHistory.entries) || [];
  const out = [];
  if (body["root-exception"]) {
    out.push(el("p", {}, `Root exception (${fmtTime(body.timestamp)}):`), el("pre", {}, body["root-exception"]));
  }
  for (const e of entries) {
    out.push(el("details", {class: "exception"},
      el("summary", {}, `${fmtTime(e.timestamp)} · ${e.exceptionName || "exception"}`),
      el("pre", {}, e.stacktrace || "")));
  }
  return out.length ? out : [el("p", {class: "empty"}, "No exceptions.")];
}

window.addEventListener("hashchange", route);
route();
