/**
 * Library search against DynamoDB Local, LanceDB and the offline embeddings (feature hashing: similar texts give near
 * vectors): the nearest chunk first across the caller's libraries, each library searched in its own workspace's index,
 * a library the caller may not read refused with 404 before anything is searched, one shared with the caller's
 * workspace searched where it lives, and the query's embedding counted in usage.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { Caller } from "../../../shared/domain/caller.js";
import { vectorStore } from "../../../shared/engine/vectors/index.js";
import { embed } from "../../../shared/services/inference/embeddings.js";
import type { CallContext } from "../../../shared/services/inference/usage.js";
import * as accesses from "../../../shared/services/libraries/accesses.js";
import { embeddingModel } from "../../../shared/services/libraries/ingestion/vectors.js";
import * as libraries from "../../../shared/services/libraries/libraries.js";
import { searchLibraries } from "../../../shared/services/libraries/search.js";
import { useEmbeddedApi } from "../../support/api.js";
import { usageRecordsOf } from "../../support/inference-client.js";
import { newTenant } from "../../support/tenant.js";

const { tenant } = useEmbeddedApi();
const contextOf = (caller: Caller): CallContext => ({ caller, requestId: randomUUID(), route: "library search" });

const REFUNDS = "Refunds are paid back to the card within fourteen days of the return";
const HOLIDAYS = "The office is closed on public holidays and on the first of May";
const SHIPPING = "Shipping to Canada costs twenty euros per parcel";
const PASSWORDS = "Passwords must be rotated every ninety days by every employee";

/** Writes `texts` as one document's chunks of the index `workspace` keeps for `libraryId`, embedded offline. */
async function indexed(caller: Caller, workspace: string, libraryId: string, documentName: string, texts: string[]): Promise<string> {
  const ctx = contextOf(caller);
  const answer = await embed(ctx, { model: await embeddingModel(ctx), input: texts, output_dtype: "float", encoding_format: "float" });
  if (answer.kind !== "answer") throw new Error("embeddings answered with a stream");
  const vectors = answer.body.data.map((d) => d.embedding as number[]);
  const documentId = randomUUID();
  const chunks = texts.map((text, chunkIndex) => ({ documentId, chunkIndex, text, documentName, mimeType: "text/plain", createdAt: 1_700_000_000, attributes: { page: chunkIndex }, vector: vectors[chunkIndex]! }));
  await (await vectorStore()).upsert(workspace, libraryId, chunks);
  return documentId;
}

async function aLibrary(caller: Caller, name: string, documentName: string, texts: string[]) {
  const library = await libraries.create(caller, { name });
  const documentId = await indexed(caller, caller.workspace, library.id, documentName, texts);
  return { id: library.id, documentId };
}

/** A colleague with a workspace of its own in the test tenant's organization. */
async function aColleague(): Promise<Caller> {
  const { createWorkspace } = await import("../../../shared/services/tenancy/tenants.js");
  const elsewhere = (await createWorkspace(tenant.caller.organization, "elsewhere")).id;
  return (await newTenant({ organization: tenant.caller.organization, workspace: elsewhere, roles: ["workspace_admin"] })).caller;
}

describe("searchLibraries", () => {
  it("answers the chunk nearest the query first, from either library of the workspace, and counts the query's embedding in usage", async () => {
    const policies = await aLibrary(tenant.caller, "Policies", "policies.txt", [HOLIDAYS, REFUNDS]);
    const helpdesk = await aLibrary(tenant.caller, "IT", "it.txt", [SHIPPING, PASSWORDS]);
    const ctx = contextOf(tenant.caller);

    const [refunds, passwords] = [await searchLibraries(ctx, [policies.id, helpdesk.id], "when are refunds paid back to the card"), await searchLibraries(contextOf(tenant.caller), [policies.id, helpdesk.id], "how often must passwords be rotated")];

    expect(refunds[0]).toMatchObject({ libraryId: policies.id, documentId: policies.documentId, chunkIndex: 1, text: REFUNDS, documentName: "policies.txt", attributes: { page: 1 } });
    expect(refunds).toHaveLength(4);
    expect(refunds.map((h) => h.score)).toEqual([...refunds.map((h) => h.score)].sort((a, b) => b - a));
    expect(passwords[0]).toMatchObject({ libraryId: helpdesk.id, text: PASSWORDS });
    expect(await usageRecordsOf(tenant.caller.workspace, ctx.requestId)).toEqual([expect.objectContaining({ model: "mistral-embed", route: "library search", status: 200 })]);
  });

  it("keeps top_k nearest and the chunks a filter lets through", async () => {
    const policies = await aLibrary(tenant.caller, "Policies", "policies.txt", [HOLIDAYS, REFUNDS, SHIPPING]);

    const one = await searchLibraries(contextOf(tenant.caller), [policies.id], "refunds paid to the card", { topK: 1 });
    const filtered = await searchLibraries(contextOf(tenant.caller), [policies.id], "refunds paid to the card", { filter: { op: "ne", field: "chunk_index", value: 1 } });

    expect(one.map((h) => h.text)).toEqual([REFUNDS]);
    expect(filtered.map((h) => h.text)).not.toContain(REFUNDS);
    expect(filtered).toHaveLength(2);
    await expect(searchLibraries(contextOf(tenant.caller), [policies.id], "refunds", { topK: 101 })).rejects.toMatchObject({ status: 400, code: "invalid_top_k" });
  });

  it("refuses with 404, searching nothing, a library of another workspace the caller was not given", async () => {
    const own = await aLibrary(tenant.caller, "Policies", "policies.txt", [HOLIDAYS]);
    const colleague = await aColleague();
    const theirs = await aLibrary(colleague, "Finance", "finance.txt", [REFUNDS]);
    const ctx = contextOf(tenant.caller);

    await expect(searchLibraries(ctx, [own.id, theirs.id], REFUNDS)).rejects.toMatchObject({ status: 404, code: "library_not_found", message: expect.stringContaining(theirs.id) });
    await expect(searchLibraries(ctx, [randomUUID()], REFUNDS)).rejects.toMatchObject({ status: 404 });
    // Refused before the query was embedded.
    expect(await usageRecordsOf(tenant.caller.workspace, ctx.requestId, 300)).toEqual([]);
  });

  it("never reads chunks another workspace's index keeps under the caller's library id", async () => {
    const own = await aLibrary(tenant.caller, "Policies", "policies.txt", [HOLIDAYS]);
    const colleague = await aColleague();
    await indexed(colleague, colleague.workspace, own.id, "planted.txt", [REFUNDS]);

    const hits = await searchLibraries(contextOf(tenant.caller), [own.id], REFUNDS);

    expect(hits.map((h) => h.text)).toEqual([HOLIDAYS]);
  });

  it("searches a library shared with the caller's workspace in the index of the workspace that owns it", async () => {
    const own = await aLibrary(tenant.caller, "Policies", "policies.txt", [HOLIDAYS]);
    const colleague = await aColleague();
    const shared = await aLibrary(colleague, "Finance", "finance.txt", [REFUNDS, SHIPPING]);
    await expect(searchLibraries(contextOf(tenant.caller), [shared.id], REFUNDS)).rejects.toMatchObject({ status: 404 });

    await accesses.share(colleague, shared.id, { level: "Viewer", share_with_type: "Workspace", share_with_uuid: tenant.caller.workspace });
    const hits = await searchLibraries(contextOf(tenant.caller), [own.id, shared.id], "refunds paid back to the card");

    expect(hits[0]).toMatchObject({ libraryId: shared.id, documentId: shared.documentId, text: REFUNDS });
    expect(new Set(hits.map((h) => h.libraryId))).toEqual(new Set([own.id, shared.id]));
  });
});
