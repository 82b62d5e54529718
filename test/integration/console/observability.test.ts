/**
 * The console's Observability page in headless Chromium against the embedded API: chat calls made with the key
 * (the offline model answers) under an agent span exported over OTLP, found through the page's span search
 * (and a wrong expression refused with the API's 422 message), their trace shown as a waterfall of the spans the
 * API returns; a dataset made through the API shown with its records, one made through the page; judges and span
 * evaluations; and what a read-only key is offered.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { appendTelemetry } from "../../../shared/blobs/telemetry.js";
import { bookkeepingSettled } from "../../../shared/observability/after-answer.js";
import { useEmbeddedApi } from "../../support/api.js";
import { useChromium } from "../../support/chromium.js";
import { openConsole } from "../../support/console.js";
import { filesClient } from "../../support/files-client.js";
import { anExportRequest, anOtlpSpan, str } from "../../support/otlp.js";
import { newTenant } from "../../support/tenant.js";
import { anEvaluationRow } from "../../support/telemetry-rows.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
const http = filesClient(api, tenant);

const chromium = useChromium();

interface ApiSpan {
  span_id: string;
  parent_span_id: string;
  span_name: string;
  start_time: string;
  status_code: string;
}

const nanos = (ms: number) => `${BigInt(ms) * 1_000_000n}`;

describe("the Observability page: spans and traces", () => {
  it("finds a chat call's span through the page's search and shows its trace as a waterfall of the API's spans", { timeout: 60_000 }, async () => {
    // An agent span exported over OTLP, and two chat calls made under it (traceparent): one trace of three spans.
    const trace = randomBytes(16).toString("hex");
    const agent = anOtlpSpan(trace, 0, {
      name: "agent run",
      kind: 1,
      startTimeUnixNano: nanos(Date.now() - 1000),
      // Ends well after the chat calls under it, however slow the machine: the root spans the whole waterfall.
      endTimeUnixNano: nanos(Date.now() + 120_000),
      attributes: [str("gen_ai.operation.name", "invoke_agent"), str("gen_ai.agent.name", "console-helper")],
    });
    const exported = await fetch(`${api.url}/telemetry/v1/traces`, { method: "POST", headers: { authorization: `Bearer ${tenant.key}`, "content-type": "application/json" }, body: JSON.stringify(anExportRequest([agent])) });
    expect(exported.status).toBe(200);
    for (const text of ["first question for the console", "second question for the console"]) {
      const reply = await http.request("POST", "/v1/chat/completions", {
        json: { model: "mistral-small-latest", messages: [{ role: "user", content: text }] },
        headers: { traceparent: `00-${trace}-${agent.spanId}-01` },
      });
      expect(reply.status).toBe(200);
    }
    // Spans are written after the answer (decision 0045): wait for this process's bookkeeping, never a sleep.
    await bookkeepingSettled();
    const apiSpans = (await http.request("GET", `/v1/observability/traces/${trace}/spans`)).body.spans.results as ApiSpan[];
    expect(apiSpans).toHaveLength(3);
    const chats = apiSpans.filter((s) => s.parent_span_id === agent.spanId).sort((a, b) => Date.parse(a.start_time) - Date.parse(b.start_time));
    expect(chats.map((s) => s.span_name)).toEqual(["chat mistral-small-latest", "chat mistral-small-latest"]);

    const c = await openConsole(chromium.browser, api.url, tenant.key);
    const { page } = c;
    await c.open("#/observability/spans", "Observability");
    expect(await page.getByRole("link", { name: "Spans" }).getAttribute("aria-current")).toBe("page");

    // A wrong expression: the API refuses it (422), and the page says what the API said, where it was typed.
    await page.getByLabel("Search expression").fill("span_name = 'x' AND (");
    await page.getByRole("button", { name: "Search" }).click();
    const refusal = page.getByRole("alert");
    await expect.poll(() => refusal.textContent()).toMatch(/^search_expression at position 21: expected a field name/);
    expect(await page.getByLabel("Search expression").getAttribute("aria-invalid")).toBe("true");
    expect(await c.accessibility()).toEqual([]);
    // That refusal is the only problem: the answer and the browser's own console line about it.
    expect(c.problems).toEqual([expect.stringMatching(/^answered 422: POST .*\/v1\/observability\/spans\/search/), expect.stringMatching(/^console: .*422/)]);
    c.problems.length = 0;

    await page.getByLabel("Search expression").fill(`trace_id = '${trace}' AND operation_name = 'chat'`);
    await page.getByRole("button", { name: "Search" }).click();
    const results = page.getByRole("table", { name: "Spans found, newest first" });
    await expect.poll(() => results.getByRole("row").count(), { timeout: 10_000 }).toBe(3);
    expect(await refusal.count()).toBe(0);
    const firstRow = results.getByRole("row").nth(1);
    expect(await firstRow.getByRole("cell").allTextContents()).toEqual([expect.any(String), "chat mistral-small-latest", "mistral-small-latest", expect.stringMatching(/ ms$/), "Unset"]);
    expect(await c.accessibility()).toEqual([]);

    // Newest first: the second call's span; its link opens the trace.
    await firstRow.getByRole("link", { name: "chat mistral-small-latest" }).click();
    await page.getByRole("heading", { level: 1, name: `Trace ${trace}` }).waitFor();
    expect(await page.getByRole("link", { name: "Traces" }).getAttribute("aria-current")).toBe("page");
    const waterfall = page.getByRole("table", { name: /^Spans of trace/ });
    const rows = waterfall.locator("tbody tr");
    await expect.poll(() => rows.count()).toBe(3);
    // One row per span the API returns, the agent first and its two calls under it, in start order.
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-span-id")))).toEqual([agent.spanId, chats[0]!.span_id, chats[1]!.span_id]);
    expect(await rows.locator(".span-name").allTextContents()).toEqual(["agent run", "chat mistral-small-latest", "chat mistral-small-latest"]);
    const placement = await rows.evaluateAll((trs) =>
      trs.map((tr) => {
        const indent = (tr.querySelector("td > div") as HTMLElement).style.paddingLeft;
        const bar = tr.querySelector(".waterfall-bar") as HTMLElement;
        return { indent, marginLeft: bar.style.marginLeft, width: bar.style.width };
      }),
    );
    expect(placement.map((p) => p.indent)).toEqual(["0rem", "1.25rem", "1.25rem"]);
    expect(placement[0]).toMatchObject({ marginLeft: "0%", width: "100%" });
    for (const p of placement.slice(1)) expect(p.marginLeft).toMatch(/^\d+(\.\d+)?%$/);
    expect(parseFloat(placement[2]!.marginLeft)).toBeGreaterThan(parseFloat(placement[1]!.marginLeft));
    // The span the search linked is marked; its attributes open as the API's span.
    const linked = waterfall.locator(`tr[data-span-id="${chats[1]!.span_id}"]`);
    expect(await linked.getAttribute("class")).toBe("highlighted");
    await linked.getByText("Attributes of chat mistral-small-latest").click();
    const shown = JSON.parse((await linked.locator("pre").textContent())!);
    expect(shown).toEqual(apiSpans.find((s) => s.span_id === chats[1]!.span_id));
    expect(await c.accessibility()).toEqual([]);

    // The trace list finds it too.
    await page.getByRole("link", { name: "Traces" }).click();
    await page.getByLabel("Search expression").fill(`trace_id = '${trace}'`);
    await page.getByRole("button", { name: "Search" }).click();
    const traceRow = page.getByRole("table", { name: "Traces found, newest first" }).getByRole("row", { name: /agent run/ });
    await traceRow.waitFor();
    expect(await traceRow.getByRole("cell").nth(2).textContent()).toBe("3");
    expect(await c.accessibility()).toEqual([]);

    expect(c.problems).toEqual([]);
    await page.context().close();
  });
});

describe("the Observability page: datasets and evaluations", () => {
  it("shows a dataset made through the API with its records, and makes one through the page", async () => {
    const dataset = await http.request("POST", "/v1/observability/datasets", { json: { name: "console questions", description: "Made by the API" } });
    expect(dataset.status).toBe(201);
    const made = [];
    for (const [text, topic] of [["hello dataset", "greeting"], ["what is a span?", "tracing"]] as const) {
      const record = await http.request("POST", `/v1/observability/datasets/${dataset.body.id}/records`, { json: { payload: { messages: [{ role: "user", content: text }] }, properties: { topic } } });
      expect(record.status).toBe(201);
      made.push(record.body.id as string);
    }

    const c = await openConsole(chromium.browser, api.url, tenant.key);
    const { page } = c;
    await c.open("#/observability/datasets", "Observability");
    await page.getByRole("link", { name: "console questions" }).click();
    await page.getByRole("heading", { level: 1, name: "Dataset" }).waitFor();
    const records = page.getByRole("table", { name: "Records of the dataset, oldest first" });
    await records.waitFor();
    expect(await records.locator("tbody tr td:first-child").allTextContents()).toEqual(made);
    expect(await page.getByTestId("record-count").textContent()).toBe("2");
    await records.getByText("1 message: hello dataset").click();
    expect(JSON.parse((await records.locator("tbody tr").first().locator("details pre").textContent())!)).toEqual({ messages: [{ role: "user", content: "hello dataset" }] });
    expect(await records.getByText('"topic": "tracing"').count()).toBe(1);
    expect(await c.accessibility()).toEqual([]);

    // A dataset made through the page (observability:write): it opens, empty, and the API lists it.
    await page.getByRole("link", { name: "All datasets" }).click();
    await page.getByLabel("Dataset name").fill("made in the console");
    await page.getByLabel("Dataset description").fill("From the page");
    await page.getByRole("button", { name: "Create dataset" }).click();
    await page.getByText("No record in this dataset.").waitFor();
    const listed = (await http.request("GET", "/v1/observability/datasets", { query: { q: "made in the console" } })).body.datasets.results as { id: string; description: string }[];
    expect(listed).toEqual([expect.objectContaining({ description: "From the page" })]);
    expect(await page.evaluate(() => location.hash)).toBe(`#/observability/datasets/${listed[0]!.id}`);
    expect(await c.accessibility()).toEqual([]);

    expect(c.problems).toEqual([]);
    await page.context().close();
  });

  it("lists the saved judges and searches span evaluations", async () => {
    const judge = await http.request("POST", "/v1/observability/judges", {
      json: { name: "console helpfulness", description: "How helpful", model_name: "mistral-small-latest", output: { type: "REGRESSION", min: 0, min_description: "useless", max: 1, max_description: "perfect" }, instructions: "Rate it.", tools: [] },
    });
    expect(judge.status).toBe(201);
    const now = Date.now();
    const ws = tenant.caller.workspace;
    await appendTelemetry("span_evaluations", [
      anEvaluationRow(ws, { evaluation_name: "helpfulness", score_value: 0.25, timestamp: new Date(now - 60_000).toISOString() }),
      anEvaluationRow(ws, { evaluation_name: "toxicity", score_value: 0.75, timestamp: new Date(now - 30_000).toISOString() }),
    ]);

    const c = await openConsole(chromium.browser, api.url, tenant.key);
    const { page } = c;
    await c.open("#/observability/evaluations", "Observability");
    await page.getByRole("table", { name: "Saved judges" }).getByRole("row", { name: /console helpfulness/ }).waitFor();
    expect(await page.getByRole("row", { name: /console helpfulness/ }).getByText("a score from 0 to 1").count()).toBe(1);
    const evaluations = page.getByRole("table", { name: "Span evaluations, newest first" });
    await expect.poll(() => evaluations.locator("tbody tr td:nth-child(2)").allTextContents()).toEqual(["toxicity", "helpfulness"]);
    await page.getByLabel("Evaluation search expression").fill("evaluation_name = 'helpfulness' AND score_value < 0.5");
    await page.getByRole("button", { name: "Search evaluations" }).click();
    await expect.poll(() => evaluations.locator("tbody tr td:nth-child(2)").allTextContents()).toEqual(["helpfulness"]);
    expect(await c.accessibility()).toEqual([]);
    expect(c.problems).toEqual([]);
    await page.context().close();
  });
});

describe("the Observability page for a read-only key", () => {
  it("offers an observability_viewer the page, its searches and datasets, but no dataset to make, and no Workflows", async () => {
    const viewer = await newTenant({ roles: ["observability_viewer"], organization: tenant.caller.organization, workspace: tenant.caller.workspace });
    const c = await openConsole(chromium.browser, api.url, viewer.key);
    const { page } = c;
    expect(await page.getByRole("navigation", { name: "Console" }).getByRole("link").allTextContents()).toEqual(["Overview", "Observability"]);
    await c.open("#/observability/datasets", "Observability");
    await page.getByRole("link", { name: "console questions" }).waitFor();
    expect(await page.getByRole("heading", { name: "New dataset" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Create dataset" }).count()).toBe(0);
    await page.getByRole("link", { name: "Spans" }).click();
    await page.getByRole("table", { name: "Spans found, newest first" }).waitFor();
    expect(await c.accessibility()).toEqual([]);
    expect(c.problems).toEqual([]);
    await page.context().close();
  });
});
