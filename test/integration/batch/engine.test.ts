import { afterEach, describe, expect, it, vi } from "vitest";
import { fileBlobs } from "../../../shared/blobs/files.js";
import * as agents from "../../../shared/services/agents/agents.js";
import * as engine from "../../../shared/services/batch/engine/index.js";
import type { BatchFailure } from "../../../shared/engine/batch-machine.js";
import { OfflineProvider } from "../../../shared/inference/providers/offline.js";
import type { ChatCompletionRequest } from "../../../shared/schemas/inference.js";
import { CreateAgentRequest } from "../../../shared/schemas/agent.js";
import { UpstreamError } from "../../../shared/inference/types.js";
import { batchProgressStore } from "../../../shared/store/batch-progress.js";
import { batchStore } from "../../../shared/store/batch.js";
import { useEmbeddedApi } from "../../support/api.js";
import { aQueuedJob, chatLines, downloadLines, jobNow, manifestOf, runJob, toJsonl } from "../../support/batch-engine.js";
import { aTextPdf, dataUrl } from "../../support/documents.js";
import { filesClient, objectsOf } from "../../support/files-client.js";
import { offlineEcho, offlineFim } from "../../support/inference-client.js";

const { api, tenant } = useEmbeddedApi();
const files = filesClient(api, tenant);
afterEach(() => {
  vi.restoreAllMocks();
});

/** Fast backoff, so retry tests take milliseconds. */
const quickRetry: engine.RetryPolicy = { attempts: 4, baseMs: 5, maxMs: 20 };

/** What Step Functions hands RecordFailure for an error a Lambda task threw. */
function caught(jobId: string, error: Error): BatchFailure {
  return {
    workspace: tenant.caller.workspace,
    jobId,
    failure: { Error: error.name, Cause: JSON.stringify({ errorType: error.name, errorMessage: error.message, trace: (error.stack ?? "").split("\n") }) },
  };
}

const engineObjects = async (jobId: string) =>
  (await objectsOf(tenant.caller.workspace)).filter((key) => key.includes(`/batch/${jobId}/`) && !key.endsWith("/inline.jsonl"));

describe("a chat job that runs to the end", () => {
  it("writes one output line per request, in input order, as a batch_result File, and ends SUCCESS with full counters", async () => {
    const input = await files.uploaded({ filename: "requests.jsonl", purpose: "batch", content: toJsonl(chatLines(150)) });
    const job = await aQueuedJob(tenant, null, { inputFiles: [input.id] });

    const { finished, chunks, job: ended } = await runJob(job);

    expect(chunks.map((c) => c.count)).toEqual([100, 50]);
    expect(finished).toEqual({ workspace: job.workspace, jobId: job.id, status: "SUCCESS" });
    expect(ended).toMatchObject({ status: "SUCCESS", totalRequests: 150, completedRequests: 150, succeededRequests: 150, failedRequests: 0, errorFile: null, errors: [] });
    expect(ended.startedAt).toBeGreaterThanOrEqual(job.createdAt);
    expect(ended.completedAt).toBeGreaterThanOrEqual(ended.startedAt!);
    expect(ended.outputFile).toEqual(expect.any(String));

    const record = await files.retrieve(ended.outputFile!);
    expect(record.status).toBe(200);
    expect(record.body).toMatchObject({ purpose: "batch", sample_type: "batch_result", source: "mistral", num_lines: 150, mimetype: "application/jsonl", visibility: "workspace" });

    const lines = await downloadLines(files, ended.outputFile!);
    expect(lines.map((l) => l.custom_id)).toEqual(chatLines(150).map((l) => l.custom_id));
    lines.forEach((line, i) => {
      expect(line).toMatchObject({ custom_id: `r${i}`, error: null, response: { status_code: 200 } });
      expect(line.id).toMatch(/^batch-[0-9a-f-]{36}$/);
      expect(line.response.body).toMatchObject({
        object: "chat.completion",
        model: "mistral-small-latest",
        choices: [{ index: 0, message: { role: "assistant", content: offlineEcho(`question ${i}`) }, finish_reason: "stop" }],
      });
    });
    expect(new Set(lines.map((l) => l.id)).size).toBe(150);
  });

  it("removes its chunks, results and manifest once it is over", async () => {
    const job = await aQueuedJob(tenant, chatLines(120));
    const started = await engine.start({ workspace: job.workspace, jobId: job.id });
    expect((await engineObjects(job.id)).length).toBeGreaterThan(0);
    for (const chunk of await manifestOf(started)) await engine.runChunk({ job: started, chunk });

    await engine.finish(started);

    expect(await engineObjects(job.id)).toEqual([]);
    expect(await batchStore.get(job.workspace, job.id)).not.toHaveProperty("chunkProgress");
  });

  it("sends the job's model whatever the body names, and never streams", async () => {
    const chat = vi.spyOn(OfflineProvider.prototype, "chat");
    const job = await aQueuedJob(tenant, chatLines(1, () => ({ model: "mistral-large-latest", stream: true, messages: [{ role: "user", content: "hi" }] })));

    const { job: ended } = await runJob(job);

    const [line] = await downloadLines(files, ended.outputFile!);
    expect(line.response.body.model).toBe("mistral-small-latest");
    expect(chat).toHaveBeenCalledTimes(1);
  });

  it("shows progress while it runs: the total after Start, the counters after each chunk", async () => {
    const job = await aQueuedJob(tenant, chatLines(250));
    const seen: number[][] = [];
    const snapshot = async () => {
      const now = await jobNow(job);
      seen.push([now.totalRequests, now.completedRequests, now.succeededRequests, now.failedRequests]);
      expect(now.status).toBe("RUNNING");
    };

    await runJob(job, { beforeChunk: snapshot });

    expect(seen).toEqual([
      [250, 0, 0, 0],
      [250, 100, 100, 0],
      [250, 200, 200, 0],
    ]);
  });

  it("counts within a chunk as requests finish, not only at its end", async () => {
    const job = await aQueuedJob(tenant, chatLines(100));
    const midway: number[] = [];
    const real = OfflineProvider.prototype.chat;
    let calls = 0;
    vi.spyOn(OfflineProvider.prototype, "chat").mockImplementation(async function (this: OfflineProvider, ...args) {
      calls += 1;
      if (calls === 70) midway.push((await jobNow(job)).completedRequests);
      return real.apply(this, args);
    });

    const { job: ended } = await runJob(job);

    expect(midway).toHaveLength(1);
    expect(midway[0]).toBeGreaterThanOrEqual(engine.CHECKPOINT_EVERY);
    expect(midway[0]).toBeLessThan(70);
    expect(ended.completedRequests).toBe(100);
  });
});

describe("a job with requests that fail", () => {
  it("writes the failed requests to a batch_error File and still ends SUCCESS, counting both", async () => {
    const lines = [
      ...chatLines(3),
      { custom_id: "unknown-field", body: { messages: [{ role: "user", content: "x" }], bogus: 1 } },
      { custom_id: "too-long", body: { messages: [{ role: "user", content: "x" }], max_tokens: 10_000_000 } },
    ];
    const job = await aQueuedJob(tenant, lines);

    const { job: ended } = await runJob(job);

    expect(ended).toMatchObject({ status: "SUCCESS", totalRequests: 5, completedRequests: 5, succeededRequests: 3, failedRequests: 2 });
    const output = await downloadLines(files, ended.outputFile!);
    expect(output.map((l) => l.custom_id)).toEqual(["r0", "r1", "r2"]);
    const errors = await downloadLines(files, ended.errorFile!);
    expect(errors).toEqual([
      { id: expect.stringMatching(/^batch-/), custom_id: "unknown-field", response: null, error: { message: expect.stringContaining("bogus"), code: 422 } },
      { id: expect.stringMatching(/^batch-/), custom_id: "too-long", response: null, error: { message: expect.stringContaining("context"), code: 400 } },
    ]);
    expect((await files.retrieve(ended.errorFile!)).body).toMatchObject({ purpose: "batch", sample_type: "batch_error", source: "mistral", num_lines: 2 });
  });

  it("fails every request of a job whose model is gone or cannot serve the endpoint, with the status the route would answer", async () => {
    const unknown = await aQueuedJob(tenant, chatLines(2), { model: "no-such-model" });
    const unfit = await aQueuedJob(tenant, chatLines(2), { model: "mistral-embed" });

    const { job: a } = await runJob(unknown);
    const { job: b } = await runJob(unfit);

    for (const ended of [a, b]) expect(ended).toMatchObject({ status: "SUCCESS", completedRequests: 2, succeededRequests: 0, failedRequests: 2, outputFile: null });
    expect((await downloadLines(files, a.errorFile!)).map((l) => l.error)).toEqual([
      { message: "Invalid model: no model 'no-such-model' exists in this workspace", code: 400 },
      { message: "Invalid model: no model 'no-such-model' exists in this workspace", code: 400 },
    ]);
    expect((await downloadLines(files, b.errorFile!))[0].error).toEqual({ message: "Model 'mistral-embed' does not support chat completion", code: 400 });
  });
});

describe("throttling", () => {
  it("retries a request the model throttles, and records it once it succeeds", async () => {
    const chat = vi
      .spyOn(OfflineProvider.prototype, "chat")
      .mockRejectedValueOnce(new UpstreamError(429, "Too many requests"))
      .mockRejectedValueOnce(new UpstreamError(429, "Too many requests"));
    const job = await aQueuedJob(tenant, chatLines(1));

    const { job: ended } = await runJob(job, { chunk: { retry: quickRetry } });

    expect(chat).toHaveBeenCalledTimes(3);
    expect(ended).toMatchObject({ status: "SUCCESS", completedRequests: 1, succeededRequests: 1, failedRequests: 0 });
    const [line] = await downloadLines(files, ended.outputFile!);
    expect(line.response.body.choices[0].message.content).toBe(offlineEcho("question 0"));
  });

  it("gives up after the last attempt and writes the 429 as the request's error", async () => {
    const chat = vi.spyOn(OfflineProvider.prototype, "chat").mockRejectedValue(new UpstreamError(429, "Too many requests"));
    const job = await aQueuedJob(tenant, chatLines(1));

    const { job: ended } = await runJob(job, { chunk: { retry: quickRetry } });

    // Each of the batch's attempts is a routed call, which tries the model's deployment twice (docs/routing.md).
    expect(chat).toHaveBeenCalledTimes(quickRetry.attempts * 2);
    expect(ended).toMatchObject({ status: "SUCCESS", failedRequests: 1, outputFile: null });
    expect((await downloadLines(files, ended.errorFile!))[0].error).toEqual({ message: "Too many requests (after 2 attempts)", code: 429 });
  });

  it("does not retry an upstream refusal that is not throttling", async () => {
    const chat = vi.spyOn(OfflineProvider.prototype, "chat").mockRejectedValue(new UpstreamError(400, "Bad prompt"));
    const job = await aQueuedJob(tenant, chatLines(1));

    const { job: ended } = await runJob(job, { chunk: { retry: quickRetry } });

    expect(chat).toHaveBeenCalledTimes(1);
    expect((await downloadLines(files, ended.errorFile!))[0].error).toEqual({ message: "Bad prompt", code: 400 });
  });
});

describe("other endpoints", () => {
  it("runs embeddings", async () => {
    const job = await aQueuedJob(tenant, [{ custom_id: "e", body: { input: ["hello", "world"] } }], { endpoint: "/v1/embeddings", model: "mistral-embed" });

    const { job: ended } = await runJob(job);

    const [line] = await downloadLines(files, ended.outputFile!);
    expect(line.response.body).toMatchObject({ object: "list", model: "mistral-embed" });
    expect(line.response.body.data).toHaveLength(2);
    expect(line.response.body.data[0].embedding).toHaveLength(1024);
  });

  it("runs FIM completions", async () => {
    const job = await aQueuedJob(tenant, [{ custom_id: "f", body: { prompt: "def add(a, b):\n    return" } }], { endpoint: "/v1/fim/completions", model: "codestral-latest" });

    const { job: ended } = await runJob(job);

    const [line] = await downloadLines(files, ended.outputFile!);
    expect(line.response.body).toMatchObject({ object: "chat.completion", model: "codestral-latest" });
    expect(line.response.body.choices[0].message.content).toBe(offlineFim("    return"));
  });

  it("runs moderations", async () => {
    const job = await aQueuedJob(tenant, [{ custom_id: "m", body: { input: ["I will kill you tomorrow", "lovely weather"] } }], {
      endpoint: "/v1/moderations",
      model: "mistral-moderation-latest",
    });

    const { job: ended } = await runJob(job);

    const [line] = await downloadLines(files, ended.outputFile!);
    expect(line.response.body.id).toMatch(/^mod-/);
    expect(line.response.body.model).toBe("mistral-moderation-latest");
    expect(line.response.body.results.map((r: { categories: Record<string, boolean> }) => r.categories.violence_and_threats)).toEqual([true, false]);
    expect(line.response.body.results[0].category_scores.violence_and_threats).toBe(1);
  });

  it("runs chat moderations and both classifications, each in its route's shape", async () => {
    const threat = [{ role: "user", content: "I will kill you tomorrow" }];
    const run = async (endpoint: "/v1/chat/moderations" | "/v1/classifications" | "/v1/chat/classifications", body: Record<string, unknown>) => {
      const job = await aQueuedJob(tenant, [{ custom_id: "c", body }], { endpoint, model: "mistral-moderation-latest" });
      const { job: ended } = await runJob(job);
      expect(ended.failedRequests).toBe(0);
      const [line] = await downloadLines(files, ended.outputFile!);
      return line.response.body;
    };

    const chat = await run("/v1/chat/moderations", { input: [threat, [{ role: "user", content: "lovely weather" }]] });
    expect(chat.results.map((r: { categories: Record<string, boolean> }) => r.categories.violence_and_threats)).toEqual([true, false]);
    const classified = await run("/v1/classifications", { input: "I will kill you tomorrow" });
    expect(classified.results[0].moderation.scores.violence_and_threats).toBe(1);
    const chatClassified = await run("/v1/chat/classifications", { input: { messages: threat } });
    expect(chatClassified.results[0].moderation.scores.violence_and_threats).toBe(1);
  });

  it("runs OCR lines on a data: URL and on a file of the workspace, and writes an unreadable document as the line's 422", async () => {
    const pdf = aTextPdf([[["Quarterly report"]], [["Revenue grew"]]]);
    const uploaded = await files.uploaded({ filename: "report.pdf", purpose: "ocr", content: pdf });
    const job = await aQueuedJob(
      tenant,
      [
        { custom_id: "url", body: { document: { type: "document_url", document_url: dataUrl(pdf, "application/pdf") }, pages: [1] } },
        { custom_id: "file", body: { document: { type: "file", file_id: uploaded.id } } },
        { custom_id: "text", body: { document: { type: "document_url", document_url: dataUrl(Buffer.from("just text"), "text/plain") } } },
      ],
      { endpoint: "/v1/ocr", model: "mistral-ocr-latest" },
    );

    const { job: ended } = await runJob(job);

    expect(ended).toMatchObject({ status: "SUCCESS", succeededRequests: 2, failedRequests: 1 });
    const lines = await downloadLines(files, ended.outputFile!);
    const byId = Object.fromEntries(lines.map((l) => [l.custom_id, l]));
    expect(byId.url.response.body).toMatchObject({ model: "mistral-ocr-latest", usage_info: { pages_processed: 1 } });
    expect(byId.url.response.body.pages.map((p: { index: number; markdown: string }) => [p.index, p.markdown])).toEqual([[1, "Revenue grew"]]);
    expect(byId.file.response.body.pages.map((p: { markdown: string }) => p.markdown)).toEqual(["Quarterly report", "Revenue grew"]);
    const [failed] = await downloadLines(files, ended.errorFile!);
    expect(failed).toMatchObject({ custom_id: "text", response: null, error: { code: 422 } });
  });
});

describe("an agent's job", () => {
  it("answers each request through the agent: its model and its instructions", async () => {
    const agent = await agents.create(tenant.caller, CreateAgentRequest.parse({ model: "mistral-large-latest", name: "helper", instructions: "Answer in French." }));
    const chat = vi.spyOn(OfflineProvider.prototype, "chat");
    const job = await aQueuedJob(tenant, chatLines(2), { model: null, agentId: agent.id });

    const { job: ended } = await runJob(job);

    expect(ended).toMatchObject({ status: "SUCCESS", succeededRequests: 2 });
    const lines = await downloadLines(files, ended.outputFile!);
    expect(lines.map((l) => l.response.body.model)).toEqual(["mistral-large-latest", "mistral-large-latest"]);
    expect(lines[1].response.body.choices[0].message.content).toBe(offlineEcho("question 1"));
    const sent = chat.mock.calls[0]![0] as ChatCompletionRequest;
    expect(sent.messages[0]).toEqual({ role: "system", content: "Answer in French." });
  });
});

describe("cancellation", () => {
  it("stops the chunks after the cancel and ends CANCELLED, keeping the results so far", async () => {
    const job = await aQueuedJob(tenant, chatLines(250));

    const { finished, job: ended } = await runJob(job, {
      beforeChunk: async (index) => {
        if (index === 1) expect(await batchStore.transition(job.workspace, job.id, "CANCELLATION_REQUESTED")).toBeDefined();
      },
    });

    expect(finished.status).toBe("CANCELLED");
    expect(ended).toMatchObject({ status: "CANCELLED", totalRequests: 250, completedRequests: 100, succeededRequests: 100 });
    expect(ended.completedAt).toEqual(expect.any(Number));
    const output = await downloadLines(files, ended.outputFile!);
    expect(output.map((l) => l.custom_id)).toEqual(chatLines(100).map((l) => l.custom_id));
  });

  it("stops within a chunk, keeping the requests that had started", async () => {
    const job = await aQueuedJob(tenant, chatLines(100));
    const real = OfflineProvider.prototype.chat;
    let calls = 0;
    vi.spyOn(OfflineProvider.prototype, "chat").mockImplementation(async function (this: OfflineProvider, ...args) {
      calls += 1;
      if (calls === 20) await batchStore.transition(job.workspace, job.id, "CANCELLATION_REQUESTED");
      return real.apply(this, args);
    });

    const { job: ended } = await runJob(job, { chunk: { statusCheckMs: 0 } });

    expect(ended.status).toBe("CANCELLED");
    expect(ended.completedRequests).toBeGreaterThanOrEqual(20);
    expect(ended.completedRequests).toBeLessThanOrEqual(20 + engine.REQUEST_CONCURRENCY);
    expect(calls).toBe(ended.completedRequests);
    const output = await downloadLines(files, ended.outputFile!);
    expect(output.map((l) => l.custom_id)).toEqual(chatLines(ended.completedRequests).map((l) => l.custom_id));
  });

  it("ends a job cancelled before it started CANCELLED without running anything", async () => {
    const chat = vi.spyOn(OfflineProvider.prototype, "chat");
    const job = await aQueuedJob(tenant, chatLines(5));
    await batchStore.transition(job.workspace, job.id, "CANCELLATION_REQUESTED");

    const { chunks, job: ended } = await runJob(job);

    expect(chunks).toEqual([]);
    expect(chat).not.toHaveBeenCalled();
    expect(ended).toMatchObject({ status: "CANCELLED", startedAt: null, totalRequests: 0, outputFile: null, errorFile: null });
  });
});

describe("timeout", () => {
  it("ends a job whose deadline has passed TIMEOUT_EXCEEDED without calling the model", async () => {
    const chat = vi.spyOn(OfflineProvider.prototype, "chat");
    const createdAt = Math.floor(Date.now() / 1000) - 2 * 3600;
    const job = await aQueuedJob(tenant, chatLines(3), { createdAt, timeoutHours: 1, deadline: createdAt + 3600 });

    const { job: ended } = await runJob(job);

    expect(chat).not.toHaveBeenCalled();
    expect(ended).toMatchObject({ status: "TIMEOUT_EXCEEDED", totalRequests: 3, completedRequests: 0, outputFile: null });
    expect(ended.completedAt).toEqual(expect.any(Number));
  });

  it("keeps what ran before the deadline passed", async () => {
    const job = await aQueuedJob(tenant, chatLines(150));

    const { job: ended } = await runJob(job, {
      beforeChunk: async (index) => {
        if (index === 1) await batchStore.setFields(job.workspace, job.id, { deadline: Math.floor(Date.now() / 1000) - 1 });
      },
    });

    expect(ended).toMatchObject({ status: "TIMEOUT_EXCEEDED", totalRequests: 150, completedRequests: 100 });
    expect(await downloadLines(files, ended.outputFile!)).toHaveLength(100);
  });

  it("is SUCCESS when every request finished, even if the deadline passed at the end", async () => {
    const job = await aQueuedJob(tenant, chatLines(2));
    const started = await engine.start({ workspace: job.workspace, jobId: job.id });
    for (const chunk of await manifestOf(started)) await engine.runChunk({ job: started, chunk });
    await batchStore.setFields(job.workspace, job.id, { deadline: Math.floor(Date.now() / 1000) - 1 });

    expect(await engine.finish(started)).toMatchObject({ status: "SUCCESS" });
  });
});

describe("a job that cannot run", () => {
  it("ends FAILED with the reason and no internals when a task hit an internal error", async () => {
    const job = await aQueuedJob(tenant, chatLines(2));
    await engine.start({ workspace: job.workspace, jobId: job.id });
    const internal = new TypeError("Cannot read properties of undefined (reading 'choices')");

    await engine.recordFailure(caught(job.id, internal));

    const ended = await jobNow(job);
    expect(ended.status).toBe("FAILED");
    expect(ended.errors).toEqual([{ message: "The batch job could not run because of an internal error", count: 1 }]);
    expect(ended.completedAt).toEqual(expect.any(Number));
    expect(await engineObjects(job.id)).toEqual([]);
  });

  it("says which input file is gone when Start cannot read it", async () => {
    const input = await files.uploaded({ filename: "requests.jsonl", purpose: "batch", content: toJsonl(chatLines(2)) });
    const job = await aQueuedJob(tenant, null, { inputFiles: [input.id] });
    expect((await files.remove(input.id)).status).toBe(200);

    const error = await engine.start({ workspace: job.workspace, jobId: job.id }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.name).toBe("NotFound");
    await engine.recordFailure(caught(job.id, error!));

    expect((await jobNow(job)).errors).toEqual([{ message: `No file with id '${input.id}' exists in this workspace`, count: 1 }]);
  });

  it("names the bad line of an input that cannot be read, and leaves no chunk behind", async () => {
    const job = await aQueuedJob(tenant, null, { inlineKey: `workspaces/${tenant.caller.workspace}/batch/bad-input/inline.jsonl` });
    await fileBlobs.put(job.inlineKey!, Buffer.from(`${toJsonl(chatLines(150))}{not json\n`), "application/jsonl");

    const error = await engine.start({ workspace: job.workspace, jobId: job.id }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.name).toBe("BatchInputError");
    await engine.recordFailure(caught(job.id, error!));

    const ended = await jobNow(job);
    expect(ended.status).toBe("FAILED");
    expect(ended.errors[0]!.message).toMatch(/^requests\[150\] is not valid JSON/);
    expect(await engineObjects(job.id)).toEqual([]);
  });

  it("does not overwrite a job that is over already", async () => {
    const job = await aQueuedJob(tenant, chatLines(1));
    await runJob(job);

    await engine.recordFailure(caught(job.id, new Error("late")));

    expect((await jobNow(job)).status).toBe("SUCCESS");
  });
});

describe("a chunk that Step Functions runs again", () => {
  it("counts each request once when it ran to the end before", async () => {
    const job = await aQueuedJob(tenant, chatLines(100));
    const started = await engine.start({ workspace: job.workspace, jobId: job.id });
    const [chunk] = await manifestOf(started);

    await engine.runChunk({ job: started, chunk: chunk! });
    await engine.runChunk({ job: started, chunk: chunk! });
    await engine.finish(started);

    const ended = await jobNow(job);
    expect(ended).toMatchObject({ status: "SUCCESS", completedRequests: 100, succeededRequests: 100 });
    expect(await downloadLines(files, ended.outputFile!)).toHaveLength(100);
  });

  it("resumes after what the failed run saved, counting every request once", async () => {
    const job = await aQueuedJob(tenant, chatLines(100));
    const started = await engine.start({ workspace: job.workspace, jobId: job.id });
    const [chunk] = await manifestOf(started);
    const chat = vi.spyOn(OfflineProvider.prototype, "chat");
    const advance = batchProgressStore.advance.bind(batchProgressStore);
    let advances = 0;
    // The run dies between saving its second checkpoint and counting it, as a Lambda that is cut off would.
    // Only the second is sure to happen: a slow first save lets the rest of the chunk finish meanwhile, and
    // the end of the chunk saves once more.
    const spy = vi.spyOn(batchProgressStore, "advance").mockImplementation(async (...args) => {
      advances += 1;
      if (advances === 2) throw new Error("cut off");
      return advance(...args);
    });

    await expect(engine.runChunk({ job: started, chunk: chunk! })).rejects.toThrow("cut off");
    const firstRun = chat.mock.calls.length;
    expect((await jobNow(job)).completedRequests).toBeGreaterThan(0);
    spy.mockRestore();

    await engine.runChunk({ job: started, chunk: chunk! });
    await engine.finish(started);

    const ended = await jobNow(job);
    expect(ended).toMatchObject({ completedRequests: 100, succeededRequests: 100, failedRequests: 0 });
    expect(chat.mock.calls.length - firstRun).toBeLessThan(100);
    const output = await downloadLines(files, ended.outputFile!);
    expect(output.map((l) => l.custom_id)).toEqual(chatLines(100).map((l) => l.custom_id));
  });

  it("writes the same result files when Finish runs again", async () => {
    const job = await aQueuedJob(tenant, chatLines(3));
    const { started, job: ended } = await runJob(job);

    expect(await engine.finish(started)).toMatchObject({ status: "SUCCESS" });

    const again = await jobNow(job);
    expect(again.outputFile).toBe(ended.outputFile);
    const list = await files.list({ purpose: "batch", sample_type: "batch_result" });
    expect(list.body.data.map((f: { id: string }) => f.id)).toEqual([ended.outputFile]);
  });
});

describe("large results", () => {
  it("uploads the output in parts when it is bigger than one part", async () => {
    const job = await aQueuedJob(tenant, chatLines(30));

    const { job: ended } = await runJob(job, { finish: { partBytes: 4096 } });

    const output = await downloadLines(files, ended.outputFile!);
    expect(output.map((l) => l.custom_id)).toEqual(chatLines(30).map((l) => l.custom_id));
    const record = (await files.retrieve(ended.outputFile!)).body;
    expect(record.num_lines).toBe(30);
    expect(record.bytes).toBeGreaterThan(3 * 4096);
  });
});
