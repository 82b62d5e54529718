import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { footprint } from "../../support/footprint.js";
import { aDeploymentBody, aVespaIndex, retrievalClient } from "../../support/retrieval-client.js";
import { newTenant } from "../../support/tenant.js";

const { api, tenant } = useEmbeddedApi();
const rag = retrievalClient(api, tenant);

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const summaries = async () => {
  const reply = await rag.deployments();
  expect(reply.status).toBe(200);
  return reply.body.deployments as any[];
};

describe("GET /v1/rag/deployments", () => {
  it("answers an empty list for a new workspace", async () => {
    const reply = await rag.deployments();
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toBe("application/json");
    expect(reply.body).toStrictEqual({ deployments: [] });
  });

  it("lists every registered deployment as a summary, by name", async () => {
    const b = await rag.registered(aDeploymentBody("b-index", { status: "online", indexes: [aVespaIndex("docs"), aVespaIndex("faq")] }));
    const a = await rag.registered(aDeploymentBody("a-index"));

    const listed = await summaries();

    expect(listed.map((d) => d.id)).toEqual([a, b]);
    expect(listed[1]).toStrictEqual({
      id: b,
      name: "b-index",
      creator_id: tenant.caller.principal,
      document_count: 0,
      status: "online",
      created_at: expect.stringMatching(ISO),
      modified_at: expect.stringMatching(ISO),
      deployment: {
        type: "vespa",
        indexes: [
          { id: expect.stringMatching(UUID), name: "docs", document_count: null },
          { id: expect.stringMatching(UUID), name: "faq", document_count: null },
        ],
      },
    });
    expect(listed[0].status).toBe("offline");
  });

  it("never shows another workspace's deployments", async () => {
    await rag.registered(aDeploymentBody("mine"));
    const stranger = retrievalClient(api, await newTenant({ organization: tenant.caller.organization }));
    expect((await stranger.deployments()).body).toStrictEqual({ deployments: [] });
  });
});

describe("PUT /v1/rag/deployments", () => {
  it("registers a deployment and answers its id", async () => {
    const reply = await rag.register(aDeploymentBody("search"));
    expect(reply.status).toBe(200);
    expect(reply.body).toStrictEqual({ id: expect.stringMatching(UUID) });
  });

  it("re-registering a name keeps its id, creation time and index ids, and replaces the definition and status", async () => {
    const id = await rag.registered(aDeploymentBody("search", { status: "online", indexes: [aVespaIndex("docs"), aVespaIndex("old")] }));
    const [before] = await summaries();

    const again = await rag.register(aDeploymentBody("search", { indexes: [aVespaIndex("docs"), aVespaIndex("new")] }));

    expect(again.body).toStrictEqual({ id });
    const [after, ...others] = await summaries();
    expect(others).toEqual([]);
    expect(after.id).toBe(id);
    expect(after.created_at).toBe(before.created_at);
    expect(after.modified_at >= before.modified_at).toBe(true);
    expect(after.status).toBe("offline");
    expect(after.deployment.indexes.map((i: any) => i.name)).toEqual(["docs", "new"]);
    expect(after.deployment.indexes[0].id).toBe(before.deployment.indexes[0].id);
  });

  it("gives racing first registrations of one name one id", async () => {
    const ids = await Promise.all(Array.from({ length: 8 }, () => rag.registered(aDeploymentBody("raced"))));
    expect(new Set(ids).size).toBe(1);
    expect((await summaries()).map((d) => d.id)).toEqual([ids[0]]);
  });

  it("gives the same name in another workspace its own id", async () => {
    const mine = await rag.registered(aDeploymentBody("shared-name"));
    const theirs = await retrievalClient(api, await newTenant()).registered(aDeploymentBody("shared-name"));
    expect(theirs).not.toBe(mine);
  });

  it("answers 422 detail for a missing deployment, an unknown field type, duplicate index names", async () => {
    const missing = await rag.register({ name: "x" });
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toContainEqual({ loc: ["body", "deployment"], msg: "Field required", type: "missing" });

    const badType = await rag.register(aDeploymentBody("x", { indexes: [aVespaIndex("docs", { fields: [{ ...aVespaIndex().fields[0], type: "vector" }] })] }));
    expect(badType.status).toBe(422);
    expect(badType.body.detail[0].loc).toEqual(["body", "deployment", "indexes", 0, "fields", 0, "type"]);

    const twice = await rag.register(aDeploymentBody("x", { indexes: [aVespaIndex("docs"), aVespaIndex("docs")] }));
    expect(twice.status).toBe(422);
    expect(twice.body.detail[0]).toMatchObject({ loc: ["body", "deployment", "indexes", 1, "name"], msg: "Index 'docs' is listed twice" });
    expect(await summaries()).toEqual([]);
  });
});

describe("DELETE /v1/rag/deployments/{deployment_id}", () => {
  it("removes the deployment and answers 200 null; a new registration of the name gets a new id", async () => {
    const id = await rag.registered(aDeploymentBody("gone"));

    const reply = await rag.unregister(id);

    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toBe("application/json");
    expect(reply.body).toBeNull();
    expect(await summaries()).toEqual([]);
    expect((await rag.unregister(id)).status).toBe(404);
    expect(await rag.registered(aDeploymentBody("gone"))).not.toBe(id);
  });

  it("answers 404 for an unknown id and 422 for an id that is not a UUID", async () => {
    const unknown = await rag.unregister(randomUUID());
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ object: "error", type: "not_found_error", code: "deployment_not_found" });
    const malformed = await rag.unregister("not-a-uuid");
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail[0].loc).toEqual(["path", "deployment_id"]);
  });

  it("answers 404 to another workspace's key and leaves the deployment alone", async () => {
    const id = await rag.registered(aDeploymentBody("kept"));
    const before = await footprint(tenant.caller);

    const stranger = retrievalClient(api, await newTenant({ organization: tenant.caller.organization }));
    expect((await stranger.unregister(id)).status).toBe(404);
    expect((await stranger.metrics(id, { status: "offline", clear_metrics: true })).status).toBe(404);

    expect(await footprint(tenant.caller)).toStrictEqual(before);
  });
});

describe("PUT /v1/rag/deployments/{deployment_id}/metrics", () => {
  const online = (documents: number, perIndex: Record<string, number>) => ({
    status: "online",
    document_count: documents,
    index_metrics: Object.entries(perIndex).map(([name, document_count]) => ({ name, document_count })),
  });

  it("sets the status online and the counts, answering 200 null", async () => {
    const id = await rag.registered(aDeploymentBody("m", { indexes: [aVespaIndex("docs"), aVespaIndex("faq")] }));

    const reply = await rag.metrics(id, online(30, { docs: 20, faq: 10 }));

    expect(reply.status).toBe(200);
    expect(reply.body).toBeNull();
    const [summary] = await summaries();
    expect(summary).toMatchObject({ status: "online", document_count: 30 });
    expect(summary.deployment.indexes.map((i: any) => [i.name, i.document_count])).toEqual([["docs", 20], ["faq", 10]]);
  });

  it("replaces the counts: an index left out has none", async () => {
    const id = await rag.registered(aDeploymentBody("m", { indexes: [aVespaIndex("docs"), aVespaIndex("faq")] }));
    await rag.metrics(id, online(30, { docs: 20, faq: 10 }));

    await rag.metrics(id, online(5, { docs: 5 }));

    const [summary] = await summaries();
    expect(summary.document_count).toBe(5);
    expect(summary.deployment.indexes.map((i: any) => i.document_count)).toEqual([5, null]);
  });

  it("goes offline keeping the counts, or clearing them with clear_metrics", async () => {
    const id = await rag.registered(aDeploymentBody("m"));
    await rag.metrics(id, online(7, { docs: 7 }));

    await rag.metrics(id, { status: "offline" });
    expect((await summaries())[0]).toMatchObject({ status: "offline", document_count: 7, deployment: { indexes: [{ document_count: 7 }] } });

    await rag.metrics(id, { status: "offline", clear_metrics: true });
    expect((await summaries())[0]).toMatchObject({ status: "offline", document_count: 0, deployment: { indexes: [{ document_count: null }] } });
  });

  it("keeps the counts of indexes a re-registration keeps", async () => {
    const id = await rag.registered(aDeploymentBody("m", { indexes: [aVespaIndex("docs")] }));
    await rag.metrics(id, online(7, { docs: 7 }));

    await rag.register(aDeploymentBody("m", { indexes: [aVespaIndex("docs"), aVespaIndex("faq")] }));

    const [summary] = await summaries();
    expect(summary.document_count).toBe(7);
    expect(summary.deployment.indexes.map((i: any) => i.document_count)).toEqual([7, null]);
  });

  it("answers 422 naming an index the deployment does not have, and changes nothing", async () => {
    const id = await rag.registered(aDeploymentBody("m"));
    const before = await footprint(tenant.caller);

    const reply = await rag.metrics(id, online(1, { docs: 1, nope: 1 }));

    expect(reply.status).toBe(422);
    expect(reply.body.detail).toStrictEqual([{ loc: ["body", "index_metrics", 1, "name"], msg: "Attempted to update unknown index 'nope'; the deployment's indexes: 'docs'", type: "value_error" }]);
    expect(await footprint(tenant.caller)).toStrictEqual(before);
  });

  it("answers 422 for a body that is neither variant, and 404 for an unknown deployment", async () => {
    const id = await rag.registered(aDeploymentBody("m"));
    expect((await rag.metrics(id, { status: "busy" })).status).toBe(422);
    expect((await rag.metrics(id, { status: "online", document_count: 1 })).status).toBe(422);
    expect((await rag.metrics(id, { status: "online", document_count: -1, index_metrics: [] })).status).toBe(422);
    const unknown = await rag.metrics(randomUUID(), { status: "offline" });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("deployment_not_found");
  });
});
