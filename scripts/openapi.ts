/**
 * The OpenAPI document from the route table (what the build ships and GET /openapi.json serves):
 *   npm run openapi                  the document on stdout
 *   npm run openapi -- --differences how the served spec operations differ from Mistral's document (lines for
 *                                    infra/openapi/differences.tsv, with a reason), and the ones not served yet
 */
import "./cli-output.js";
import { compareWithMistral, differenceLine } from "../infra/openapi/compare.js";
import { openApiDocument } from "../infra/openapi/document.js";
import { intendedDifferences, mistralReference } from "../infra/openapi/reference.js";

const args = process.argv.slice(2);
if (args.includes("--help") || args.some((a) => a !== "--differences")) {
  console.log("usage: npm run openapi [-- --differences]");
  process.exit(args.includes("--help") ? 0 : 2);
}
const document = await openApiDocument();
if (!args.includes("--differences")) {
  console.log(JSON.stringify(document, null, 2));
} else {
  const { served, notServed, differences } = compareWithMistral(document, mistralReference());
  const listed = new Set(intendedDifferences().map((d) => `${d.key}\t${d.kind}\t${d.detail}`));
  console.log(`# ${served.length} spec operations served, ${notServed.length} not served yet`);
  for (const d of differences) console.log(`${differenceLine(d)}${listed.has(differenceLine(d)) ? "" : "\t<not listed: say why, or match Mistral>"}`);
  for (const key of notServed) console.log(`# not served yet: ${key}`);
}
