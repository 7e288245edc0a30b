// The page's calls to pbl: POST /api/METHOD on the server of pbl serve,
// with the token of the page's URL; or, in the static build (the page in
// the browser alone), pblCall(METHOD, JSON) of the WebAssembly module
// (cmd/pbl-wasm), whose models are the examples and the browser's storage.
let call = null;

const token = new URLSearchParams(location.search).get("token") || "";

async function httpCall(method, body, signal) {
  const r = await fetch("api/" + method, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Pbl-Token": token },
    body: JSON.stringify(body),
    signal,
  });
  const out = await r.json().catch(() => ({ error: r.statusText }));
  if (!r.ok) throw new Error(out.error || r.statusText);
  return out;
}

export function api(method, body, signal) {
  return call(method, body, signal);
}

// transport chooses how the page calls pbl, starting the WebAssembly
// module in the static build. Its models method, if any, fills the list
// of models to choose from.
export async function transport() {
  if (!window.PBL_STATIC) {
    call = httpCall;
    return {};
  }
  const { startWasm } = await import("./wasm.js");
  const t = await startWasm();
  call = t.call;
  return t;
}
