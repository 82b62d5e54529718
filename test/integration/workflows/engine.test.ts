/**
 * Executions that really run: programs of Pass, Choice and Wait states (no Task, so no worker and no
 * dispatcher) compiled, published to the local Step Functions stand-in, and executed through HTTP; run ends
 * come back through the stand-in's status callback (the status handler), timeouts through the local
 * Scheduler (the timer handler).
 */
import { describe, expect, it } from "vitest";
import { aDefinition, seedPublished, sseFrames, workflowsClient } from "../../support/workflow-builders.js";
import { useEmbeddedApi } from "../../support/api.js";
import { readUntil } from "../../support/read-until.js";

const { api, tenant } = useEmbeddedApi();
const http = workflowsClient(api, tenant);
const ws = () => tenant.caller.workspace;

const GREETER = {
  StartAt: "Greet",
  States: {
    Greet: { Type: "Pass", Parameters: { "greeting.$": "States.Format('Hello {}', $.name)" }, Next: "Loud?" },
    "Loud?": { Type: "Choice", Choices: [{ Variable: "$.greeting", StringEquals: "Hello Ada", Next: "Special" }], Default: "Done" },
    Special: { Type: "Pass", Result: { greeting: "Hello Ada!", special: true }, End: true },
    Done: { Type: "Succeed" },
  },
};
const SLEEPER = { StartAt: "Sleep", States: { Sleep: { Type: "Wait", Seconds: 3600, End: true } } };
const NAPPER = { StartAt: "Nap", States: { Nap: { Type: "Wait", Seconds: 1, Next: "Done" }, Done: { Type: "Pass", Result: { rested: true }, End: true } } };

const statusOf = async (id: string) => (await http.execution(id)).body.status as string;

describe("POST /v1/workflows/{workflow_identifier}/execute", () => {
  it("runs a program to COMPLETED and answers its result with wait_for_result", async () => {
    await seedPublished(ws(), GREETER, { workflow: { name: "greeter" } });

    const ada = await http.execute("greeter", { input: { name: "Ada" }, wait_for_result: true, execution_id: "greet-ada" });
    const bob = await http.execute("greeter", { input: { name: "Bob" }, wait_for_result: true });

    expect(ada.status).toBe(200);
    expect(ada.body).toEqual({ workflow_name: "greeter", execution_id: "greet-ada", result: { greeting: "Hello Ada!", special: true } });
    expect(bob.body.result).toEqual({ greeting: "Hello Bob" });
    const events = await http.events({ root_workflow_exec_id: "greet-ada" });
    expect(events.body.events.map((e: { event_type: string }) => e.event_type)).toEqual(["WORKFLOW_EXECUTION_STARTED", "WORKFLOW_EXECUTION_COMPLETED"]);
    expect(events.body.events[1].attributes.result).toEqual({ type: "json", value: { greeting: "Hello Ada!", special: true }, encoding_options: [] });
  });

  it("runs asynchronously: RUNNING at first, COMPLETED once the engine reports the end", async () => {
    await seedPublished(ws(), NAPPER, { workflow: { name: "napper" } });

    const started = await http.execute("napper", { execution_id: "nap-1" });

    expect(started.body).toMatchObject({ status: "RUNNING", execution_id: "nap-1", end_time: null, result: null });
    expect(await readUntil(() => statusOf("nap-1"), (s) => s === "COMPLETED")).toBe("COMPLETED");
    expect((await http.execution("nap-1")).body).toMatchObject({ result: { rested: true }, total_duration_ms: expect.any(Number) });
  });

  it("runs 50 executions started at once, each to its own result", async () => {
    await seedPublished(ws(), GREETER, { workflow: { name: "crowd" } });

    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => http.execute("crowd", { input: { name: `n${i}` }, execution_id: `crowd-${i}` })));

    expect(answers.every((a) => a.status === 200)).toBe(true);
    const finals = await Promise.all(answers.map((_, i) => readUntil(() => http.execution(`crowd-${i}`), (r) => r.body.status !== "RUNNING")));
    expect(finals.map((f) => f.body.status)).toEqual(Array(50).fill("COMPLETED"));
    expect(finals.map((f) => f.body.result)).toEqual(Array.from({ length: 50 }, (_, i) => ({ greeting: `Hello n${i}` })));
  }, 60_000);

  it("times an execution out after definition.execution_timeout: TIMED_OUT", async () => {
    await seedPublished(ws(), SLEEPER, { workflow: { name: "timed" }, registration: { definition: aDefinition({ execution_timeout: 1 }) } });

    await http.execute("timed", { execution_id: "timed-1" });

    expect(await readUntil(() => statusOf("timed-1"), (s) => s !== "RUNNING")).toBe("TIMED_OUT");
  });
});

describe("POST /v1/workflows/executions/{execution_id}/terminate", () => {
  it("stops a waiting execution: TERMINATED at once, and the engine's ABORTED finds it done", async () => {
    await seedPublished(ws(), SLEEPER, { workflow: { name: "sleeper-t" } });
    await http.execute("sleeper-t", { execution_id: "sleep-t" });

    const response = await http.terminate("sleep-t");

    expect(response.status).toBe(204);
    expect(await statusOf("sleep-t")).toBe("TERMINATED");
    await new Promise((r) => setTimeout(r, 300));
    expect(await statusOf("sleep-t")).toBe("TERMINATED");
    expect((await http.terminate("sleep-t")).body).toMatchObject({ code: "WF_1102", status: "TERMINATED" });
  });
});

describe("POST /v1/workflows/executions/{execution_id}/cancel", () => {
  it("cancels a waiting execution with no activity in hand at once: CANCELED, with its event", async () => {
    await seedPublished(ws(), SLEEPER, { workflow: { name: "sleeper-c" } });
    await http.execute("sleeper-c", { execution_id: "sleep-c" });

    expect((await http.cancel("sleep-c")).status).toBe(204);

    expect(await statusOf("sleep-c")).toBe("CANCELED");
    const events = await http.events({ workflow_exec_id: "sleep-c" });
    expect(events.body.events.map((e: { event_type: string }) => e.event_type)).toEqual(["WORKFLOW_EXECUTION_STARTED", "WORKFLOW_EXECUTION_CANCELED"]);
  });
});

describe("GET /v1/workflows/events/stream", () => {
  it("follows a running execution live and ends after its closing event", async () => {
    await seedPublished(ws(), NAPPER, { workflow: { name: "napper-sse" } });
    await http.execute("napper-sse", { execution_id: "nap-sse" });

    const response = await http.stream({ root_workflow_exec_id: "nap-sse" });

    expect(response.status).toBe(200);
    expect(sseFrames(response.body).map((f) => f.data.data.event_type)).toEqual(["WORKFLOW_EXECUTION_STARTED", "WORKFLOW_EXECUTION_COMPLETED"]);
  });
});
