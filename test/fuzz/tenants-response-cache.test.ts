/**
 * The tenant matrix's response-cache cases (docs/routing.md, "Response cache"; decision 0055): answers are kept under
 * the workspace, so the byte-identical call from another workspace, of the owner's organization or of another one,
 * is a miss answered upstream and never the owner's kept answer, while the owner calling again gets a hit. Chat and
 * FIM, opted in by header and by the workspace's setting, with the matrix's tenants (test/support/tenant-matrix.ts).
 *
 * A file of its own: the matrix's rows come from the route table, and these need one model id in every tenant's
 * workspace served by a fake upstream that answers each call with a new text, so whose answer a caller got shows.
 */
import { randomUUID } from "node:crypto";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { responseStore } from "../../shared/store/responses.js";
import { useEmbeddedApi } from "../support/api.js";
import { json, useFakeUpstream } from "../support/fake-upstream.js";
import type { FixtureOwner } from "../support/route-fixtures.js";
import { aCachedModel, cacheCalls, cacheCases, cacheOptIns, crossTenantCacheProblem, matrixTenants, type MatrixTenants } from "../support/tenant-matrix.js";

const upstream = useFakeUpstream();
const { api } = useEmbeddedApi({ tenant: "none" });

let tenants: MatrixTenants;
/** Served by the fake upstream, registered under this id in the owner's, the intruder's and the stranger's workspaces. */
let model: string;

beforeAll(async () => {
  tenants = await matrixTenants(api);
  model = await aCachedModel([tenants.owner, tenants.intruder, tenants.stranger]);
});

let answered = 0;
/** The upstream's answer to one call (chat or FIM: Mistral answers both as a chat completion), a text no other call got. */
const aNewAnswer = () =>
  json({ id: "up", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: `upstream answer ${++answered}` }, finish_reason: "stop" }], usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 } });

const across: [string, () => FixtureOwner][] = [
  ["another organization's key", () => tenants.stranger],
  ["the key of another workspace of the organization", () => tenants.intruder],
];

describe.each(cacheCases())("%s", (_, call, optIn) => {
  it.each(across)("%s gets a miss answered upstream, never the owner's kept answer; the owner calling again gets a hit", async (_, intruder) => {
    // The owner's miss and the intruder's; the calls again are hits.
    upstream.reply(aNewAnswer, aNewAnswer);

    expect(await crossTenantCacheProblem(api.url, call(model), optIn, tenants.owner, intruder())).toBeUndefined();
  });
});

describe("with the cache's partition ignored (every workspace's answers kept in one)", () => {
  afterEach(() => vi.restoreAllMocks());

  it.each(across)("the check reports %s getting the owner's kept answer", async (_, intruder) => {
    const one = `every-workspace-${randomUUID()}`;
    const get = responseStore.get.bind(responseStore);
    const put = responseStore.put.bind(responseStore);
    vi.spyOn(responseStore, "get").mockImplementation((_workspace, key, now) => get(one, key, now));
    vi.spyOn(responseStore, "put").mockImplementation((_workspace, key, answer, ttl, now) => put(one, key, answer, ttl, now));
    upstream.reply(aNewAnswer, aNewAnswer);

    const problem = await crossTenantCacheProblem(api.url, cacheCalls.chat(model), cacheOptIns["by header"], tenants.owner, intruder());

    expect(problem).toMatch(/another workspace's key got the owner's kept answer/);
  });
});
