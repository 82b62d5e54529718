import { describe, expect, it } from "vitest";
import prices from "../../../config/prices.json" with { type: "json" };
import { CostLoadError, familyMemory, idleLoad, monthlyCost, scaleLoad, type CostReport, type StackResources } from "../../../shared/domain/cost/model.js";
import { AWS_PRICE_KEYS, checkAwsPrices, describePrice, priceQuantity } from "../../../shared/domain/cost/prices.js";
import { CostLoad } from "../../../shared/schemas/cost.js";

/** Two routes of one area: 512 MB (GET) and 1536 MB that opens connector secrets (POST). */
const resources: StackResources = {
  routes: [
    { key: "GET /v1/things", family: "things", memoryMb: 512, secrets: false },
    { key: "POST /v1/things", family: "things", memoryMb: 1536, secrets: true },
  ],
  authorizerMemoryMb: 512,
  batch: { startMb: 1024, runChunkMb: 1024, finishMb: 1024, stateMachine: "STANDARD", logsExecutionData: false },
  libraryIngestion: { runMb: 2048, stateMachine: "STANDARD", logsExecutionData: false },
  workflows: { stateMachine: "STANDARD", dispatchMb: 1024, statusMb: 512, timerMb: 512, scheduleFireMb: 512, periodic: [] },
  tables: 2,
  kmsKeys: 1,
  alarmMetrics: 3,
  dashboards: 1,
  customMetrics: 0,
  logRetentionMonths: { functions: 1, accessLogs: 3, stateMachines: 3 },
  upload: { cpu: 1024, memoryMiB: 2048, desiredCount: 1, architecture: "ARM64", publicIpv4: 2, natGateways: 0, imageGb: 1, partMb: 8, cloudFrontFunction: true, alarmMetrics: 2, dashboards: 1 },
  console: { files: 2, releaseMb: 0.5, firstLoadKb: 100, pageMemoryMb: 512, assetMemoryMb: 256 },
};

/** With the distribution, the console's assets in S3: 20 releases (the default kept) of 0.5 MB at $0.023 a GB-month. */
const CONSOLE_STORAGE_USD = ((20 * 0.5) / 1024) * 0.023;

const cost = (load: unknown, res = resources) => monthlyCost(CostLoad.parse(load), res, prices.aws, prices);
const line = (report: CostReport, item: string) => {
  const found = report.lines.filter((l) => l.item.startsWith(item));
  expect(found, item).toHaveLength(1);
  return found[0]!;
};

/** Each line's dollars, to the micro-dollar. */
const expectUsd = (report: CostReport, expected: Record<string, number>) => {
  for (const [item, usd] of Object.entries(expected)) expect(line(report, item).usd, item).toBeCloseTo(usd, 6);
};

describe("the cost model", () => {
  // Hand-checked at the price file's list prices (us-east-1):
  //   Lambda: 1M × 0.2 s × mean(512, 1536) MB = 1 GB → 200,000 GB-s × $0.0000133334 = $2.66668
  //   authorizer: 10% of 1M miss the cache → 100,000 × 0.03 s × 0.5 GB = 1,500 GB-s = $0.0200001
  //   Lambda requests 1.1M × $0.20/M = $0.22; API Gateway 1M × $3.50/M = $3.50
  //   DynamoDB: reads 2 per request + 2 per authorizer call = 2.2M × $0.125/M = $0.275; writes 1M × $0.625/M = $0.625
  //   KMS: half the rows open secrets → 500,000 × $0.03/10K = $1.50, plus the key $1
  //   transfer out (no CloudFront): 1M × 2 KB = 1.9073 GB × $0.09 = $0.171661
  //   logs: 1.1M × 1 KB + 1M × 0.5 KB = 1.5259 GB × $0.50 = $0.762939; kept 1 and 3 months: 2.4796 GB-month × $0.03 = $0.074387
  //   3 alarm metrics × $0.10, a dashboard $0 (one of CloudWatch's three always-free ones), 30 alarm e-mails (publish + delivery) $0.000615;
  //   mistral-small 1M + 1M tokens: $0.10 + $0.30
  const small = {
    requests: { things: { requests: 1_000_000, avg_ms: 200 } },
    models: { "mistral-small-latest": { input_tokens: 1_000_000, output_tokens: 1_000_000 } },
    cloudfront: false,
  };

  it("prices a small load line by line, as checked by hand", () => {
    const report = cost(small);
    expect(report.requests).toBe(1_000_000);
    expect(line(report, "things requests (1024 MB)").quantity).toBeCloseTo(200_000, 6);
    expect(line(report, "requests (routes").quantity).toBe(1_100_000);
    expect(line(report, "requests (connector secrets)").quantity).toBe(500_000);
    expectUsd(report, {
      "things requests": 2.66668,
      "authorizer (512 MB)": 0.0200001,
      "requests (routes": 0.22,
      "REST API requests": 3.5,
      "read request units": 0.275,
      "write request units": 0.625,
      "requests (connector secrets)": 1.5,
      "API answers and S3 downloads": 0.171661,
      "log ingestion": 0.762939,
      "log storage": 0.074387,
      "alarm metrics (an alarm is billed per metric it evaluates)": 0.3,
      dashboards: 0,
      "mistral-small-latest": 0.4,
    });
    expect(line(report, "alarm metrics").fixed).toBe(true);
    expect(report.total).toBeCloseTo(11.516283, 5);
    // The key, the alarm metrics, the (free) dashboard and the alarm e-mails: paid with no load at all.
    expect(report.fixed).toBeCloseTo(1.300615, 6);
    expect(report.lines.some((l) => l.service === "CloudFront" || l.service === "Upload service")).toBe(false);
  });

  it("adds CloudFront and the upload service's fixed monthly cost when the distribution is on", () => {
    const report = cost({ ...small, cloudfront: true, uploads: { files: 100, gb: 10 } });
    // 1 vCPU × 730 h × $0.03238, 2 GB × 730 h × $0.00356, the ALB's 730 h × $0.0225, 2 addresses × 730 h × $0.005, 1 GB image × $0.10
    expect(line(report, "HTTPS requests").quantity).toBe(1_000_100);
    // 10 GB over 730 h is the larger LCU dimension: 10 LCU-hours × $0.008
    expectUsd(report, {
      "Fargate vCPU": 23.6374,
      "Fargate memory": 5.1976,
      "load balancer hours": 16.425,
      "public IPv4": 7.3,
      "load balancer capacity units": 0.08,
      "origin-picking function": 0.10001,
      "upload bodies to the origin": 0.2,
      "data out to clients": (2_000_000 / 1024 ** 2) * 0.085,
    });
    // ... and its two alarm metrics (0.2; its dashboard is within the three free ones), and the console's assets in S3.
    expect(report.fixed).toBeCloseTo(1.300615 + 23.6374 + 5.1976 + 16.425 + 7.3 + 0.1 + 0.2 + CONSOLE_STORAGE_USD, 5);
    expect(() => cost({ ...small, uploads: { files: 1, gb: 1 } })).toThrow(/uploads go through the CloudFront distribution/);
  });

  it("runs batch jobs as chunks of 100 lines on a Standard machine, and prices workflow transitions and schedules", () => {
    const report = cost({ requests: {}, batch: { jobs: 2, lines: 250, ms_per_line: 800 }, workflows: { executions: 10, state_transitions: 400_000, tasks: 0 }, schedules: { fires: 1_000_000 }, cloudfront: false });
    // 3 chunks (250 lines, at least one per job): 2 × 4 + 3 × 2 transitions; each chunk 83.3 lines × 0.8 s ÷ 8 at once, at 1 GB
    expect(line(report, "batch machine transitions").quantity).toBe(14);
    expect(line(report, "batch: chunks").quantity).toBeCloseTo((3 * (250 / 3) * 0.8) / 8, 9);
    expect(line(report, "workflow machine transitions").usd).toBeCloseTo(10, 9);
    expect(line(report, "schedule fires and timers").usd).toBeCloseTo(1, 9);
  });

  it("reads memory from the route table, a route's own or an area's mean, and the load's over both", () => {
    expect(familyMemory("things", {}, resources)).toEqual({ memoryMb: 1024, from: "route table, mean of 2 rows" });
    expect(familyMemory("POST /v1/things", {}, resources)).toEqual({ memoryMb: 1536, from: "route table" });
    expect(familyMemory("things", { memory_mb: 3008 }, resources)).toEqual({ memoryMb: 3008, from: "load" });
    // A route given on its own leaves the area's other rows to the area's requests.
    const report = cost({ requests: { things: { requests: 1000 }, "POST /v1/things": { requests: 1000 } }, cloudfront: false });
    expect(line(report, "things requests (512 MB)").quantity).toBeCloseTo(50, 9);
    expect(line(report, "POST /v1/things requests (1536 MB)").quantity).toBeCloseTo(150, 9);
  });

  it("refuses a family the route table does not have, and a model the price file does not price", () => {
    expect(() => cost({ requests: { nothing: { requests: 1 } } })).toThrow(CostLoadError);
    expect(() => cost({ requests: { nothing: { requests: 1 } } })).toThrow(/Unknown family "nothing": use an area of the route table \(things\)/);
    expect(() => cost({ requests: {}, models: { "no-such-model": { input_tokens: 1 } } })).toThrow(/"no-such-model" has no price/);
  });

  it("prices the tokens of a deployment named in the load at that deployment's own price", () => {
    const withDeployment = { ...prices, deployments: { "vllm-gpu/mistral-small": { input_per_million: 0, output_per_million: 0 }, "bedrock-eu/mistral.small": { input_per_million: 0.2, output_per_million: 0.6 } } };
    const load = CostLoad.parse({ requests: {}, cloudfront: false, models: { "vllm-gpu/mistral-small": { input_tokens: 1_000_000, output_tokens: 1_000_000 }, "bedrock-eu/mistral.small": { input_tokens: 1_000_000, output_tokens: 1_000_000 }, "mistral-small-latest": { input_tokens: 1_000_000, output_tokens: 1_000_000 } } });

    const report = monthlyCost(load, resources, prices.aws, withDeployment);

    expectUsd(report, { "vllm-gpu/mistral-small input": 0, "bedrock-eu/mistral.small input": 0.8, "mistral-small-latest input": 0.4 });
  });

  it("prices the first three dashboards at 0 (CloudWatch's always-free ones) and each one after at $3", () => {
    const dashboards = (n: number) => line(cost(small, { ...resources, dashboards: n }), "dashboards");
    expect(dashboards(3).usd).toBe(0);
    expect(dashboards(3).fixed).toBe(true);
    expect(dashboards(4).usd).toBeCloseTo(3, 9);
    expect(dashboards(26).usd).toBeCloseTo(69, 9);
  });

  it("prices custom metrics only under load: they are billed for the hours they are published in", () => {
    const withMetrics = { ...resources, customMetrics: 2 };
    const busy = line(cost(small, withMetrics), "custom metrics");
    expect(busy.quantity).toBe(2);
    expect(busy.usd).toBeCloseTo(0.6, 9);
    expect(busy.fixed).toBe(false);
    // Uploads alone are traffic too (through the distribution, not API Gateway).
    expect(line(cost({ requests: {}, uploads: { files: 1, gb: 0.001 } }, withMetrics), "custom metrics").quantity).toBe(2);
    expect(cost({ requests: {}, cloudfront: false }, withMetrics).lines.some((l) => l.item.startsWith("custom metrics"))).toBe(false);
  });

  it("prices a month at rest: only the fixed lines, with or without the upload distribution", () => {
    const periodic = [{ name: "sweep", memoryMb: 512, everyMinutes: 5 }];
    const res = { ...resources, customMetrics: 4, workflows: { ...resources.workflows, periodic } };
    const [withUploads, without] = [true, false].map((cloudfront) => monthlyCost(idleLoad(cloudfront), res, prices.aws, prices));
    expect(CostLoad.parse(idleLoad(true))).toEqual({ requests: {}, cloudfront: true });
    for (const report of [withUploads!, without!]) {
      expect(report.requests).toBe(0);
      expect(report.lines.some((l) => /^(S3|DynamoDB|API Gateway|Data transfer|Models)$/.test(l.service))).toBe(false);
      expect(report.lines.some((l) => l.item.startsWith("custom metrics"))).toBe(false);
      // What is not fixed is the periodic function's own log lines: cents.
      expect(report.total - report.fixed).toBeLessThan(0.01);
    }
    expect(withUploads!.lines.some((l) => l.service === "Upload service")).toBe(true);
    expect(without!.lines.some((l) => l.service === "Upload service" || l.service === "CloudFront")).toBe(false);
    // The upload service's hours, its address, its image and its two alarm metrics: 23.6374 + 5.1976 + 16.425 + 7.3 + 0.1 + 0.2;
    // and the console's assets in S3, stored only with the distribution.
    expect(withUploads!.total - without!.total).toBeCloseTo(52.86 + CONSOLE_STORAGE_USD, 6);
    expect(line(withUploads!, "assets in S3")).toMatchObject({ service: "Console", fixed: true });
    expect(without!.lines.some((l) => l.service === "Console")).toBe(false);
  });

  it("prices document libraries: ingestion runs and transitions, OCR pages, and S3 Vectors' writes, storage and queries", () => {
    const libraries = { documents: 1000, pages_per_document: 10, chunks_per_page: 2, ocr_page_share: 0.5, vector_dimension: 1024, documents_stored: 10_000, libraries: 10, queries: 100_000, libraries_per_query: 2 };
    const report = cost({ requests: {}, libraries, cloudfront: false });
    // A vector: 1024 × 4 B + a 45 B key + 150 B of filterable metadata (what a query processes) + the chunk's 2,048 B of text.
    const searched = 4096 + 45 + 150;
    const stored = searched + 2048;
    const GB = 1024 ** 3;
    expect(line(report, "library ingestion: run").quantity).toBeCloseTo((1000 * (1 + 10 * 0.4) * 2048) / 1024, 6);
    expect(line(report, "library ingestion transitions").quantity).toBe(2000);
    // 5,000 pages of scans at $1.50 per 1,000.
    expectUsd(report, { "OCR pages": 7.5 });
    // 20,000 vectors written; 200,000 kept; 200,000 calls, each over one library's 20,000 vectors.
    expectUsd(report, {
      "vectors written": ((20_000 * stored) / GB) * 0.2,
      "vector storage": ((200_000 * stored) / GB) * 0.06,
      "QueryVectors calls": 0.5,
      "query data processed": ((200_000 * 20_000 * searched) / GB / 1024) * 0.004,
    });
  });

  it("prices realtime transcription sessions: Transcribe minutes, the WebSocket upgrade, the audio through CloudFront and the balancer", () => {
    const report = cost({ requests: {}, cloudfront: true, realtime: { sessions: 1000, avg_minutes: 5 } });
    // 5,000 minutes × $0.024; their audio at 32,000 B/s is 9.6e9 B = 8.9407 GB, to the origin at $0.02 and processed
    // by the balancer at 1 GB an LCU-hour × $0.008; 1,000 upgrade requests × $0.01/10K.
    const audioGb = (5000 * 60 * 32_000) / 1024 ** 3;
    expect(line(report, "Transcribe streaming minutes").quantity).toBe(5000);
    expect(line(report, "CloudFront audio to the origin").quantity).toBeCloseTo(audioGb, 9);
    expectUsd(report, {
      "Transcribe streaming minutes": 120,
      "CloudFront requests (a WebSocket upgrade": 0.001,
      "CloudFront audio to the origin": audioGb * 0.02,
      "load balancer capacity units (the audio processed)": audioGb * 0.008,
    });
    const realtime = report.lines.filter((l) => l.service === "Realtime transcription");
    expect(realtime).toHaveLength(4);
    expect(realtime.every((l) => !l.fixed)).toBe(true);
    // The sessions run on the upload service's fixed task: nothing else changes with them (these stacks publish no custom metrics).
    const atRest = cost({ requests: {}, cloudfront: true });
    expect(report.total - atRest.total).toBeCloseTo(realtime.reduce((sum, l) => sum + l.usd, 0), 9);
    // Only through the distribution; no session, no line.
    expect(() => cost({ requests: {}, cloudfront: false, realtime: { sessions: 1, avg_minutes: 1 } })).toThrow(CostLoadError);
    expect(() => cost({ requests: {}, cloudfront: false, realtime: { sessions: 1, avg_minutes: 1 } })).toThrow(/realtime transcription sessions are WebSockets through the CloudFront distribution/);
    expect(cost({ requests: {}, cloudfront: false, realtime: { sessions: 0, avg_minutes: 1 } }).lines.filter((l) => l.service === "Realtime transcription")).toEqual([]);
    expect(() => CostLoad.parse({ requests: {}, realtime: { sessions: 1 } })).toThrow();
  });

  it("prices the console: its assets stored in S3, and per page load the HTML entry and, on a cold load, the assets from the edge", () => {
    const report = cost({ requests: {}, cloudfront: true, console: { page_loads: 10_000, cold_share: 0.5 } });
    // 10,000 entries (50 ms at 512 MB) through CloudFront and API Gateway; 5,000 cold loads of 2 files, 100 KB, from the edge.
    // Sent: 10,000 × 1 KB + 5,000 × 100 KB = 510,000 KB = 0.486374 GB at $0.085.
    const sentGb = 510_000 / 1024 ** 2;
    expect(line(report, "CloudFront requests (HTML entries").quantity).toBe(20_000);
    expect(line(report, "CloudFront data out (HTML entries").quantity).toBeCloseTo(sentGb, 9);
    expectUsd(report, {
      "assets in S3": CONSOLE_STORAGE_USD,
      "page function (512 MB)": 10_000 * 0.05 * 0.5 * 0.0000133334,
      "HTML entries (API Gateway)": 0.035,
      "CloudFront requests (HTML entries": 0.02,
      "CloudFront data out (HTML entries": sentGb * 0.085,
    });
    const consoleLines = report.lines.filter((l) => l.service === "Console");
    expect(consoleLines.map((l) => l.fixed)).toEqual([true, false, false, false, false]);
    // No asset function with the distribution; the page loads are not API requests of the families (their API calls are).
    expect(report.lines.some((l) => l.item.startsWith("asset function"))).toBe(false);
    expect(report.requests).toBe(0);

    // Without it: no bucket; the cold loads' assets from the asset function (20 ms at 256 MB) through API Gateway, sent at $0.09.
    const direct = cost({ requests: {}, cloudfront: false, console: { page_loads: 10_000, cold_share: 0.5 } });
    expectUsd(direct, {
      "asset function (256 MB)": 10_000 * 0.02 * 0.25 * 0.0000133334,
      "HTML entries and cold loads' assets (API Gateway)": 0.07,
      "data out (HTML entries": sentGb * 0.09,
    });
    expect(direct.lines.some((l) => l.item.startsWith("assets in S3") || l.service === "CloudFront")).toBe(false);
    // A release kept per the load; the cold share from ASSUMED (0.2) when not given.
    expect(line(cost({ requests: {}, console: { page_loads: 1000, releases_stored: 5 } }), "assets in S3").quantity).toBeCloseTo((5 * 0.5) / 1024, 12);
    expect(line(cost({ requests: {}, console: { page_loads: 1000 } }), "CloudFront requests (HTML entries").quantity).toBe(1000 + 1000 * 0.2 * 2);
    // Given both as a family and as the console section, page loads would be counted twice.
    const withConsoleRoute = { ...resources, routes: [...resources.routes, { key: "GET /console", family: "console", memoryMb: 512, secrets: false }] };
    expect(() => cost({ requests: { "GET /console": { requests: 1 } }, console: { page_loads: 1 } }, withConsoleRoute)).toThrow(/count the console's page loads twice/);
    expect(() => cost({ requests: { console: { requests: 1 } }, console: { page_loads: 1 } }, withConsoleRoute)).toThrow(CostLoadError);
    expect(() => CostLoad.parse({ requests: {}, console: { page_loads: 1, cold_share: 2 } })).toThrow();
  });

  it("prices no library line without documents or searches", () => {
    const report = cost({ requests: {}, libraries: { documents: 0 }, cloudfront: false });
    expect(report.lines.filter((l) => /library|Vectors|OCR/.test(l.item) || l.service === "S3 Vectors")).toEqual([]);
  });

  it("scales every volume with the requests, and keeps the fixed part fixed", () => {
    const load = CostLoad.parse({
      ...small,
      cloudfront: true,
      storage: { s3_gb: 10 },
      batch: { jobs: 1, lines: 100 },
      libraries: { documents: 10, documents_stored: 100, queries: 50, libraries: 4 },
      realtime: { sessions: 20, avg_minutes: 3 },
      console: { page_loads: 100, cold_share: 0.3, releases_stored: 4 },
    });
    const scaled = scaleLoad(load, 10_000_000);
    expect(scaled.requests.things!.requests).toBe(10_000_000);
    expect(scaled.requests.things!.avg_ms).toBe(200);
    expect(scaled.models!["mistral-small-latest"]).toEqual({ input_tokens: 10_000_000, output_tokens: 10_000_000 });
    expect(scaled.storage!.s3_gb).toBe(100);
    expect(scaled.batch).toEqual({ jobs: 10, lines: 1000 });
    // More traffic is more libraries of the same size, not the same libraries ten times larger (a query's data stays the same).
    expect(scaled.libraries).toEqual({ documents: 100, documents_stored: 1000, queries: 500, libraries: 40 });
    // More sessions of the same length.
    expect(scaled.realtime).toEqual({ sessions: 200, avg_minutes: 3 });
    // More page loads of the same console, as cold as before; the releases stored stay.
    expect(scaled.console).toEqual({ page_loads: 1000, cold_share: 0.3, releases_stored: 4 });
    const one = monthlyCost(load, resources, prices.aws, prices);
    const ten = monthlyCost(scaled, resources, prices.aws, prices);
    expect(ten.fixed).toBeCloseTo(one.fixed, 9);
    expect(ten.total - ten.fixed).toBeCloseTo((one.total - one.fixed) * 10, 6);
  });
});

describe("config/prices.json's aws section", () => {
  it("holds every price the model uses, each with its unit and an AWS pricing page as its source", () => {
    const list = checkAwsPrices(prices.aws);
    expect(prices.aws.region).toBe("us-east-1");
    expect(prices.as_of).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    for (const key of AWS_PRICE_KEYS) {
      expect(list[key].unit, key).toBeTruthy();
      expect(list[key].source, key).toMatch(/^https:\/\/aws\.amazon\.com\//);
    }
  });

  it("prices tiers on the month's cumulative quantity", () => {
    // 333M requests at $3.50/M, the next 67M at $2.80/M
    expect(priceQuantity(prices.aws.prices.api_gateway_rest_requests, 400_000_000)).toBeCloseTo(1165.5 + 187.6, 6);
    expect(priceQuantity(prices.aws.prices.api_gateway_rest_requests, 1_000_000)).toBeCloseTo(3.5, 9);
    // A free first tier: CloudWatch's three always-free dashboards.
    expect(priceQuantity(prices.aws.prices.cloudwatch_dashboards, 3)).toBe(0);
    expect(priceQuantity(prices.aws.prices.cloudwatch_dashboards, 5)).toBeCloseTo(6, 9);
    expect(describePrice(prices.aws.prices.cloudwatch_dashboards)).toBe("$3 / dashboard-month after 3 free");
    expect(describePrice(prices.aws.prices.api_gateway_rest_requests)).toBe("$3.5 / 1M request (tiered)");
    expect(() => checkAwsPrices({ ...prices.aws, prices: { ...prices.aws.prices, kms_keys: undefined as never } })).toThrow(/lacks or misstates: kms_keys/);
  });
});
