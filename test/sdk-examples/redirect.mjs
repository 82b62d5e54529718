// Preload for the official SDK's example programs (`node --import`): requests to Mistral's API go to the
// server named by MISTRAL_EXAMPLES_SERVER instead, so the examples run unmodified against `npm start`.
const origin = "https://api.mistral.ai";
const target = process.env.MISTRAL_EXAMPLES_SERVER;
if (!target) throw new Error("MISTRAL_EXAMPLES_SERVER is not set");
const original = globalThis.fetch;
globalThis.fetch = (input, init) => {
  const url = input instanceof Request ? input.url : String(input);
  if (url === origin || url.startsWith(`${origin}/`)) {
    const redirected = target.replace(/\/$/, "") + url.slice(origin.length);
    input =
      input instanceof Request
        ? new Request(redirected, { method: input.method, headers: input.headers, body: input.body, signal: input.signal, redirect: input.redirect, duplex: "half" })
        : redirected;
  }
  return original(input, init);
};
