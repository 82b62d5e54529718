/**
 * The monthly AWS cost of a stated load (docs/cost.md, decision 0036):
 *
 *   npm run cost -- --load docs/cost-load.json [--requests 1000000,10000000] [--json]
 *
 * Prices come from config/prices.json (written down with their sources and date, never fetched), the stack's
 * resources from the route and engine tables (infra/cost-resources.ts), the computation from shared/domain/cost.
 */
import { readFileSync } from "node:fs";
import prices from "../config/prices.json" with { type: "json" };
import { stackResources } from "../infra/cost-resources.js";
import { CostLoadError, monthlyCost, scaleLoad, type CostReport } from "../shared/domain/cost/model.js";
import { describePrice, type AwsPrice } from "../shared/domain/cost/prices.js";
import { CostLoad } from "../shared/schemas/cost.js";
import { cliArgs, fail } from "./cli-target.js";

const USAGE = `Usage: npm run cost -- --load FILE [--requests N[,N…]] [--json]

Prints the monthly AWS cost (USD, ${prices.aws.region} list prices of config/prices.json, as of ${prices.as_of}) of the load
in FILE: requests per operation family (an area of the route table, or one route as "METHOD /path"),
tokens per model, storage, batch lines, workflow transitions, schedules, spans, uploads. Memory per
function comes from the route table unless the load overrides it. docs/cost.md describes the format and
every assumption; docs/cost-load.json is a sample.

  --load FILE      the load (JSON)
  --requests N     scale every volume of the load so its requests add up to N (a comma list prints one table each)
  --json           print the report as JSON instead of a table`;

const { values } = cliArgs(USAGE, { load: { type: "string" }, requests: { type: "string" }, json: { type: "boolean", default: false } }, false);
if (!values.load) fail(`Give --load FILE\n\n${USAGE}`);

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

const scales = values.requests?.split(",").map((n) => Number(n.trim().replaceAll("_", "")));
if (scales?.some((n) => !Number.isFinite(n) || n <= 0)) fail(`--requests takes positive numbers (e.g. 1000000 or 1e6,1e7): ${values.requests}`);

const load = readLoad(values.load!);
const resources = stackResources();
let reports: { requests?: number; report: CostReport }[];
try {
  reports = (scales ?? [undefined]).map((requests) => ({ requests, report: monthlyCost(requests ? scaleLoad(load, requests) : load, resources, prices.aws, prices) }));
} catch (error) {
  if (error instanceof CostLoadError) fail(`${values.load}: ${error.message}`);
  throw error;
}

if (values.json) {
  console.log(JSON.stringify(reports.length === 1 ? reports[0]!.report : reports, null, 2));
} else {
  for (const [i, { requests, report }] of reports.entries()) {
    if (i) console.log("");
    console.log(table(report, requests ? `${values.load} scaled to ${count(requests)} requests` : values.load!));
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
