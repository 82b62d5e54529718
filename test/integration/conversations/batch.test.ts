/**
 * Batch lines for `/v1/conversations` (Mistral's batch endpoint list): each line starts a conversation with the job's
 * model or agent and runs the same loop as `POST /v1/conversations`.
 */
import { describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { agentsClient, anAgentRequest } from "../../support/agents-client.js";
import { aQueuedJob, downloadLines, runJob } from "../../support/batch-engine.js";
import { lookupTool } from "../../support/conversations.js";
import { filesClient } from "../../support/files-client.js";

const { api, tenant } = useEmbeddedApi();
const files = filesClient(api, tenant);

describe("batch jobs on /v1/conversations", () => {
  it("runs each line's turn with the job's model and keeps the conversation; a refused tool is the line's error", async () => {
    const job = await aQueuedJob(
      tenant,
      [
        { custom_id: "plain", body: { inputs: "Hello" } },
        { custom_id: "tool", body: { inputs: "Find it", tools: [lookupTool] } },
        { custom_id: "refused", body: { inputs: "News?", tools: [{ type: "web_search" }] } },
      ],
      { endpoint: "/v1/conversations", model: "mistral-small-latest" },
    );

    const { job: ended } = await runJob(job);

    expect(ended).toMatchObject({ status: "SUCCESS", succeededRequests: 2, failedRequests: 1 });
    const byId = Object.fromEntries((await downloadLines(files, ended.outputFile!)).map((l) => [l.custom_id, l]));
    expect(byId.plain.response.body).toMatchObject({ object: "conversation.response", outputs: [{ type: "message.output", content: expect.stringContaining("«Hello»") }] });
    expect(byId.tool.response.body.outputs[0]).toMatchObject({ type: "function.call", name: "lookup" });
    const kept = await files.request("GET", `/v1/conversations/${byId.plain.response.body.conversation_id}/history`);
    expect(kept.body.entries).toHaveLength(2);
    const [failed] = await downloadLines(files, ended.errorFile!);
    expect(failed).toMatchObject({ custom_id: "refused", error: { code: 400, message: expect.stringContaining("'web_search'") } });
  });

  it("is accepted with an agent by POST /v1/batch/jobs, and its lines are the agent's turns", async () => {
    const agent = (await agentsClient(api, tenant).create(anAgentRequest({ name: "Batch agent", instructions: "Be brief." }))).body;

    const created = await files.request("POST", "/v1/batch/jobs", { json: { endpoint: "/v1/conversations", agent_id: agent.id, requests: [{ custom_id: "a", body: { inputs: "Hi" } }] } });

    expect(created.status).toBe(200);
    let job = created.body;
    // The engine runs the job in the background; a loaded machine (the whole suite on two cores) can take tens of seconds.
    for (const deadline = Date.now() + 90_000; Date.now() < deadline && !["SUCCESS", "FAILED"].includes(job.status); ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      job = (await files.request("GET", `/v1/batch/jobs/${job.id}`)).body;
    }
    expect(job).toMatchObject({ status: "SUCCESS", succeeded_requests: 1 });
    const [line] = await downloadLines(files, job.output_file);
    expect(line.response.body.outputs[0]).toMatchObject({ type: "message.output", agent_id: agent.id });
  }, 120_000);
});
