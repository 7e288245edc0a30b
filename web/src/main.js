// The page of pbl serve (and of its static build): the model's graph laid
// out by dagre, a belief bar per state, evidence by clicking a state, the
// source in CodeMirror. Every number comes from pbl's engines through the
// API (api.js): the page computes none. The data-* attributes are the
// testing contract of docs/serve.md.
import "./app.css";
import dagre from "@dagrejs/dagre";
import { EditorView, keymap, lineNumbers, highlightActiveLine } from "@codemirror/view";
import { EditorState } from "@codemirror/state";
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { syntaxHighlighting, defaultHighlightStyle, bracketMatching } from "@codemirror/language";
import { setDiagnostics, lintGutter } from "@codemirror/lint";
import { pblLanguage } from "./pbl-lang.js";
import { api, transport } from "./api.js";

const $ = (sel, el = document) => el.querySelector(sel);
const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null) e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k);
  return e;
};

const state = {
  graph: null, // the last Graph that drew
  evidence: [], // [{var, state, do}]
  doMode: false,
  mpe: null,
  pending: 0, // requests under way, and edits not yet sent
  seq: 0, // the last update asked for
  abort: null,
};

// ---- status: ready when nothing is pending
function busy(n) {
  state.pending += n;
  const s = $('[data-role="status"]');
  s.dataset.state = state.pending > 0 ? "busy" : "ready";
  s.textContent = state.pending > 0 ? "updating…" : "ready";
}

// showApproximate labels the beliefs as approximate (docs/approximate.md):
// the engine that answered and why, as pbl's text output's first line.
function showApproximate(a) {
  const e = $('[data-role="approximate"]');
  if (!a) {
    e.hidden = true;
    e.textContent = "";
    delete e.dataset.engine;
    return;
  }
  e.hidden = false;
  e.dataset.engine = a.engine;
  e.textContent = `approximate: ${a.engine} (${a.why})${a.stopped ? ", stopped early: its best answer so far" : ""}`;
}

function showError(msg) {
  const e = $('[data-role="error"]');
  e.textContent = msg || "";
  e.hidden = !msg;
}

// ---- the graph
const NODE_W = 176, ROW_H = 18, HEAD_H = 24, CURVE_H = 56, NOTE_H = 16, SPACE_W = 300;

// mixtureNotes maps each variable of a mixture declaration to the note
// its box shows: the component "mixture of x, y · covariance full", a real
// variable "in the mixture over C".
function mixtureNotes(g) {
  const notes = new Map();
  for (const mx of g.mixtures || []) {
    const cov = mx.covariance.startsWith("variance") ? mx.covariance : "covariance " + mx.covariance;
    notes.set(mx.component, { role: "component", mixture: mx, text: "mixture (" + cov + ")", title: "a mixture of " + mx.vars.join(", ") + ", " + cov + ": the bars are the mixing weights given the evidence" });
    for (const v of mx.vars) notes.set(v, { role: "density", mixture: mx, text: "mixture over " + mx.component, title: "the density given the evidence (blue), the sum of the components' weighted densities (dashed, coloured as " + mx.component + "'s states)" });
  }
  return notes;
}

function nodeHeight(n, note) {
  const extra = note ? NOTE_H : 0;
  return extra + (n.kind === "real" ? HEAD_H + CURVE_H + 8 : HEAD_H + ROW_H * n.states.length + 6);
}

function spaceHeight(sp) {
  const rows = sp.error ? 2 : sp.kind === "fit" ? 1 + sp.names.length : sp.hyps.length + (sp.rest > 0 ? 1 : 0) + 1;
  return HEAD_H + NOTE_H + ROW_H * rows + 8;
}

const spaceId = (sp) => "\u0000space:" + sp.name + "\u0000" + sp.data;

function sameShape(a, b) {
  if (!a || !b || a.nodes.length !== b.nodes.length) return false;
  if (JSON.stringify(a.mixtures) !== JSON.stringify(b.mixtures) || JSON.stringify(a.spaces) !== JSON.stringify(b.spaces)) return false;
  return a.nodes.every((n, i) => {
    const m = b.nodes[i];
    return n.var === m.var && n.kind === m.kind && n.states.join("\u0000") === m.states.join("\u0000") && n.parents.join("\u0000") === m.parents.join("\u0000");
  });
}

function drawGraph(g) {
  const layout = new dagre.graphlib.Graph();
  layout.setGraph({ rankdir: "TB", nodesep: 24, ranksep: 44, marginx: 12, marginy: 12 });
  layout.setDefaultEdgeLabel(() => ({}));
  const notes = mixtureNotes(g);
  for (const n of g.nodes) layout.setNode(n.var, { width: NODE_W, height: nodeHeight(n, notes.get(n.var)) });
  for (const sp of g.spaces || []) layout.setNode(spaceId(sp), { width: SPACE_W, height: spaceHeight(sp) });
  for (const n of g.nodes) for (const p of n.parents) layout.setEdge(p, n.var);
  dagre.layout(layout);
  const box = $("#graph");
  box.replaceChildren();
  const { width, height } = layout.graph();
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("width", width);
  svg.setAttribute("height", height);
  svg.innerHTML = '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#7a8494"/></marker></defs>';
  for (const e of layout.edges()) {
    const pts = layout.edge(e).points;
    const path = document.createElementNS(ns, "path");
    path.setAttribute("d", pts.map((p, i) => (i ? "L" : "M") + p.x.toFixed(1) + "," + p.y.toFixed(1)).join(""));
    path.setAttribute("class", "edge");
    path.setAttribute("marker-end", "url(#arrow)");
    svg.append(path);
  }
  const layer = el("div", { class: "layer" });
  layer.style.width = width + "px";
  layer.style.height = height + "px";
  layer.append(svg);
  for (const n of g.nodes) {
    const pos = layout.node(n.var);
    const node = el("div", { class: "node " + n.kind, "data-var": n.var });
    node.style.left = pos.x - pos.width / 2 + "px";
    node.style.top = pos.y - pos.height / 2 + "px";
    node.style.width = pos.width + "px";
    const head = el("div", { class: "head" }, el("span", { class: "name", title: n.var }, n.var));
    if (n.kind === "discrete") {
      head.append(el("button", { class: "do", "data-role": "do", title: "an intervention do(" + n.var + "=…) instead of an observation", onclick: () => toggleDo(n.var) }, "do"));
    }
    node.append(head);
    const note = notes.get(n.var);
    if (note) {
      node.classList.add("mixture-" + note.role);
      node.append(el("div", { class: "note", "data-role": "mixture", "data-component": note.mixture.component, "data-covariance": note.mixture.covariance, title: note.title }, note.text));
    }
    if (n.kind === "real") {
      node.append(el("div", { class: "real", "data-role": "density", "data-var": n.var }, "real-valued"));
    }
    for (const s of n.states) {
      const bar = el("span", { class: "bar", title: "drag: the likelihood of a finding on " + n.var + " given " + s }, el("span", { class: "fill" }), el("span", { class: "lik" }));
      dragLikelihood(bar, n.var, n.states.indexOf(s), n.states.length);
      const row = el("div", { class: "row" + (note && note.role === "component" ? " c" + (n.states.indexOf(s) % 6) : ""), "data-var": n.var, "data-state": s, title: "click: observe " + n.var + "=" + s + "; click again: clear", onclick: () => clickState(n.var, s) },
        el("span", { class: "label" }, s),
        bar,
        el("span", { class: "num" }, ""));
      node.append(row);
    }
    layer.append(node);
  }
  for (const sp of g.spaces || []) {
    const pos = layout.node(spaceId(sp));
    const node = drawSpace(sp);
    node.style.left = pos.x - pos.width / 2 + "px";
    node.style.top = pos.y - pos.height / 2 + "px";
    node.style.width = pos.width + "px";
    layer.append(node);
  }
  const sizer = el("div", { class: "sizer" }, layer);
  box.append(sizer);
  fitGraph();
}

// drawSpace draws a hypothesis space's box: P(h | D) of its most probable
// hypotheses as pbl answered P(H | D), the rest counted, the MAP
// hypothesis (pbl's MAP(H | D)) marked; a space with continuous
// parameters shows its ML fit.
function drawSpace(sp) {
  const node = el("div", { class: "node space", "data-space": sp.name, "data-data": sp.data, "data-kind": sp.kind });
  const kinds = { grid: "hypothesis space", concept: "concept space", fit: "continuous parameters", states: "states as hypotheses" };
  node.append(el("div", { class: "head" }, el("span", { class: "name", title: sp.query }, (sp.kind === "states" ? "" : "space ") + sp.name + " | " + sp.data), el("span", { class: "kind" }, kinds[sp.kind] || sp.kind)));
  let note = sp.query;
  if (sp.kind !== "fit" && !sp.error) note += " · " + sp.support.toLocaleString("en") + " of " + sp.total.toLocaleString("en") + " with P(h|D) > 0";
  if (sp.kind === "fit") note = "ML fit, " + sp.query;
  node.append(el("div", { class: "note", title: "parameters: " + sp.names.join(", ") }, note));
  if (sp.error) {
    node.append(el("div", { class: "err", "data-role": "error", "data-space": sp.name }, sp.error));
    return node;
  }
  for (const h of sp.hyps) {
    const isMAP = h.label === sp.map;
    const attrs = { class: "row hyp" + (isMAP ? " map" : ""), "data-space": sp.name, "data-hyp": h.label, title: h.label };
    if (sp.kind === "fit") {
      attrs["data-ml"] = "true";
      const fit = el("div", attrs, el("span", { class: "label" }, "h_ML:"));
      for (const part of h.label.split(", ")) fit.append(el("span", { class: "param" }, part.replace("=", " = ")));
      node.append(fit);
      continue;
    }
    attrs["data-p"] = String(h.p);
    if (isMAP) attrs["data-map"] = "true";
    const fill = el("span", { class: "fill" });
    fill.style.width = (100 * h.p).toFixed(2) + "%";
    node.append(el("div", attrs,
      el("span", { class: "label" }, (isMAP ? "★ " : "") + h.label),
      el("span", { class: "bar" }, fill),
      el("span", { class: "num" }, fmtP(h.p))));
  }
  if (sp.rest > 0) {
    const fill = el("span", { class: "fill" });
    fill.style.width = (100 * sp.restP).toFixed(2) + "%";
    node.append(el("div", { class: "row hyp rest", "data-space": sp.name, "data-role": "rest", "data-count": sp.rest, "data-p": String(sp.restP) },
      el("span", { class: "label" }, "+ " + sp.rest.toLocaleString("en") + " more"),
      el("span", { class: "bar" }, fill),
      el("span", { class: "num" }, fmtP(sp.restP))));
  }
  if (sp.kind !== "fit") {
    const shown = sp.hyps.some((h) => h.label === sp.map);
    node.append(el("div", { class: "row maprow", "data-role": "map", "data-space": sp.name, "data-hyp": sp.map }, el("span", { class: "label" }, "MAP: " + sp.map + (shown ? "" : " (not among those listed)"))));
  }
  return node;
}

// fitGraph scales a graph wider than its panel down to the panel's width
// (to half its size at most; beyond, the panel scrolls).
function fitGraph() {
  const box = $("#graph");
  const sizer = $(".sizer", box);
  if (!sizer) return;
  const layer = $(".layer", sizer);
  const w = parseFloat(layer.style.width), h = parseFloat(layer.style.height);
  const scale = Math.max(0.5, Math.min(1, (box.clientWidth - 20) / w));
  layer.style.transform = scale < 1 ? `scale(${scale})` : "";
  sizer.style.width = w * scale + 16 + "px";
  sizer.style.height = h * scale + 16 + "px";
}
window.addEventListener("resize", fitGraph);

function fmtP(p) {
  if (p === 0 || p === 1) return String(p * 100) + "%";
  const pct = p * 100;
  return (pct < 0.01 ? pct.toExponential(1) : pct.toFixed(pct < 1 ? 3 : 1)) + "%";
}

function showBeliefs(b) {
  for (const bl of b.beliefs) {
    const node = $(`.node[data-var="${CSS.escape(bl.var)}"]`);
    if (!node) continue;
    if (bl.density) drawDensity(node, bl);
    node.classList.toggle("soft", !!bl.likelihood);
    node.classList.toggle("observed", !!bl.observed && !bl.do);
    node.classList.toggle("intervened", !!bl.observed && !!bl.do);
    const rows = node.querySelectorAll(".row");
    rows.forEach((row, i) => {
      const p = bl.p[i];
      if (p === undefined) {
        delete row.dataset.p;
        row.querySelector(".num").textContent = "";
        row.querySelector(".fill").style.width = "0";
        return;
      }
      row.dataset.p = String(p);
      // An approximate answer's number carries its error: ≈ before it,
      // the error in data-err and the row's tooltip.
      const err = bl.error ? bl.error[i] : undefined;
      row.querySelector(".num").textContent = (err !== undefined ? "≈" : "") + fmtP(p);
      if (err !== undefined) {
        row.dataset.err = String(err);
        row.title = `P = ${fmtP(p)} ± ${fmtP(err)} (approximate)`;
      } else {
        delete row.dataset.err;
        row.removeAttribute("title");
      }
      row.querySelector(".fill").style.width = (100 * p).toFixed(2) + "%";
      row.classList.toggle("chosen", bl.observed === row.dataset.state);
      const lik = row.querySelector(".lik");
      if (bl.likelihood) {
        row.dataset.likelihood = String(bl.likelihood[i]);
        lik.style.left = (100 * bl.likelihood[i]).toFixed(2) + "%";
        lik.hidden = false;
      } else {
        delete row.dataset.likelihood;
        lik.hidden = true;
      }
    });
  }
  const pe = $('[data-role="pe"]');
  pe.dataset.p = String(b.pe);
  pe.textContent = b.pe < 1e-4 && b.pe > 0 ? b.pe.toExponential(6) : String(Number(b.pe.toPrecision(6)));
  if (b.peError) {
    pe.dataset.err = String(b.peError);
    pe.textContent += " ± " + Number(b.peError.toPrecision(2));
  } else delete pe.dataset.err;
  showApproximate(b.approximate);
  $('[data-role="evidence"]').textContent = b.query;
  showError(b.error);
}

// drawDensity draws a real variable's density given the evidence, as pbl
// computed it at each point, with the range of x below.
function drawDensity(node, bl) {
  const box = $('[data-role="density"]', node);
  if (!box) return;
  const w = NODE_W - 14, h = CURVE_H - 14;
  const ymax = Math.max(...bl.density) || 1;
  const x0 = bl.x[0], x1 = bl.x[bl.x.length - 1];
  const ptsOf = (ys) => bl.x.map((x, i) => `${(((x - x0) / (x1 - x0)) * w).toFixed(1)},${(h - (ys[i] / ymax) * h).toFixed(1)}`);
  const pts = ptsOf(bl.density);
  const fmt = (v) => String(Number(v.toPrecision(3)));
  const esc = (t) => t.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
  // A mixture's components: each its weight times its density given the
  // evidence (they sum to the curve), as pbl answered them.
  const mx = ((state.graph && state.graph.mixtures) || []).find((m) => m.vars.includes(bl.var));
  const compNode = mx && state.graph.nodes.find((n) => n.var === mx.component);
  const colour = (c, k) => (compNode ? Math.max(0, compNode.states.indexOf(c.state)) : k) % 6;
  const comps = (bl.components || []).map((c, k) =>
    `<path class="component c${colour(c, k)}" data-component="${esc(c.state)}" data-weight="${c.weight}" data-density="${c.density.join(" ")}" d="M${ptsOf(c.density).join("L")}"><title>${esc(c.state)}: weight ${fmtP(c.weight)}</title></path>`).join("");
  box.dataset.x = bl.x.join(" ");
  box.dataset.density = bl.density.join(" ");
  box.innerHTML = `<svg width="${w}" height="${h}"><path class="area" d="M0,${h}L${pts.join("L")}L${w},${h}z"/>${comps}<path class="line" d="M${pts.join("L")}"/></svg>` +
    `<div class="axis"><span>${fmt(x0)}</span><span>${fmt(x1)}</span></div>`;
}

function showMPE(m) {
  const box = $('[data-role="mpe"]');
  box.replaceChildren();
  document.querySelectorAll(".row.mpe").forEach((r) => r.classList.remove("mpe"));
  if (!m) return;
  if (m.error) {
    box.append(el("div", { class: "err" }, m.error));
    return;
  }
  box.append(el("div", {}, el("code", {}, m.query), " = ", el("span", { "data-p": String(m.p) }, String(Number(m.p.toPrecision(6))))));
  if (m.approximate) {
    box.append(el("div", { "data-role": "mpe-approximate", "data-engine": m.approximate.engine },
      `approximate: ${m.approximate.engine} (${m.approximate.why}): a local optimum, perhaps not the most probable`));
  }
  const list = el("div", { class: "assignment" });
  for (const f of m.assignment) {
    list.append(el("span", { class: "pair", "data-var": f.var, "data-state": f.state }, f.var + "=" + f.state));
    const row = $(`.row[data-var="${CSS.escape(f.var)}"][data-state="${CSS.escape(f.state)}"]`);
    if (row) row.classList.add("mpe");
  }
  box.append(list);
}

// ---- evidence
let suppressClick = false;

// dragLikelihood makes a state's bar set, by dragging, the likelihood of
// a finding on v given that state (X~[l1, l2, ...]): the position along
// the bar, from 0 to 1; the variable's other states keep theirs (1 at
// first). The beliefs follow as the bar is dragged.
function dragLikelihood(bar, v, i, n) {
  let drag = null;
  const at = (e) => {
    const r = bar.getBoundingClientRect();
    return Math.max(0, Math.min(1, Math.round(((e.clientX - r.left) / r.width) * 100) / 100));
  };
  bar.addEventListener("pointerdown", (e) => {
    drag = { x0: e.clientX, moved: false };
    bar.setPointerCapture(e.pointerId);
  });
  bar.addEventListener("pointermove", (e) => {
    if (!drag) return;
    if (!drag.moved && Math.abs(e.clientX - drag.x0) < 4) return;
    drag.moved = true;
    setLikelihood(v, i, n, at(e));
  });
  const end = (e) => {
    flushLikelihood();
    if (drag && drag.moved) {
      suppressClick = true;
      setTimeout(() => { suppressClick = false; }, 0);
    }
    drag = null;
  };
  bar.addEventListener("pointerup", end);
  bar.addEventListener("pointercancel", end);
}

function setLikelihood(v, i, n, l) {
  let f = state.evidence.find((f) => f.var === v);
  if (!f || !f.likelihood) {
    const g = { var: v, likelihood: new Array(n).fill(1) };
    if (f) state.evidence[state.evidence.indexOf(f)] = g;
    else state.evidence.push(g);
    f = g;
  }
  if (f.likelihood[i] === l) return;
  const next = f.likelihood.slice();
  next[i] = l;
  if (next.every((x) => x === 0)) return; // not all 0
  f.likelihood = next;
  if (!state.frame) {
    busy(1); // an update is pending until the frame asks for it
    state.frame = requestAnimationFrame(flushLikelihood);
  }
}

// flushLikelihood asks for the beliefs under the likelihoods dragged so far.
function flushLikelihood() {
  if (!state.frame) return;
  cancelAnimationFrame(state.frame);
  state.frame = 0;
  update();
  busy(-1);
}

function clickState(v, s) {
  if (suppressClick) return; // the end of a drag
  const i = state.evidence.findIndex((f) => f.var === v);
  if (i >= 0 && state.evidence[i].state === s && !state.evidence[i].likelihood) {
    state.evidence.splice(i, 1); // clicked again: clear
  } else {
    const f = { var: v, state: s };
    if (state.doMode) f.do = true;
    if (i >= 0) state.evidence[i] = f;
    else state.evidence.push(f);
  }
  update();
}

function toggleDo(v) {
  const f = state.evidence.find((f) => f.var === v);
  if (f && !f.likelihood) {
    if (f.do) delete f.do;
    else f.do = true;
    update();
  } else {
    setDoMode(!state.doMode);
  }
}

function setDoMode(on) {
  state.doMode = on;
  const b = $('[data-role="do-mode"]');
  b.setAttribute("aria-pressed", on ? "true" : "false");
  b.classList.toggle("on", on);
}

async function update() {
  const seq = ++state.seq;
  if (state.abort) state.abort.abort();
  const ctl = new AbortController();
  state.abort = ctl;
  state.mpe = null;
  showMPE(null);
  busy(1);
  try {
    const b = await api("update", { evidence: state.evidence }, ctl.signal);
    if (seq === state.seq) showBeliefs(b);
  } catch (e) {
    if (e.name !== "AbortError" && seq === state.seq) showError(String(e.message || e));
  } finally {
    busy(-1);
  }
}

async function mpe() {
  busy(1);
  try {
    showMPE(await api("mpe", { evidence: state.evidence }));
  } catch (e) {
    showError(String(e.message || e));
  } finally {
    busy(-1);
  }
}

// ---- statements and diagnostics
function showStmts(stmts) {
  const box = $('[data-role="stmts"]');
  box.replaceChildren();
  for (const s of stmts) {
    const cls = s.kind === "expect" ? (s.pass ? "pass" : "fail") : s.error ? "fail" : "query";
    const item = el("li", { class: cls, "data-line": s.line },
      el("span", { class: "kind" }, s.kind === "expect" ? (s.pass ? "✓ expect" : "✗ expect") : "query"), " ",
      el("code", {}, s.text));
    if (s.answer) item.append(el("pre", {}, s.answer));
    if (s.error) item.append(el("div", { class: "err" }, s.error));
    box.append(item);
  }
}

function showDiagnostics(diags) {
  const box = $('[data-role="diagnostics"]');
  box.replaceChildren();
  for (const d of diags) {
    box.append(el("li", { "data-line": d.line, "data-col": d.col, onclick: () => goTo(d.line, d.col) }, `${d.line}:${d.col}: ${d.message}`));
  }
  if (!editor) return;
  const doc = editor.state.doc;
  const off = (line, col) => {
    const l = doc.line(Math.min(Math.max(line, 1), doc.lines));
    return Math.min(l.from + col - 1, l.to);
  };
  const cm = diags.map((d) => {
    const from = off(d.line, d.col);
    let to = off(d.endLine, d.endCol);
    if (to <= from) to = Math.min(from + 1, doc.length);
    return { from, to, severity: "error", message: d.message };
  });
  editor.dispatch(setDiagnostics(editor.state, cm));
}

function goTo(line, col) {
  const l = editor.state.doc.line(Math.min(line, editor.state.doc.lines));
  editor.dispatch({ selection: { anchor: Math.min(l.from + col - 1, l.to) }, scrollIntoView: true });
  editor.focus();
}

// ---- loading and editing
async function open(source) {
  busy(1);
  try {
    const body = { keep: state.evidence };
    if (source !== undefined) body.source = source;
    const g = await api("open", body);
    if (source === undefined) setSource(g.source, g.editable);
    showDiagnostics(g.diagnostics);
    $("#file").textContent = g.file;
    if (g.version === 0) return; // nothing has loaded yet
    showStmts(g.stmts);
    if (!g.loaded && state.graph) return; // keep the graph and evidence of the last model
    if (!sameShape(state.graph, g)) drawGraph(g);
    state.graph = g;
    state.evidence = g.evidence;
    await update();
  } catch (e) {
    showError(String(e.message || e));
  } finally {
    busy(-1);
  }
}

let editor = null;
let editTimer = null;
let settingSource = false;

function setSource(text, editable) {
  settingSource = true;
  if (!editor) {
    editor = new EditorView({
      parent: $("#editor"),
      state: EditorState.create({
        doc: text,
        extensions: [
          lineNumbers(), history(), highlightActiveLine(), bracketMatching(), lintGutter(),
          keymap.of([
            { key: "Mod-s", run: () => (save(), true) },
            { key: "Shift-Alt-f", run: () => (fmt(), true) },
            ...defaultKeymap, ...historyKeymap,
          ]),
          pblLanguage, syntaxHighlighting(defaultHighlightStyle),
          EditorState.readOnly.of(!editable),
          EditorView.updateListener.of((u) => { if (u.docChanged && !settingSource) edited(); }),
        ],
      }),
    });
  } else {
    editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: text } });
  }
  settingSource = false;
  $('[data-role="format"]').disabled = !editable;
  $('[data-role="save"]').disabled = !editable;
}

function edited() {
  if (editTimer) clearTimeout(editTimer);
  else busy(1);
  $('[data-role="save"]').classList.add("dirty");
  editTimer = setTimeout(async () => {
    editTimer = null;
    try {
      await open(editor.state.doc.toString());
    } finally {
      busy(-1);
    }
  }, 250);
}

async function fmt() {
  busy(1);
  try {
    const r = await api("format", { source: editor.state.doc.toString() });
    if (r.diagnostics.length) showDiagnostics(r.diagnostics);
    else if (r.source !== editor.state.doc.toString()) editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: r.source } });
  } catch (e) {
    showError(String(e.message || e));
  } finally {
    busy(-1);
  }
}

async function save() {
  busy(1);
  try {
    await api("save", { source: editor.state.doc.toString() });
    $('[data-role="save"]').classList.remove("dirty");
  } catch (e) {
    showError(String(e.message || e));
  } finally {
    busy(-1);
  }
}

// ---- the page
function init() {
  $('[data-role="mpe-button"]').addEventListener("click", mpe);
  $('[data-role="do-mode"]').addEventListener("click", () => setDoMode(!state.doMode));
  $('[data-role="clear"]').addEventListener("click", () => { state.evidence = []; update(); });
  $('[data-role="format"]').addEventListener("click", fmt);
  $('[data-role="save"]').addEventListener("click", save);
  $('[data-role="copy"]').addEventListener("click", () => navigator.clipboard && navigator.clipboard.writeText($('[data-role="evidence"]').textContent));
  transport().then((t) => {
    if (t.models) t.models($("#models"), () => { state.graph = null; state.evidence = []; open(); });
    return open();
  }).catch((e) => showError(String(e.message || e))).finally(() => busy(-1));
}

busy(1);
if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
else init();
