import { expect } from "vitest";
import { fire } from "../../../shared/services/workflows/schedules.js";
import { scheduleStore } from "../../../shared/store/workflows/schedules.js";
import { seedPublished, workflowsClient } from "../../support/workflow-builders.js";
import { fulfilled, invariant } from "../invariant.js";

const FIRES = 12;
const LIMIT = 3;
const PASS_PROGRAM = { StartAt: "Done", States: { Done: { Type: "Pass", End: true } } };
const START = Date.parse("2031-01-01T00:00:00Z");

invariant({
  name: `schedules: ${FIRES} parallel fires (some of the same time, some later) of a schedule limited to ${LIMIT} start exactly ${LIMIT} executions in all; remaining_executions ends at 0, never below`,
  writers: FIRES,
  async setup({ api, tenant }) {
    const seeded = await seedPublished(tenant.caller.workspace, PASS_PROGRAM, { organization: tenant.caller.organization });
    const client = workflowsClient(api, tenant);
    const created = await client.request("POST", "/v1/workflows/schedules", {
      json: { workflow_identifier: seeded.workflow.name, schedule_id: "limited", schedule: { input: {}, intervals: [{ every: "PT1H" }], start_at: new Date(START).toISOString(), max_executions: LIMIT, policy: { overlap: 6 } } },
    });
    expect(created.status).toBe(201);
    return { client, workspace: tenant.caller.workspace };
  },
  // Writers 0-5 deliver the first fire at once; the others the fires of the hours after it.
  write: ({ workspace }, i) => fire(workspace, "limited", START + Math.max(0, i - 5) * 3_600_000 + 1_000),
  async check({ client, workspace }, outcomes) {
    const started = fulfilled(outcomes).flatMap((o) => o.started);
    // The rest of the schedule's fires, one after the other, until it is exhausted.
    for (let hour = FIRES; hour < FIRES + LIMIT + 2; hour++) started.push(...(await fire(workspace, "limited", START + hour * 3_600_000 + 1_000)).started);
    expect(started).toHaveLength(LIMIT);
    expect(new Set(started).size).toBe(LIMIT);
    const stored = await scheduleStore.get(workspace, "limited");
    expect(stored).toMatchObject({ remaining: 0, nextAt: null, fireAt: null });
    expect(stored!.recent.map((r) => r.execution_id).toSorted()).toEqual(started.toSorted());
    const detail = (await client.request("GET", "/v1/workflows/schedules/limited")).body;
    expect(detail).toMatchObject({ remaining_executions: 0, future_executions: [] });
  },
});
