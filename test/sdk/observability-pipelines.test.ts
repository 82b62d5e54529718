/**
 * Evaluation pipeline configurations driven by the official, unmodified SDK (`client.beta.observability.evaluations.*`
 * pipeline calls) against the local server: answers parse into the SDK's types (dates as Date, snake_case remapped),
 * 201 and 204 where the SDK expects them, errors as ObservabilityError.
 */
import { Mistral } from "@mistralai/mistralai";
import { ObservabilityError } from "@mistralai/mistralai/models/errors";
import { beforeAll, describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../support/api.js";
import { errorOf, sdkClient } from "../support/sdk.js";
import { newTenant } from "../support/tenant.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
let client: Mistral;
beforeAll(() => {
  client = sdkClient(api, tenant.key);
});
const detection = {
  targetAttributes: ["input_messages", "output_messages"],
  patterns: [{ name: "email", regex: "[a-z0-9._%+-]+@[a-z0-9.-]+\\.[a-z]{2,}", category: "pii", confidence: "high" }],
};

describe("client.beta.observability.evaluations: POST /v1/observability/pipeline-configs, GET /v1/observability/pipeline-configs, GET /v1/observability/pipeline-configs/{pipeline_config_id}, PUT /v1/observability/pipeline-configs/{pipeline_config_id}, DELETE /v1/observability/pipeline-configs/{pipeline_config_id}", () => {
  it("creates (201), gets, lists, replaces and deletes a pipeline configuration", async () => {
    const evaluations = client.beta.observability.evaluations;
    const created = await evaluations.createPipelineConfig({ name: "sdk pii", pipelineKind: "detection", selectors: [{ sourceKind: "span", filter: "operation_name = 'chat'" }], definition: detection, group: "sdk" });
    expect(created).toMatchObject({ name: "sdk pii", pipelineKind: "detection", scope: "workspace", workspaceId: tenant.caller.workspace, enabled: true, deletedAt: null, group: "sdk", definition: detection });
    expect(created.createdAt).toBeInstanceOf(Date);
    expect(created.definitionHash).toMatch(/^[0-9a-f]{64}$/);

    expect(await evaluations.getPipelineConfig({ pipelineConfigId: created.id })).toEqual(created);
    const listed = await evaluations.listPipelineConfigs({ pipelineKind: "detection", group: "sdk", enabled: true, pageSize: 10 });
    expect(listed.pipelineConfigs).toMatchObject({ count: 1, results: [{ id: created.id }] });

    const updated = await evaluations.updatePipelineConfig({
      pipelineConfigId: created.id,
      updatePipelineConfigRequest: { name: "sdk judge", pipelineKind: "judge", selectors: [{ sourceKind: "span" }], definition: { model: "mistral-small-latest", prompt: "Is it helpful?" }, enabled: false },
    });
    expect(updated).toMatchObject({ id: created.id, name: "sdk judge", pipelineKind: "judge", enabled: false, definition: { model: "mistral-small-latest", prompt: "Is it helpful?" } });
    expect(updated.definitionHash).not.toBe(created.definitionHash);

    await evaluations.deletePipelineConfig({ pipelineConfigId: created.id });
    const gone = await errorOf(evaluations.getPipelineConfig({ pipelineConfigId: created.id }), ObservabilityError);
    expect(gone.detail.errorCode).toBe("PIPELINE_CONFIG_NOT_FOUND");
  });

  it("refuses an export pipeline with an ObservabilityError 422", async () => {
    const refused = await errorOf(
      client.beta.observability.evaluations.createPipelineConfig({ name: "sdk export", pipelineKind: "export", selectors: [{ sourceKind: "span" }], definition: { destination: { protocol: "http/json", endpoint: "https://collector.example/v1/traces" } } }),
      ObservabilityError,
    );
    expect(refused.detail.errorCode).toBe("FEATURE_NOT_SUPPORTED");
  });

  it("never shows another workspace's configuration", async () => {
    const mine = await client.beta.observability.evaluations.createPipelineConfig({ name: "sdk private", pipelineKind: "moderation", selectors: [{ sourceKind: "log" }], definition: {} });
    expect(mine.definition).toEqual({ model: "mistral-moderation-latest" });
    const other = sdkClient(api, (await newTenant()).key);

    const missing = await errorOf(other.beta.observability.evaluations.getPipelineConfig({ pipelineConfigId: mine.id }), ObservabilityError);
    expect(missing.detail.errorCode).toBe("PIPELINE_CONFIG_NOT_FOUND");
    expect((await other.beta.observability.evaluations.listPipelineConfigs({})).pipelineConfigs.count).toBe(0);
  });
});
