// The demo page: send the conversation as an OpenAI chat request, stream the reply,
// re-render the whole Markdown after every token (as chat clients do), then show the
// audit records rendersafe wrote for the request.
"use strict";

const md = window.markdownit({ html: true, linkify: true });
const reply = document.getElementById("reply");
const status = document.getElementById("status");
const records = document.getElementById("records");
const conversation = document.getElementById("conversation");
let messages = [];

async function loadConversation() {
  messages = await (await fetch("/demo/conversation")).json();
  conversation.className = "";
  conversation.replaceChildren(...messages.map((m) => {
    const line = document.createElement("p");
    const who = document.createElement("b");
    who.textContent = m.role + ": ";
    line.append(who, m.content);
    return line;
  }));
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
  const bypass = document.getElementById("bypass").checked;
  const requestId = "demo-" + Math.random().toString(16).slice(2);
  document.body.dataset.state = "streaming";
  status.textContent = (bypass ? "Unprotected" : "Through rendersafe") + ", streaming...";
  reply.innerHTML = "";
  records.textContent = "Waiting for the reply to end.";
  records.className = "none";
  const response = await fetch(`/${bypass ? "raw" : "api"}/chat?scenario=${scenario}`, {
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
  status.textContent = (bypass ? "Unprotected" : "Through rendersafe") + ", done. Request " + requestId + ".";
  await showAudit(requestId);
  document.body.dataset.state = "done";
}

async function showAudit(requestId) {
  const found = await (await fetch(`/demo/audit?request_id=${requestId}`)).json();
  if (!found.length) {
    records.textContent = "No records: nothing was removed.";
    return;
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
}

const ready = loadConversation();
document.getElementById("honest").addEventListener("click", () => ready.then(() => stream("honest")));
document.getElementById("attack").addEventListener("click", () => ready.then(() => stream("attack")));
