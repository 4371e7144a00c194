// The demo page: send the conversation as an OpenAI chat request, stream the reply,
// re-render the whole Markdown after every token (as chat clients do), show what the
// fake attacker server received meanwhile (read through this app's /demo/attacker,
// so no other origin is ever read), then the audit records rendersafe wrote.
"use strict";

const md = window.markdownit({ html: true, linkify: true });
const $ = (id) => document.getElementById(id);
const reply = $("reply"), status = $("status"), records = $("records");
const attackerLog = $("attacker-log");
let messages = [], info = { key: "", attacker: "" };
let run = null;  // { since, started, mode }: the attacker's requests counted from `since`

async function load() {
  [info, messages] = await Promise.all([
    fetch("/demo/info").then((r) => r.json()),
    fetch("/demo/conversation").then((r) => r.json()),
  ]);
  $("attacker-origin").textContent = "(" + info.attacker + ")";
  if (underCsp) {
    $("csp-header").hidden = false;
    $("csp-header").querySelector("code").textContent = info.csp;
  }
  const conversation = $("conversation");
  conversation.className = "";
  conversation.replaceChildren(...messages.map((m) => {
    const line = document.createElement("p");
    const who = document.createElement("b");
    who.textContent = m.role + ": ";
    line.append(who, ...marked(m.content));
    return line;
  }));
}

function marked(text) {
  // `text` as nodes, the planted key highlighted wherever it appears.
  const parts = info.key ? text.split(info.key) : [text];
  const nodes = [];
  parts.forEach((part, i) => {
    if (i) {
      const mark = document.createElement("mark");
      mark.textContent = info.key;
      nodes.push(mark);
    }
    nodes.push(part);
  });
  return nodes;
}

function* sseData(buffer) {
  // Yields the data of each complete event; returns what is left over.
  const events = buffer.split(/\r\n\r\n|\n\n|\r\r/);
  const rest = events.pop();
  for (const event of events) {
    const data = event.split(/\r\n|\n|\r/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).replace(/^ /, ""));
    if (data.length) yield data.join("\n");
  }
  return rest;
}

async function stream(scenario) {
  const bypass = $("bypass").checked;
  const mode = bypass ? "bypassed" : "protected";
  const label = bypass ? "rendersafe bypassed" : "Through rendersafe";
  const requestId = "demo-" + Math.random().toString(16).slice(2);
  const delay = Number($("speed").value) / 1000;
  const since = (await (await fetch("/demo/attacker?since=999999999999")).json()).next;
  run = { since, started: Date.now(), mode };
  document.body.dataset.state = "streaming";
  document.body.dataset.mode = mode;
  $("mode").textContent = label.toLowerCase();
  status.textContent = label + ", streaming...";
  reply.innerHTML = "";
  records.textContent = "Waiting for the reply to end.";
  records.className = "none";
  await pollAttacker();
  const response = await fetch(`/${bypass ? "raw" : "api"}/chat?scenario=${scenario}&delay=${delay}`, {
    method: "POST",
    headers: { "x-request-id": requestId, "content-type": "application/json" },
    body: JSON.stringify({ model: "demo", stream: true, messages }),
  });
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "", text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    const events = sseData(buffer);
    let item = events.next();
    while (!item.done) {
      if (item.value !== "[DONE]") {
        const chunk = JSON.parse(item.value);
        for (const choice of chunk.choices || []) text += (choice.delta && choice.delta.content) || "";
      }
      item = events.next();
    }
    buffer = item.value;
    reply.innerHTML = md.render(text);
  }
  status.textContent = label + ", done. Request " + requestId + ".";
  await new Promise((resolve) => setTimeout(resolve, 600));  // the last images load
  const seen = await pollAttacker();
  const found = await showAudit(requestId);
  compare(mode, scenario, seen, found);
  document.body.dataset.state = "done";
}

async function pollAttacker() {
  // Show the requests of the current run; return them.
  if (!run) return [];
  const current = run;
  const answer = await (await fetch(`/demo/attacker?since=${current.since}`)).json();
  if (run !== current) return answer.requests;
  showAttacker(answer.requests, current);
  return answer.requests;
}

function carriesKey(request) {
  return request.decoded.some((d) => d.text.includes(info.key))
    || unescaped(request.path + "?" + request.query).includes(info.key);
}

function unescaped(text) {
  try { return decodeURIComponent(text); } catch { return text; }  // a URL cut mid-escape
}

function showAttacker(requests, current) {
  attackerLog.dataset.count = String(requests.length);
  const count = document.createElement("p");
  const leaked = requests.filter(carriesKey).length;
  count.className = "count " + (requests.length ? "leak" : "safe");
  count.textContent = requests.length
    ? `${requests.length} requests received, ${leaked} carrying the user's key.`
    : "No requests received.";
  const list = document.createElement("ol");
  for (const r of [...requests].reverse()) {
    const item = document.createElement("li");
    item.className = "request";
    const when = document.createElement("span");
    when.className = "when";
    const seconds = (Date.parse(r.time) - current.started) / 1000;
    when.textContent = `+${seconds.toFixed(2)} s ${r.method}`;
    const url = document.createElement("span");
    url.className = "url";
    const shown = r.path + (r.query ? "?" + r.query : "");
    url.append(...marked(shown.length > 160 ? shown.slice(0, 160) + "…" : shown));
    item.append(when, url);
    for (const d of r.decoded) {
      const line = document.createElement("div");
      line.className = "decoded";
      line.append(`${d.where}, ${d.encoding}: `, ...marked(d.text));
      item.append(line);
    }
    list.append(item);
  }
  attackerLog.replaceChildren(count, list);
}

async function showAudit(requestId) {
  const found = await (await fetch(`/demo/audit?request_id=${requestId}`)).json();
  if (!found.length) {
    records.textContent = run && run.mode === "bypassed"
      ? "No records: rendersafe was bypassed."
      : "No records: nothing was removed.";
    return found;
  }
  records.className = "";
  const table = document.createElement("table");
  table.innerHTML = "<tr><th>where</th><th>what</th><th>why</th><th>url (redacted)</th></tr>";
  for (const r of found) {
    const row = table.insertRow();
    for (const cell of [`${r.line}:${r.column}`, `${r.construct} ${r.action}`,
                        (r.reasons || []).join(", "), r.url || r.message || ""]) {
      row.insertCell().textContent = cell;
    }
  }
  records.replaceChildren(table);
  return found;
}

function compare(mode, scenario, seen, found) {
  // The last run of each mode, side by side.
  const box = $("compare-" + mode);
  const leaked = seen.filter(carriesKey).length;
  box.className = seen.length ? "leak" : "safe";
  box.querySelector("span").textContent = `${scenario} reply: the attacker received `
    + `${seen.length} requests (${leaked} with the key); ${found.length} audit records.`;
}

// `/csp/` is this page sent with the Content-Security-Policy header of the policy.
const underCsp = location.pathname.startsWith("/csp");
$("csp").checked = underCsp;
$("csp").addEventListener("change", () => { location.href = $("csp").checked ? "/csp/" : "/"; });

const ready = load();
setInterval(() => { if (document.body.dataset.state === "streaming") pollAttacker(); }, 400);
$("honest").addEventListener("click", () => ready.then(() => stream("honest")));
$("attack").addEventListener("click", () => ready.then(() => stream("attack")));
