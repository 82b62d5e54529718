/**
 * Vendors the parts of Mistral's OpenAPI document that the reference test compares with ours
 * (test/contract/openapi.test.ts): for each operation of infra/openapi/operations.tsv, its operationId,
 * summary, deprecation, required parameters, required request-body fields and success codes; and the same for
 * our rows outside the spec that Mistral's document has (their operation ids and summaries name ours too).
 * Run when the spec or Mistral's document changes:
 *   npx tsx scripts/vendor-mistral-openapi.ts <path to mistral-openapi.yaml>
 */
import { readFileSync, writeFileSync } from "node:fs";
import { parse } from "yaml";
import { routes } from "../functions/routes.js";
import { MISTRAL_REFERENCE_FILE, specOperations, type MistralOperation } from "../infra/openapi/reference.js";

type Json = any;

const source = process.argv[2];
if (!source) {
  console.error("usage: npx tsx scripts/vendor-mistral-openapi.ts <mistral-openapi.yaml>");
  process.exit(2);
}
const doc: Json = parse(readFileSync(source, "utf8"), { maxAliasCount: -1 });

const resolve = (node: Json): Json => {
  let current = node;
  for (let hops = 0; current?.$ref && hops < 20; hops += 1) {
    current = (current.$ref as string).replace(/^#\//, "").split("/").reduce((at: Json, key: string) => at?.[key.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
  }
  return current;
};

/** The fields a body must carry: `required` of the schema, through $ref and allOf. */
function requiredFields(schema: Json): string[] {
  const s = resolve(schema);
  if (!s) return [];
  const own: string[] = s.required ?? [];
  const inherited = (s.allOf ?? []).flatMap(requiredFields);
  return [...new Set([...own, ...inherited])].sort();
}

const operations: Record<string, MistralOperation> = {};
const wanted = [...specOperations(), ...routes.filter((row) => !specOperations().some((op) => op.method === row.method && op.path === row.path))];
for (const { method, path } of wanted) {
  const op = doc.paths?.[path]?.[method.toLowerCase()];
  if (!op) continue;
  const parameters = [...(doc.paths[path].parameters ?? []), ...(op.parameters ?? [])].map(resolve);
  const body = op.requestBody ? resolve(op.requestBody) : undefined;
  const contentTypes = Object.keys(body?.content ?? {});
  const bodySchema = body?.content?.[contentTypes[0] ?? ""]?.schema;
  const success = Object.keys(op.responses ?? {}).filter((code) => /^[23]\d\d$/.test(code));
  operations[`${method} ${path}`] = {
    operationId: op.operationId,
    ...(op.summary ? { summary: op.summary } : {}),
    ...(op.deprecated ? { deprecated: true } : {}),
    tags: op.tags ?? [],
    requiredParameters: parameters.filter((p: Json) => p.required && p.in !== "header").map((p: Json) => `${p.in}:${p.name}`).sort(),
    ...(body ? { body: { required: Boolean(body.required), contentTypes, requiredFields: requiredFields(bodySchema) } } : {}),
    successCodes: success.map(Number),
    successContentTypes: Object.fromEntries(success.map((code) => [code, Object.keys(resolve(op.responses[code])?.content ?? {})])),
  };
}
writeFileSync(MISTRAL_REFERENCE_FILE, `${JSON.stringify({ source: "Mistral AI API OpenAPI (mistral-openapi.yaml): the operations of operations.tsv and our extension rows it has", version: doc.info?.version, operations }, null, 2)}\n`);
console.log(`${Object.keys(operations).length} of ${wanted.length} operations (the spec's and our other rows') vendored into ${MISTRAL_REFERENCE_FILE}`);
