/**
 * The console's Workflows page in headless Chromium against the embedded API, with the reference worker serving
 * the example workflows (examples/workflows/summarize and approval): a run of the example workflow started from
 * the page, its execution's timeline read against the API's history, a signal and a cancel sent through the
 * page, a schedule paused and resumed, the deployment's live worker, and what narrower keys are offered.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runWorker, type RunningWorker, type WorkflowModule } from "../../../scripts/worker/run-worker.js";
import { useEmbeddedApi } from "../../support/api.js";
import { useChromium } from "../../support/chromium.js";
import { openConsole } from "../../support/console.js";
import { newTenant } from "../../support/tenant.js";
import { workflowsClient } from "../../support/workflow-builders.js";

const summarize = (await import(new URL("../../../examples/workflows/summarize/activities.mjs", import.meta.url).href)) as WorkflowModule;
const approval = (await import(new URL("../../../examples/workflows/approval/activities.mjs", import.meta.url).href)) as WorkflowModule;
const examples: WorkflowModule = { workflows: [...summarize.workflows, ...approval.workflows], activities: { ...summarize.activities, ...approval.activities } };

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
const http = workflowsClient(api, tenant);
const TEXT = "Step Functions runs the program. Workers run the activities. The platform runs the models and keeps the events.";

const chromium = useChromium();
let worker: RunningWorker;
beforeAll(async () => {
  worker = runWorker({ url: api.url, key: tenant.key, deployment: "examples", name: "console-worker", module: examples, pollWaitSeconds: 1, concurrency: 2, log: () => {} });
  await worker.registered;
}, 120_000);
afterAll(() => worker?.stop());

/** The API's history of an execution as the page names its event types. */
async function historyTypes(id: string): Promise<string[]> {
  const reply = await http.history(id, { decode_payloads: "true" });
  expect(reply.status).toBe(200);
  return (reply.body.events as { eventType: string }[]).map((e) => e.eventType.replace(/^EVENT_TYPE_/, ""));
}

async function statusOf(id: string): Promise<string> {
  return (await http.execution(id)).body.status as string;
}

describe("the Workflows page: executions", () => {
  it("runs the example workflow from the page, follows it to COMPLETED and shows the API's history as its timeline", { timeout: 90_000 }, async () => {
    const c = await openConsole(chromium.browser, api.url, tenant.key);
    const { page } = c;
    await c.open("#/workflows/executions", "Workflows");
    await expect.poll(() => page.getByRole("link", { name: "Executions" }).getAttribute("aria-current")).toBe("page");
    const runForm = page.getByRole("region", { name: "Run a workflow" });
    await runForm.getByLabel("Workflow to run").locator("option", { hasText: "summarize" }).waitFor({ state: "attached" });
    expect(await c.accessibility()).toEqual([]);

    await runForm.getByLabel("Workflow to run").selectOption("summarize");
    await runForm.getByLabel("Execution id (optional)").fill("console-summarize");
    await runForm.getByLabel("Input (JSON object)").fill(JSON.stringify({ text: TEXT, max_words: 6 }));
    await runForm.getByRole("button", { name: "Run" }).click();

    await page.getByRole("heading", { level: 1, name: "Execution console-summarize" }).waitFor();
    // The page reads the running execution again every two seconds until it closes.
    await expect.poll(() => page.getByTestId("execution-status").textContent(), { timeout: 45_000 }).toBe("COMPLETED");
    expect(await statusOf("console-summarize")).toBe("COMPLETED");

    const api_types = await historyTypes("console-summarize");
    expect(api_types[0]).toBe("WORKFLOW_EXECUTION_STARTED");
    expect(api_types.at(-1)).toBe("WORKFLOW_EXECUTION_COMPLETED");
    expect(api_types.filter((t) => t === "ACTIVITY_TASK_COMPLETED")).toHaveLength(2);
    const timeline = page.getByRole("list", { name: "Event timeline" });
    await expect.poll(() => timeline.locator(".event-type").allTextContents(), { timeout: 10_000 }).toEqual(api_types);

    // An event's payload opens as formatted JSON.
    const first = timeline.getByRole("listitem").first();
    await first.getByText("Payload of event 1").click();
    const payload = JSON.parse((await first.locator("pre").textContent())!);
    const history = (await http.history("console-summarize", { decode_payloads: "true" })).body.events[0];
    expect(payload).toEqual(history.workflowExecutionStartedEventAttributes);
    const result = page.locator("summary", { hasText: /^Result$/ });
    await result.click();
    expect(JSON.parse((await page.locator("details", { has: result }).locator("pre").textContent())!)).toMatchObject({ summary: "Step Functions runs the program. Workers …", words: 18 });
    // Closed, and it was run through reset points: reset is offered, signal and cancel are not.
    expect(await page.getByRole("button", { name: "Cancel execution" }).count()).toBe(0);
    await page.getByLabel("Reset to event").waitFor();
    expect(await c.accessibility()).toEqual([]);

    // The list, filtered through the page's form, links to it.
    await page.getByRole("link", { name: "All executions" }).click();
    await page.getByRole("heading", { level: 1, name: "Workflows" }).waitFor();
    await page.getByLabel("Status", { exact: true }).selectOption("COMPLETED");
    await page.getByLabel("Workflow", { exact: true }).selectOption("summarize");
    await page.getByRole("button", { name: "Filter" }).click();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe("#/workflows/executions?status=COMPLETED&workflow=summarize");
    const row = page.getByRole("row", { name: /console-summarize/ });
    await row.waitFor();
    expect(await row.getByText("COMPLETED").count()).toBe(1);
    expect(await c.accessibility()).toEqual([]);
    await row.getByRole("link", { name: "console-summarize" }).click();
    await page.getByRole("heading", { level: 1, name: "Execution console-summarize" }).waitFor();

    expect(c.problems).toEqual([]);
    await page.context().close();
  });

  it("signals a running approval, cancels it and resets it through the page; the API's history and status follow", { timeout: 60_000 }, async () => {
    const started = await http.execute("approval", { execution_id: "console-approval", input: { request: "new laptop" } });
    expect(started.status).toBe(200);

    const c = await openConsole(chromium.browser, api.url, tenant.key);
    const { page } = c;
    await c.open("#/workflows/executions/console-approval", "Execution console-approval");
    await expect.poll(() => page.getByTestId("execution-status").textContent()).toBe("RUNNING");
    expect(await c.accessibility()).toEqual([]);

    await page.getByLabel("Signal name").fill("approve");
    await page.getByLabel("Signal payload (JSON)").fill('{"by": "ada"}');
    await page.getByRole("button", { name: "Send signal" }).click();
    await page.getByRole("status").filter({ hasText: "Signal approve sent." }).waitFor();
    // The program waits for its note first: the signal waits in the inbox, and the history already has it.
    const signaled = (await http.history("console-approval", { decode_payloads: "true" })).body.events.find((e: { eventType: string }) => e.eventType === "EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED");
    expect(signaled.workflowExecutionSignaledEventAttributes).toMatchObject({ signal_name: "approve", input: { by: "ada" } });
    await page.getByRole("list", { name: "Event timeline" }).getByText("WORKFLOW_EXECUTION_SIGNALED").waitFor();

    await page.getByRole("button", { name: "Cancel execution" }).click();
    expect(await c.accessibility()).toEqual([]);
    await page.getByRole("button", { name: "Confirm cancel" }).click();
    await expect.poll(() => statusOf("console-approval"), { timeout: 20_000 }).toBe("CANCELED");
    await expect.poll(() => page.getByTestId("execution-status").textContent(), { timeout: 10_000 }).toBe("CANCELED");
    await expect.poll(() => page.getByRole("list", { name: "Event timeline" }).locator(".event-type").allTextContents(), { timeout: 10_000 }).toEqual(await historyTypes("console-approval"));
    expect(await page.getByRole("button", { name: "Send signal" }).count()).toBe(0);

    // Reset to the run's first step (a WORKFLOW_TASK_COMPLETED event): a new run under the same execution id.
    const closed = (await http.execution("console-approval")).body;
    const events = (await http.history("console-approval", { decode_payloads: "true" })).body.events as { eventId: string; eventType: string; workflowTaskCompletedEventAttributes?: { state_name: string } }[];
    const announce = events.find((e) => e.eventType === "EVENT_TYPE_WORKFLOW_TASK_COMPLETED" && e.workflowTaskCompletedEventAttributes?.state_name === "Announce")!;
    await page.getByLabel("Reset to event").selectOption(announce.eventId);
    await page.getByLabel("Reason (optional)").fill("asked again");
    await page.getByRole("button", { name: "Reset", exact: true }).click();
    await page.getByRole("button", { name: "Confirm reset" }).click();
    await page.getByRole("status").filter({ hasText: `Reset to event ${announce.eventId}.` }).waitFor();
    await expect.poll(async () => (await http.execution("console-approval")).body, { timeout: 20_000 }).toMatchObject({ status: "RUNNING", run_id: expect.not.stringMatching(closed.run_id) });
    await expect.poll(() => page.getByTestId("execution-status").textContent(), { timeout: 10_000 }).toBe("RUNNING");
    await page.getByRole("button", { name: "Send signal" }).waitFor();
    expect((await http.terminate("console-approval")).status).toBe(204);

    expect(c.problems).toEqual([]);
    await page.context().close();
  });

  it("shows the API's refusal of an unknown execution in the page", async () => {
    const c = await openConsole(chromium.browser, api.url, tenant.key);
    await c.open("#/workflows/executions/no-such-execution", "Execution no-such-execution");
    await expect.poll(() => c.page.getByRole("alert").allTextContents()).toEqual([expect.stringMatching(/WF_1100/), expect.stringMatching(/WF_1100/)]);
    expect(await c.accessibility()).toEqual([]);
    // The expected refusals: the summary's and the history's 404, each with the browser's own console line.
    expect(c.problems).toHaveLength(4);
    expect(c.problems).toEqual(
      expect.arrayContaining([
        `answered 404: GET ${api.url}/v1/workflows/executions/no-such-execution`,
        `answered 404: GET ${api.url}/v1/workflows/executions/no-such-execution/history?decode_payloads=true`,
        expect.stringMatching(/^console: .*404/),
      ]),
    );
    await c.page.context().close();
  });
});

describe("the Workflows page: schedules and deployments", () => {
  it("pauses and resumes a schedule through the page, and shows the deployment's live worker", async () => {
    const created = await http.request("POST", "/v1/workflows/schedules", {
      json: { workflow_identifier: "summarize", schedule_id: "console-hourly", schedule: { input: { text: TEXT }, intervals: [{ every: "PT1H" }], start_at: "2030-01-01T00:00:00Z" } },
    });
    expect(created.status).toBe(201);
    const schedule = async () => (await http.request("GET", "/v1/workflows/schedules/console-hourly")).body as { paused: boolean; future_executions: { scheduled_at: string }[] };

    const c = await openConsole(chromium.browser, api.url, tenant.key);
    const { page } = c;
    await c.open("#/workflows/schedules", "Workflows");
    const row = page.getByRole("row", { name: /console-hourly/ });
    await row.waitFor();
    // Its next fires, as the API lists them (the page's time zone is UTC).
    const next = (await schedule()).future_executions[0]!.scheduled_at;
    expect(next).toMatch(/^2030-01-01T00:00:00/);
    expect(await row.locator(`time[datetime="${next}"]`).count()).toBe(1);
    expect(await c.accessibility()).toEqual([]);

    await row.getByRole("button", { name: "Pause console-hourly" }).click();
    await page.getByRole("status").filter({ hasText: "Schedule console-hourly paused." }).waitFor();
    expect((await schedule()).paused).toBe(true);
    await row.getByRole("button", { name: "Resume console-hourly" }).waitFor();
    expect(await row.getByText("paused", { exact: true }).count()).toBe(1);
    expect(await row.getByText("none while paused").count()).toBe(1);
    expect(await c.accessibility()).toEqual([]);

    await row.getByRole("button", { name: "Resume console-hourly" }).click();
    await page.getByRole("status").filter({ hasText: "Schedule console-hourly resumed." }).waitFor();
    expect((await schedule()).paused).toBe(false);
    await row.getByRole("button", { name: "Pause console-hourly" }).waitFor();

    await page.getByRole("link", { name: "Deployments" }).click();
    await page.getByRole("link", { name: "examples" }).click();
    const workers = page.getByRole("region", { name: "Workers of examples" });
    const workerRow = workers.getByRole("row", { name: /console-worker/ });
    await workerRow.waitFor();
    expect(await workerRow.getByText("live").count()).toBe(1);
    const apiWorkers = (await http.request("GET", "/v1/workflows/deployments/examples/workers")).body.workers as { name: string; is_active: boolean }[];
    expect(apiWorkers).toEqual([expect.objectContaining({ name: "console-worker", is_active: true })]);
    expect(await page.getByRole("link", { name: "Deployments" }).getAttribute("aria-current")).toBe("page");
    expect(await c.accessibility()).toEqual([]);

    expect(c.problems).toEqual([]);
    await page.context().close();
  });
});

describe("the Workflows page for narrower keys", () => {
  it("offers a workflow_executor runs, signals and stops, but no schedule pause or resume (workflows:write)", async () => {
    const executor = await newTenant({ roles: ["workflow_executor"], organization: tenant.caller.organization, workspace: tenant.caller.workspace });
    const started = await http.execute("approval", { execution_id: "console-executor", input: { request: "a chair" } });
    expect(started.status).toBe(200);

    const c = await openConsole(chromium.browser, api.url, executor.key);
    const { page } = c;
    expect(await page.getByRole("navigation", { name: "Console" }).getByRole("link").allTextContents()).toEqual(["Workflows"]);
    await c.open("#/workflows/executions/console-executor", "Execution console-executor");
    await page.getByRole("button", { name: "Send signal" }).waitFor();
    expect(await c.accessibility()).toEqual([]);
    await page.getByRole("button", { name: "Terminate execution" }).click();
    await page.getByRole("button", { name: "Confirm terminate" }).click();
    await expect.poll(() => statusOf("console-executor"), { timeout: 20_000 }).toBe("TERMINATED");
    await expect.poll(() => page.getByTestId("execution-status").textContent(), { timeout: 10_000 }).toBe("TERMINATED");

    // The executions list offers it a run of a workflow (workflows:execute).
    await c.open("#/workflows/executions", "Workflows");
    await page.getByRole("region", { name: "Run a workflow" }).waitFor();

    await c.open("#/workflows/schedules", "Workflows");
    const row = page.getByRole("row", { name: /console-hourly/ });
    await row.waitFor();
    expect(await row.getByRole("button", { name: /Pause|Resume/ }).count()).toBe(0);
    expect(await row.getByRole("button", { name: "Run now console-hourly" }).count()).toBe(1);
    expect(await c.accessibility()).toEqual([]);
    expect(c.problems).toEqual([]);
    await page.context().close();
  });

  it("does not offer Workflows to an observability_viewer", async () => {
    const viewer = await newTenant({ roles: ["observability_viewer"], organization: tenant.caller.organization, workspace: tenant.caller.workspace });
    const c = await openConsole(chromium.browser, api.url, viewer.key);
    expect(await c.page.getByRole("navigation", { name: "Console" }).getByRole("link").allTextContents()).toEqual(["Overview", "Observability"]);
    // The hash names the page, but the key may not see it: the console shows its first page instead.
    await c.open("#/workflows/executions", "Overview");
    expect(await c.page.getByRole("heading", { name: "Workflows" }).count()).toBe(0);
    expect(c.problems).toEqual([]);
    await c.page.context().close();
  });
});
