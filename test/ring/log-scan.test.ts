/**
 * Logs that are safe and useful (docs/operations.md "Logs"): a representative flow on a real `npm start` at
 * DEBUG level — a key created, a file uploaded, chat (buffered and streamed), embeddings, an agent and its
 * completion, a connector with a bearer credential and a tool call, a workflow run through the reference
 * worker, refused keys, a realtime transcription session opened with a client secret — and then EVERYTHING the stack wrote (stdout and stderr of the whole process tree)
 * is scanned: for the dev key and the key it created, for every text the requests carried (prompts, file
 * content, agent instructions, tool arguments, workflow input, the connector's token), and for secret shapes
 * (bearer headers, AWS access keys, `sk-` keys, OAuth tokens). The banner's two lines that show the local
 * dev key to its developer are the only exception (decision 0035), and are checked to be just those. The audit
 * events the flow produced (decision 0044: the API's and a CLI's, read through the admin route and `npm run
 * audit`) are scanned for the same secrets, and so are the engine's own lines of the workflow's execution log
 * (decision 0064); the line its activity wrote with `console` must reach that log (the tenant's), never the stack's.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { runWorker, type WorkflowModule } from "../../scripts/worker/run-worker.js";
import { connectorsClient } from "../support/connectors-client.js";
import { filesClient } from "../support/files-client.js";
import { startMcpServer } from "../support/mcp-server.js";
import { runCli, startNpmStart, until, useNpmStartDirs } from "../support/local-process.js";
import { workflowsClient } from "../support/workflow-builders.js";

const example = (await import(new URL("../../examples/workflows/summarize/activities.mjs", import.meta.url).href)) as WorkflowModule;
const { dataDir } = useNpmStartDirs("platform-log-scan-");

/** A marker no code would print unless it logged what carried it. */
const marker = (what: string) => `${what}-${randomBytes(8).toString("hex")}`;

/** Shapes of secrets, whoever they belong to. */
const SECRET_SHAPES: [string, RegExp][] = [
  ["bearer header", /bearer\s+[A-Za-z0-9._~+/-]{8,}/i],
  ["AWS access key id", /\b(AKIA|ASIA)[0-9A-Z]{16}\b/],
  ["AWS secret access key", /aws_secret_access_key|secretAccessKey"\s*:\s*"[^"]+/i],
  ["sk- style key", /\bsk-[A-Za-z0-9_-]{16,}/],
  ["Google OAuth token", /\bya29\.[A-Za-z0-9._-]+/],
  ["JWT", /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/],
  ["an authorization header's value", /"authorization"\s*:\s*"[^"]+"/i],
  ["a token= query", /[?&](token|access_token|code)=[A-Za-z0-9._~%-]{8,}/],
  ["client secret", /\brt_[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/],
];

/** Opens a realtime socket with a client secret (as a browser offers it), sends `messages`, answers the last event. */
async function realtimeSession(url: string, secret: string, messages: Record<string, unknown>[]): Promise<Record<string, unknown>> {
  const ws = new WebSocket(`${url.replace(/^http/, "ws")}/v1/audio/transcriptions/realtime?model=voxtral-mini-transcribe-realtime-2602`, ["realtime", secret]);
  let last: Record<string, unknown> = {};
  ws.on("message", (data) => (last = JSON.parse(String(data))));
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  for (const message of messages) ws.send(JSON.stringify(message));
  await new Promise((resolve) => ws.once("close", resolve));
  return last;
}

describe("the logs of npm start at DEBUG", () => {
  it("hold no key, no prompt, completion or file content, no token, after a representative flow; every request has one structured line", { timeout: 240_000 }, async () => {
    const key = `sk-dev${randomBytes(16).toString("hex")}`;
    const dir = dataDir();
    const server = await startNpmStart({ dataDir: dir, key, logLevel: "DEBUG", accessLog: true });
    // The audit events the flow produced (decision 44), through the admin route and the audit CLI: scanned below like the logs.
    let audited = "";
    // The engine's lines of the workflow run's execution log (decision 0064), scanned like the audit events.
    let engineLines = "";
    const mcp = await startMcpServer();
    const secrets: Record<string, string> = { "dev key": key };
    const http = filesClient(server, { key });
    const ok = (reply: { status: number; body: unknown }, what: string) => {
      expect(reply.status, `${what}: ${JSON.stringify(reply.body)}`).toBeLessThan(300);
      return reply.body as any;
    };
    let worker: ReturnType<typeof runWorker> | undefined;
    try {
      // A key of its own, made through the API (a service account's), and used.
      const account = ok(await http.request("POST", "/v1/service-accounts", { json: { name: "log-scan", workspace_id: /Workspace:\s+(\S+)/.exec(server.output())![1] } }), "service account");
      const created = ok(await http.request("POST", `/v1/service-accounts/${account.id}/keys`, { json: { name: "log-scan key" } }), "key");
      secrets["created key"] = created.key;
      await filesClient(server, { key: created.key }).request("GET", "/v1/models");

      // Refused keys, in both headers a key may come in.
      secrets["wrong key"] = `sk-wrong${randomBytes(16).toString("hex")}`;
      expect((await filesClient(server, { key: secrets["wrong key"] }).request("GET", "/v1/models")).status).toBe(401);
      expect((await http.request("GET", "/v1/users/me", { key: null, headers: { "x-api-key": secrets["wrong key"] } })).status).toBe(401);

      // A file.
      secrets["file content"] = marker("FILE-CONTENT");
      const file = ok(await http.upload({ filename: "notes.txt", content: `The notes say ${secrets["file content"]} and little else.`, purpose: "ocr", type: "text/plain" }), "upload");
      const signed = ok(await http.request("GET", `/v1/files/${file.id}/url`, { query: { expiry: 1 } }), "signed url");
      const download = await fetch(signed.url);
      expect(download.status).toBeLessThan(400);
      secrets["signed url token"] = new URL(signed.url).searchParams.get("token")!;

      // Chat, buffered and streamed; embeddings; FIM.
      secrets["chat prompt"] = marker("CHAT-PROMPT");
      const chat = ok(await http.request("POST", "/v1/chat/completions", { json: { model: "mistral-small-latest", messages: [{ role: "user", content: secrets["chat prompt"] }] } }), "chat");
      secrets["completion"] = String(chat.choices[0].message.content);
      secrets["streamed prompt"] = marker("STREAM-PROMPT");
      const streamed = await http.request("POST", "/v1/chat/completions", { json: { model: "mistral-small-latest", stream: true, messages: [{ role: "user", content: secrets["streamed prompt"] }] } });
      expect(streamed.status).toBe(200);
      secrets["embedded text"] = marker("EMBED-INPUT");
      ok(await http.request("POST", "/v1/embeddings", { json: { model: "mistral-embed", input: [secrets["embedded text"]] } }), "embeddings");

      // A realtime transcription session opened as a browser does, with a client secret as its subprotocol; its audio
      // carries a marker (as the base64 the client sends).
      const minted = ok(await http.request("POST", "/v1/client/sessions", { json: { purpose: "realtime", model: "voxtral-mini-transcribe-realtime-2602" } }), "client session");
      const clientSecret: string = minted.client_secret.value;
      secrets["client secret"] = clientSecret;
      const audio = Buffer.from(marker("REALTIME-AUDIO").padEnd(64, "."));
      const audioBase64 = audio.toString("base64");
      secrets["realtime audio"] = audioBase64;
      const done = await realtimeSession(server.url, clientSecret, [{ type: "input_audio.append", audio: audioBase64 }, { type: "input_audio.end" }]);
      expect(done.type).toBe("transcription.done");

      // An agent and its completion.
      secrets["agent instructions"] = marker("AGENT-INSTRUCTIONS");
      const agent = ok(await http.request("POST", "/v1/agents", { json: { model: "mistral-small-latest", name: "scanner", instructions: secrets["agent instructions"] } }), "agent");
      secrets["agent prompt"] = marker("AGENT-PROMPT");
      ok(await http.request("POST", "/v1/agents/completions", { json: { agent_id: agent.id, messages: [{ role: "user", content: secrets["agent prompt"] }] } }), "agent completion");

      // A connector with a bearer credential, and a tool call with arguments.
      const connectors = connectorsClient(server, { key });
      const connector = ok(await connectors.create({ name: `scan-${randomBytes(4).toString("hex")}`, description: "log scan", server: mcp.url }), "connector");
      secrets["connector token"] = `ya29.${randomBytes(24).toString("base64url")}`;
      ok(await connectors.createCredentials(connector.id, "user", { name: "main", credentials: { bearer_token: secrets["connector token"] } }), "credentials");
      secrets["tool argument"] = marker("TOOL-ARGUMENT");
      ok(await connectors.call(connector.id, "echo", { text: secrets["tool argument"] }), "tool call");
      expect(mcp.authorizations).toContain(`Bearer ${secrets["connector token"]}`);

      // A workflow run through the reference worker, on the uploaded file and a text; its first activity writes a
      // line with `console`, which the worker forwards to the execution's logs (decision 0064): the tenant's to read
      // there, never the stack's own logs.
      secrets["activity log line"] = marker("ACTIVITY-LOG-LINE");
      const logging: WorkflowModule = {
        ...example,
        activities: {
          ...example.activities,
          read_file: async (input, ctx) => {
            console.log(`reading with ${secrets["activity log line"]}`);
            return example.activities.read_file!(input, ctx);
          },
        },
      };
      worker = runWorker({ url: server.url, key, deployment: "examples", name: "scan", module: logging, pollWaitSeconds: 1, concurrency: 2, log: () => {} });
      await worker.registered;
      const workflows = workflowsClient(server, { key });
      secrets["workflow input"] = marker("WORKFLOW-INPUT");
      ok(await workflows.execute("summarize", { input: { text: `Summarise ${secrets["workflow input"]} please.` }, execution_id: "scan-1" }), "workflow");
      const closed = await until("the run to close", async () => {
        const execution = (await workflows.execution("scan-1")).body;
        return execution.status === "RUNNING" ? undefined : execution;
      });
      expect(closed.status).toBe("COMPLETED");
      // The execution's logs hold the activity's line; the engine's own lines (scanned below like the audit events) hold no payload.
      const logs = ok(await workflows.request("GET", "/v1/workflows/executions/scan-1/logs", { query: { limit: 100 } }), "execution logs");
      const lines = logs.results as { body: string; log_attributes: Record<string, string> }[];
      expect(lines.map((l) => l.body)).toContain(`reading with ${secrets["activity log line"]}`);
      engineLines = JSON.stringify(lines.filter((l) => l.log_attributes.source === "engine"));

      // A privileged change from the CLI beside the API's, then the audit log as an admin and the operator read it.
      const me = ok(await http.request("GET", "/v1/users/me"), "me");
      const fromCli = await runCli("keys", ["create", "--org", me.organization.id, "--workspace", me.workspace.id, "--name", "log-scan cli key"], dir);
      expect(fromCli.code, fromCli.output).toBe(0);
      secrets["CLI key"] = /API key:\s+(\S+)/.exec(fromCli.output)![1]!;
      const events = ok(await http.request("GET", "/v1/admin/audit-events", { query: { page_size: 100 } }), "audit events");
      const operations = events.data.map((e: { operation: string; origin: { via: string } }) => `${e.operation} ${e.origin.via}`);
      expect(operations).toEqual(expect.arrayContaining(["key.create cli", "key.create api", "service-account.create api", "connector.create api", "connector-credentials.store api"]));
      const table = await runCli("audit", ["--json", "--page-size", "100"], dir);
      expect(table.code, table.output).toBe(0);
      expect(table.output).toContain(`"operation": "key.create"`);
      audited = JSON.stringify(events) + table.output;
    } finally {
      await worker?.stop();
      await mcp.close();
      await server.kill();
    }

    const output = server.output();
    if (process.env.LOG_SCAN_DUMP) (await import("node:fs")).writeFileSync(process.env.LOG_SCAN_DUMP, output);
    const lines = output.split("\n");
    // The banner shows the dev key to the developer who started the stack (and only there).
    const banner = lines.filter((l) => l.includes(key));
    expect(banner.map((l) => l.replace(key, "<key>").replace(/http:\/\/\S+/, "<url>"))).toEqual(["Dev API key (admin): <key>", 'Try: curl -H "Authorization: Bearer <key>" <url>']);
    const logged = lines.filter((l) => !banner.includes(l)).join("\n");

    // The scan would see them: each shape matches what it stands for.
    for (const sample of [`Authorization: Bearer ${key}`, secrets["connector token"]!, key, '"authorization": "x"']) expect(SECRET_SHAPES.some(([, shape]) => shape.test(sample)), sample).toBe(true);
    for (const [what, secret] of Object.entries(secrets)) expect(logged.includes(secret), `the logs hold the ${what}`).toBe(false);
    // No audit event holds a secret the flow knows, nor anything shaped like one.
    expect(audited.length).toBeGreaterThan(100);
    for (const [what, secret] of Object.entries(secrets)) expect(audited.includes(secret), `an audit event holds the ${what}`).toBe(false);
    for (const [what, shape] of SECRET_SHAPES) expect(audited.match(shape)?.[0], `an audit event holds a ${what}`).toBeUndefined();
    expect(engineLines).toContain("Workflow summarize completed");
    for (const [what, secret] of Object.entries(secrets)) expect(engineLines.includes(secret), `an engine log line holds the ${what}`).toBe(false);
    for (const [what, shape] of SECRET_SHAPES) expect(engineLines.match(shape)?.[0], `an engine log line holds a ${what}`).toBeUndefined();
    for (const [what, shape] of SECRET_SHAPES) expect(logged.match(shape)?.[0], `the logs hold a ${what}`).toBeUndefined();

    // Every line but the banner is structured: JSON objects (pretty-printed locally: POWERTOOLS_DEV), one per log call.
    const objects = logged.match(/^\{\n[\s\S]*?\n\}$/gm) ?? [];
    const BANNER = /^(Platform API listening on |Workspace: |Data directory: |Models: |API reference: |Web console: |Access log \(ACCESS_LOG=off|$)/;
    // npm start's own access line (ACCESS_LOG, on by default; deployed, API Gateway's access log is JSON): a fixed
    // format with the path only, never the query. Scanned above like everything else.
    const LOCAL_ACCESS = /^\S+Z (GET|POST|PUT|PATCH|DELETE|OPTIONS) \/\S* \d{3}( \(client closed\))? \d+\.\dms [0-9a-f-]{36}$/;
    const localAccess = logged.split("\n").filter((l) => LOCAL_ACCESS.test(l));
    expect(localAccess.length).toBeGreaterThan(15);
    expect(localAccess.some((l) => l.includes("?"))).toBe(false);
    const rest = logged.replace(/^\{\n[\s\S]*?\n\}$/gm, "").split("\n").filter((l) => !BANNER.test(l) && !LOCAL_ACCESS.test(l));
    expect(rest, "unstructured lines").toEqual([]);
    const json = objects.map((o) => JSON.parse(o) as Record<string, unknown>);
    // Every request left one access line with its request id, route, status and latency.
    const requests = json.filter((l) => l.message === "request");
    expect(requests.length).toBeGreaterThan(15);
    for (const line of requests) {
      expect(line).toMatchObject({ level: "INFO", service: "platform-api", requestId: expect.any(String), route: expect.stringMatching(/^(GET|POST|PUT|PATCH|DELETE) \//), status: expect.any(Number), latencyMs: expect.any(Number) });
    }
    expect(new Set(requests.map((l) => l.requestId)).size, "one access line per request").toBe(requests.length);
    // Keyed routes name the caller's workspace.
    expect(requests.filter((l) => l.route === "POST /v1/chat/completions").every((l) => typeof l.workspace === "string")).toBe(true);
  });
});
