import { beforeEach, describe, expect, it, vi } from "vitest";
import { handler } from "../../../functions/workers/register.js";
import { workflowRegistry } from "../../../shared/store/workflows/registry.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, invoke } from "../../support/builders.js";
import { serveTables, type FakeTables } from "../../support/fake-table.js";
import { aWorkflow } from "../../support/workflow-builders.js";
import { EXAMPLE_ACTIVITIES, exampleProgram } from "../../support/workflow-programs.js";

const machines = vi.hoisted(() => ({ publishProgram: vi.fn(), dispatcherArn: vi.fn() }));
vi.mock("../../../shared/engine/workflow-machines.js", () => machines);

const dynamo = mockDynamo();
const caller = aCaller();
let tables: FakeTables;

beforeEach(() => {
  tables = serveTables(dynamo, {}, { writes: true });
  machines.dispatcherArn.mockReset().mockReturnValue("arn:aws:lambda:eu-west-1:123456789012:function:dispatcher");
  let version = 0;
  machines.publishProgram.mockReset().mockImplementation(async (workflowId: string) => `arn:aws:states:eu-west-1:123456789012:stateMachine:wf-${workflowId}:${++version}`);
});

const aDefinition = (overrides: Record<string, unknown> = {}) => ({
  name: "summarize",
  display_name: "Summarize a file",
  definition: { input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } },
  program: exampleProgram(),
  activities: EXAMPLE_ACTIVITIES,
  ...overrides,
});

const register = (body: Record<string, unknown> = {}, who = caller) =>
  aJsonEvent({ deployment_name: "pool", worker_name: "w1", definitions: [aDefinition()], ...body }, { path: "/v1/workflows/register", caller: who });

const items = (prefix: string) => tables.items("workflows").filter((item) => String(item.sk).startsWith(prefix));

describe("POST /v1/workflows/register", () => {
  it("creates the deployment, the workflow, its machine version and the registration, and answers the registration's id", async () => {
    const response = await invoke(handler, register());

    expect(response.statusCode).toBe(200);
    const id = response.json.workflow_registration_ids[0];
    expect(response.json).toStrictEqual({ workflow_registration_ids: [id], workflow_version_ids: [id], has_conflicts: false, warnings: [] });
    const registration = await workflowRegistry.getRegistration(caller.workspace, id);
    expect(registration).toMatchObject({
      workflowName: "summarize",
      deploymentName: "pool",
      definition: aDefinition().definition,
      program: exampleProgram(),
      activities: ["read_file", "summarize"],
      versionArn: expect.stringMatching(/:stateMachine:wf-.+:1$/),
    });
    expect(await workflowRegistry.findWorkflow(caller.workspace, "summarize")).toMatchObject({ displayName: "Summarize a file", organization: caller.organization });
    expect(await workflowRegistry.getDeployment(caller.workspace, "pool")).toMatchObject({ stopped: false });
    // The compiled document names the dispatcher: every Task goes through it.
    const [, definition] = machines.publishProgram.mock.calls[0]!;
    expect(JSON.stringify(definition)).toContain("arn:aws:lambda:eu-west-1:123456789012:function:dispatcher");
  });

  it("is a no-op the second time: the same registration id, one publication", async () => {
    const first = await invoke(handler, register());
    const writesAfterFirst = items("").length;

    const second = await invoke(handler, register());

    expect(second.json.workflow_registration_ids).toStrictEqual(first.json.workflow_registration_ids);
    expect(machines.publishProgram).toHaveBeenCalledTimes(1);
    expect(items("").length).toBe(writesAfterFirst);
  });

  it("makes a new registration, but publishes nothing, when only the definition changed", async () => {
    const first = await invoke(handler, register());

    const changed = await invoke(handler, register({ definitions: [aDefinition({ definition: { input_schema: { type: "object" }, execution_timeout: 60 } })] }));

    expect(changed.json.workflow_registration_ids).not.toStrictEqual(first.json.workflow_registration_ids);
    expect(machines.publishProgram).toHaveBeenCalledTimes(1);
    const registration = await workflowRegistry.getRegistration(caller.workspace, changed.json.workflow_registration_ids[0]);
    expect(registration!.definition).toStrictEqual({ input_schema: { type: "object" }, execution_timeout: 60 });
  });

  it("publishes a new version when the program changed", async () => {
    await invoke(handler, register());
    const program = exampleProgram();
    program.Comment = "v2";

    await invoke(handler, register({ definitions: [aDefinition({ program })] }));

    expect(machines.publishProgram).toHaveBeenCalledTimes(2);
    expect(machines.publishProgram.mock.calls[0]![0]).toBe(machines.publishProgram.mock.calls[1]![0]);
  });

  it("records the worker's heartbeat with the workflows it serves", async () => {
    await invoke(handler, register());

    expect(items("WORKER#")).toStrictEqual([
      expect.objectContaining({ name: "w1", deploymentName: "pool", workflows: ["summarize"], lastHeartbeatMs: expect.any(Number), principal: caller.keyId }),
    ]);
  });

  it("refuses a program the rules refuse with 422 WF_1104 under definitions[i].program, and writes nothing", async () => {
    const program = exampleProgram();
    (program.States.ReadFile as Record<string, unknown>).Resource = "arn:aws:lambda:us-east-1:123456789012:function:steal";

    const response = await invoke(handler, register({ definitions: [aDefinition({ name: "ok" }), aDefinition({ program })] }));

    expect(response.statusCode).toBe(422);
    expect(response.json.code).toBe("WF_1104");
    expect(response.json.detail[0]).toMatchObject({ loc: ["body", "definitions", 1, "program", "States", "ReadFile", "Resource"], type: "program.arn" });
    expect(tables.items("workflows")).toStrictEqual([]);
    expect(machines.publishProgram).not.toHaveBeenCalled();
  });

  it("refuses an activity the deployment does not declare", async () => {
    const response = await invoke(handler, register({ definitions: [aDefinition({ activities: ["read_file"] })] }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail.map((d: { type: string }) => d.type)).toContain("program.unknown-activity");
  });

  it("checks the activities again even for a program it published before", async () => {
    await invoke(handler, register());

    const response = await invoke(handler, register({ definitions: [aDefinition({ activities: ["summarize"] })] }));

    expect(response.statusCode).toBe(422);
  });

  it("refuses an input_schema that is no JSON Schema with 422 under definitions[i].definition.input_schema", async () => {
    const response = await invoke(handler, register({ definitions: [aDefinition({ definition: { input_schema: { type: "no-such-type" } } })] }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0].loc).toStrictEqual(["body", "definitions", 0, "definition", "input_schema"]);
    expect(tables.items("workflows")).toStrictEqual([]);
  });

  it("refuses the same workflow twice in one registration", async () => {
    const response = await invoke(handler, register({ definitions: [aDefinition(), aDefinition()] }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0].loc).toStrictEqual(["body", "definitions", 1, "name"]);
  });

  it.each(["archive", "unarchive"])("refuses a new workflow named %s with 422 under definitions[i].name (its PUT path is a bulk route), writing nothing", async (name) => {
    const response = await invoke(handler, register({ definitions: [aDefinition({ name })] }));

    expect(response.statusCode).toBe(422);
    expect(response.json.code).toBe("WF_1104");
    expect(response.json.detail).toStrictEqual([
      { loc: ["body", "definitions", 0, "name"], msg: expect.stringContaining(`'${name}' cannot name a workflow`), type: "value_error" },
    ]);
    expect(tables.items("workflows")).toStrictEqual([]);
  });

  it("keeps registering a workflow named archive that existed before the name was refused (reached by id)", async () => {
    const owner = { principal: caller.principal, principalType: caller.principalType, keyId: caller.keyId };
    await workflowRegistry.ensureWorkflow(aWorkflow({ workspace: caller.workspace, organization: caller.organization, name: "archive", owner }));

    const response = await invoke(handler, register({ definitions: [aDefinition({ name: "archive" })] }));

    expect(response.statusCode).toBe(200);
  });

  it("warns when another active deployment registered the same workflow", async () => {
    await invoke(handler, register({ deployment_name: "blue" }));

    const response = await invoke(handler, register({ deployment_name: "green" }));

    expect(response.statusCode).toBe(200);
    expect(response.json.has_conflicts).toBe(true);
    expect(response.json.warnings).toStrictEqual([expect.stringContaining("'summarize' is also registered by the active deployment 'blue'")]);
  });

  it("does not warn about a deployment whose workers went quiet", async () => {
    await invoke(handler, register({ deployment_name: "blue" }));
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 60_000);
    try {
      const response = await invoke(handler, register({ deployment_name: "green" }));

      expect(response.json).toMatchObject({ has_conflicts: false, warnings: [] });
    } finally {
      vi.useRealTimers();
    }
  });

  it("answers 500 WF_1104 when the machine cannot be published, and hides why", async () => {
    machines.publishProgram.mockRejectedValue(new Error("AccessDenied: not for you"));

    const response = await invoke(handler, register());

    expect(response.statusCode).toBe(500);
    expect(response.json).toStrictEqual({ detail: "An error occurred", code: "WF_1104" });
  });

  it.each([
    ["a deployment name over 128 characters", { deployment_name: "d".repeat(129) }],
    ["no definitions", { definitions: [] }],
    ["a definition without input_schema", { definitions: [aDefinition({ definition: {} })] }],
  ])("refuses %s with 422", async (_, body) => {
    const response = await invoke(handler, register(body));

    expect(response.statusCode).toBe(422);
    expect(tables.items("workflows")).toStrictEqual([]);
  });
});
