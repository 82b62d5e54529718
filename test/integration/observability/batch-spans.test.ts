/** Batch lines record their model calls' spans, in one trace per job (docs/observability/ingest.md). */
import { describe, expect, it } from "vitest";
import { batchTraceId } from "../../../shared/domain/observability/genai.js";
import { useEmbeddedApi } from "../../support/api.js";
import { aQueuedJob, chatLines, runJob, toJsonl } from "../../support/batch-engine.js";
import { filesClient } from "../../support/files-client.js";

const { api, tenant } = useEmbeddedApi();
const files = filesClient(api, tenant);

describe("GET /v1/observability/traces/{trace_id} of a batch job", () => {
  it("derives the job's trace from one chat span per line, in the job's workspace", async () => {
    const input = await files.uploaded({ filename: "requests.jsonl", purpose: "batch", content: toJsonl(chatLines(3)) });
    const job = await aQueuedJob(tenant, null, { inputFiles: [input.id] });

    const { job: ended } = await runJob(job);
    expect(ended.status).toBe("SUCCESS");

    const trace = batchTraceId(job.id);
    const got = await files.request("GET", `/v1/observability/traces/${trace}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ trace_id: trace, workspace_id: tenant.caller.workspace, span_count: 3, llm_call_count: 3, models_used: ["mistral-small-latest"], status_code: "Unset" });
    const spans = (await files.request("GET", `/v1/observability/traces/${trace}/spans`)).body.spans.results;
    expect(spans.map((s: { span_attributes: Record<string, string> }) => s.span_attributes["platform.route"])).toStrictEqual(Array(3).fill("batch POST /v1/chat/completions"));
  });
});
