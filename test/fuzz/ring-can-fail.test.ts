/**
 * The ring can fail: with one validation removed from a handler, or one tenant condition disabled in a
 * store, its property checks report the request that shows it. (If these pass against a healthy tree,
 * they prove nothing; they run against deliberately broken ones.)
 */
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import * as z from "zod";
import { routes } from "../../functions/routes.js";
import { Conflict } from "../../shared/domain/errors.js";
import { routeKey } from "../../shared/http/policy.js";
import { tokenizerFor } from "../../shared/inference/tokenizer.js";
import { fileStore } from "../../shared/store/files.js";
import { adversarialRun } from "../support/adversarial-text.js";
import { useEmbeddedApi } from "../support/api.js";
import { specOf } from "../support/envelopes.js";
import { checkRequest, FuzzRequest, requestBudgetMs, type RingTarget } from "../support/fuzz-ring.js";
import { legacyEncode } from "../support/legacy-tokenizer.js";
import { newOwner, type FixtureOwner } from "../support/route-fixtures.js";
import { crossTenantProblem } from "../support/tenant-matrix.js";
import { newTenant } from "../support/tenant.js";

const { api } = useEmbeddedApi({ tenant: "none" });
const row = (key: string) => routes.find((r) => routeKey(r) === key)!;

let owner: FixtureOwner;
let intruder: FixtureOwner;
beforeAll(async () => {
  owner = newOwner(api, await newTenant());
  intruder = newOwner(api, await newTenant());
});
afterEach(() => vi.restoreAllMocks());

describe("with one validation removed", () => {
  it("the fuzz ring's property check reports the request that reaches the service unchecked", async () => {
    const start = row("POST /v1/files/uploads");
    const spec = (await specOf(start)) as { body?: z.ZodType };
    const declared = spec.body;
    spec.body = z.any();
    try {
      const target: RingTarget = { api, owner, hints: {} };
      const request = new FuzzRequest("valid body", "/v1/files/uploads", [], "application/json", JSON.stringify({ filename: "a.jsonl", bytes: 1, mimetype: "Āa" }));

      const problem = await checkRequest(start, target, request);

      expect(problem).toMatch(/answered 5\d\d/);
    } finally {
      spec.body = declared;
    }
  });

  it("and with the validation in place the same request passes", async () => {
    const target: RingTarget = { api, owner, hints: {} };
    const request = new FuzzRequest("valid body", "/v1/files/uploads", [], "application/json", JSON.stringify({ filename: "a.jsonl", bytes: 1, mimetype: "Āa" }));

    expect(await checkRequest(row("POST /v1/files/uploads"), target, request)).toBeUndefined();
  });
});

describe("with one tenant condition disabled", () => {
  it("the tenant matrix reports another workspace's key reading the owner's file", async () => {
    const get = fileStore.get.bind(fileStore);
    // The store reads the owner's partition whoever asks: the condition "by (workspace, id)" is gone.
    vi.spyOn(fileStore, "get").mockImplementation((_workspace, id) => get(owner.tenant.caller.workspace, id));

    const problem = await crossTenantProblem(api.url, row("GET /v1/files/{file_id}"), owner, intruder);

    expect(problem).toMatch(/got 200 \(expected 404\)/);
  });

  it("and with the condition in place the matrix passes", async () => {
    expect(await crossTenantProblem(api.url, row("GET /v1/files/{file_id}"), owner, intruder)).toBeUndefined();
  });
});

describe("with a refused write that leaves its record behind", () => {
  it("the fuzz ring reports the change the refusal made to the workspace", async () => {
    const putUpload = fileStore.putUpload.bind(fileStore);
    // The pending upload is written, then the request is refused: a partial write left behind.
    vi.spyOn(fileStore, "putUpload").mockImplementation(async (upload) => {
      await putUpload(upload);
      throw new Conflict("refused after the write");
    });
    const request = new FuzzRequest("valid body", "/v1/files/uploads", [], "application/json", JSON.stringify({ filename: "a.jsonl", bytes: 1 }));

    // A workspace of its own: the other tests' fixtures change the shared owner's between the ring's requests.
    const problem = await checkRequest(row("POST /v1/files/uploads"), { api, owner: newOwner(api, await newTenant()), hints: {} }, request);

    expect(problem).toBe("a refused write (409) changed the workspace: files");
  });
});

describe("with a row that documents another success status than it answers", () => {
  it("the fuzz ring reports the answer the OpenAPI document does not describe", async () => {
    const start = row("POST /v1/files/uploads");
    const target: RingTarget = { api, owner, hints: {} };
    const request = new FuzzRequest("valid body", "/v1/files/uploads", [], "application/json", JSON.stringify({ filename: "a.jsonl", bytes: 1 }));

    const problem = await checkRequest({ ...start, doc: { status: 201 } }, target, request);

    expect(problem).toBe("answered 200; the OpenAPI document says 201 (the row's doc.status)");
  });
});

describe("with the package's Tekken encoder, quadratic in a pre-token's length (issue 24.0)", () => {
  // 6 KB of one letter: about 2 s of the old encoder on a quiet core, twice (the prompt, then the offline
  // echo's completion), far under the byte bound.
  const request = () =>
    new FuzzRequest("adversarial text: 6000 B run of a", "/v1/chat/completions", [], "application/json", JSON.stringify({ model: "ministral-8b-latest", messages: [{ role: "user", content: adversarialRun("a", 6_000) }] }));

  it("the fuzz ring reports the request over its time budget", { timeout: 300_000 }, async () => {
    legacyEncode("tekken", "load the vocabulary before the clock starts");
    vi.spyOn(tokenizerFor("tekken"), "encode").mockImplementation((text, bos = true, eos = false) => [...(bos ? [1] : []), ...legacyEncode("tekken", text), ...(eos ? [2] : [])]);
    const target: RingTarget = { api, owner, hints: {}, budgetMs: 2_000 };
    // The route's cold start first: the ring does not budget a route's first request.
    await checkRequest(row("POST /v1/chat/completions"), target, new FuzzRequest("warm-up", "/v1/chat/completions", [], "application/json", JSON.stringify({ model: "ministral-8b-latest", messages: [{ role: "user", content: "hi" }] })));

    const problem = await checkRequest(row("POST /v1/chat/completions"), target, request());

    expect(problem).toMatch(/over the ring's 2000 ms budget per request/);
  });

  it("and with the rank-bucket encoder the same request keeps the ring's default budget", async () => {
    tokenizerFor("tekken").encode("load the vocabulary before the clock starts");
    const target: RingTarget = { api, owner, hints: {} };

    expect(requestBudgetMs()).toBe(10_000);
    expect(await checkRequest(row("POST /v1/chat/completions"), target, request())).toBeUndefined();
  });
});
