import { expect } from "vitest";
import { eventOf } from "../../../shared/domain/workflows/events.js";
import { eventStore } from "../../../shared/store/workflows/events.js";
import { aDefinition, aRun, seedPublished, workflowsClient } from "../../support/workflow-builders.js";
import { fulfilled, invariant, range } from "../invariant.js";

const STARTERS = 16;

/** A program that waits: its run stays open while the starters race for its execution id. */
const WAITING_PROGRAM = { StartAt: "Wait", States: { Wait: { Type: "Wait", Seconds: 600, End: true } } };

invariant({
  name: `workflows: ${STARTERS} parallel executes of one execution_id start exactly one run; the others get 409 WF_1101`,
  writers: STARTERS,
  async setup({ api, tenant }) {
    const seeded = await seedPublished(tenant.caller.workspace, WAITING_PROGRAM, { organization: tenant.caller.organization });
    return { client: workflowsClient(api, tenant), workflow: seeded.workflow.name };
  },
  write: ({ client, workflow }) => client.execute(workflow, { execution_id: "one-at-a-time" }),
  async check({ client }, outcomes) {
    const replies = fulfilled(outcomes);
    const started = replies.filter((r) => r.status === 200);
    expect(started).toHaveLength(1);
    for (const refused of replies.filter((r) => r.status !== 200)) expect(refused).toMatchObject({ status: 409, body: { code: "WF_1101" } });
    const runs = (await client.runs({ root_execution_id: "one-at-a-time" })).body.executions as { run_id: string; status: string }[];
    expect(runs).toEqual([expect.objectContaining({ run_id: started[0]!.body.run_id, status: "RUNNING" })]);
    expect((await client.terminate("one-at-a-time")).status).toBe(204);
  },
});

const APPENDERS = 24;

invariant({
  name: `workflows: ${APPENDERS} parallel event appends to one root get distinct sequences 1…${APPENDERS}, each event once`,
  writers: APPENDERS,
  async setup({ tenant }) {
    return { run: aRun({ workspace: tenant.caller.workspace, executionId: "appended" }), workspace: tenant.caller.workspace };
  },
  write: ({ run, workspace }, i) => eventStore.append(workspace, eventOf(run, "CUSTOM_TASK_IN_PROGRESS", { custom_task_id: `writer-${i}` }, { id: `event-${i}`, nowMs: Date.now() })),
  async check({ run, workspace }, outcomes) {
    const sequences = fulfilled(outcomes).toSorted((a, b) => a - b);
    expect(sequences).toEqual(range(1, APPENDERS));
    const stored = await eventStore.listFrom(workspace, run.rootExecutionId, 0, 1000);
    expect(stored.map((e) => e.seq)).toEqual(range(1, APPENDERS));
    expect(stored.map((e) => e.event.event_id).toSorted()).toEqual(range(0, APPENDERS - 1).map((i) => `event-${i}`).toSorted());
  },
});

const SIGNALERS = 20;

/** Takes `tick` signals one at a time, recording each as a custom event in the order taken, until it has all. */
const COUNTING_PROGRAM = {
  StartAt: "Init",
  States: {
    Init: { Type: "Pass", Result: { v: 0 }, ResultPath: "$.c", Next: "Take" },
    Take: { Type: "Task", Resource: "platform:await_signal", Parameters: { name: "tick" }, ResultPath: "$.tick", Next: "Record" },
    Record: { Type: "Task", Resource: "platform:emit_event", Parameters: { type: "tick", "payload.$": "$.tick" }, ResultPath: null, Next: "Count" },
    Count: { Type: "Pass", Parameters: { "v.$": "States.MathAdd($.c.v, 1)" }, ResultPath: "$.c", Next: "More?" },
    "More?": { Type: "Choice", Choices: [{ Variable: "$.c.v", NumericLessThan: SIGNALERS, Next: "Take" }], Default: "Done" },
    Done: { Type: "Succeed" },
  },
};

invariant({
  name: `workflows: ${SIGNALERS} parallel signals to one execution are each delivered once, in inbox sequence 1…${SIGNALERS}`,
  writers: SIGNALERS,
  async setup({ api, tenant }) {
    const seeded = await seedPublished(tenant.caller.workspace, COUNTING_PROGRAM, {
      organization: tenant.caller.organization,
      registration: { definition: aDefinition({ signals: [{ name: "tick", input_schema: { type: "object", properties: { i: { type: "integer" } } } }] }) },
    });
    const client = workflowsClient(api, tenant);
    expect((await client.execute(seeded.workflow.name, { execution_id: "signalled" })).status).toBe(200);
    return { client };
  },
  write: ({ client }, i) => client.signal("signalled", "tick", { i }),
  async check({ client }, outcomes) {
    expect(fulfilled(outcomes).map((r) => r.status)).toEqual(Array(SIGNALERS).fill(202));
    let execution: { status: string } = { status: "RUNNING" };
    for (let i = 0; i < 300 && execution.status === "RUNNING"; i += 1) {
      await new Promise((r) => setTimeout(r, 100));
      execution = (await client.execution("signalled")).body;
    }
    expect(execution.status).toBe("COMPLETED");
    const history = (await client.history("signalled", { decode_payloads: true })).body.events as Record<string, any>[];
    const signalled = history.filter((e) => e.eventType === "EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED").map((e) => e.workflowExecutionSignaledEventAttributes);
    expect(signalled.map((a) => a.inbox_sequence).toSorted((a: number, b: number) => a - b)).toEqual(range(1, SIGNALERS));
    expect(signalled.map((a) => a.input.i).toSorted((a: number, b: number) => a - b)).toEqual(range(0, SIGNALERS - 1));
    // Taken in inbox sequence: the program recorded the signals in the order of their sequences, each once.
    const bySequence = signalled.toSorted((a, b) => a.inbox_sequence - b.inbox_sequence).map((a) => a.input.i);
    const events = (await client.events({ workflow_exec_id: "signalled", limit: "1000" })).body.events as { event_type: string; attributes: { payload: { value: { i: number } } } }[];
    const taken = events.filter((e) => e.event_type === "CUSTOM_TASK_IN_PROGRESS").map((e) => e.attributes.payload.value.i);
    expect(taken).toEqual(bySequence);
  },
});
