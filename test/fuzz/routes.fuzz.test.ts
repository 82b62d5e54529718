/**
 * The fuzz ring over every row of the route table (docs/testing.md): valid and broken requests generated
 * from each handler's schemas, through the local API Gateway stand-in and the real handler chain, against
 * the embedded backends. `npm test` runs a fixed seed and FUZZ_RUNS cases per route; `npm run fuzz` more.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routes } from "../../functions/routes.js";
import { routeKey } from "../../shared/http/policy.js";
import { useEmbeddedApi } from "../support/api.js";
import { fuzzRoute, ringSettings, type RingTarget, type SemanticRefusals } from "../support/fuzz-ring.js";
import { fixtureId, newOwner } from "../support/route-fixtures.js";
import { newTenant } from "../support/tenant.js";

const { api } = useEmbeddedApi({ tenant: "none" });
const settings = ringSettings();
let target: RingTarget;
const sent = new Map<string, number>();

/** 422s a route gives to input its schemas accept, because the content is wrong for what it is (listed, with why). */
const variablesMatchContent: SemanticRefusals = {
  variables: { reason: "declared variables must be the {{placeholders}} of the content", answer: (body) => body.detail.some((i: { msg: string }) => /Variables must match/.test(i.msg)) },
};
const semanticRefusals: Record<string, SemanticRefusals> = {
  "POST /v2/prompts": variablesMatchContent,
  "POST /v2/prompts/{prompt_id}/versions": variablesMatchContent,
};

beforeAll(async () => {
  const owner = newOwner(api, await newTenant());
  const models = ["mistral-small-latest", "mistral-embed", "codestral-latest", "mistral-large-latest"];
  target = {
    api,
    owner,
    hints: {
      model: fc.constantFrom(...models),
      input_files: fc.constant([await fixtureId(owner, "file_id")]),
      agent_id: fc.constant(await fixtureId(owner, "agent_id")),
      file_id: fc.constant(await fixtureId(owner, "file_id")),
    },
  };
});

afterAll(() => {
  const total = [...sent.values()].reduce((a, b) => a + b, 0);
  console.log(`fuzz ring: ${sent.size} routes, ${total} requests (seed ${settings.seed}, ${settings.runs} per route)`);
});

describe("the fuzz ring", () => {
  it.each(routes.map((row) => [routeKey(row), row] as const))("%s keeps its contract for generated requests", async (key, row) => {
    sent.set(key, await fuzzRoute(row, target, settings, semanticRefusals[key]));
    expect(sent.get(key)).toBe(settings.runs);
  }, 120_000);
});
