/**
 * Retrieval (beta) driven by the official, unmodified SDK (`client.beta.rag.*`) against the local server:
 * every call's answer parses into the SDK's types (dates as Date, snake_case remapped).
 */
import { Mistral } from "@mistralai/mistralai";
import { HTTPValidationError, SDKError } from "@mistralai/mistralai/models/errors";
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../support/api.js";
import { errorOf, sdkClient } from "../support/sdk.js";
import { newTenant } from "../support/tenant.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
let client: Mistral;
beforeAll(() => {
  client = sdkClient(api, tenant.key);
});

const field = { name: "text", type: "string", storage: "on_disk", ranking: "text", indexType: "bm25", multidimensional: false } as const;
const registration = (name: string, indexes = ["docs"]) => ({
  name,
  deployment: { type: "vespa" as const, vespaVersion: "8.400.1", queryUrl: "https://vespa.example/search/", indexes: indexes.map((n) => ({ name: n, sd: `schema ${n} {}`, fields: [field], embeddingDimensions: 384 })) },
});

describe("client.beta.rag.searchIndexes: PUT /v1/rag/deployments, GET /v1/rag/deployments", () => {
  it("registers, re-registers under the same id, and lists summaries with Date fields", async () => {
    const { id } = await client.beta.rag.searchIndexes.registerDeployment({ ...registration("sdk-index"), status: "online" });
    const again = await client.beta.rag.searchIndexes.registerDeployment(registration("sdk-index", ["docs", "faq"]));
    expect(again.id).toBe(id);

    const { deployments } = await client.beta.rag.searchIndexes.getDeploymentSummaries();
    const mine = deployments.find((d) => d.id === id)!;
    expect(mine).toMatchObject({ name: "sdk-index", creatorId: tenant.caller.principal, documentCount: 0, status: "offline" });
    expect(mine.createdAt).toBeInstanceOf(Date);
    expect(mine.deployment.indexes.map((i) => [i.name, i.documentCount])).toEqual([["docs", null], ["faq", null]]);
  });

  it("rejects a registration naming one index twice with HTTPValidationError", async () => {
    const error = await errorOf(client.beta.rag.searchIndexes.registerDeployment(registration("sdk-twice", ["docs", "docs"])), HTTPValidationError);
    expect(error.detail?.[0]?.loc).toEqual(["body", "deployment", "indexes", 1, "name"]);
  });
});

describe("client.beta.rag.searchIndexes: PUT /v1/rag/deployments/{deployment_id}/metrics, DELETE /v1/rag/deployments/{deployment_id}", () => {
  it("updates metrics online and offline, and unregisters, each answered with null", async () => {
    const { id } = await client.beta.rag.searchIndexes.registerDeployment(registration("sdk-metrics"));

    const online = await client.beta.rag.searchIndexes.updateIndexMetrics({ deploymentId: id, requestBody: { status: "online", documentCount: 3, indexMetrics: [{ name: "docs", documentCount: 3 }] } });
    expect(online).toBeNull();
    let [summary] = (await client.beta.rag.searchIndexes.getDeploymentSummaries()).deployments.filter((d) => d.id === id);
    expect(summary).toMatchObject({ status: "online", documentCount: 3, deployment: { indexes: [{ documentCount: 3 }] } });

    expect(await client.beta.rag.searchIndexes.updateIndexMetrics({ deploymentId: id, requestBody: { status: "offline", clearMetrics: true } })).toBeNull();
    [summary] = (await client.beta.rag.searchIndexes.getDeploymentSummaries()).deployments.filter((d) => d.id === id);
    expect(summary).toMatchObject({ status: "offline", documentCount: 0 });

    expect(await client.beta.rag.searchIndexes.unregisterDeployment({ deploymentId: id })).toBeNull();
    expect((await client.beta.rag.searchIndexes.getDeploymentSummaries()).deployments.map((d) => d.id)).not.toContain(id);
  });

  it("rejects an unknown deployment with the SDK's error for a 404", async () => {
    const error = await errorOf(client.beta.rag.searchIndexes.unregisterDeployment({ deploymentId: randomUUID() }), SDKError);
    expect(error.statusCode).toBe(404);
  });
});

describe("client.beta.rag.ingestionPipelineConfigurations: PUT /v1/rag/ingestion_pipeline_configurations, GET /v1/rag/ingestion_pipeline_configurations, PUT /v1/rag/ingestion_pipeline_configurations/{id}/run_info", () => {
  it("registers, lists and records runs, parsed into the SDK's configuration", async () => {
    const registered = await client.beta.rag.ingestionPipelineConfigurations.register({ name: "sdk-ingest", pipelineComposition: { parser: "pdf" }, targetIndexes: [{ type: "vespa", name: "docs" }] });
    expect(registered).toMatchObject({ name: "sdk-ingest", authorId: tenant.caller.principal, lastRunTime: null, lastRunChunksCount: 0, totalChunksCount: 0, pipelineComposition: { parser: "pdf" } });
    expect(registered.createdAt).toBeInstanceOf(Date);

    const at = new Date("2025-06-01T12:00:00.000Z");
    const updated = await client.beta.rag.ingestionPipelineConfigurations.updateRunInfo({ id: registered.id, updateRunInfo: { executionTime: at, chunksCount: 25 } });
    expect(updated.lastRunTime).toEqual(at);
    expect(updated).toMatchObject({ lastRunChunksCount: 25, totalChunksCount: 25 });

    const listed = await client.beta.rag.ingestionPipelineConfigurations.list();
    expect(listed.find((p) => p.id === registered.id)).toMatchObject({ totalChunksCount: 25 });
  });

  it("counts two concurrent run reports both", async () => {
    const { id } = await client.beta.rag.ingestionPipelineConfigurations.register({ name: "sdk-concurrent" });
    await Promise.all([
      client.beta.rag.ingestionPipelineConfigurations.updateRunInfo({ id, updateRunInfo: { executionTime: new Date("2025-01-01T00:00:00Z"), chunksCount: 10 } }),
      client.beta.rag.ingestionPipelineConfigurations.updateRunInfo({ id, updateRunInfo: { executionTime: new Date("2025-01-02T00:00:00Z"), chunksCount: 32 } }),
    ]);
    const stored = (await client.beta.rag.ingestionPipelineConfigurations.list()).find((p) => p.id === id)!;
    expect(stored).toMatchObject({ totalChunksCount: 42, lastRunChunksCount: 32 });
  });

  it("rejects a negative chunk count with HTTPValidationError, and another workspace's id with a 404", async () => {
    const { id } = await client.beta.rag.ingestionPipelineConfigurations.register({ name: "sdk-errors" });
    const invalid = await errorOf(client.beta.rag.ingestionPipelineConfigurations.updateRunInfo({ id, updateRunInfo: { executionTime: new Date(), chunksCount: -1 } }), HTTPValidationError);
    expect(invalid.detail?.[0]?.loc).toEqual(["body", "chunks_count"]);

    const stranger = sdkClient(api, (await newTenant()).key);
    const missing = await errorOf(stranger.beta.rag.ingestionPipelineConfigurations.updateRunInfo({ id, updateRunInfo: { executionTime: new Date(), chunksCount: 1 } }), SDKError);
    expect(missing.statusCode).toBe(404);
  });
});
