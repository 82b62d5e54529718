/**
 * Talking to running executions on the embedded servers: programs that wait with platform:await_signal /
 * platform:await_update, published to the local Step Functions stand-in, driven through HTTP (signals,
 * queries, updates), their histories, and reset.
 */
import { describe, expect, it } from "vitest";
import { aDefinition, seedPublished, workflowsClient } from "../../support/workflow-builders.js";
import { useEmbeddedApi } from "../../support/api.js";
import { readUntil } from "../../support/read-until.js";

const { api, tenant } = useEmbeddedApi();
const http = workflowsClient(api, tenant);
const ws = () => tenant.caller.workspace;

const APPROVAL = {
  signals: [{ name: "approve", input_schema: { type: "object", properties: { by: { type: "string" } }, required: ["by"], additionalProperties: false } }],
  queries: [{ name: "approver", input_schema: {}, projection: "$.approval.by" }],
};

/** Publishes that it waits, waits for `approve`, publishes the approval, succeeds with it. */
const APPROVER = {
  StartAt: "Announce",
  States: {
    Announce: { Type: "Task", Resource: "platform:publish_state", Parameters: { waiting: true }, ResultPath: null, Next: "Nap" },
    Nap: { Type: "Wait", Seconds: 1, Next: "AwaitApproval" },
    AwaitApproval: { Type: "Task", Resource: "platform:await_signal", Parameters: { name: "approve" }, ResultPath: "$.approval", Next: "Publish" },
    Publish: { Type: "Task", Resource: "platform:publish_state", Parameters: { "approval.$": "$.approval" }, ResultPath: null, Next: "Hold" },
    Hold: { Type: "Task", Resource: "platform:await_signal", Parameters: { name: "approve" }, ResultPath: "$.second", Next: "Done" },
    Done: { Type: "Pass", Parameters: { "approval.$": "$.approval", "second.$": "$.second" }, End: true },
  },
};

/** Answers `double` updates until a `finish` update. */
const DOUBLER = {
  StartAt: "Take",
  States: {
    Take: { Type: "Task", Resource: "platform:await_update", Parameters: { name: "*" }, ResultPath: "$.update", Next: "Which" },
    Which: { Type: "Choice", Choices: [{ Variable: "$.update.name", StringEquals: "finish", Next: "Finish" }], Default: "Answer" },
    Answer: {
      Type: "Task",
      Resource: "platform:complete_update",
      Parameters: { "update_id.$": "$.update.update_id", result: { "doubled.$": "States.MathAdd($.update.input.n, $.update.input.n)" } },
      ResultPath: null,
      Next: "Take",
    },
    Finish: { Type: "Task", Resource: "platform:complete_update", Parameters: { "update_id.$": "$.update.update_id", result: "bye" }, ResultPath: null, End: true },
  },
};
const DOUBLING = {
  updates: [
    { name: "double", input_schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] } },
    { name: "finish", input_schema: {} },
  ],
};

const execution = async (id: string) => (await http.execution(id)).body;
const typesOf = (history: { events: { eventType: string }[] }) => history.events.map((e) => e.eventType.replace("EVENT_TYPE_", ""));

describe("POST /v1/workflows/executions/{execution_id}/signals", () => {
  it("buffers a signal sent before the program waits, delivers each once in order, and completes", async () => {
    await seedPublished(ws(), APPROVER, { workflow: { name: "approver" }, registration: { definition: aDefinition(APPROVAL) } });
    await http.execute("approver", { execution_id: "approve-1" });

    const first = await http.signal("approve-1", "approve", { by: "ada" });
    const second = await http.signal("approve-1", "approve", { by: "bob" });

    expect(first).toMatchObject({ status: 202, body: { message: "Signal accepted" } });
    expect(second.status).toBe(202);
    const done = await readUntil(() => execution("approve-1"), (e) => e.status !== "RUNNING");
    expect(done).toMatchObject({ status: "COMPLETED", result: { approval: { by: "ada" }, second: { by: "bob" } } });
  });

  it("refuses an undeclared signal and an input its schema refuses (422), an unknown execution (404), a closed one (409)", async () => {
    await seedPublished(ws(), APPROVER, { workflow: { name: "approver-422" }, registration: { definition: aDefinition(APPROVAL) } });
    await http.execute("approver-422", { execution_id: "approve-422" });

    const undeclared = await http.signal("approve-422", "reject", {});
    const invalid = await http.signal("approve-422", "approve", { by: 7 });
    const extra = await http.signal("approve-422", "approve", { by: "x", more: 1 });
    const unknown = await http.signal("nobody", "approve", { by: "x" });
    await http.terminate("approve-422");
    const closed = await http.signal("approve-422", "approve", { by: "x" });

    expect(undeclared.status).toBe(422);
    expect(undeclared.body).toMatchObject({ code: "WF_1001", detail: [{ loc: ["body", "name"], msg: expect.stringContaining("declares no signal 'reject' (declared: approve)") }] });
    expect(invalid.body).toMatchObject({ code: "WF_1001", detail: [{ loc: ["body", "input", "by"], type: "string_type" }] });
    expect(extra.body.detail).toEqual([expect.objectContaining({ loc: ["body", "input", "more"], type: "extra_forbidden" })]);
    expect(unknown).toMatchObject({ status: 404, body: { code: "WF_1100" } });
    expect(closed).toMatchObject({ status: 409, body: { code: "WF_1102", status: "TERMINATED" } });
  });

  it("takes a NetworkEncodedInput (base64 JSON) and refuses encoded payloads it cannot decode", async () => {
    await seedPublished(ws(), APPROVER, { workflow: { name: "approver-b64" }, registration: { definition: aDefinition(APPROVAL) } });
    await http.execute("approver-b64", { execution_id: "approve-b64" });
    const b64payload = Buffer.from(JSON.stringify({ by: "eve" })).toString("base64");

    const encoded = await http.signal("approve-b64", "approve", { b64payload, encoding_options: [], empty: false });
    const encrypted = await http.signal("approve-b64", "approve", { b64payload, encoding_options: ["encrypted"], empty: false });
    await http.signal("approve-b64", "approve", { by: "fin" });

    expect(encoded.status).toBe(202);
    expect(encrypted).toMatchObject({ status: 422, body: { detail: [{ loc: ["body", "input", "encoding_options"] }] } });
    expect(await readUntil(() => execution("approve-b64"), (e) => e.status !== "RUNNING")).toMatchObject({ status: "COMPLETED", result: { approval: { by: "eve" } } });
  });
});

describe("POST /v1/workflows/executions/{execution_id}/signals after an await timed out", () => {
  it("honours the await's TimeoutSeconds (States.Timeout, caught); a later signal goes to the next wait, not the expired one", async () => {
    const program = {
      StartAt: "Brief",
      States: {
        Brief: { Type: "Task", Resource: "platform:await_signal", Parameters: { name: "approve" }, TimeoutSeconds: 1, ResultPath: "$.first", Next: "Hold", Catch: [{ ErrorEquals: ["States.Timeout"], ResultPath: "$.timeout", Next: "Hold" }] },
        Hold: { Type: "Task", Resource: "platform:await_signal", Parameters: { name: "approve" }, ResultPath: "$.second", Next: "Done" },
        Done: { Type: "Pass", Parameters: { "timedOut.$": "States.ArrayContains(States.Array($.timeout.Error), 'States.Timeout')", "second.$": "$.second" }, End: true },
      },
    };
    await seedPublished(ws(), program, { workflow: { name: "approver-timeout" }, registration: { definition: aDefinition(APPROVAL) } });
    await http.execute("approver-timeout", { execution_id: "approve-timeout" });

    await readUntil(() => http.query("approve-timeout", "__status"), (r) => r.body.result?.waiting_for?.some((w: { state: string }) => w.state === "Hold"));
    expect((await http.signal("approve-timeout", "approve", { by: "late" })).status).toBe(202);

    expect(await readUntil(() => execution("approve-timeout"), (e) => e.status !== "RUNNING")).toMatchObject({ status: "COMPLETED", result: { timedOut: true, second: { by: "late" } } });
  });
});

describe("POST /v1/workflows/executions/{execution_id}/queries", () => {
  it("answers declared projections over the published state, __state and __status; 422 undeclared; 409 once closed", async () => {
    await seedPublished(ws(), APPROVER, { workflow: { name: "approver-q" }, registration: { definition: aDefinition(APPROVAL) } });
    const started = await http.execute("approver-q", { execution_id: "approve-q" });

    const waiting = await readUntil(() => http.query("approve-q", "__status"), (r) => r.body.result?.waiting_for?.length === 1);
    expect(waiting.body).toEqual({
      query_name: "__status",
      result: expect.objectContaining({ status: "RUNNING", run_id: started.body.run_id, current_state: "AwaitApproval", waiting_for: [{ kind: "signal", name: "approve", state: "AwaitApproval" }], pending_signals: 0 }),
    });
    expect((await http.query("approve-q", "__state")).body).toEqual({ query_name: "__state", result: { waiting: true } });
    expect((await http.query("approve-q", "approver")).body).toEqual({ query_name: "approver", result: null });
    await http.signal("approve-q", "approve", { by: "ada" });
    const approver = await readUntil(() => http.query("approve-q", "approver"), (r) => r.body.result !== null);
    expect(approver.body).toEqual({ query_name: "approver", result: "ada" });
    expect((await http.query("approve-q", "nope")).body).toMatchObject({ code: "WF_1001", detail: [{ msg: expect.stringContaining("declared: approver, __status, __state") }] });

    await http.signal("approve-q", "approve", { by: "bob" });
    await readUntil(() => execution("approve-q"), (e) => e.status !== "RUNNING");
    expect((await http.query("approve-q", "__state"))).toMatchObject({ status: 409, body: { code: "WF_1102", status: "COMPLETED" } });
  });
});

describe("POST /v1/workflows/executions/{execution_id}/updates", () => {
  it("answers each update with the program's result, in order, and the last ends the run", async () => {
    await seedPublished(ws(), DOUBLER, { workflow: { name: "doubler" }, registration: { definition: aDefinition(DOUBLING) } });
    await http.execute("doubler", { execution_id: "double-1" });

    const first = await http.updateExecution("double-1", "double", { n: 2 });
    const second = await http.updateExecution("double-1", "double", { n: 21 });
    const invalid = await http.updateExecution("double-1", "double", { n: "x" });
    const undeclared = await http.updateExecution("double-1", "triple", { n: 1 });
    const finish = await http.updateExecution("double-1", "finish");

    expect(first).toMatchObject({ status: 200, body: { update_name: "double", result: { doubled: 4 } } });
    expect(second.body).toEqual({ update_name: "double", result: { doubled: 42 } });
    expect(invalid).toMatchObject({ status: 422, body: { code: "WF_1001" } });
    expect(undeclared).toMatchObject({ status: 422, body: { detail: [{ msg: expect.stringContaining("declares no update 'triple'") }] } });
    expect(finish.body).toEqual({ update_name: "finish", result: "bye" });
    expect(await readUntil(() => execution("double-1"), (e) => e.status !== "RUNNING")).toMatchObject({ status: "COMPLETED" });
    expect((await http.updateExecution("double-1", "double", { n: 1 }))).toMatchObject({ status: 409, body: { code: "WF_1102" } });
  });
});

describe("GET /v1/workflows/executions/{execution_id}/history", () => {
  it("lists the run's events, reset points, signals and updates in time order, payloads encoded unless decode_payloads", async () => {
    await seedPublished(ws(), APPROVER, { workflow: { name: "approver-h" }, registration: { definition: aDefinition(APPROVAL) } });
    await http.execute("approver-h", { execution_id: "approve-h", input: { name: "h" } });
    await readUntil(() => http.query("approve-h", "__state"), (r) => r.body.result !== null);
    await http.signal("approve-h", "approve", { by: "ada" });
    await http.signal("approve-h", "approve", { by: "bob" });
    await readUntil(() => execution("approve-h"), (e) => e.status !== "RUNNING");

    const encoded = (await http.history("approve-h")).body;
    const decoded = (await http.history("approve-h", { decode_payloads: true })).body;

    expect(typesOf(encoded)).toEqual([
      "WORKFLOW_EXECUTION_STARTED",
      "WORKFLOW_TASK_COMPLETED",
      "WORKFLOW_EXECUTION_SIGNALED",
      "WORKFLOW_EXECUTION_SIGNALED",
      "WORKFLOW_TASK_COMPLETED",
      "WORKFLOW_TASK_COMPLETED",
      "WORKFLOW_TASK_COMPLETED",
      "WORKFLOW_EXECUTION_COMPLETED",
    ]);
    expect(encoded.events.map((e: { eventId: string }) => e.eventId)).toEqual(["1", "2", "3", "4", "5", "6", "7", "8"]);
    expect(encoded.events[2].workflowExecutionSignaledEventAttributes).toEqual({
      signal_name: "approve",
      inbox_sequence: 1,
      input: { metadata: { encoding: Buffer.from("json/plain").toString("base64") }, data: Buffer.from(JSON.stringify({ by: "ada" })).toString("base64") },
    });
    expect(decoded.events[2].workflowExecutionSignaledEventAttributes.input).toEqual({ by: "ada" });
    expect(decoded.events[0].workflowExecutionStartedEventAttributes).toMatchObject({ workflow_name: "approver-h", input: { name: "h" } });
    expect(decoded.events[4].workflowTaskCompletedEventAttributes).toMatchObject({ state_name: "AwaitApproval" });

    const runId = (await execution("approve-h")).run_id;
    expect((await http.runHistory(runId, { decode_payloads: true })).body).toEqual(decoded);
  });
});

describe("POST /v1/workflows/executions/{execution_id}/updates at the deadline", () => {
  it("answers 504 WF_1103 when the program does not take the update in time, and withdraws it", async () => {
    await seedPublished(ws(), APPROVER, { workflow: { name: "approver-504" }, registration: { definition: aDefinition({ ...APPROVAL, ...DOUBLING }) } });
    await http.execute("approver-504", { execution_id: "approve-504" });
    process.env.WORKFLOW_UPDATE_TIMEOUT_SECONDS = "1";
    try {
      const late = await http.updateExecution("approve-504", "double", { n: 1 });

      expect(late.status).toBe(504);
      expect(late.body).toEqual({ code: "WF_1103", detail: expect.stringContaining("did not take update 'double' within 1 s"), update_id: expect.any(String) });
      const history = (await http.history("approve-504", { decode_payloads: true })).body;
      expect(typesOf(history)).toEqual(expect.arrayContaining(["WORKFLOW_EXECUTION_UPDATE_ADMITTED", "WORKFLOW_EXECUTION_UPDATE_REJECTED"]));
    } finally {
      delete process.env.WORKFLOW_UPDATE_TIMEOUT_SECONDS;
      await http.terminate("approve-504");
    }
  });
});

describe("POST /v1/workflows/executions/{execution_id}/reset", () => {
  const resetPoint = async (id: string, state: string) => {
    const history = (await http.history(id, { decode_payloads: true })).body;
    const event = history.events.find((e: any) => e.workflowTaskCompletedEventAttributes?.state_name === state);
    return Number(event.eventId);
  };

  it("starts a new run at the chosen state; the signals taken after it are taken again, or not with exclude_signals", async () => {
    await seedPublished(ws(), APPROVER, { workflow: { name: "approver-r" }, registration: { definition: aDefinition(APPROVAL) } });
    const first = await http.execute("approver-r", { execution_id: "approve-r" });
    await http.signal("approve-r", "approve", { by: "ada" });
    await http.signal("approve-r", "approve", { by: "bob" });
    await readUntil(() => execution("approve-r"), (e) => e.status !== "RUNNING");

    const replayed = await http.reset("approve-r", { event_id: await resetPoint("approve-r", "AwaitApproval"), reason: "again" });

    expect(replayed.status).toBe(204);
    const second = await readUntil(() => execution("approve-r"), (e) => e.run_id !== first.body.run_id && e.status !== "RUNNING");
    expect(second).toMatchObject({ status: "COMPLETED", result: { approval: { by: "ada" }, second: { by: "bob" } } });
    const secondHistory = typesOf((await http.history("approve-r")).body);
    expect(secondHistory[0]).toBe("WORKFLOW_EXECUTION_STARTED");
    expect(secondHistory.filter((t) => t === "WORKFLOW_EXECUTION_SIGNALED")).toHaveLength(2);

    const excluded = await http.reset("approve-r", { event_id: await resetPoint("approve-r", "AwaitApproval"), exclude_signals: true });
    expect(excluded.status).toBe(204);
    const waiting = await readUntil(() => http.query("approve-r", "__status"), (r) => r.body.result?.waiting_for?.length === 1);
    expect(waiting.body.result).toMatchObject({ current_state: "AwaitApproval", pending_signals: 0 });
    await http.signal("approve-r", "approve", { by: "cy" });
    await http.signal("approve-r", "approve", { by: "dan" });
    expect(await readUntil(() => execution("approve-r"), (e) => e.status !== "RUNNING")).toMatchObject({ result: { approval: { by: "cy" }, second: { by: "dan" } } });
    const runs = (await http.runs({ root_execution_id: "approve-r" })).body.executions.map((r: { status: string }) => r.status);
    expect(runs).toEqual(["COMPLETED", "COMPLETED", "COMPLETED"]);
  });

  it("answers 422 WF_1001 with the valid reset events for an id that is not one, 404 for an unknown execution", async () => {
    await seedPublished(ws(), APPROVER, { workflow: { name: "approver-r422" }, registration: { definition: aDefinition(APPROVAL) } });
    await http.execute("approver-r422", { execution_id: "approve-r422" });
    await readUntil(() => http.query("approve-r422", "__status"), (r) => r.body.result?.waiting_for?.length === 1);

    const wrong = await http.reset("approve-r422", { event_id: 1 });
    const unknown = await http.reset("nobody", { event_id: 1 });

    expect(wrong.status).toBe(422);
    expect(wrong.body).toMatchObject({ code: "WF_1001", valid_reset_events: [2, 3], detail: [{ loc: ["body", "event_id"], msg: expect.stringContaining("valid: 2, 3") }] });
    expect(unknown).toMatchObject({ status: 404, body: { code: "WF_1100" } });
    const before = await execution("approve-r422");
    expect((await http.reset("approve-r422", { event_id: 3 })).status).toBe(204);
    expect((await http.run(before.run_id)).body.status).toBe("TERMINATED");
    expect(await execution("approve-r422")).toMatchObject({ status: "RUNNING", run_id: expect.not.stringMatching(before.run_id) });
    await http.terminate("approve-r422");
  });
});
