/**
 * Usage reports and spend limits, against the tables of a deployment or of the running local stack:
 *
 *   npm run usage -- report --workspace WS [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--by day,model,key]
 *   npm run usage -- set-limit --org ORG --workspace WS (--value 25 [--currency USD] | --none) [--soft 20]
 *
 * Real tables: set TABLE_USAGE and TABLE_TENANCY (DataStack outputs) and the usual AWS credentials and region.
 * Local: with them unset, it uses the stack `npm start` is running (PLATFORM_DATA_DIR/local-stack.json).
 */
import { printTable } from "./cli-output.js";
import { cliArgs, fail, useTablesOrLocalStack } from "./cli-target.js";

const USAGE = `Usage:
  npm run usage -- report --workspace WS [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--by day,model,key]
  npm run usage -- set-limit --org ORG --workspace WS (--value 25 [--currency USD] | --none) [--soft 20]\n\nAgainst a deployment: set TABLE_USAGE, TABLE_TENANCY (and TABLE_AUDIT for set-limit) and AWS credentials. Otherwise the stack npm start runs
(PLATFORM_DATA_DIR, default .data).`;

const { positionals, values } = cliArgs(USAGE, {
  org: { type: "string" },
  workspace: { type: "string" },
  from: { type: "string" },
  to: { type: "string" },
  by: { type: "string", default: "day,model" },
  value: { type: "string" },
  currency: { type: "string", default: "USD" },
  none: { type: "boolean", default: false },
  soft: { type: "string" },
});

const [command] = positionals;
if (!command || !["report", "set-limit"].includes(command)) fail(`${command ? `Unknown command '${command}'.\n\n` : ""}${USAGE}`);
if (!values.workspace) fail(`${command} needs --workspace\n\n${USAGE}`);
useTablesOrLocalStack(command === "report" ? "usage" : "tenancy", { audited: command !== "report" });

const { usageReport, setSpendLimit } = await import("../shared/services/usage/report.js");
const { UsageReportQuery, SpendLimitIn } = await import("../shared/schemas/usage.js");

if (command === "report") {
  const query = UsageReportQuery.safeParse({ from: values.from, to: values.to, group_by: values.by });
  if (!query.success) fail(`${USAGE}\n\n${query.error.issues.map((i) => i.message).join("; ")}`);
  // The soft-limit flag needs the workspace's record: only with --org (and the tenancy table).
  const report = await usageReport({ organization: values.org ?? "", workspace: values.workspace! }, { from: query.data.from, to: query.data.to, groupBy: query.data.group_by });
  console.log(`Workspace ${report.workspace_id}, ${report.from} to ${report.to} (${report.currency}, prices as of ${report.prices_as_of})`);
  // Only the columns the report is grouped by: `--by model` has no day or key to show.
  const groups = query.data.group_by.map((g) => (g === "key" ? "key_id" : g));
  printTable(report.data, [...groups, "requests", "prompt_tokens", "completion_tokens", "cost"]);
  console.log(`Total: ${report.total.requests} requests, ${report.total.prompt_tokens} + ${report.total.completion_tokens} tokens, ${report.total.cost} ${report.currency}`);
  if (report.soft_limit_reached) console.log("This month's spend has reached the workspace's soft limit.");
} else {
  if (!values.org || (values.none === (values.value !== undefined))) fail(USAGE);
  const soft = values.soft !== undefined ? { soft_limit: Number(values.soft) } : {};
  const input = SpendLimitIn.safeParse(values.none ? { no_monthly_limit: true, ...soft } : { value: Number(values.value), currency: values.currency, ...soft });
  if (!input.success) fail(`${USAGE}\n\n${input.error.issues.map((i) => i.message).join("; ")}`);
  console.log(JSON.stringify(await setSpendLimit(values.org!, values.workspace!, input.data)));
}
