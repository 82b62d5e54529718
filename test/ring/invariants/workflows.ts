import { expect } from "vitest";
import { eventOf } from "../../../shared/domain/workflows/events.js";
import { eventStore } from "../../../shared/store/workflows/events.js";
import { aRun, seedPublished, workflowsClient } from "../../support/workflow-builders.js";
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
