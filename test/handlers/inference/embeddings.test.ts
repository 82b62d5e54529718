import { beforeEach, describe, expect, it } from "vitest";
import { handler } from "../../../functions/inference/embeddings.js";
import { hashEmbedding } from "../../../shared/inference/feature-hashing.js";
import { countTokens } from "../../../shared/inference/tokenizer.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import {
  aCaller,
  aFineTunedModelEntry,
  aJsonEvent,
  aModelEntry,
  aModelItem,
  invoke,
  serveModelsTable,
  usageRecordsWritten,
  usageCallerOf,
} from "../../support/builders.js";
import { aPlatformError } from "../../support/errors.js";

const dynamo = mockDynamo({ resolves: {} });
const caller = aCaller();

const embedModel = aModelEntry({
  id: "mistral-embed",
  endpoints: ["embeddings"],
  upstream: "offline-hash-embed",
  tokenizer: "v1",
  maxContextLength: 8192,
  dimensions: [1024, 512, 256],
});
const small = aModelEntry({ id: "mistral-small-latest", endpoints: ["chat"] });
const shortInput = aModelEntry({ id: "short-embed", endpoints: ["embeddings"], tokenizer: "v1", maxContextLength: 5, dimensions: null });
const archived = aFineTunedModelEntry({ workspace: caller.workspace, root: "mistral-embed", endpoints: ["embeddings"], archived: true });

beforeEach(() => {
  serveModelsTable(dynamo, [aModelItem(embedModel), aModelItem(small), aModelItem(shortInput), aModelItem(archived)]);
});

const embeddings = (body: Record<string, unknown>, who: ReturnType<typeof aCaller> | null = caller) =>
  aJsonEvent(body, { path: "/v1/embeddings", resource: "/v1/embeddings", caller: who });
const embed = (extra: Record<string, unknown> = {}) => ({ model: "mistral-embed", input: ["The cat sat on the mat.", "Stock markets fell today."], ...extra });

const usageRecords = () => usageRecordsWritten(dynamo);
const float32 = (vector: number[]) => Array.from(new Float32Array(vector));

describe("POST /v1/embeddings", () => {
  it("answers 200 JSON with one embedding per input, in order", async () => {
    const event = embeddings(embed());

    const response = await invoke(handler, event);

    expect(response.statusCode).toBe(200);
    expect(response.headers?.["content-type"]).toBe("application/json");
    expect(response.headers?.["x-request-id"]).toBe(event.requestContext.requestId);
    expect(response.json).toMatchObject({ object: "list", model: "mistral-embed" });
    expect(response.json.id).toMatch(/^embd-[0-9a-f]{32}$/);
    expect(response.json.data.map((d: { object: string; index: number }) => [d.object, d.index])).toStrictEqual([
      ["embedding", 0],
      ["embedding", 1],
    ]);
  });

  it("says which backend answered in x-inference-backend", async () => {
    const response = await invoke(handler, embeddings(embed()));

    expect(response.headers?.["x-inference-backend"]).toBe("offline");
  });

  it("answers the feature-hashing vector of each input, 1024 dimensions by default", async () => {
    const response = await invoke(handler, embeddings(embed()));

    expect(response.json.data[0].embedding).toStrictEqual(hashEmbedding("The cat sat on the mat.", 1024));
    expect(response.json.data[1].embedding).toStrictEqual(hashEmbedding("Stock markets fell today.", 1024));
  });

  it("takes a single string as one input", async () => {
    const response = await invoke(handler, embeddings(embed({ input: "Just one" })));

    expect(response.json.data).toHaveLength(1);
    expect(response.json.data[0].embedding).toStrictEqual(hashEmbedding("Just one", 1024));
  });

  it("keeps the order of many inputs across provider batches", async () => {
    const inputs = Array.from({ length: 70 }, (_, i) => `document number ${i}`);

    const response = await invoke(handler, embeddings(embed({ input: inputs })));

    expect(response.json.data.map((d: { index: number }) => d.index)).toStrictEqual(inputs.map((_, i) => i));
    expect(response.json.data[69].embedding).toStrictEqual(hashEmbedding("document number 69", 1024));
  });

  it("counts the inputs' tokens with the model's tokenizer, and no completion tokens", async () => {
    const response = await invoke(handler, embeddings(embed()));

    const prompt = countTokens("v1", "The cat sat on the mat.") + countTokens("v1", "Stock markets fell today.");
    expect(response.json.usage).toStrictEqual({ prompt_tokens: prompt, completion_tokens: 0, total_tokens: prompt });
  });

  it("writes a usage record of the call", async () => {
    const event = embeddings(embed());

    const response = await invoke(handler, event);

    expect(usageRecords()).toHaveLength(1);
    expect(usageRecords()[0]!.args[0].input.Item).toMatchObject({
      ...usageCallerOf(caller, event),
      model: "mistral-embed",
      route: "POST /v1/embeddings",
      promptTokens: response.json.usage.prompt_tokens,
      completionTokens: 0,
      status: 200,
      backend: "offline",
    });
  });

  it("answers a supported output_dimension", async () => {
    const response = await invoke(handler, embeddings(embed({ output_dimension: 256 })));

    expect(response.json.data[0].embedding).toHaveLength(256);
    expect(response.json.data[0].embedding).toStrictEqual(hashEmbedding("The cat sat on the mat.", 256));
  });

  it("answers 400 for an output_dimension the model does not serve, naming those it does", async () => {
    const response = await invoke(handler, embeddings(embed({ output_dimension: 300 })));

    expect(response.statusCode).toBe(400);
    expect(response.json).toStrictEqual(aPlatformError({ message: "Model 'mistral-embed' cannot return 300 dimensions; it serves 1024, 512, 256", type: "invalid_request_error", param: "output_dimension", code: "unsupported_output_dimension" }));
  });

  it("answers base64 float32 strings that decode back to the float vectors", async () => {
    const floats = await invoke(handler, embeddings(embed()));
    const encoded = await invoke(handler, embeddings(embed({ encoding_format: "base64" })));

    const [first] = encoded.json.data;
    expect(first.embedding).toBeTypeOf("string");
    const bytes = Buffer.from(first.embedding, "base64");
    const decoded = Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4));
    expect(decoded).toStrictEqual(float32(floats.json.data[0].embedding));
  });

  it("answers 400 for an output_dtype other than float", async () => {
    const response = await invoke(handler, embeddings(embed({ output_dtype: "int8" })));

    expect(response.statusCode).toBe(400);
    expect(response.json).toMatchObject({ code: "unsupported_output_dtype", param: "output_dtype" });
  });

  it("answers 400 model_capability_missing for a chat model", async () => {
    const response = await invoke(handler, embeddings(embed({ model: "mistral-small-latest" })));

    expect(response.statusCode).toBe(400);
    expect(response.json).toStrictEqual(aPlatformError({ message: "Model 'mistral-small-latest' does not support embeddings", type: "invalid_request_error", param: "model", code: "model_capability_missing" }));
    expect(usageRecords()).toHaveLength(0);
  });

  it("answers 400 for an archived model", async () => {
    const response = await invoke(handler, embeddings(embed({ model: archived.id })));

    expect(response.statusCode).toBe(400);
    expect(response.json.code).toBe("model_archived");
  });

  it("answers 400 input_too_long naming the input over the model's context", async () => {
    const long = "one two three four five six seven eight nine ten";

    const response = await invoke(handler, embeddings(embed({ model: "short-embed", input: ["ok", long] })));

    expect(response.statusCode).toBe(400);
    expect(response.json).toMatchObject({
      code: "input_too_long",
      param: "input",
      message: `input[1] is ${countTokens("v1", long)} tokens, over the 5-token limit of 'short-embed'`,
    });
  });

  it("answers 400 invalid_model naming the model for an unknown model", async () => {
    const response = await invoke(handler, embeddings(embed({ model: "no-such-embed" })));

    expect(response.statusCode).toBe(400);
    expect(response.json).toMatchObject({ code: "invalid_model", param: "model", message: "Invalid model: no model 'no-such-embed' exists in this workspace" });
  });

  it("answers 422 for an empty input string", async () => {
    const response = await invoke(handler, embeddings(embed({ input: "" })));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0].loc).toStrictEqual(["body", "input"]);
  });

  it("answers 422 for an empty input list", async () => {
    const response = await invoke(handler, embeddings(embed({ input: [] })));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0].loc).toStrictEqual(["body", "input"]);
  });

  it("answers 422 for more than 512 inputs", async () => {
    const response = await invoke(handler, embeddings(embed({ input: Array.from({ length: 513 }, (_, i) => `text ${i}`) })));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0].loc).toStrictEqual(["body", "input"]);
  });

  it("takes exactly 512 inputs", async () => {
    const response = await invoke(handler, embeddings(embed({ input: Array.from({ length: 512 }, (_, i) => `text ${i}`) })));

    expect(response.statusCode).toBe(200);
    expect(response.json.data).toHaveLength(512);
  });

  it("answers 422 extra_forbidden for an unknown body field", async () => {
    const response = await invoke(handler, embeddings(embed({ dimensions: 256 })));

    expect(response.statusCode).toBe(422);
    expect(response.json).toStrictEqual({ detail: [{ loc: ["body", "dimensions"], msg: "Extra inputs are not permitted", type: "extra_forbidden" }] });
  });

  it("answers 401 without the authorizer context", async () => {
    const response = await invoke(handler, embeddings(embed(), null));

    expect(response.statusCode).toBe(401);
    expect(dynamo.calls()).toHaveLength(0);
  });
});

describe("POST /v1/embeddings: Server-Timing (decision 0045)", () => {
  it("tells the platform's time before and after the upstream, and the upstream's", async () => {
    const response = await invoke(handler, embeddings(embed()));

    expect(response.statusCode).toBe(200);
    expect(String(response.headers?.["server-timing"])).toMatch(/^platform-before;dur=\d+\.\d{2};desc="[^"]+", upstream;dur=\d+\.\d{2}, platform-after;dur=\d+\.\d{2};desc="[^"]+"$/);
  });
});
