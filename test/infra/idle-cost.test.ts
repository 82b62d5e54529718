/**
 * Issue 31: the deployment costs almost nothing at rest. THE stacks' resources (infra/cost-resources.ts, held
 * equal to `cdk synth` by test/infra/cost-resources.synth.ts) at the us-east-1 list prices of config/prices.json,
 * with no traffic at all: what `npm run cost -- --idle` prints.
 */
import { describe, expect, it } from "vitest";
import prices from "../../config/prices.json" with { type: "json" };
import { stackResources } from "../../infra/cost-resources.js";
import { idleLoad, monthlyCost, type CostReport } from "../../shared/domain/cost/model.js";

/** The targets of issue 31, USD a month. */
const WITHOUT_UPLOAD_DISTRIBUTION = 5;
const WITH_UPLOAD_DISTRIBUTION = 40;

const atRest = (cloudfront: boolean) => monthlyCost(idleLoad(cloudfront), stackResources(), prices.aws, prices);

/** The lines that cost something, to say in a failure what the month is made of. */
const billed = (report: CostReport) =>
  report.lines
    .filter((l) => l.usd >= 0.005)
    .map((l) => `${l.service}: ${l.item} ${l.usd.toFixed(2)}`)
    .join("; ");

describe("the deployment at rest", () => {
  it(`costs at most $${WITHOUT_UPLOAD_DISTRIBUTION} a month without the upload distribution (-c uploadDistribution=false)`, () => {
    const report = atRest(false);
    expect(report.requests).toBe(0);
    expect(report.total, billed(report)).toBeLessThanOrEqual(WITHOUT_UPLOAD_DISTRIBUTION);
  });

  it(`costs at most $${WITH_UPLOAD_DISTRIBUTION} a month with it (CloudFront and the upload service, the default)`, () => {
    const report = atRest(true);
    expect(report.requests).toBe(0);
    expect(report.total, billed(report)).toBeLessThanOrEqual(WITH_UPLOAD_DISTRIBUTION);
  });
});
