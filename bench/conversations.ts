/**
 * `npm run bench:conversations`: prints figures, asserts nothing. The agent loop's overhead per step over the model's
 * own time, against the offline provider (its model time is the platform's chat path itself):
 *
 *  1. one step: `POST /v1/conversations` with a model and a function tool (one model call, a `function.call` kept)
 *     against `POST /v1/chat/completions` with the same messages and tool;
 *  2. two steps: an agent that hands over to another (two model calls, an `agent.handoff` and a `message.output`
 *     kept) against two chat calls;
 *  3. `store: false` of (1): the loop without its write.
 *
 * Overhead per step = (turn − steps × chat) / steps, each round's own, then their median (rounds interleave the four
 * requests, so a busy moment of the machine weighs on both sides of a difference). One process (HTTP client,
 * local server, handlers) plus DynamoDB Local; machine figures, not cloud latencies.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { startLocalStack } from "../infra/local/stack.js";
import { median, ms, summarize, table, timed, type Summary } from "./stats.js";

const ROUNDS = Number(process.env.BENCH_CONVERSATION_ROUNDS ?? 100);
const log = (line = "") => console.log(line);
const cpuList = cpus();
log(`Conversations benchmark ${new Date().toISOString()}`);
log(`Machine: ${cpuList.length} cores (${cpuList[0]?.model ?? "?"}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}`);
log(`Load average at start: ${loadavg().map((x) => x.toFixed(2)).join(", ")} (1, 5, 15 min)`);

const dataDir = mkdtempSync(join(tmpdir(), "platform-bench-conversations-"));
const stack = await startLocalStack({ port: 0, dataDir, persist: false, authorizerCacheSeconds: 60 });

async function api(method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${stack.url}${path}`, { method, headers: { authorization: `Bearer ${stack.apiKey}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  return JSON.parse(text);
}

const tool = { type: "function", function: { name: "lookup", description: "Looks a thing up", parameters: { type: "object", properties: { q: { type: "string" } } } } };
const row = (what: string, s: Summary) => [what, String(s.n), ms(s.p50), ms(s.p90), ms(s.p99), ms(s.max)];

try {
  const second = await api("POST", "/v1/agents", { model: "mistral-small-latest", name: "Second" });
  const first = await api("POST", "/v1/agents", { model: "mistral-small-latest", name: "First", handoffs: [second.id] });
  const chat = () => api("POST", "/v1/chat/completions", { model: "mistral-small-latest", messages: [{ role: "user", content: "Find it" }], tools: [tool] });
  const oneStep = () => api("POST", "/v1/conversations", { model: "mistral-small-latest", tools: [tool], inputs: "Find it" });
  const unstored = () => api("POST", "/v1/conversations", { model: "mistral-small-latest", tools: [tool], inputs: "Find it", store: false });
  const twoSteps = () => api("POST", "/v1/conversations", { agent_id: first.id, inputs: "Help" });

  for (let i = 0; i < 10; i += 1) await Promise.all([chat(), oneStep(), twoSteps()]);
  const samples = { chat: [] as number[], one: [] as number[], unstored: [] as number[], two: [] as number[] };
  for (let i = 0; i < ROUNDS; i += 1) {
    samples.chat.push(await timed(chat));
    samples.one.push(await timed(oneStep));
    samples.unstored.push(await timed(unstored));
    samples.two.push(await timed(twoSteps));
  }
  const s = { chat: summarize(samples.chat), one: summarize(samples.one), unstored: summarize(samples.unstored), two: summarize(samples.two) };
  log("\n== Sequential requests, interleaved rounds ==");
  log(
    table([
      ["request", "n", "p50", "p90", "p99", "max"],
      row("POST /v1/chat/completions (one model call)", s.chat),
      row("POST /v1/conversations, 1 step (function.call kept)", s.one),
      row("POST /v1/conversations, 1 step, store: false", s.unstored),
      row("POST /v1/conversations, 2 steps (handoff, kept)", s.two),
    ]),
  );
  const perStep = (turn: number[], steps: number) => median(turn.map((t, i) => (t - steps * samples.chat[i]!) / steps));
  log("\n== The loop's overhead per step over the model call (median of the rounds' differences) ==");
  log(
    table([
      ["turn", "overhead per step"],
      ["1 step, kept", ms(perStep(samples.one, 1))],
      ["1 step, store: false", ms(perStep(samples.unstored, 1))],
      ["2 steps, kept", ms(perStep(samples.two, 2))],
    ]),
  );
  // The last requests' usage records and spans are written after their answers: let them land before the stack stops.
  await new Promise((resolve) => setTimeout(resolve, 1500));
} finally {
  await stack.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
