/**
 * Our document against Mistral's, for the spec's operations we serve: same path and method, same required
 * parameters and body fields, the success code the SDK expects and its media types. What differs on purpose is listed in
 * differences.tsv; spec operations not served yet are reported, not compared.
 */
import { specOperations, type Difference, type MistralOperation } from "./reference.js";

type Json = Record<string, any>;

export type Found = Omit<Difference, "reason">;

const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** Every operation of a document, as "METHOD path". */
export const operationsOf = (document: Json): string[] =>
  Object.entries(document.paths as Record<string, Json>).flatMap(([path, item]) => Object.keys(item).filter((m) => HTTP_METHODS.includes(m)).map((m) => `${m.toUpperCase()} ${path}`));

const list = (values: string[]) => (values.length ? values.join(",") : "-");

function resolve(document: Json, node: Json | undefined): Json | undefined {
  let current = node;
  for (let hops = 0; current?.$ref && hops < 20; hops += 1) current = (current.$ref as string).replace(/^#\//, "").split("/").reduce((at: Json, k: string) => at?.[k], document);
  return current;
}

function requiredFields(document: Json, schema: Json | undefined): string[] {
  const s = resolve(document, schema);
  if (!s) return [];
  return [...new Set([...(s.required ?? []), ...(s.allOf ?? []).flatMap((part: Json) => requiredFields(document, part))])].sort() as string[];
}

/** How one of our operations differs from Mistral's. */
function compareOperation(document: Json, key: string, ours: Json, theirs: MistralOperation): Found[] {
  const found: Found[] = [];
  const parameters = ((ours.parameters ?? []) as Json[]).filter((p) => p.required && p.in !== "header").map((p) => `${p.in}:${p.name}`).sort();
  if (list(parameters) !== list(theirs.requiredParameters)) found.push({ key, kind: "required-parameters", detail: `ours=${list(parameters)} mistral=${list(theirs.requiredParameters)}` });

  const body = resolve(document, ours.requestBody);
  const contentType = Object.keys(body?.content ?? {})[0];
  const fields = body ? requiredFields(document, body.content[contentType!]?.schema) : [];
  const theirFields = theirs.body?.requiredFields ?? [];
  if (Boolean(body) !== Boolean(theirs.body) || (body && body.required !== theirs.body?.required)) {
    found.push({ key, kind: "body", detail: `ours=${body ? (body.required ? "required" : "optional") : "none"} mistral=${theirs.body ? (theirs.body.required ? "required" : "optional") : "none"}` });
  }
  if (list(fields) !== list(theirFields)) found.push({ key, kind: "required-body-fields", detail: `ours=${list(fields)} mistral=${list(theirFields)}` });
  if (body && theirs.body && !theirs.body.contentTypes.includes(contentType!)) found.push({ key, kind: "body-content-type", detail: `ours=${contentType} mistral=${list(theirs.body.contentTypes)}` });

  const codes = Object.keys(ours.responses ?? {}).filter((c) => /^[23]\d\d$/.test(c));
  if (list(codes) !== list(theirs.successCodes.map(String))) found.push({ key, kind: "success-code", detail: `ours=${list(codes)} mistral=${list(theirs.successCodes.map(String))}` });
  // Where both answer a code, ours offers every media type Mistral's does (JSON, events, bytes).
  for (const code of codes.filter((c) => theirs.successContentTypes[c])) {
    const media = Object.keys(resolve(document, ours.responses[code])?.content ?? {});
    const missing = theirs.successContentTypes[code]!.filter((type) => !media.includes(type));
    if (missing.length) found.push({ key, kind: "success-media", detail: `${code} ours=${list(media.toSorted())} mistral=${list(theirs.successContentTypes[code]!.toSorted())}` });
  }
  return found;
}

export interface Comparison {
  /** Spec operations the route table serves. */
  served: string[];
  /** Spec operations no row serves yet: reported, not compared. */
  notServed: string[];
  /** Every way a served spec operation differs from Mistral's. */
  differences: Found[];
}

export function compareWithMistral(document: Json, reference: Record<string, MistralOperation>): Comparison {
  const ours = new Set(operationsOf(document));
  const spec = specOperations().map((op) => `${op.method} ${op.path}`);
  const served = spec.filter((key) => ours.has(key));
  const differences = served.flatMap((key): Found[] => {
    const theirs = reference[key];
    if (!theirs) return [{ key, kind: "not-in-mistral", detail: "-" }];
    const [method, path] = key.split(" ") as [string, string];
    return compareOperation(document, key, document.paths[path][method.toLowerCase()], theirs);
  });
  return { served, notServed: spec.filter((key) => !ours.has(key)), differences };
}

export const differenceLine = (d: Found) => `${d.key}\t${d.kind}\t${d.detail}`;
