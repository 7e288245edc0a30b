// The page in the browser alone: pbl's loader and engines compiled to
// WebAssembly (cmd/pbl-wasm, run by Go's wasm_exec.js), the examples as
// models to open (their files and data served to Go by memfs.js), a
// model's edits kept in the browser's storage (localStorage, by name).
import { installMemFS } from "./memfs.js";

const storeKey = (name) => "pbl-model:" + name;

function loadScript(src) {
  return new Promise((resolve, reject) => {
    const s = document.createElement("script");
    s.src = src;
    s.onload = resolve;
    s.onerror = () => reject(new Error("cannot load " + src));
    document.head.append(s);
  });
}

export async function startWasm() {
  // site.json: {"models": [NAME.pbl, …], "files": [PATH, …]}, paths under examples/.
  const site = await (await fetch("examples/site.json")).json();
  const files = {};
  await Promise.all(site.files.map(async (p) => { files["/examples/" + p] = await (await fetch("examples/" + p)).text(); }));
  installMemFS(files); // before wasm_exec.js, which keeps a globalThis.fs it finds
  await loadScript("wasm_exec.js");
  const go = new window.Go();
  const { instance } = await WebAssembly.instantiateStreaming(fetch("pbl.wasm"), go.importObject);
  go.run(instance);
  const models = site.models;
  let current = new URLSearchParams(location.search).get("model");
  if (!models.includes(current)) current = models.includes("asia.pbl") ? "asia.pbl" : models[0];
  const openModel = (name) => {
    current = name;
    const saved = localStorage.getItem(storeKey(name));
    const err = window.pblOpen(name, saved !== null ? saved : files["/examples/" + name]);
    if (err) throw new Error(err);
  };
  openModel(current);
  const call = async (method, body) => {
    if (method === "save") {
      localStorage.setItem(storeKey(current), body.source);
      return { saved: true };
    }
    const out = JSON.parse(await window.pblCall(method, JSON.stringify(body)));
    if (out && typeof out.error === "string" && Object.keys(out).length === 1) throw new Error(out.error);
    return out;
  };
  const list = (select, reopen) => {
    select.hidden = false;
    for (const name of models) {
      const o = document.createElement("option");
      o.value = o.textContent = name;
      if (name === current) o.selected = true;
      select.append(o);
    }
    select.addEventListener("change", () => { openModel(select.value); reopen(); });
  };
  return { call, models: list };
}
