/** `npm run cost` (scripts/cost.ts) on small load files: its table, --help, --json, --requests, and what it says about bad input. */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const ROOT_DIR = fileURLToPath(new URL("../../..", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "cost-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cost(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ["--import", "tsx", "scripts/cost.ts", ...args], { cwd: ROOT_DIR });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

function loadFile(name: string, content: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
  return file;
}

/** 1M inference requests of 1 s on the route table's 1024 MB, no CloudFront; 2M + 1M mistral-small tokens. */
const small = loadFile("small.json", {
  requests: { inference: { requests: 1_000_000, avg_ms: 1000 } },
  models: { "mistral-small-latest": { input_tokens: 2_000_000, output_tokens: 1_000_000 } },
  cloudfront: false,
});

const row = (stdout: string, item: string) => stdout.split("\n").find((l) => l.includes(item)) ?? "";

describe("npm run cost", () => {
  it("prints the month's cost of a small load as a table: route-table memory, list prices, a total", async () => {
    const { code, stdout } = await cost("--load", small);
    expect(code).toBe(0);
    expect(stdout).toContain("1,000,000 API requests; us-east-1 list prices of config/prices.json as of");
    expect(stdout).toMatch(/Service\s+Item\s+Quantity\s+Unit\s+Price\s+USD\/month/);
    // 1M × 1 s × 1 GB (inference rows are 1024 MB) at $0.0000133334 per GB-second
    expect(row(stdout, "inference requests")).toMatch(/inference requests \(1024 MB\)\s+1,000,000\s+GB-second\s+.*\s13\.33$/);
    expect(row(stdout, "REST API requests")).toMatch(/1,000,000\s+request\s+\$3\.5 \/ 1M request \(tiered\)\s+3\.50$/);
    // $0.10 × 2 + $0.30 × 1 per million tokens
    expect(row(stdout, "mistral-small-latest")).toMatch(/3,000,000\s+token\s+config\/prices\.json models\s+0\.50$/);
    expect(row(stdout, "workflow scheduleSweep every 1 min")).toContain("[fixed]");
    expect(stdout).not.toContain("CloudFront");

    const json = await cost("--load", small, "--json");
    const report = JSON.parse(json.stdout) as { total: number; fixed: number; lines: { usd: number }[] };
    expect(report.total).toBeCloseTo(report.lines.reduce((s, l) => s + l.usd, 0), 9);
    const total = report.total.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    expect(row(stdout, "Total (USD/month)")).toMatch(new RegExp(`\\s${total.replace(".", "\\.")}$`));
    expect(row(stdout, "of which fixed")).toContain(report.fixed.toFixed(2));
  });

  it("prints one table per request count with --requests, scaling the load", async () => {
    const { code, stdout } = await cost("--load", small, "--requests", "1e6,1e7");
    expect(code).toBe(0);
    expect(stdout).toContain(`Monthly AWS cost: ${small} scaled to 1,000,000 requests`);
    expect(stdout).toContain(`Monthly AWS cost: ${small} scaled to 10,000,000 requests`);
    expect(stdout.split("\n").filter((l) => l.includes("REST API requests")).map((l) => l.trim().split(/\s+/).at(-1))).toEqual(["3.50", "35.00"]);
  });

  it("prints for the sample load what docs/cost.md shows at 1M, 10M and 100M requests", async () => {
    const { code, stdout } = await cost("--load", "docs/cost-load.json", "--requests", "1000000,10000000,100000000");
    expect(code).toBe(0);
    const doc = readFileSync(join(ROOT_DIR, "docs/cost.md"), "utf8");
    const tables = stdout.trimEnd().split(/\n\n(?=Monthly AWS cost)/);
    expect(tables).toHaveLength(3);
    // Regenerate the doc's tables with the command above when prices, the sample or the stacks change.
    for (const table of tables) expect(doc).toContain(`\`\`\`text\n${table}\n\`\`\``);
  });

  it("prints the month at rest with --idle: one table with the upload distribution, one without, and both totals", async () => {
    const { code, stdout } = await cost("--idle");
    expect(code).toBe(0);
    expect(stdout).toContain("Monthly AWS cost: at rest, with the upload distribution (-c uploadDistribution=true, the default)\n0 API requests;");
    expect(stdout).toContain("Monthly AWS cost: at rest, without it (-c uploadDistribution=false)\n0 API requests;");
    const tables = stdout.trimEnd().split(/\n\n(?=Monthly AWS cost|At rest)/);
    expect(tables).toHaveLength(3);
    expect(tables[0]).toContain("Upload service");
    expect(tables[1]).not.toMatch(/Upload service|CloudFront/);
    expect(row(stdout, "dashboards")).toContain("$3 / dashboard-month after 3 free");
    const totals = tables.slice(0, 2).map((table) => row(table, "Total (USD/month)").trim().split(/\s+/).at(-1));
    expect(tables[2]).toBe(`At rest (USD/month): ${totals[0]} with the upload distribution, ${totals[1]} without it.`);
  });

  it("prints its usage with --help", async () => {
    const { code, stdout } = await cost("--help");
    expect(code).toBe(0);
    expect(stdout).toContain("Usage: npm run cost -- --load FILE");
    expect(stdout).toContain("--requests N");
    expect(stdout).toContain("npm run cost -- --idle [--json]");
  });

  it("says what is wrong with bad input and exits non-zero: no --load, a missing file, invalid JSON, a bad field, an unknown family or model", async () => {
    const cases: [string[], RegExp][] = [
      [[], /Give --load FILE \(or --idle\)/],
      [["--idle", "--load", small], /--idle and --load exclude each other/],
      [["--load", join(dir, "missing.json")], /Cannot read the load file .*missing\.json: ENOENT/],
      [["--load", loadFile("broken.json", "{ requests: ")], /broken\.json is not valid JSON/],
      [["--load", loadFile("negative.json", { requests: { files: { requests: -1 } } })], /requests\.files\.requests: Too small/],
      [["--load", loadFile("typo.json", { requests: {}, storage: { s3_gigabytes: 1 } })], /storage: Unrecognized key: "s3_gigabytes"/],
      [["--load", loadFile("family.json", { requests: { telepathy: { requests: 1 } } })], /Unknown family "telepathy": use an area of the route table \(admin, agents, .*files.*\) or one route as "METHOD \/path"/],
      [["--load", loadFile("model.json", { requests: {}, models: { "gpt-9": { input_tokens: 1 } } })], /"gpt-9" has no price in config\/prices\.json/],
      [["--load", small, "--requests", "lots"], /--requests takes positive numbers/],
      [["--load", small, "--bogus"], /Unknown option '--bogus'/],
    ];
    for (const [args, message] of cases) {
      const { code, stdout, stderr } = await cost(...args);
      expect(code, args.join(" ")).toBe(2);
      expect(stderr, args.join(" ")).toMatch(message);
      expect(stderr, args.join(" ")).not.toMatch(/at .*\.ts:\d+/);
      expect(stdout).toBe("");
    }
  });
});
