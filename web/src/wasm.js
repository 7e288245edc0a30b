// The page in the browser alone: pbl's loader and engines compiled to
// WebAssembly (cmd/pbl-wasm, run by Go's wasm_exec.js), the examples as
// models to open, a model's edits kept in the browser's storage
// (localStorage, by the model's name).
const storeKey = (name) => "pbl-model:" + name;

export async function startWasm() {
  const go = new window.Go();
  const resp = await fetch("pbl.wasm");
  const { instance } = await WebAssembly.instantiateStreaming(resp, go.importObject);
  go.run(instance);
  const examples = await (await fetch("examples/index.json")).json();
  const files = {};
  await Promise.all(examples.map(async (name) => { files[name] = await (await fetch("examples/" + name)).text(); }));
  window.pblSetFiles(JSON.stringify(files));
  let current = new URLSearchParams(location.search).get("model") || (examples.includes("asia.pbl") ? "asia.pbl" : examples[0]);
  const openModel = (name) => {
    current = name;
    const saved = localStorage.getItem(storeKey(name));
    const err = window.pblOpen(name, saved !== null ? saved : files[name]);
    if (err) throw new Error(err);
  };
  openModel(current);
  const call = async (method, body) => {
    if (method === "save") {
      localStorage.setItem(storeKey(current), body.source);
      return { saved: true };
    }
    const out = JSON.parse(await window.pblCall(method, JSON.stringify(body)));
    if (out && out.error !== undefined && Object.keys(out).length === 1) throw new Error(out.error);
    return out;
  };
  const models = (select, reopen) => {
    select.hidden = false;
    for (const name of examples) {
      const o = document.createElement("option");
      o.value = o.textContent = name;
      if (name === current) o.selected = true;
      select.append(o);
    }
    select.addEventListener("change", () => { openModel(select.value); reopen(); });
  };
  return { call, models };
}
