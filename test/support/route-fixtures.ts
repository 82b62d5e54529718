/**
 * One fixture per path parameter name: how to make, in a workspace, a record that a route's `{param}`
 * can name. The tenant matrix and the fuzz ring build the path of every row from these, so a row whose
 * parameter has no entry fails the suite ("add a fixture for {x}") instead of going untested.
 *
 * Adding a route area with a new parameter = one entry here: `my_param: async (owner) => id`, creating
 * the record through the API (or a service, for records no route creates) as `owner`.
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { RunningApi } from "../../infra/local/server.js";
import { agentsClient, anAgentRequest } from "./agents-client.js";
import { batchClient } from "./batch-client.js";
import { aConnectorBody, connectorsClient } from "./connectors-client.js";
import { datasetsClient } from "./datasets-client.js";
import { startMcpServer, type TestMcpServer } from "./mcp-server.js";
import { filesClient } from "./files-client.js";
import { judgesClient } from "./judges-client.js";
import { librariesClient } from "./libraries-client.js";
import { pipelinesClient } from "./pipelines-client.js";
import { aPromptBody, aSkillBody, registryClient } from "./registry-client.js";
import { aDeploymentBody, retrievalClient } from "./retrieval-client.js";
import type { TestTenant } from "./tenant.js";
import { voicesClient } from "./voices-client.js";

export interface FixtureOwner {
  api: Pick<RunningApi, "url">;
  tenant: TestTenant;
  /** Fixtures already made for this owner, by parameter name (a fixture may build on another's). */
  made: Map<string, Promise<string>>;
}

export type PathFixture = (owner: FixtureOwner) => Promise<string>;

/** Where a record lives, for the tenant matrix: its own workspace, or (base models) every workspace. */
export type FixtureScope = "workspace" | "organization" | "global";

const ok = <T>(reply: { status: number; body: T }, what: string): T => {
  if (reply.status !== 200 && reply.status !== 201) throw new Error(`fixture ${what} answered ${reply.status}: ${JSON.stringify(reply.body)}`);
  return reply.body;
};

async function workflowDeployment({ api, tenant }: FixtureOwner): Promise<Record<string, unknown>> {
  const body = { name: `fixture-${randomUUID().slice(0, 8)}`, spec: { github_url: "https://github.com/acme/fixture" } };
  const reply = await filesClient(api, tenant).request("POST", "/v1/workflows/deployments", { json: body });
  if (reply.status !== 202) throw new Error(`fixture workflow deployment answered ${reply.status}: ${JSON.stringify(reply.body)}`);
  return reply.body as Record<string, unknown>;
}

/** One real MCP server on loopback for every connector fixture of the run (tool routes reach it: never a 5xx). */
let fixtureMcp: Promise<TestMcpServer> | undefined;
const fixtureMcpUrl = async () => (await (fixtureMcp ??= startMcpServer())).url;

const TERMINAL = new Set(["SUCCESS", "FAILED", "TIMEOUT_EXCEEDED", "CANCELLED"]);

export const pathFixtures: Record<string, PathFixture> = {
  file_id: async ({ api, tenant }) => (await filesClient(api, tenant).uploaded({ filename: "fixture.jsonl", content: '{"a":1}\n', purpose: "batch" })).id,
  upload_id: async ({ api, tenant }) => ok(await filesClient(api, tenant).startUpload({ filename: "fixture.jsonl", bytes: 10 }), "start upload").id as string,
  model_id: async ({ tenant }) => {
    const { registerFineTuned } = await import("../../shared/services/models/catalog.js");
    const id = `ft:mistral-small-latest:fixture:${randomUUID().slice(0, 8)}`;
    await registerFineTuned({ workspace: tenant.caller.workspace, id, root: "mistral-small-latest" });
    return id;
  },
  job_id: async ({ api, tenant }) => {
    const batch = batchClient(api, tenant);
    const job = ok(
      await batch.create({ endpoint: "/v1/chat/completions", model: "mistral-small-latest", requests: [{ custom_id: "a", body: { messages: [{ role: "user", content: "hi" }] } }] }),
      "batch create",
    ) as { id: string };
    // A job still running changes its own record; the matrix compares records before and after, so it waits
    // (up to a minute: under a full suite on two cores a one-line job has taken more than ten seconds).
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
      if (TERMINAL.has((ok(await batch.get(job.id), "batch get") as { status: string }).status)) return job.id;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`fixture batch job ${job.id} did not finish`);
  },
  agent_id: async ({ api, tenant }) => ok(await agentsClient(api, tenant).create(anAgentRequest()), "agent create").id as string,
  conversation_id: async ({ api, tenant }) =>
    (ok(await filesClient(api, tenant).request("POST", "/v1/conversations", { json: { model: "mistral-small-latest", inputs: "fixture" } }), "conversation start") as { conversation_id: string }).conversation_id,
  library_id: async ({ api, tenant }) => (await librariesClient(api, tenant).created({ name: "fixture" })).id as string,
  // A processed document of the owner's {library_id}: its processing changes its record, so the fixture waits for it.
  document_id: async (owner) => {
    const libraryId = await fixtureId(owner, "library_id");
    const documents = librariesClient(owner.api, owner.tenant).documents;
    const uploaded = ok(await documents.upload(libraryId, Buffer.from(`Fixture notes ${randomUUID()}.`), "fixture.txt"), "document upload") as { id: string };
    await documents.processed(libraryId, uploaded.id);
    return uploaded.id;
  },
  prompt_id: async ({ api, tenant }) => (await registryClient(api, tenant, "prompts").created(aPromptBody())).id as string,
  skill_id: async ({ api, tenant }) => (await registryClient(api, tenant, "skills").created(aSkillBody())).id as string,
  // Every agent, prompt and skill above is made with version 1.
  version: async () => "1",
  // A workspace of its own in the owner's organization, so that archiving it (DELETE) leaves the owner's key working.
  workspace_uuid: async ({ tenant }) => {
    const { createWorkspace } = await import("../../shared/services/tenancy/tenants.js");
    return (await createWorkspace(tenant.caller.organization, "fixture")).id;
  },
  // The account gets its key at once: the fuzz ring may delete the account before a route asks for {key_id}.
  service_account_id: async ({ api, tenant, made }) => {
    const http = filesClient(api, tenant);
    const account = ok(await http.request("POST", "/v1/service-accounts", { json: { name: "fixture", workspace_id: tenant.caller.workspace } }), "service account create").id as string;
    const key = http.request("POST", `/v1/service-accounts/${account}/keys`, { json: {} }).then((reply) => ok(reply, "service account key").id as string);
    made.set("key_id", key);
    await key;
    return account;
  },
  // A workflow with one registration (input_schema: any object), seeded through the stores: no route
  // creates workflows but a worker's register. Its run is closed, so terminate and cancel answer 409.
  workflow_identifier: async ({ tenant, made }) => {
    const { seedRegistration, seedRun, aDefinition } = await import("./workflow-builders.js");
    const seeded = await seedRegistration(tenant.caller.workspace, { organization: tenant.caller.organization, registration: { definition: aDefinition({ input_schema: { type: "object" } }) } });
    const run = seedRun(tenant.caller.workspace, { status: "COMPLETED", result: { ok: true } }, seeded);
    made.set("workflow_registration_id", Promise.resolve(seeded.registration.id));
    made.set("workflow_name", Promise.resolve(seeded.workflow.name));
    made.set("execution_id", run.then((r) => r.executionId));
    made.set("run_id", run.then((r) => r.runId));
    await run;
    return seeded.workflow.id;
  },
  workflow_registration_id: async (owner) => {
    await fixtureId(owner, "workflow_identifier");
    return owner.made.get("workflow_registration_id")!;
  },
  workflow_name: async (owner) => {
    await fixtureId(owner, "workflow_identifier");
    return owner.made.get("workflow_name")!;
  },
  execution_id: async (owner) => {
    await fixtureId(owner, "workflow_identifier");
    return owner.made.get("execution_id")!;
  },
  run_id: async (owner) => {
    await fixtureId(owner, "workflow_identifier");
    return owner.made.get("run_id")!;
  },
  // Activity tasks are made by the dispatcher, never by a route: a PENDING task of a running run, in deployment "fixture".
  task_id: async ({ tenant }) => {
    const { seededTasks } = await import("./workers-client.js");
    const { tasks } = await seededTasks(tenant, 1, { deployment: "fixture" });
    return tasks[0]!.taskId;
  },
  key_id: async (owner) => {
    await fixtureId(owner, "service_account_id");
    return owner.made.get("key_id")!;
  },
  // A search-index deployment with one index, `docs` (retrieval; workflow deployments name theirs otherwise).
  deployment_id: async ({ api, tenant }) => retrievalClient(api, tenant).registered(aDeploymentBody("fixture")),
  // A workflow deployment (a managed record, made through the API): `{name}` names one, `{deployment_id}` of
  // the workflow deployment routes names another's id (see scopedFixtures), so a fuzzed DELETE of the one
  // leaves the other.
  name: async (owner) => (await workflowDeployment(owner)).name as string,
  workflow_deployment_id: async (owner) => (await workflowDeployment(owner)).service_id as string,
    // `{id}` is an ingestion pipeline configuration's (the only route with a bare `{id}`).
  id: async ({ api, tenant }) => (await retrievalClient(api, tenant).registeredPipeline({ name: "fixture" })).id as string,
  voice_id: async ({ api, tenant }) => (await voicesClient(api, tenant).created()).id as string,
  // A private connector of the owner (so another workspace's key cannot see it), served by a real MCP server on loopback.
  // Two of them: the `{connector_id}` rows include DELETE, the `{connector_id_or_name}` rows (tools, credentials) must outlive it.
  connector_id: async ({ api, tenant }) => (await connectorsClient(api, tenant).created(aConnectorBody({ server: await fixtureMcpUrl() }))).id as string,
  connector_id_or_name: async ({ api, tenant }) => (await connectorsClient(api, tenant).created(aConnectorBody({ server: await fixtureMcpUrl() }))).id as string,
  consumer_scope: async () => "user",
  tool_name: async () => "echo",
  // Observability field names: the same catalogue in every workspace (an ENUM field of each kind, so options answer 200).
  field_name: async () => "status_code",
  evaluation_field_name: async () => "evaluation_name",
  log_field_name: async () => "severity_text",
  // The owner's own credentials for the connector.
  credentials_name: async (owner) => {
    const connector = await fixtureId(owner, "connector_id_or_name");
    // A name no other answer holds by chance (the tenant matrix looks for the owner's ids in the intruder's lists).
    const name = `fixture-${randomUUID().slice(0, 8)}`;
    ok(await connectorsClient(owner.api, owner.tenant).createCredentials(connector, "user", { name, credentials: { bearer_token: "fixture-token" } }), "connector credentials");
    return name;
  },
  // A schedule of the fixture workflow, hourly from 2031 (it never fires during a run), made through the API.
  // Observability datasets and records (made through the API): a `{dataset_record_id}` row may delete its record, so each gets its own dataset.
  dataset_id: async ({ api, tenant }) => (await datasetsClient(api, tenant).created()).id as string,
  dataset_record_id: async ({ api, tenant }) => (await datasetsClient(api, tenant).createdRecord()).id as string,
  // A saved judge (made through the API, named uniquely): a `{judge_id}` row may delete or rename it.
  judge_id: async ({ api, tenant }) => (await judgesClient(api, tenant).created()).id as string,
  // An evaluation pipeline (a detection over spans, made through the API): a `{pipeline_config_id}` row may delete or run it.
  pipeline_config_id: async ({ api, tenant }) => (await pipelinesClient(api, tenant).created()).id as string,
  // An import task of the owner's `{dataset_id}` dataset (a one-line file), waited for: a running task changes its own record.
  dataset_task_id: async (owner) => {
    const datasets = datasetsClient(owner.api, owner.tenant);
    const dataset = await fixtureId(owner, "dataset_id");
    const file = await filesClient(owner.api, owner.tenant).uploaded({ filename: "fixture.jsonl", content: '{"payload":{"q":"fixture"}}\n', purpose: "fine-tune" });
    const task = await datasets.importedFromFile(dataset, file.id as string);
    return task.id as string;
  },
  schedule_id: async (owner) => {
    const workflow = await fixtureId(owner, "workflow_name");
    const body = { workflow_identifier: workflow, schedule: { input: {}, intervals: [{ every: "PT1H" }], start_at: "2031-01-01T00:00:00Z" } };
    const reply = await filesClient(owner.api, owner.tenant).request("POST", "/v1/workflows/schedules", { json: body });
    return (ok(reply, "schedule create") as { schedule_id: string }).schedule_id;
  },
  // A trace of the owner: a chat call under a traceparent records its span in that trace (docs/observability/ingest.md).
  trace_id: async (owner) => {
    const trace = randomBytes(16).toString("hex");
    const reply = await filesClient(owner.api, owner.tenant).request("POST", "/v1/chat/completions", {
      json: { model: "mistral-small-latest", messages: [{ role: "user", content: "fixture" }] },
      headers: { traceparent: `00-${trace}-${randomBytes(8).toString("hex")}-01` },
    });
    ok(reply, "chat under a traceparent");
    return trace;
  },
  span_id: async (owner) => {
    const trace = await fixtureId(owner, "trace_id");
    const reply = await filesClient(owner.api, owner.tenant).request("GET", `/v1/observability/traces/${trace}/spans`);
    return (ok(reply, "trace spans") as { spans: { results: { span_id: string }[] } }).spans.results[0]!.span_id;
  },
  // The console's script, as its public page names it.
  asset: async ({ api }) => {
    const page = await (await fetch(`${api.url}/console`)).text();
    const name = /src="console\/([^"]+\.js)"/.exec(page)?.[1];
    if (!name) throw new Error(`fixture console asset: the page names no script:\n${page}`);
    return name;
  },
};

/** The scope of each parameter's record where it is not the workspace's own (see FixtureScope). */
export const fixtureScopes: Record<string, FixtureScope> = {
  // Workspaces and service accounts are the organization's to administer: an organization admin's key of
  // another workspace (the matrix's intruder) may manage them, and only within its own organization.
  workspace_uuid: "organization",
  service_account_id: "organization",
  key_id: "organization",
  // Names every workspace uses alike (a consumer scope, the fixture MCP server's tool), not records of the owner.
  consumer_scope: "global",
  tool_name: "global",
  field_name: "global",
  evaluation_field_name: "global",
  log_field_name: "global",
  asset: "global",
};

export function fixtureFor(param: string): PathFixture {
  const fixture = pathFixtures[param];
  if (!fixture) throw new Error(`add a fixture for {${param}} in test/support/route-fixtures.ts (pathFixtures): the tenant matrix and the fuzz ring need a record it can name`);
  return fixture;
}

/** The id of `param`'s fixture for this owner, made once. */
export function fixtureId(owner: FixtureOwner, param: string): Promise<string> {
  if (!owner.made.has(param)) owner.made.set(param, fixtureFor(param)(owner));
  return owner.made.get(param)!;
}

export const pathParamsOf = (path: string): string[] => [...path.matchAll(/\{([A-Za-z_]+)\}/g)].map((m) => m[1]!);

/**
 * Parameters whose record depends on the route, not only on the parameter's name: under these path
 * prefixes the parameter is named by another fixture (`{deployment_id}` is a search-index deployment's in
 * retrieval, a workflow deployment's under /v1/workflows/deployments/).
 */
const scopedFixtures: { prefix: string; param: string; fixture: string }[] = [
  { prefix: "/v1/workflows/deployments/", param: "deployment_id", fixture: "workflow_deployment_id" },
  { prefix: "/v1/observability/spans/evaluations/fields/", param: "field_name", fixture: "evaluation_field_name" },
  { prefix: "/v1/observability/logs/fields/", param: "field_name", fixture: "log_field_name" },
  { prefix: "/v1/observability/datasets/", param: "task_id", fixture: "dataset_task_id" },
];

/** The fixture that names `param` in `path`. */
export const fixtureNameFor = (path: string, param: string): string =>
  scopedFixtures.find((s) => s.param === param && path.startsWith(s.prefix))?.fixture ?? param;

/** The row's path with every parameter named by this owner's fixtures. */
export async function fixturePath(owner: FixtureOwner, path: string): Promise<{ path: string; params: Record<string, string> }> {
  const params: Record<string, string> = {};
  for (const name of pathParamsOf(path)) params[name] = await fixtureId(owner, fixtureNameFor(path, name));
  return { path: path.replace(/\{([A-Za-z_]+)\}/g, (_, name: string) => encodeURIComponent(params[name]!)), params };
}

export const newOwner = (api: Pick<RunningApi, "url">, tenant: TestTenant): FixtureOwner => ({ api, tenant, made: new Map() });
