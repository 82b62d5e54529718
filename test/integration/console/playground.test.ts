/**
 * The console's Playground in headless Chromium against the embedded API (the offline provider answers): a
 * streamed chat of several turns with a catalog model (sampling fields, JSON mode, tools checked before sending),
 * an agent's completion, a fill-in-the-middle completion; the usage, Server-Timing and backend shown after each
 * call, the calls in the API's usage report; and what a narrower key sees.
 */
import type { Browser, Request } from "playwright-core";
import { describe, expect, it } from "vitest";
import { agentsClient, anAgentRequest } from "../../support/agents-client.js";
import { useEmbeddedApi } from "../../support/api.js";
import { useChromium } from "../../support/chromium.js";
import { openConsole } from "../../support/console.js";
import { filesClient } from "../../support/files-client.js";
import { offlineEcho, offlineFim } from "../../support/inference-client.js";
import { newTenant } from "../../support/tenant.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
const http = filesClient(api, tenant);

const chromium = useChromium();

const sentTo = (path: string) => (request: Request) => request.method() === "POST" && request.url() === `${api.url}${path}`;
const today = () => new Date().toISOString().slice(0, 10);

/** The tenant's model calls today, per model, from the usage report. */
async function requestsPerModel(): Promise<Record<string, number>> {
  const report = (await http.request("GET", "/v1/usage", { query: { from: today(), to: today(), group_by: "model" } })).body as { data: { model: string; requests: number }[] };
  return Object.fromEntries(report.data.map((row) => [row.model, row.requests]));
}

describe("the Playground", () => {
  it("streams a conversation with a model, then with an agent, and a FIM completion, showing usage, timing and backend", async () => {
    const agent = (await agentsClient(api, tenant).create(anAgentRequest({ name: "Brief helper", instructions: "Be brief." }))).body as { id: string };
    const c = await openConsole(chromium.browser, api.url, tenant.key);
    const { page } = c;
    await c.open("#/playground", "Playground");
    await page.getByLabel("Model", { exact: true }).waitFor();
    // Chat-capable models only: no embeddings model, and the FIM model is there as it also chats.
    const options = await page.getByLabel("Model", { exact: true }).locator("option").allTextContents();
    expect(options.some((o) => o.startsWith("mistral-small-latest"))).toBe(true);
    expect(options.some((o) => o.startsWith("codestral-latest"))).toBe(true);
    expect(options.some((o) => o.startsWith("mistral-embed"))).toBe(false);
    expect(await c.accessibility()).toEqual([]);

    // First turn: system prompt, temperature and max tokens.
    await page.getByLabel("Model", { exact: true }).selectOption("mistral-small-latest");
    await page.getByLabel("System prompt (optional)").fill("Answer in one line.");
    await page.getByLabel("Temperature").fill("0.3");
    await page.getByLabel("Max tokens").fill("64");
    await page.getByLabel("Message").fill("Hello there");
    const [first] = await Promise.all([page.waitForRequest(sentTo("/v1/chat/completions")), page.getByRole("button", { name: "Send" }).click()]);
    expect(first.postDataJSON()).toEqual({
      model: "mistral-small-latest",
      messages: [
        { role: "system", content: "Answer in one line." },
        { role: "user", content: "Hello there" },
      ],
      temperature: 0.3,
      max_tokens: 64,
      stream: true,
    });
    expect(first.headers().accept).toBe("text/event-stream");
    const turns = page.getByRole("list", { name: "Turns" }).getByRole("listitem");
    await turns.filter({ hasText: offlineEcho("Hello there") }).waitFor();
    await page.getByRole("heading", { name: "Last call" }).waitFor();
    expect(await page.getByTestId("fact-backend").textContent()).toBe("offline");
    expect(await page.getByTestId("fact-model").textContent()).toBe("mistral-small-latest");
    expect(await page.getByTestId("fact-finish-reason").textContent()).toBe("stop");
    expect(Number(await page.getByTestId("fact-total-tokens").textContent())).toBeGreaterThan(0);
    expect(await page.getByTestId("fact-server-timing").textContent()).toMatch(/dur=/);
    expect(await page.getByLabel("Message").inputValue()).toBe("");
    expect(await c.accessibility()).toEqual([]);

    // Tools are checked before anything is sent.
    const chatCalls = () => c.requests.filter((r) => r.method === "POST" && r.url === `${api.url}/v1/chat/completions`).length;
    await page.getByLabel("Tools (JSON array, optional)").fill('[{"type": "function", "function": {"name": "lookup"}}');
    await page.getByLabel("Message").fill("What is the weather?");
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("alert").filter({ hasText: "Tools are not valid JSON" }).waitFor();
    await page.getByLabel("Tools (JSON array, optional)").fill('[{"type": "function", "function": {"name": "lookup"}}]');
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("alert").filter({ hasText: "Tool 1: function.parameters must be a JSON Schema object." }).waitFor();
    expect(chatCalls()).toBe(1);
    expect(await c.accessibility()).toEqual([]);

    // Second turn, with a valid tool: the model asks for the tool, shown as a tool call.
    const tools = [{ type: "function", function: { name: "lookup", description: "Looks a city up", parameters: { type: "object", properties: { city: { type: "string" } } } } }];
    await page.getByLabel("Tools (JSON array, optional)").fill(JSON.stringify(tools));
    const [second] = await Promise.all([page.waitForRequest(sentTo("/v1/chat/completions")), page.getByRole("button", { name: "Send" }).click()]);
    expect(second.postDataJSON()).toMatchObject({ tools, messages: [{ role: "system" }, { role: "user", content: "Hello there" }, { role: "assistant", content: offlineEcho("Hello there") }, { role: "user", content: "What is the weather?" }] });
    await turns.filter({ hasText: '"name": "lookup"' }).waitFor();
    await page.getByTestId("fact-finish-reason").filter({ hasText: "tool_calls" }).waitFor();

    // Third turn in JSON mode, without tools; an assistant turn added by hand goes along.
    await page.getByLabel("Tools (JSON array, optional)").fill("");
    await page.getByLabel("JSON mode (the answer is one JSON object)").check();
    await page.getByLabel("Role").selectOption("assistant");
    await page.getByLabel("Message").fill("I have no weather tool after all.");
    await page.getByRole("button", { name: "Add turn" }).click();
    await page.getByLabel("Message").fill("Then say hi");
    const [third] = await Promise.all([page.waitForRequest(sentTo("/v1/chat/completions")), page.getByRole("button", { name: "Send" }).click()]);
    const body = third.postDataJSON();
    expect(body.response_format).toEqual({ type: "json_object" });
    expect(body.tools).toBeUndefined();
    expect(body.messages.slice(-2)).toEqual([
      { role: "assistant", content: "I have no weather tool after all." },
      { role: "user", content: "Then say hi" },
    ]);
    await turns.filter({ hasText: JSON.stringify({ offline: true, echo: "Then say hi" }) }).waitFor();
    expect(await turns.count()).toBe(7);

    await page.getByRole("button", { name: "Clear" }).click();
    await page.getByText("No turns yet.").waitFor();
    expect(await page.getByRole("heading", { name: "Last call" }).count()).toBe(0);

    // An agent: its id instead of a model, and no temperature (the agent's own).
    await page.getByLabel("JSON mode (the answer is one JSON object)").uncheck();
    await page.getByLabel("An agent").check();
    await page.getByLabel("Agent", { exact: true }).selectOption(agent.id);
    expect(await page.getByLabel("Temperature").count()).toBe(0);
    await page.getByLabel("Message").fill("Hi agent");
    const [agentCall] = await Promise.all([page.waitForRequest(sentTo("/v1/agents/completions")), page.getByRole("button", { name: "Send" }).click()]);
    expect(agentCall.postDataJSON()).toEqual({ agent_id: agent.id, messages: [{ role: "system", content: "Answer in one line." }, { role: "user", content: "Hi agent" }], max_tokens: 64, stream: true });
    await turns.filter({ hasText: offlineEcho("Hi agent") }).waitFor();
    expect(await page.getByTestId("fact-backend").textContent()).toBe("offline");
    expect(await c.accessibility()).toEqual([]);

    // Fill in the middle: FIM models only.
    await page.getByRole("link", { name: "Fill in the middle" }).click();
    await page.getByRole("link", { name: "Fill in the middle" }).and(page.locator('[aria-current="page"]')).waitFor();
    expect(await page.getByLabel("Model", { exact: true }).locator("option").allTextContents()).toEqual([expect.stringMatching(/^codestral-latest/)]);
    await page.getByLabel("Max tokens").fill("32");
    await page.getByLabel("Prompt (the code before the gap)").fill("def add(a, b):\n    return");
    await page.getByLabel("Suffix (the code after the gap, optional)").fill("\n\nprint(add(1, 2))");
    const [fim] = await Promise.all([page.waitForRequest(sentTo("/v1/fim/completions")), page.getByRole("button", { name: "Complete" }).click()]);
    expect(fim.postDataJSON()).toEqual({ model: "codestral-latest", prompt: "def add(a, b):\n    return", suffix: "\n\nprint(add(1, 2))", max_tokens: 32, stream: true });
    await page.getByTestId("fim-output").filter({ hasText: offlineFim("    return") }).waitFor();
    await page.getByTestId("fact-model").filter({ hasText: "codestral-latest" }).waitFor();
    expect(Number(await page.getByTestId("fact-completion-tokens").textContent())).toBeGreaterThan(0);
    expect(await c.accessibility()).toEqual([]);

    // The API counted every call the page made.
    await expect.poll(requestsPerModel, { timeout: 15_000 }).toEqual({ "mistral-small-latest": 4, "codestral-latest": 1 });
    expect(c.problems).toEqual([]);
    await page.context().close();
  }, 120_000);

  it("offers a key that may call and list models, but not read agents, the models only", async () => {
    const coder = await newTenant({ roles: ["mistral_code_user"], organization: tenant.caller.organization, workspace: tenant.caller.workspace });
    const c = await openConsole(chromium.browser, api.url, coder.key);
    const links = await c.page.getByRole("navigation", { name: "Console" }).getByRole("link").allTextContents();
    expect(links).toEqual(["Playground"]);
    await c.open("#/playground", "Playground");
    await c.page.getByLabel("Model", { exact: true }).waitFor();
    expect(await c.page.getByRole("group", { name: "Answer with" }).count()).toBe(0);
    expect(await c.page.getByLabel("An agent").count()).toBe(0);
    expect(c.requests.some((r) => r.url.startsWith(`${api.url}/v1/agents`))).toBe(false);
    await c.page.getByLabel("Message").fill("Hello");
    await c.page.getByRole("button", { name: "Send" }).click();
    await c.page.getByRole("list", { name: "Turns" }).getByText(offlineEcho("Hello")).waitFor();
    expect(await c.accessibility()).toEqual([]);
    expect(c.problems).toEqual([]);
    await c.page.context().close();
  });

  it("is not offered to a key without inference:invoke", async () => {
    const viewer = await newTenant({ roles: ["observability_viewer"], organization: tenant.caller.organization, workspace: tenant.caller.workspace });
    const c = await openConsole(chromium.browser, api.url, viewer.key);
    const links = await c.page.getByRole("navigation", { name: "Console" }).getByRole("link").allTextContents();
    expect(links).not.toContain("Playground");
    expect(c.problems).toEqual([]);
    await c.page.context().close();
  });
});
