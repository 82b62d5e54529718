/**
 * `npm run sdk-coverage`: which methods of the installed official SDK have a route, namespace by namespace, and the
 * ones that have none and are not listed in infra/openapi/sdk-gaps.tsv with a reason. `-- --write` brings the
 * README's status column up to date (test/contract/sdk-coverage.test.ts fails while it is not).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { routes } from "../functions/routes.js";
import { ROOT_DIR } from "../infra/local/stack.js";
import { gapLine, parseGaps, sdkMethods, unservedMethods, withSdkStatus } from "../infra/openapi/sdk-methods.js";
import { cliArgs } from "./cli-target.js";

const { values } = cliArgs(
  "Usage: npm run sdk-coverage [-- --write]\n\nPrints, per SDK namespace, how many of its methods have a route, and every method without one that\ninfra/openapi/sdk-gaps.tsv does not list. --write updates the README's status column.",
  { write: { type: "boolean" } },
  false,
);

const methods = sdkMethods(join(ROOT_DIR, "node_modules/@mistralai/mistralai"));
const unserved = unservedMethods(methods, routes);
const listed = new Set(parseGaps(readFileSync(join(ROOT_DIR, "infra/openapi/sdk-gaps.tsv"), "utf8")).map((gap) => gap.name));

const namespaces = [...new Set(methods.map((m) => m.namespace))];
const width = Math.max(...namespaces.map((ns) => ns.length));
for (const ns of namespaces) {
  const all = methods.filter((m) => m.namespace === ns);
  const missing = unserved.filter((m) => m.namespace === ns).length;
  console.log(`${ns.padEnd(width)}  ${String(all.length - missing).padStart(2)} of ${String(all.length).padStart(2)}`);
}
console.log(`SDK methods served: ${methods.length - unserved.length} of ${methods.length}`);
const unlisted = unserved.filter((m) => !listed.has(m.name));
if (unlisted.length) {
  console.log("\nNot served and not in infra/openapi/sdk-gaps.tsv (serve them, or add these lines with a reason):");
  for (const m of unlisted) console.log(gapLine(m, "<why>"));
}
if (values.write) {
  const file = join(ROOT_DIR, "README.md");
  const readme = readFileSync(file, "utf8");
  const updated = withSdkStatus(readme, methods, unserved);
  if (updated !== readme) writeFileSync(file, updated);
  console.log(updated === readme ? "README.md: status column up to date" : "README.md: status column updated");
}
process.exitCode = unlisted.length ? 1 : 0;
