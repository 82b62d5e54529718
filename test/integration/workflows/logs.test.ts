/**
 * Logs of executions and deployments on the embedded servers (issue 29, decision 0064): the reference worker
 * forwards what its activity writes with `console`, the engine adds its own lines for the run; both are listed
 * and streamed per execution and per deployment, and another workspace's are not there.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runWorker, type RunningWorker, type WorkflowModule } from "../../../scripts/worker/run-worker.js";
import { useEmbeddedApi } from "../../support/api.js";
import { readUntil } from "../../support/read-until.js";
import { newTenant } from "../../support/tenant.js";
import { sseFrames, workflowsClient } from "../../support/workflow-builders.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
const http = workflowsClient(api, tenant);
let worker: RunningWorker;

const module: WorkflowModule = {
  workflows: [
    {
      name: "chatty",
      definition: { input_schema: { type: "object" } },
      program: { StartAt: "Talk", States: { Talk: { Type: "Task", Resource: "activity:talk", End: true } } },
    },
  ],
  activities: {
    async talk(input: { words?: string[] }) {
      for (const word of input.words ?? []) console.log("said %s", word);
      console.warn("careful");
      return { said: input.words?.length ?? 0 };
    },
  },
};

beforeAll(async () => {
  worker = runWorker({ url: api.url, key: tenant.key, deployment: "talkers", name: "w-talk", module, pollWaitSeconds: 1, concurrency: 1, log: () => {} });
  await worker.registered;
  await http.execute("chatty", { execution_id: "chatty-1", input: { words: ["hello", "world"] } });
  await readUntil(() => http.execution("chatty-1"), (r) => r.body.status !== "RUNNING");
});
afterAll(() => worker?.stop());

const bodies = (results: { body: string }[]) => results.map((r) => r.body);

describe("GET /v1/workflows/executions/{execution_id}/logs", () => {
  it("lists the activity's console lines (from the reference worker) between the engine's lines, and 404 for another workspace", async () => {
    const logs = await readUntil(
      () => http.request("GET", "/v1/workflows/executions/chatty-1/logs", { query: { limit: 100 } }),
      (r) => bodies(r.body.results ?? []).includes("Workflow chatty completed"),
    );
    const other = await newTenant();

    expect(logs.status).toBe(200);
    const lines = bodies(logs.body.results);
    expect(lines[0]).toMatch(/^Workflow chatty started: execution chatty-1, run /);
    expect(lines).toEqual(expect.arrayContaining(["said hello", "said world", "careful", "Activity talk completed", "Workflow chatty completed"]));
    expect(lines.indexOf("said hello")).toBeLessThan(lines.indexOf("Activity talk completed"));
    const warn = logs.body.results.find((r: { body: string }) => r.body === "careful");
    expect(warn).toMatchObject({ severity_text: "WARN", log_attributes: { source: "worker", worker_name: "w-talk", activity_name: "talk", execution_id: "chatty-1", deployment_name: "talkers" } });
    expect((await workflowsClient(api, other).request("GET", "/v1/workflows/executions/chatty-1/logs")).status).toBe(404);
  });

  it("answers an empty page for a range that ends before it starts, and 422 for a resume id it never sent", async () => {
    const reversed = await http.request("GET", "/v1/workflows/executions/chatty-1/logs", { query: { after: "2026-01-02T00:00:00Z", before: "2026-01-01T00:00:00Z" } });
    const resumed = await http.request("GET", "/v1/workflows/executions/chatty-1/logs/stream", { query: { last_event_id: "not-a-frame" } });

    expect(reversed.status).toBe(200);
    expect(reversed.body.results).toEqual([]);
    expect(resumed.status).toBe(422);
  });
});

describe("GET /v1/workflows/executions/{execution_id}/logs/stream", () => {
  it("streams the closed execution's lines as `log` frames and ends", async () => {
    const response = await http.request("GET", "/v1/workflows/executions/chatty-1/logs/stream", { query: { activity_id: "none" } });
    const all = await http.request("GET", "/v1/workflows/executions/chatty-1/logs/stream");

    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(sseFrames(response.body)).toEqual([]);
    const frames = sseFrames(all.body);
    expect(frames.every((f) => f.event === "log")).toBe(true);
    expect(frames.map((f) => f.data.body)).toEqual(expect.arrayContaining(["said hello", "Workflow chatty completed"]));
  });
});

describe("GET /v1/workflows/deployments/{name}/logs", () => {
  it("lists the deployment's lines, filtered by worker", async () => {
    const all = await http.request("GET", "/v1/workflows/deployments/talkers/logs", { query: { limit: 100, order: "desc" } });
    const byWorker = await http.request("GET", "/v1/workflows/deployments/talkers/logs", { query: { worker_name: "w-talk" } });

    expect(all.status).toBe(200);
    expect(all.body.results[0].body).toBe("Workflow chatty completed");
    expect(bodies(byWorker.body.results)).toEqual(["said hello", "said world", "careful"]);
    expect((await http.request("GET", "/v1/workflows/deployments/nobody/logs")).status).toBe(404);
  });
});

describe("GET /v1/workflows/deployments/{name}/logs/stream", () => {
  it("tails the deployment's lines as `log` frames (read until the worker's lines came)", async () => {
    const controller = new AbortController();
    const response = await fetch(`${api.url}/v1/workflows/deployments/talkers/logs/stream?worker_name=w-talk`, { headers: { authorization: `Bearer ${tenant.key}` }, signal: controller.signal });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    let text = "";
    while (sseFrames(text).length < 3) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();

    expect(sseFrames(text).map((f) => [f.event, f.data.body])).toEqual([
      ["log", "said hello"],
      ["log", "said world"],
      ["log", "careful"],
    ]);
  });
});

describe("POST /v1/workflows/tasks/{task_id}/logs", () => {
  it("refuses an unknown task with 404 and too many lines with 422", async () => {
    const unknown = await http.request("POST", "/v1/workflows/tasks/00000000-0000-4000-8000-000000000000/logs", { json: { deployment_name: "talkers", worker_name: "w-talk", lines: [{ message: "x" }] } });
    const many = await http.request("POST", "/v1/workflows/tasks/00000000-0000-4000-8000-000000000000/logs", {
      json: { deployment_name: "talkers", worker_name: "w-talk", lines: Array.from({ length: 101 }, () => ({ message: "x" })) },
    });

    expect(unknown.status).toBe(404);
    expect(many.status).toBe(422);
  });
});
