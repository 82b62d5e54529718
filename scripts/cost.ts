/**
 * The monthly AWS cost of a stated load (docs/cost.md, decision 0036), or of the deployment at rest (issue 31):
 *
 *   npm run cost -- --load docs/cost-load.json [--requests 1000000,10000000] [--json]
 *   npm run cost -- --idle [--json]
 *
 * Prices come from config/prices.json (written down with their sources and date, never fetched), the stack's
 * resources from the route and engine tables (infra/cost-resources.ts), the computation from shared/domain/cost.
 */
import { readFileSync } from "node:fs";
import prices from "../config/prices.json" with { type: "json" };
import { stackResources } from "../infra/cost-resources.js";
import { CostLoadError, idleLoad, monthlyCost, scaleLoad, type CostReport } from "../shared/domain/cost/model.js";
import { describePrice, type AwsPrice } from "../shared/domain/cost/prices.js";
import { CostLoad } from "../shared/schemas/cost.js";
import { cliArgs, fail } from "./cli-target.js";

const USAGE = `Usage: npm run cost -- --load FILE [--requests N[,N…]] [--json]
       npm run cost -- --idle [--json]

Prints the monthly AWS cost (USD, ${prices.aws.region} list prices of config/prices.json, as of ${prices.as_of}) of the load
in FILE: requests per operation family (an area of the route table, or one route as "METHOD /path"),
tokens per model, storage, batch lines, workflow transitions, schedules, spans, uploads, realtime sessions, console
page loads. Memory per function comes from the route table unless the load overrides it. docs/cost.md describes
the format and every assumption; docs/cost-load.json is a sample. With --idle, instead of a load: the month with no
traffic at all, with and without the upload distribution (what the deployment costs unused).

  --load FILE      the load (JSON)
  --requests N     scale every volume of the load so its requests add up to N (a comma list prints one table each)
  --idle           the cost at rest, one table with the upload distribution (CloudFront and the upload service,
                   -c uploadDistribution=true, the default) and one without it (-c uploadDistribution=false)
  --json           print the report as JSON instead of a table`;

const { values } = cliArgs(
  USAGE,
  { load: { type: "string" }, requests: { type: "string" }, idle: { type: "boolean", default: false }, json: { type: "boolean", default: false } },
  false,
);
// --idle is a load of its own (none at all): a file beside it would be silently ignored, and there is nothing to scale.
if (values.idle && values.load) fail(`--idle and --load exclude each other: --idle prices a month with no load at all\n\n${USAGE}`);
if (values.idle && values.requests) fail(`--requests scales a load's requests: --idle has none\n\n${USAGE}`);
if (!values.idle && !values.load) fail(`Give --load FILE (or --idle)\n\n${USAGE}`);

function readLoad(file: string): CostLoad {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    return fail(`Cannot read the load file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return fail(`${file} is not valid JSON: ${(error as Error).message}`);
  }
  const load = CostLoad.safeParse(json);
  if (!load.success) fail(`${file} is not a load (docs/cost.md):\n${load.error.issues.map((i) => `  ${i.path.join(".") || "(top)"}: ${i.message}`).join("\n")}`);
  return load.data;
}

const resources = stackResources();
if (values.idle) printIdle();
else printLoad(values.load!);

/** The load's month, or one per --requests count. */
function printLoad(file: string): void {
  const scales = values.requests?.split(",").map((n) => Number(n.trim().replaceAll("_", "")));
  if (scales?.some((n) => !Number.isFinite(n) || n <= 0)) fail(`--requests takes positive numbers (e.g. 1000000 or 1e6,1e7): ${values.requests}`);
  const load = readLoad(file);
  const reports = priced(file, () => (scales ?? [undefined]).map((requests) => ({ requests, report: monthlyCost(requests ? scaleLoad(load, requests) : load, resources, prices.aws, prices) })));
  if (values.json) {
    console.log(JSON.stringify(reports.length === 1 ? reports[0]!.report : reports, null, 2));
    return;
  }
  for (const [i, { requests, report }] of reports.entries()) {
    if (i) console.log("");
    console.log(table(report, requests ? `${file} scaled to ${count(requests)} requests` : file));
  }
}

/** The month at rest for both settings of the upload distribution (infra/upload-service.ts), from the same model and resources as a load. */
function printIdle(): void {
  const [withUploadDistribution, withoutUploadDistribution] = priced("--idle", () => [true, false].map((cloudfront) => monthlyCost(idleLoad(cloudfront), resources, prices.aws, prices)));
  if (values.json) {
    console.log(JSON.stringify({ withUploadDistribution, withoutUploadDistribution }, null, 2));
    return;
  }
  console.log(table(withUploadDistribution!, "at rest, with the upload distribution (-c uploadDistribution=true, the default)"));
  console.log("");
  console.log(table(withoutUploadDistribution!, "at rest, without it (-c uploadDistribution=false)"));
  console.log("");
  console.log(`At rest (USD/month): ${usd(withUploadDistribution!.total)} with the upload distribution, ${usd(withoutUploadDistribution!.total)} without it.`);
}

/** The model's reports, or what is wrong with the load, said as `what: why` (no stack trace). */
function priced<T>(what: string, compute: () => T): T {
  try {
    return compute();
  } catch (error) {
    if (error instanceof CostLoadError) fail(`${what}: ${error.message}`);
    throw error;
  }
}

function count(n: number): string {
  if (n === 0) return "0";
  if (Math.abs(n) >= 100) return Math.round(n).toLocaleString("en-US");
  return Number(n.toPrecision(3)).toLocaleString("en-US", { maximumFractionDigits: 6 });
}

function usd(n: number): string {
  return n.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}

/** The report as a text table: one line per item, a subtotal per service, the total and its fixed part. */
function table(report: CostReport, title: string): string {
  const priceText = (line: CostReport["lines"][number]) =>
    line.price === "model" ? "config/prices.json models" : describePrice((prices.aws.prices as Record<string, AwsPrice>)[line.price]!);
  const rows: string[][] = [];
  const services = [...new Set(report.lines.map((l) => l.service))];
  for (const service of services) {
    const lines = report.lines.filter((l) => l.service === service);
    for (const line of lines) rows.push([service, `${line.item}${line.fixed ? " [fixed]" : ""}`, count(line.quantity), line.unit, priceText(line), usd(line.usd)]);
    if (lines.length > 1) rows.push(["", `${service} subtotal`, "", "", "", usd(lines.reduce((s, l) => s + l.usd, 0))]);
  }
  const header = ["Service", "Item", "Quantity", "Unit", "Price", "USD/month"];
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  const right = new Set([2, 5]);
  const format = (r: string[]) => r.map((cell, c) => (right.has(c) ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!))).join("  ").trimEnd();
  const rule = widths.map((w) => "-".repeat(w)).join("  ");
  const totalWidth = rule.length;
  const summary = (label: string, amount: number) => `${label}${usd(amount).padStart(totalWidth - label.length)}`;
  return [
    `Monthly AWS cost: ${title}`,
    `${count(report.requests)} API requests; ${report.region} list prices of config/prices.json as of ${prices.as_of} (written down, not fetched)`,
    "",
    format(header),
    rule,
    ...rows.map(format),
    rule,
    summary("Total (USD/month)", report.total),
    summary("  of which fixed (paid with no load: [fixed] lines)", report.fixed),
    summary("  per million API requests", report.requests ? (report.total / report.requests) * 1_000_000 : 0),
  ].join("\n");
}
