import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import { GetObjectCommand, PutObjectCommand, type GetObjectCommandInput } from "@aws-sdk/client-s3";
import { PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { handler } from "../../../functions/batch/create.js";
import type { FileRecord } from "../../../shared/domain/file-rules.js";
import { agentHeadItem, anAgentHead } from "../../support/agents-table.js";
import { freezeDate, mockDynamo, mockS3 } from "../../support/aws-mocks.js";
import { BATCH_TABLE, batchCalls, serveBatchTables } from "../../support/batch-table.js";
import { aCaller, aFile, aFileItem, aJsonEvent, aModelEntry, aModelItem, invoke } from "../../support/builders.js";

const executions = vi.hoisted(() => ({ startExecution: vi.fn(), stopExecution: vi.fn() }));
vi.mock("../../../shared/engine/executions.js", () => executions);

const dynamo = mockDynamo();
const s3 = mockS3();

const NOW_MS = 1_800_000_000_500;
const NOW = 1_800_000_000;
const ARN = "arn:aws:states:us-east-1:123456789012:execution:batch:job";
const caller = aCaller();

let served: ReturnType<typeof serveBatchTables>;
/** Objects of the files bucket by key. */
let objects: Map<string, string>;

freezeDate(NOW_MS);
beforeEach(() => {
  executions.startExecution.mockReset().mockResolvedValue(ARN);
  executions.stopExecution.mockReset().mockResolvedValue(undefined);
  objects = new Map();
  s3.on(GetObjectCommand).callsFake((input: GetObjectCommandInput) => {
    const text = objects.get(input.Key!);
    if (text === undefined) throw Object.assign(new Error("The specified key does not exist."), { name: "NoSuchKey" });
    // Two chunks, cut mid-line: the reader must join them.
    const cut = Math.floor(text.length / 2);
    return { Body: Readable.from([Buffer.from(text.slice(0, cut)), Buffer.from(text.slice(cut))]) as never };
  });
  s3.on(PutObjectCommand).resolves({});
  served = serveBatchTables(dynamo, { files: [] });
});

const create = (body: unknown, who = caller) => aJsonEvent(body, { path: "/v1/batch/jobs", caller: who });

const line = (customId: string, body: Record<string, unknown> = { messages: [{ role: "user", content: customId }] }) =>
  `${JSON.stringify({ custom_id: customId, body })}\n`;

/** A File of the caller's workspace whose object holds `content`. */
function aStoredFile(content: string, overrides: Partial<FileRecord> = {}): FileRecord {
  const file = aFile({ workspace: caller.workspace, purpose: "batch", sampleType: "batch_request", ...overrides });
  served = serveBatchTables(dynamo, { files: [aFileItem(file)] });
  objects.set(file.objectKey, content);
  return file;
}

/** Several stored files at once (serveBatchTables replaces the tables it serves). */
function storedFiles(...contents: string[]): FileRecord[] {
  const files = contents.map((content) => aFile({ workspace: caller.workspace, purpose: "batch", sampleType: "batch_request" }));
  served = serveBatchTables(dynamo, { files: files.map((f) => aFileItem(f)) });
  files.forEach((file, i) => objects.set(file.objectKey, contents[i]!));
  return files;
}

const inline = (n: number) => Array.from({ length: n }, (_, i) => ({ custom_id: `r${i}`, body: { messages: [{ role: "user", content: `q${i}` }] } }));
const jobPuts = () => batchCalls(dynamo, PutCommand);

describe("POST /v1/batch/jobs", () => {
  it("answers 200 with the job QUEUED, no errors and every counter 0", async () => {
    const event = create({ requests: inline(2), endpoint: "/v1/chat/completions", model: "mistral-small-latest", metadata: { team: "a" } });

    const response = await invoke(handler, event);

    expect(response.statusCode).toBe(200);
    expect(response.headers?.["content-type"]).toBe("application/json");
    expect(response.headers?.["x-request-id"]).toBe(event.requestContext.requestId);
    expect(response.json).toStrictEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      object: "batch",
      input_files: [],
      metadata: { team: "a" },
      endpoint: "/v1/chat/completions",
      model: "mistral-small-latest",
      agent_id: null,
      output_file: null,
      error_file: null,
      errors: [],
      outputs: null,
      status: "QUEUED",
      created_at: NOW,
      total_requests: 0,
      completed_requests: 0,
      succeeded_requests: 0,
      failed_requests: 0,
      started_at: null,
      completed_at: null,
    });
  });

  it("records the job in the caller's workspace with its deadline, then starts its execution and keeps the ARN", async () => {
    const response = await invoke(handler, create({ requests: inline(1), endpoint: "/v1/chat/completions", model: "mistral-small-latest", timeout_hours: 2 }));

    const id = response.json.id;
    expect(jobPuts()).toHaveLength(1);
    expect(jobPuts()[0]).toMatchObject({
      TableName: BATCH_TABLE,
      ConditionExpression: "attribute_not_exists(sk)",
      Item: {
        workspace: caller.workspace,
        sk: `JOB#${id}`,
        organization: caller.organization,
        owner: caller.principal,
        status: "QUEUED",
        createdAt: NOW,
        timeoutHours: 2,
        deadline: NOW + 2 * 3600,
        createdKey: `${String(NOW_MS).padStart(15, "0")}#${id}`,
        activeKey: "ACTIVE",
      },
    });
    expect(executions.startExecution).toHaveBeenCalledExactlyOnceWith("batch", id, { workspace: caller.workspace, jobId: id });
    expect(served.job(caller.workspace, id)).toMatchObject({ executionArn: ARN, status: "QUEUED" });
  });

  it("gives the job 24 hours unless told otherwise", async () => {
    await invoke(handler, create({ requests: inline(1), endpoint: "/v1/chat/completions", model: "mistral-small-latest" }));

    expect(jobPuts()[0]!.Item).toMatchObject({ timeoutHours: 24, deadline: NOW + 24 * 3600 });
  });

  it.each([0, 169, 1.5])("refuses timeout_hours %s with 422", async (hours) => {
    const response = await invoke(handler, create({ requests: inline(1), endpoint: "/v1/chat/completions", model: "mistral-small-latest", timeout_hours: hours }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0].loc).toStrictEqual(["body", "timeout_hours"]);
    expect(jobPuts()).toHaveLength(0);
  });

  it("writes inline requests as JSONL under the job's prefix, an index standing in for a missing custom_id", async () => {
    const requests = [{ custom_id: "first", body: { a: 1 } }, { body: { b: 2 } }];

    const response = await invoke(handler, create({ requests, endpoint: "/v1/chat/completions", model: "mistral-small-latest" }));

    const key = `workspaces/${caller.workspace}/batch/${response.json.id}/inline.jsonl`;
    const puts = s3.commandCalls(PutObjectCommand).map((c) => c.args[0].input);
    expect(puts).toHaveLength(1);
    expect(puts[0]).toMatchObject({ Bucket: "platform-files", Key: key, ContentType: "application/jsonl" });
    expect(Buffer.from(puts[0]!.Body as Buffer).toString("utf8")).toBe('{"custom_id":"first","body":{"a":1}}\n{"custom_id":"1","body":{"b":2}}\n');
    expect(jobPuts()[0]!.Item).toMatchObject({ inlineKey: key, inputFiles: [] });
  });

  it("refuses inline requests whose custom_ids repeat, naming both", async () => {
    const requests = [...inline(3), { custom_id: "r1", body: {} }];

    const response = await invoke(handler, create({ requests, endpoint: "/v1/chat/completions", model: "mistral-small-latest" }));

    expect(response.statusCode).toBe(400);
    expect(response.json).toMatchObject({ type: "invalid_request_error", code: "invalid_batch_input", param: "requests" });
    expect(response.json.message).toContain("requests[3] repeats custom_id 'r1' (first used: requests[1])");
    expect(s3.commandCalls(PutObjectCommand)).toHaveLength(0);
    expect(jobPuts()).toHaveLength(0);
  });

  it("refuses 10,000 inline requests with 422", async () => {
    const response = await invoke(handler, create({ requests: inline(10_000), endpoint: "/v1/chat/completions", model: "mistral-small-latest" }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0]).toMatchObject({ loc: ["body", "requests"], type: "too_long" });
  });

  it("accepts input files of the workspace after reading every line", async () => {
    const [one, two] = storedFiles(line("a") + line("b"), `\n${line("c")}`);

    const response = await invoke(handler, create({ input_files: [one!.id, two!.id], endpoint: "/v1/chat/completions", model: "mistral-small-latest" }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ status: "QUEUED", input_files: [one!.id, two!.id], total_requests: 0 });
    expect(s3.commandCalls(GetObjectCommand).map((c) => c.args[0].input.Key)).toStrictEqual([one!.objectKey, two!.objectKey]);
    expect(jobPuts()[0]!.Item).toMatchObject({ inputFiles: [one!.id, two!.id], inlineKey: null });
  });

  it("refuses a file with a bad line, naming the file and the first bad line's number, and records nothing", async () => {
    const file = aStoredFile(line("a") + line("b") + '{"custom_id": "c", "body": {"oops"}\n' + "also bad\n");

    const response = await invoke(handler, create({ input_files: [file.id], endpoint: "/v1/chat/completions", model: "mistral-small-latest" }));

    expect(response.statusCode).toBe(400);
    expect(response.json).toMatchObject({ object: "error", type: "invalid_request_error", code: "invalid_batch_input", param: "input_files" });
    expect(response.json.message).toMatch(new RegExp(`^Line 3 of file '${file.id}' is not valid JSON`));
    expect(jobPuts()).toHaveLength(0);
    expect(executions.startExecution).not.toHaveBeenCalled();
  });

  it("refuses a line without a body", async () => {
    const file = aStoredFile(line("a") + '{"custom_id": "b"}\n');

    const response = await invoke(handler, create({ input_files: [file.id], endpoint: "/v1/chat/completions", model: "mistral-small-latest" }));

    expect(response.statusCode).toBe(400);
    expect(response.json.message).toContain(`Line 2 of file '${file.id}' has no body`);
  });

  it("refuses custom_ids that repeat across input files", async () => {
    const [one, two] = storedFiles(line("a") + line("b"), line("c") + line("b"));

    const response = await invoke(handler, create({ input_files: [one!.id, two!.id], endpoint: "/v1/chat/completions", model: "mistral-small-latest" }));

    expect(response.statusCode).toBe(400);
    expect(response.json.code).toBe("invalid_batch_input");
    expect(response.json.message).toContain(`Line 2 of file '${two!.id}' repeats custom_id 'b' (first used: Line 2 of file '${one!.id}')`);
  });

  it("refuses the same input file listed twice", async () => {
    const file = aStoredFile(line("a"));

    const response = await invoke(handler, create({ input_files: [file.id, file.id], endpoint: "/v1/chat/completions", model: "mistral-small-latest" }));

    expect(response.statusCode).toBe(400);
    expect(response.json).toMatchObject({ code: "invalid_batch_input", param: "input_files" });
  });

  it("refuses files that hold no request", async () => {
    const file = aStoredFile("\n\n");

    const response = await invoke(handler, create({ input_files: [file.id], endpoint: "/v1/chat/completions", model: "mistral-small-latest" }));

    expect(response.statusCode).toBe(400);
    expect(response.json).toMatchObject({ code: "invalid_batch_input", message: "The input files hold no requests" });
  });

  it("answers 404 for a file of another workspace, as the Files API does", async () => {
    const theirs = aFile({ purpose: "batch" });
    serveBatchTables(dynamo, { files: [aFileItem(theirs)] });
    objects.set(theirs.objectKey, line("a"));

    const response = await invoke(handler, create({ input_files: [theirs.id], endpoint: "/v1/chat/completions", model: "mistral-small-latest" }));

    expect(response.statusCode).toBe(404);
    expect(response.json).toMatchObject({ type: "not_found_error", code: "file_not_found" });
    expect(response.json.message).toContain(theirs.id);
    expect(s3.commandCalls(GetObjectCommand)).toHaveLength(0);
    expect(jobPuts()).toHaveLength(0);
  });

  it("answers 404 for a file that does not exist", async () => {
    const response = await invoke(handler, create({ input_files: [randomUUID()], endpoint: "/v1/chat/completions", model: "mistral-small-latest" }));

    expect(response.statusCode).toBe(404);
    expect(response.json.code).toBe("file_not_found");
  });

  it("refuses a file whose purpose is not batch with 400", async () => {
    const file = aStoredFile(line("a"), { purpose: "fine-tune", sampleType: "instruct" });

    const response = await invoke(handler, create({ input_files: [file.id], endpoint: "/v1/chat/completions", model: "mistral-small-latest" }));

    expect(response.statusCode).toBe(400);
    expect(response.json).toMatchObject({ type: "invalid_request_error", code: "invalid_file_purpose", param: "input_files" });
    expect(response.json.message).toContain("'fine-tune'");
  });

  it.each([
    ["both input_files and requests", { input_files: [randomUUID()], requests: inline(1) }],
    ["neither input_files nor requests", {}],
  ])("refuses %s with 400", async (_, sources) => {
    const response = await invoke(handler, create({ ...sources, endpoint: "/v1/chat/completions", model: "mistral-small-latest" }));

    expect(response.statusCode).toBe(400);
    expect(response.json.code).toBe("invalid_batch_input");
    expect(jobPuts()).toHaveLength(0);
  });

  it.each([
    ["both model and agent_id", { model: "mistral-small-latest", agent_id: randomUUID() }],
    ["neither model nor agent_id", {}],
  ])("refuses %s with 400", async (_, who) => {
    const response = await invoke(handler, create({ requests: inline(1), endpoint: "/v1/chat/completions", ...who }));

    expect(response.statusCode).toBe(400);
    expect(response.json.type).toBe("invalid_request_error");
    expect(jobPuts()).toHaveLength(0);
  });

  it("refuses a model that does not serve the endpoint with 400 naming it", async () => {
    const response = await invoke(handler, create({ requests: inline(1), endpoint: "/v1/embeddings", model: "mistral-small-latest" }));

    expect(response.statusCode).toBe(400);
    expect(response.json).toMatchObject({ code: "model_capability_missing", param: "model" });
    expect(response.json.message).toContain("mistral-small-latest");
    expect(jobPuts()).toHaveLength(0);
  });

  it("accepts a model for each endpoint it serves", async () => {
    const moderation = aModelEntry({ id: "mistral-moderation-latest", endpoints: ["moderations"] });
    const ocr = aModelEntry({ id: "mistral-ocr-latest", endpoints: ["ocr"] });
    served = serveBatchTables(dynamo, { models: [aModelItem(aModelEntry({ id: "codestral-latest", endpoints: ["chat", "fim"] })), aModelItem(moderation), aModelItem(ocr)] });

    const answers = await Promise.all([
      invoke(handler, create({ requests: inline(1), endpoint: "/v1/fim/completions", model: "codestral-latest" })),
      ...(["/v1/moderations", "/v1/chat/moderations", "/v1/classifications", "/v1/chat/classifications"] as const).map((endpoint) =>
        invoke(handler, create({ requests: inline(1), endpoint, model: "mistral-moderation-latest" })),
      ),
      invoke(handler, create({ requests: inline(1), endpoint: "/v1/ocr", model: "mistral-ocr-latest" })),
    ]);

    expect(answers.map((a) => a.statusCode)).toStrictEqual([200, 200, 200, 200, 200, 200]);
  });

  it("refuses an OCR job whose model does not read documents with 400", async () => {
    const response = await invoke(handler, create({ requests: inline(1), endpoint: "/v1/ocr", model: "mistral-small-latest" }));

    expect(response.statusCode).toBe(400);
    expect(response.json).toMatchObject({ code: "model_capability_missing", param: "model" });
    expect(jobPuts()).toHaveLength(0);
  });

  it("refuses an unknown model with 400 naming it", async () => {
    const response = await invoke(handler, create({ requests: inline(1), endpoint: "/v1/chat/completions", model: "no-such-model" }));

    expect(response.statusCode).toBe(400);
    expect(response.json).toMatchObject({ code: "invalid_model", param: "model" });
    expect(response.json.message).toContain("no-such-model");
  });

  it("refuses an endpoint the API does not run with 422", async () => {
    const response = await invoke(handler, create({ requests: inline(1), endpoint: "/v1/audio/speech", model: "mistral-small-latest" }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0].loc).toStrictEqual(["body", "endpoint"]);
  });

  it("refuses unknown fields with 422", async () => {
    const response = await invoke(handler, create({ requests: inline(1), endpoint: "/v1/chat/completions", model: "mistral-small-latest", priority: 1 }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0]).toMatchObject({ loc: ["body", "priority"], type: "extra_forbidden" });
  });

  describe("with an agent", () => {
    const agent = anAgentHead({ workspace: caller.workspace, model: "mistral-small-latest" });
    beforeEach(() => {
      served = serveBatchTables(dynamo, { agents: [agentHeadItem(agent)] });
    });

    it("accepts an agent of the workspace for chat completions", async () => {
      const response = await invoke(handler, create({ requests: inline(1), endpoint: "/v1/chat/completions", agent_id: agent.id }));

      expect(response.statusCode).toBe(200);
      expect(response.json).toMatchObject({ agent_id: agent.id, model: null, status: "QUEUED" });
      expect(jobPuts()[0]!.Item).toMatchObject({ agentId: agent.id, model: null });
    });

    it("answers 404 for an agent that is not the workspace's", async () => {
      const response = await invoke(handler, create({ requests: inline(1), endpoint: "/v1/chat/completions", agent_id: randomUUID() }));

      expect(response.statusCode).toBe(404);
      expect(response.json.code).toBe("agent_not_found");
    });

    it("refuses an agent for an endpoint other than chat completions", async () => {
      const response = await invoke(handler, create({ requests: inline(1), endpoint: "/v1/embeddings", agent_id: agent.id }));

      expect(response.statusCode).toBe(400);
      expect(response.json).toMatchObject({ code: "agent_endpoint_unsupported", param: "endpoint" });
    });
  });

  it("answers the job FAILED, saying why, when its execution cannot start", async () => {
    executions.startExecution.mockRejectedValue(Object.assign(new Error("arn:aws:states:secret-internal"), { name: "StateMachineDoesNotExist" }));

    const response = await invoke(handler, create({ requests: inline(1), endpoint: "/v1/chat/completions", model: "mistral-small-latest" }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ status: "FAILED", errors: [{ message: "The job could not be started; create it again", count: 1 }], completed_at: NOW });
    expect(response.body).not.toContain("secret-internal");
    expect(served.job(caller.workspace, response.json.id)).toMatchObject({ status: "FAILED", executionArn: null });
    expect(batchCalls(dynamo, UpdateCommand)[0]!.ConditionExpression).toContain("#status IN");
  });

  it("answers 500 without details when the job cannot be recorded", async () => {
    dynamo.on(PutCommand).rejects(new Error("ProvisionedThroughputExceeded: internal detail"));

    const response = await invoke(handler, create({ requests: inline(1), endpoint: "/v1/chat/completions", model: "mistral-small-latest" }));

    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain("internal detail");
    expect(executions.startExecution).not.toHaveBeenCalled();
  });
});
