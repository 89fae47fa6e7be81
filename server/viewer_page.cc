#include "server/viewer_page.h"

namespace tokvec::server {

const std::string_view kViewerPage = R"page(<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>tokvec attention viewer</title>
<style>
  body { font: 14px system-ui, sans-serif; margin: 16px; color: #222; }
  h1 { font-size: 18px; margin: 0 0 8px; }
  textarea { width: 100%; max-width: 860px; height: 48px; font: 15px monospace; }
  .controls { margin: 8px 0; display: flex; gap: 12px; align-items: center; flex-wrap: wrap; }
  #status { color: #666; min-height: 1.2em; }
  #tokens span { display: inline-block; margin: 2px; padding: 1px 4px; border: 1px solid #ccd;
                 border-radius: 3px; font: 13px monospace; background: #f4f6fb; }
  canvas { border: 1px solid #ddd; margin-top: 8px; }
</style>
</head>
<body data-state="loading" data-tokens="0">
<h1>tokvec attention viewer</h1>
<textarea id="text" placeholder="Type a sentence"></textarea>
<div class="controls">
  <label>model <select id="model"></select></label>
  <label>layer <select id="layer"></select></label>
  <label>head <select id="head"></select></label>
  <label>API key <input id="key" type="password" size="12"></label>
</div>
<div id="status"></div>
<canvas id="heatmap" width="10" height="10"></canvas>
<div id="tokens"></div>
<script>
"use strict";
const $ = (id) => document.getElementById(id);
let models = [], timer = null, serial = 0, last = null;

function headers() {
  const h = {"Content-Type": "application/json"};
  if ($("key").value) h["Authorization"] = "Bearer " + $("key").value;
  return h;
}
function options(select, n, extra) {
  const keep = select.value;
  select.innerHTML = "";
  for (const [value, label] of extra) select.add(new Option(label, value));
  for (let i = 0; i < n; ++i) select.add(new Option(String(i), String(i)));
  if ([...select.options].some((o) => o.value === keep)) select.value = keep;
}
function fillLayers() {
  const m = models.find((m) => m.id === $("model").value);
  if (!m) return;
  options($("layer"), m.n_layers, []);
  options($("head"), m.n_heads, [["-1", "mean"]]);
}
async function loadModels() {
  const r = await fetch("/v1/models", {headers: headers()});
  const body = await r.json();
  if (!r.ok) throw new Error(body.error ? body.error.message : r.statusText);
  models = body.data;
  $("model").innerHTML = "";
  for (const m of models) $("model").add(new Option(m.id, m.id));
  fillLayers();
  document.body.dataset.state = "ready";
}
function schedule() {
  clearTimeout(timer);
  timer = setTimeout(update, 150);
}
async function update() {
  const text = $("text").value;
  if (!text) return;
  const mine = ++serial;
  const request = {text, model: $("model").value, layer: Number($("layer").value), head: Number($("head").value)};
  try {
    const r = await fetch("/v1/attention", {method: "POST", headers: headers(), body: JSON.stringify(request)});
    const body = await r.json();
    if (mine !== serial) return;  // a newer request is on its way
    if (!r.ok) throw new Error(body.error ? body.error.message : r.statusText);
    last = body;
    draw(body);
  } catch (e) {
    if (mine !== serial) return;
    $("status").textContent = "error: " + e.message;
    document.body.dataset.state = "error";
  }
}
function color(w) {  // white to dark blue
  const t = Math.max(0, Math.min(1, w));
  const c = (a, b) => Math.round(a + (b - a) * t);
  return `rgb(${c(255, 8)},${c(255, 48)},${c(255, 107)})`;
}
function draw(body) {
  const n = body.tokens.length, canvas = $("heatmap"), g = canvas.getContext("2d");
  const cell = Math.max(10, Math.min(28, Math.floor(400 / n)));
  g.font = "12px monospace";
  let label = 0;
  for (const t of body.tokens) label = Math.max(label, g.measureText(t).width);
  label = Math.ceil(label) + 8;
  canvas.width = label + n * cell + 2;
  canvas.height = label + n * cell + 2;
  g.fillStyle = "#fff";
  g.fillRect(0, 0, canvas.width, canvas.height);
  g.font = "12px monospace";
  g.fillStyle = "#222";
  g.textBaseline = "middle";
  for (let i = 0; i < n; ++i) {
    g.textAlign = "right";
    g.fillText(body.tokens[i], label - 4, label + i * cell + cell / 2);
    g.save();
    g.translate(label + i * cell + cell / 2, label - 4);
    g.rotate(-Math.PI / 2);
    g.textAlign = "left";
    g.fillText(body.tokens[i], 0, 0);
    g.restore();
  }
  for (let i = 0; i < n; ++i) {
    for (let j = 0; j < n; ++j) {
      g.fillStyle = color(body.weights[i][j]);
      g.fillRect(label + j * cell, label + i * cell, cell, cell);
    }
  }
  canvas.dataset.label = label;
  canvas.dataset.cell = cell;
  const list = $("tokens");
  list.innerHTML = "";
  body.tokens.forEach((t, i) => {
    const span = document.createElement("span");
    span.textContent = t;
    span.title = "id " + body.ids[i] + "  " + body.spellings[i];
    list.appendChild(span);
  });
  const head = body.head < 0 ? "mean of " + body.n_heads + " heads" : "head " + body.head;
  $("status").textContent = `${n} tokens · ${body.model} · layer ${body.layer} · ${head} · row: attending token`;
  document.body.dataset.tokens = String(n);
  document.body.dataset.state = "drawn";
}
$("heatmap").addEventListener("mousemove", (e) => {
  if (!last) return;
  const c = e.target, label = Number(c.dataset.label), cell = Number(c.dataset.cell);
  const i = Math.floor((e.offsetY - label) / cell), j = Math.floor((e.offsetX - label) / cell);
  if (i < 0 || j < 0 || i >= last.tokens.length || j >= last.tokens.length) return;
  $("status").textContent = `${last.tokens[i]} → ${last.tokens[j]}: ${last.weights[i][j].toFixed(4)}`;
});
$("text").addEventListener("input", schedule);
$("model").addEventListener("change", () => { fillLayers(); schedule(); });
$("layer").addEventListener("change", schedule);
$("head").addEventListener("change", schedule);
$("key").addEventListener("change", () => loadModels().then(schedule).catch(fail));
function fail(e) {
  $("status").textContent = "error: " + e.message;
  document.body.dataset.state = "error";
}
loadModels().catch(fail);
</script>
</body>
</html>
)page";

}  // namespace tokvec::server
