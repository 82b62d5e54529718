/**
 * Every HTTP method of the installed official SDK (`@mistralai/mistralai`), read from its generated sources: the
 * client tree (`src/sdk/*.ts`: a class's getters name its sub-clients, its methods call one `src/funcs/*.ts`
 * each) walked from `Mistral`, and each function's HTTP method and path template. Matched against the route
 * table, this is what `npm run sdk-coverage`, the README's status column and the contract test read.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { RouteRow } from "../../functions/route-row.js";
import { routeMatcher } from "../local/route-matcher.js";

/** One SDK method, e.g. `beta.observability.judges.create` → `POST /v1/observability/judges`. */
export interface SdkMethod {
  /** The client it hangs on, e.g. `beta.observability.judges`. */
  namespace: string;
  /** `namespace.method`. */
  name: string;
  /** The generated function it calls, e.g. `betaObservabilityJudgesCreate`. */
  func: string;
  http: string;
  /** The path template as the SDK has it, its `#stream` style suffix dropped. */
  path: string;
}

interface SdkClass {
  children: Map<string, string>;
  methods: Map<string, string>;
}

function readClasses(sdkDir: string): Map<string, SdkClass> {
  const classes = new Map<string, SdkClass>();
  for (const file of readdirSync(sdkDir).filter((name) => name.endsWith(".ts"))) {
    const source = readFileSync(join(sdkDir, file), "utf8");
    for (const match of source.matchAll(/export class (\w+) extends ClientSDK \{([\s\S]*?)\n\}/g)) {
      const body = match[2]!;
      const children = new Map([...body.matchAll(/\bget (\w+)\(\): (\w+) \{/g)].map((m) => [m[1]!, m[2]!] as const));
      // A method's body calls its generated function first thing: `return unwrapAsync(fn(` or `fn(` for streams.
      const methods = new Map(
        [...body.matchAll(/\n  async (\w+)\([\s\S]*?\n  \): [\s\S]*?\{\s*(?:return unwrap\w*\()?(\w+)\(/g)].map((m) => [m[1]!, m[2]!] as const),
      );
      classes.set(match[1]!, { children, methods });
    }
  }
  return classes;
}

function readFunc(funcsDir: string, func: string): { http: string; path: string } | undefined {
  const file = join(funcsDir, `${func}.ts`);
  if (!existsSync(file)) return undefined;
  const source = readFileSync(file, "utf8");
  const path = /pathToFunc\(\s*"([^"]+)"/.exec(source)?.[1];
  const http = /method: "(\w+)"/.exec(source)?.[1];
  return path && http ? { http, path: path.replace(/#.*$/, "") } : undefined;
}

/** The SDK's HTTP methods, in client-tree order; helpers that make no request (parse, wrappers) are left out. */
export function sdkMethods(sdkRoot: string): SdkMethod[] {
  const classes = readClasses(join(sdkRoot, "src/sdk"));
  const methods: SdkMethod[] = [];
  const walk = (className: string, namespace: string, seen: Set<string>) => {
    const cls = classes.get(className);
    if (!cls || seen.has(className)) return;
    for (const [method, func] of cls.methods) {
      const call = readFunc(join(sdkRoot, "src/funcs"), func);
      if (call) methods.push({ namespace, name: `${namespace}.${method}`, func, ...call });
    }
    for (const [child, childClass] of cls.children) walk(childClass, namespace ? `${namespace}.${child}` : child, new Set([...seen, className]));
  };
  walk("Mistral", "", new Set());
  return methods;
}

/** A path with its parameter names dropped, for matching templates whose names differ. */
const shapeOf = (path: string) => path.replace(/\{[^}]+\}/g, "{}");

/** The scopes an SDK path may spell out where a route takes them as a parameter (the connectors' `{consumer_scope}`). */
const SCOPES = ["organization", "workspace", "user"];

/**
 * The SDK's methods that no row serves: its request (path parameters filled in) goes, through the local API
 * Gateway's resource tree, to no row or to a row of another path — `PUT /v1/workflows/archive` taken by
 * `PUT /v1/workflows/{workflow_identifier}` is a gap, not a match. A scope the SDK spells out where a row takes it as
 * a parameter (the connectors' `{consumer_scope}`) is served.
 */
export function unservedMethods(methods: readonly SdkMethod[], routes: readonly RouteRow[]): SdkMethod[] {
  const match = routeMatcher(routes);
  return methods.filter((m) => {
    const sample = m.path.replace(/\{[^}]+\}/g, (_, i: number) => `sdk-sample-${i}`);
    const hit = match(m.http, sample);
    if (!hit.row) return true;
    const want = shapeOf(m.path);
    return shapeOf(hit.row.path) !== want && !SCOPES.some((scope) => shapeOf(hit.row!.path) === want.replace(`/${scope}/`, "/{}/"));
  });
}

/** An intended gap: an SDK method this deployment does not serve, and why (infra/openapi/sdk-gaps.tsv). */
export interface SdkGap {
  name: string;
  call: string;
  reason: string;
}

export function parseGaps(text: string): SdkGap[] {
  return text
    .split("\n")
    .filter((line) => line.trim() && !line.startsWith("#"))
    .map((line) => {
      const [name = "", call = "", reason = ""] = line.split("\t");
      return { name, call, reason };
    });
}

export const gapLine = (m: SdkMethod, reason: string) => `${m.name}\t${m.http} ${m.path}\t${reason}`;

/**
 * The README's status table with each row's status word made from the SDK's methods: `served` when every method
 * under the namespaces the row's SDK cell names (a name and everything below it; `.runs` continues the name before
 * it) has a route, `not served` when none has, else `N of M SDK methods served`. What follows the word (a note in
 * parentheses) is kept; rows without an SDK namespace (`—`) are left as written.
 */
export function withSdkStatus(readme: string, methods: readonly SdkMethod[], unserved: readonly SdkMethod[]): string {
  const missing = new Set(unserved.map((m) => m.name));
  return readme.replace(/^\| ([^|\n]+) \| ([^|\n]+) \| ([^|\n]+) \|$/gm, (line, group: string, sdk: string, status: string) => {
    const listed = [...sdk.matchAll(/`([\w.]+)`/g)].map((m) => m[1]!);
    if (!listed.length) return line;
    let root = "";
    const namespaces = listed.map((name) => {
      if (!name.startsWith(".")) root = name.split(".")[0]!;
      return name.startsWith(".") ? `${root}${name}` : name;
    });
    const under = methods.filter((m) => namespaces.some((ns) => m.namespace === ns || m.namespace.startsWith(`${ns}.`)));
    if (!under.length) return line;
    const served = under.filter((m) => !missing.has(m.name)).length;
    const word = served === under.length ? "served" : served === 0 ? "not served" : `${served} of ${under.length} SDK methods served`;
    const rest = status.replace(/^(served|not served|\d+ of \d+ SDK methods served)/, "");
    return `| ${group} | ${sdk} | ${word}${rest} |`;
  });
}
