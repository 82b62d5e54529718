/**
 * Who may register a workflow someone else registered, and hardening by default (decision 0042): the
 * owner, or an authorized principal of a hardened deployment that already serves it; deployments a register
 * makes are hardened with the registering key; legacy records are adopted on their next register.
 */
import { beforeEach, describe, expect, it, vi } from "vitest";
import { handler } from "../../../functions/workers/register.js";
import { workflowRegistry } from "../../../shared/store/workflows/registry.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, invoke } from "../../support/builders.js";
import { serveTables, type FakeTables } from "../../support/fake-table.js";
import { aDeployment } from "../../support/workflow-builders.js";
import { EXAMPLE_ACTIVITIES, exampleProgram } from "../../support/workflow-programs.js";

const machines = vi.hoisted(() => ({ publishProgram: vi.fn(), dispatcherArn: vi.fn() }));
vi.mock("../../../shared/engine/workflow-machines.js", () => machines);

const dynamo = mockDynamo();
const admin = aCaller({ roles: ["workspace_admin"], keyId: "a000000000000001" });
const contributor = aCaller({ workspace: admin.workspace, organization: admin.organization, keyId: "c000000000000001" });
let tables: FakeTables;

beforeEach(() => {
  tables = serveTables(dynamo, {}, { writes: true });
  machines.dispatcherArn.mockReset().mockReturnValue("arn:aws:lambda:eu-west-1:123456789012:function:dispatcher");
  let version = 0;
  machines.publishProgram.mockReset().mockImplementation(async (workflowId: string) => `arn:aws:states:eu-west-1:123456789012:stateMachine:wf-${workflowId}:${++version}`);
});

const aDefinition = (program: object = exampleProgram()) => ({ name: "summarize", definition: { input_schema: { type: "object" } }, program, activities: EXAMPLE_ACTIVITIES });
/** Another program for the same name: what a replacement would register. */
const otherProgram = () => ({ StartAt: "Read", States: { Read: { Type: "Task", Resource: "activity:read_file", End: true } } });
const register = (who: typeof admin, deployment = "pool", program?: object) =>
  invoke(handler, aJsonEvent({ deployment_name: deployment, worker_name: "w1", definitions: [aDefinition(program)] }, { path: "/v1/workflows/register", caller: who }));
const registrations = () => tables.items("workflows").filter((item) => String(item.sk).startsWith("REG#"));

describe("POST /v1/workflows/register records who registered", () => {
  it("makes the workflow's owner, the registration's registrant and the new deployment's first principal the caller", async () => {
    const response = await register(admin);

    expect(response.statusCode).toBe(200);
    const registrant = { principal: admin.principal, principalType: "user", keyId: admin.keyId };
    expect(await workflowRegistry.findWorkflow(admin.workspace, "summarize")).toMatchObject({ owner: registrant });
    expect(await workflowRegistry.getRegistration(admin.workspace, response.json.workflow_registration_ids[0])).toMatchObject({ registeredBy: registrant });
    expect(await workflowRegistry.getDeployment(admin.workspace, "pool")).toMatchObject({ principals: [admin.keyId], createdBy: admin.principal });
  });
});

describe("POST /v1/workflows/register of a workflow someone else registered", () => {
  it("refuses a contributor's new program under an admin's workflow name in an open deployment with 403 workflow_owned, writing nothing", async () => {
    await workflowRegistry.ensureDeployment(aDeployment({ workspace: admin.workspace, name: "open", principals: [], openedAt: new Date().toISOString() }));
    expect((await register(admin, "open")).statusCode).toBe(200);
    const before = JSON.stringify(tables.items("workflows"));

    const refused = await register(contributor, "open", otherProgram());

    expect(refused.statusCode).toBe(403);
    expect(refused.json).toMatchObject({ code: expect.stringMatching(/^WF_/), detail: expect.stringMatching(/registered by another principal/) });
    expect(JSON.stringify(tables.items("workflows"))).toBe(before);
    expect(machines.publishProgram).toHaveBeenCalledTimes(1);
  });

  it("refuses it into the contributor's own deployment too, without making that deployment", async () => {
    expect((await register(admin)).statusCode).toBe(200);

    const refused = await register(contributor, "mine", otherProgram());

    expect(refused.statusCode).toBe(403);
    expect(await workflowRegistry.getDeployment(admin.workspace, "mine")).toBeUndefined();
    expect(registrations()).toHaveLength(1);
  });

  it("refuses the same program again from a stranger (its registrant would change nothing, but its pool would)", async () => {
    await workflowRegistry.ensureDeployment(aDeployment({ workspace: admin.workspace, name: "open", principals: [], openedAt: new Date().toISOString() }));
    expect((await register(admin, "open")).statusCode).toBe(200);
    expect((await register(contributor, "open")).statusCode).toBe(403);
  });

  it("lets the owner register a new program from another of their keys, into another deployment", async () => {
    expect((await register(admin)).statusCode).toBe(200);
    const response = await register({ ...admin, keyId: "a000000000000002" }, "second", otherProgram());
    expect(response.statusCode).toBe(200);
    expect(registrations()).toHaveLength(2);
  });

  it("lets an authorized principal of a hardened deployment serving the workflow register a new program there, and nowhere else", async () => {
    const ci = aCaller({ workspace: admin.workspace, organization: admin.organization, principalType: "service_account", principal: "sa-ci", keyId: "5a00000000000001" });
    expect((await register(admin)).statusCode).toBe(200);
    await workflowRegistry.updateDeployment(admin.workspace, "pool", { principals: [admin.keyId, "sa-ci"] });

    const response = await register(ci, "pool", otherProgram());

    expect(response.statusCode).toBe(200);
    expect(await workflowRegistry.getRegistration(admin.workspace, response.json.workflow_registration_ids[0])).toMatchObject({ registeredBy: { principal: "sa-ci", principalType: "service_account" } });
    expect((await register(ci, "elsewhere", otherProgram())).statusCode).toBe(403);
  });
});

describe("POST /v1/workflows/register into a deployment recorded before hardening by default", () => {
  const legacy = () => workflowRegistry.ensureDeployment(aDeployment({ workspace: admin.workspace, name: "pool" }));
  const knownWorker = (principal: string) =>
    workflowRegistry.heartbeat({ workspace: admin.workspace, deploymentName: "pool", name: `w-${principal}`, lastHeartbeatMs: Date.now(), workflows: [], principal });

  it("adopts it with the principals of the workers it has on record, and refuses anyone else with 403 deployment_hardened", async () => {
    await legacy();
    await knownWorker(admin.keyId);

    const refused = await register(contributor);

    expect(refused.statusCode).toBe(403);
    expect(refused.json.detail).toMatch(/hardened/);
    expect(await workflowRegistry.getDeployment(admin.workspace, "pool")).toMatchObject({ principals: [admin.keyId] });
    expect((await register(admin)).statusCode).toBe(200);
  });

  it("adopts it with the registering caller when it has no worker on record", async () => {
    await legacy();
    expect((await register(contributor)).statusCode).toBe(200);
    expect(await workflowRegistry.getDeployment(admin.workspace, "pool")).toMatchObject({ principals: [contributor.keyId] });
  });

  it("is not adopted when it was opened on purpose (unharden)", async () => {
    const opened = new Date().toISOString();
    await workflowRegistry.ensureDeployment(aDeployment({ workspace: admin.workspace, name: "pool", principals: [], openedAt: opened }));
    expect((await register(contributor)).statusCode).toBe(200);
    expect(await workflowRegistry.getDeployment(admin.workspace, "pool")).toMatchObject({ principals: [], openedAt: opened });
  });

  it("gives a legacy registration its registrant and a legacy workflow its owner when a serving principal registers it again", async () => {
    expect((await register(admin)).statusCode).toBe(200);
    const [item] = registrations();
    const workflow = (await workflowRegistry.findWorkflow(admin.workspace, "summarize"))!;
    // As written before decision 0042: no registrant, no owner.
    tables.put("workflows", { ...item!, registeredBy: undefined });
    tables.put("workflows", { ...tables.items("workflows").find((i) => i.sk === `WF#${workflow.id}`)!, owner: undefined });

    expect((await register(admin)).statusCode).toBe(200);

    expect(await workflowRegistry.getRegistration(admin.workspace, String(item!.id))).toMatchObject({ registeredBy: { principal: admin.principal } });
    expect(await workflowRegistry.findWorkflow(admin.workspace, "summarize")).toMatchObject({ owner: { principal: admin.principal } });
  });
});
