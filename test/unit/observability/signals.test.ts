/**
 * A route's request line carries its area's request metrics in the cloud (shared/observability/signals.ts): embedded
 * metric format fields that CloudWatch turns into the overview's per-area graphs; nothing locally.
 */
import { afterEach, describe, expect, it } from "vitest";
import { requestMetricFields, SIGNALS_AREA_ENV, SIGNALS_NAMESPACE_ENV } from "../../../shared/observability/signals.js";

afterEach(() => {
  delete process.env[SIGNALS_NAMESPACE_ENV];
  delete process.env[SIGNALS_AREA_ENV];
});

describe("requestMetricFields", () => {
  it("gives the area's latency and whether the answer was a 5xx, in the deployment's namespace", () => {
    process.env[SIGNALS_NAMESPACE_ENV] = "Platform-test/Signals";
    process.env[SIGNALS_AREA_ENV] = "files";

    const ok = requestMetricFields(12.5, 200);
    const failed = requestMetricFields(40, 502);

    expect(ok).toMatchObject({
      _aws: { CloudWatchMetrics: [{ Namespace: "Platform-test/Signals", Dimensions: [["area"]], Metrics: [{ Name: "Latency", Unit: "Milliseconds" }, { Name: "ServerErrors", Unit: "Count" }] }] },
      area: "files",
      Latency: 12.5,
      ServerErrors: 0,
    });
    expect(failed).toMatchObject({ Latency: 40, ServerErrors: 1 });
    // A line must parse as one JSON object for CloudWatch to extract it.
    expect(JSON.parse(JSON.stringify({ message: "request", ...ok }))._aws.Timestamp).toEqual(expect.any(Number));
  });

  it("gives nothing locally (no namespace), on a function that serves no route (no area), or without a latency", () => {
    expect(requestMetricFields(10, 200)).toEqual({});
    process.env[SIGNALS_NAMESPACE_ENV] = "Platform-test/Signals";
    expect(requestMetricFields(10, 200)).toEqual({});
    process.env[SIGNALS_AREA_ENV] = "files";
    expect(requestMetricFields(undefined, 200)).toEqual({});
  });
});
