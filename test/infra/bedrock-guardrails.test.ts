/**
 * Bedrock Guardrails in the catalog (docs/routing.md, "Guardrails"): the deployments that name one, the catalog's
 * checks of them, and the right to apply exactly those guardrails that model-calling functions get.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as cdk from "aws-cdk-lib";
import { afterAll, describe, expect, it } from "vitest";
import { readCatalog } from "../../infra/catalog.js";
import { bedrockStatements, inferenceSettings } from "../../infra/inference.js";

const dir = mkdtempSync(join(tmpdir(), "guardrail-catalog-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const large = (deployments: unknown[]) => ({ id: "mistral-large-latest", endpoints: ["chat"], max_context_length: 131072, deployments });

/** A catalog file with `models`, over one Bedrock provider in eu-west-1, one in the stack's region and one offline. */
function aCatalog(name: string, models: unknown[]): string {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify({ providers: { "bedrock-eu": { type: "bedrock", region: "eu-west-1" }, bedrock: { type: "bedrock" }, offline: { type: "offline" } }, models }));
  return file;
}

const resolved = (statements: ReturnType<typeof bedrockStatements>) => new cdk.Stack().resolve(statements.map((s) => s.toStatementJson())) as { Action: string | string[]; Resource: unknown }[];

describe("a Bedrock deployment's guardrail", () => {
  it("is read with its id and version, and granted as bedrock:ApplyGuardrail on its ARN in the deployment's region", () => {
    const file = aCatalog("named", [
      large([
        { provider: "bedrock-eu", upstream: "mistral.mistral-large-2407-v1:0", guardrail: { id: "gr1abc", version: "3" } },
        { provider: "bedrock", upstream: "mistral.mistral-large-2407-v1:0", guardrail: { id: "arn:aws:bedrock:us-west-2:123456789012:guardrail/gr2xyz", version: "DRAFT" } },
      ]),
    ]);

    const settings = inferenceSettings(new cdk.App({ context: { modelCatalog: file } }));
    const statements = resolved(bedrockStatements(settings.bedrockModels, settings.bedrockGuardrails));

    expect(settings.bedrockGuardrails).toStrictEqual([{ id: "gr1abc", region: "eu-west-1" }, { id: "arn:aws:bedrock:us-west-2:123456789012:guardrail/gr2xyz" }]);
    expect(statements).toHaveLength(2);
    expect(statements[1]!.Action).toBe("bedrock:ApplyGuardrail");
    const arns = JSON.stringify(statements[1]!.Resource);
    expect(arns).toContain(":bedrock:eu-west-1:");
    expect(arns).toContain(":guardrail/gr1abc");
    expect(arns).toContain("arn:aws:bedrock:us-west-2:123456789012:guardrail/gr2xyz");
  });

  it("adds no statement when no deployment names a guardrail", () => {
    const file = aCatalog("none", [large([{ provider: "bedrock", upstream: "mistral.mistral-large-2407-v1:0" }])]);

    const settings = inferenceSettings(new cdk.App({ context: { modelCatalog: file } }));

    expect(settings.bedrockGuardrails).toStrictEqual([]);
    expect(resolved(bedrockStatements(settings.bedrockModels, settings.bedrockGuardrails)).map((s) => s.Action)).toStrictEqual([["bedrock:InvokeModel", "bedrock:InvokeModelWithResponseStream"]]);
  });

  it("is refused on a deployment of another kind of provider, and with a version Bedrock would not take", () => {
    const offline = aCatalog("offline", [large([{ provider: "offline", upstream: "offline-echo", guardrail: { id: "gr1abc", version: "1" } }])]);
    const badVersion = aCatalog("bad-version", [large([{ provider: "bedrock", upstream: "mistral.mistral-large-2407-v1:0", guardrail: { id: "gr1abc", version: "latest" } }])]);

    expect(() => readCatalog(offline)).toThrow(/gives a guardrail to its deployment on 'offline', which is not a Bedrock provider/);
    expect(() => readCatalog(badVersion)).toThrow(/DRAFT or a version number/);
  });
});
