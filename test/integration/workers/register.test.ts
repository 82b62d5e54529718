import { beforeEach, describe, expect, it, vi } from "vitest";
import { workflowRegistry } from "../../../shared/store/workflows/registry.js";
import { useEmbeddedApi } from "../../support/api.js";
import { newTenant } from "../../support/tenant.js";
import { workersClient } from "../../support/workers-client.js";
import { EXAMPLE_ACTIVITIES, exampleProgram } from "../../support/workflow-programs.js";

// Publication is counted: the same program registered again must not publish (Step Functions allows ~1/s).
const published = vi.hoisted(() => ({ calls: [] as string[] }));
vi.mock("../../../shared/engine/workflow-machines.js", async (original) => {
  const real = await original<typeof import("../../../shared/engine/workflow-machines.js")>();
  return {
    ...real,
    dispatcherArn: () => process.env.WORKFLOW_DISPATCHER_ARN ?? "arn:aws:lambda:us-east-1:000000000000:function:workflow-dispatcher",
    publishProgram: async (workflowId: string, definition: object, hash: string) => {
      published.calls.push(hash);
      return process.env.WORKFLOW_DISPATCHER_ARN ? real.publishProgram(workflowId, definition, hash) : `arn:aws:states:us-east-1:000000000000:stateMachine:wf-${workflowId}:${published.calls.length}`;
    },
  };
});

const { api, tenant } = useEmbeddedApi();
const worker = workersClient(api, tenant);

beforeEach(() => {
  published.calls = [];
});

const aDefinition = (overrides: Record<string, unknown> = {}) => ({
  name: "summarize",
  definition: { input_schema: { type: "object", properties: { path: { type: "string" } } } },
  program: exampleProgram(),
  activities: EXAMPLE_ACTIVITIES,
  ...overrides,
});

describe("POST /v1/workflows/register", () => {
  it("registers a workflow, and registering it again is a no-op: same id, one publication", async () => {
    const first = await worker.register({ definitions: [aDefinition()] });
    const again = await Promise.all([worker.register({ definitions: [aDefinition()] }), worker.register({ definitions: [aDefinition()] })]);

    expect(first.status).toBe(200);
    expect(first.body).toStrictEqual({ workflow_registration_ids: [expect.any(String)], workflow_version_ids: first.body.workflow_registration_ids, has_conflicts: false, warnings: [] });
    for (const reply of again) expect(reply.body.workflow_registration_ids).toStrictEqual(first.body.workflow_registration_ids);
    expect(published.calls).toHaveLength(1);
    const registration = await workflowRegistry.getRegistration(tenant.caller.workspace, first.body.workflow_registration_ids[0]);
    expect(registration).toMatchObject({ workflowName: "summarize", deploymentName: "pool", activities: EXAMPLE_ACTIVITIES });
  });

  it("refuses a program with a real ARN with 422 WF_1104, and creates nothing", async () => {
    const program = exampleProgram();
    (program.States.Summarize as Record<string, unknown>).Resource = "arn:aws:states:::aws-sdk:s3:getObject";

    const reply = await worker.register({ definitions: [aDefinition({ program })] });

    expect(reply.status).toBe(422);
    expect(reply.body.code).toBe("WF_1104");
    expect(reply.body.detail[0].loc.slice(0, 4)).toStrictEqual(["body", "definitions", 0, "program"]);
    expect(await workflowRegistry.getDeployment(tenant.caller.workspace, "pool")).toBeUndefined();
    expect(published.calls).toHaveLength(0);
  });

  it("warns when another active deployment serves the same workflow", async () => {
    await workersClient(api, tenant, { deployment: "blue", name: "b1" }).register({ definitions: [aDefinition()] });

    const reply = await workersClient(api, tenant, { deployment: "green", name: "g1" }).register({ definitions: [aDefinition()] });

    expect(reply.body.has_conflicts).toBe(true);
    expect(reply.body.warnings).toHaveLength(1);
    expect(reply.body.warnings[0]).toContain("'blue'");
  });

  it("keeps workspaces apart: the same name in another workspace is another workflow, without conflict", async () => {
    const mine = await worker.register({ definitions: [aDefinition()] });
    const other = await newTenant();

    const theirs = await workersClient(api, other).register({ definitions: [aDefinition()] });

    expect(theirs.body).toMatchObject({ has_conflicts: false, warnings: [] });
    expect(theirs.body.workflow_registration_ids).not.toStrictEqual(mine.body.workflow_registration_ids);
    expect(await workflowRegistry.getRegistration(other.caller.workspace, mine.body.workflow_registration_ids[0])).toBeUndefined();
  });

  it("lets a worker poll once it registered (its deployment exists)", async () => {
    await worker.register({ definitions: [aDefinition()] });

    const reply = await worker.poll({ wait_seconds: 0 });

    expect(reply.status).toBe(200);
    expect(reply.body).toStrictEqual({ task: null, restart_requested: false });
  });
});
