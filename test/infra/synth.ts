import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type * as cdk from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import { expect, inject } from "vitest";
import { buildApp, type BuildOptions } from "../../infra/app.js";
import { buildHandlers, DIST } from "../../infra/build.js";
import { ROUTE_KEY_ENV } from "../../shared/http/policy.js";
import { tableEnvVar, type TableName } from "../../shared/store/tables.js";
import { withLock } from "../support/file-lock.js";
import { synthRoot } from "../support/synth-root.js";

export type Json = Record<string, any>;

let bundled: Promise<unknown> | undefined;

/**
 * The handlers bundled into dist/ once per test run, not once per file: the files of test/infra run in parallel
 * workers, and each bundling the same dist/ would cost a full esbuild pass apiece and could let one file's
 * synth hash a bundle another file is rewriting. The first file bundles under a lock and stamps dist/ with the
 * run's id; the others wait for the lock and find the stamp.
 */
async function bundleOncePerRun(): Promise<void> {
  mkdirSync(DIST, { recursive: true });
  const stamp = join(DIST, ".bundled-for-test-run");
  const run = inject("runId");
  await withLock(join(DIST, ".bundling.lock"), async () => {
    if (existsSync(stamp) && readFileSync(stamp, "utf8") === run) return;
    await buildHandlers();
    writeFileSync(stamp, run);
  });
}

/**
 * Bundles the handlers once per test run (CDK ships dist/<handler>), then builds and synthesizes the app
 * as `cdk synth` does: cdk-nag always runs; `validate: false` skips only CDK's built-in CloudFormation
 * validator, which costs seconds and is asserted once, in api.synth.ts.
 */
export function synth(options: BuildOptions & { validate?: boolean } = {}): ReturnType<typeof synthesize> {
  // Synthetic route rows are each test's own; the app of THE route table is the same for every file that asks.
  if (options.routes || options.outdir) return synthesize(options);
  const key = JSON.stringify([options.validate ?? true, options.context ?? {}]);
  let synthesized = synthesizedApps.get(key);
  if (!synthesized) {
    synthesized = synthesize(options);
    synthesizedApps.set(key, synthesized);
    // A refused context (a test of the refusal) is not kept: the next caller gets the refusal afresh.
    synthesized.catch(() => synthesizedApps.delete(key));
  }
  return synthesized;
}

/**
 * The apps synthesized so far in this worker, by options. The files of test/infra run without isolation
 * (vitest.config.ts, project `synth`), so each worker synthesizes the whole app once for all the files it runs
 * instead of once per file: ~20 s of CPU a file on two cores. Tests read the templates; none changes the app.
 */
const synthesizedApps = new Map<string, ReturnType<typeof synthesize>>();

async function synthesize(options: BuildOptions & { validate?: boolean }) {
  await (bundled ??= bundleOncePerRun());
  const { validate = true, ...build } = options;
  // Under the run's folder, which the run's teardown removes: CDK's default is a new folder in the OS's temp
  // directory that nothing removes, each holding a copy of every bundle (~200 MB).
  const root = synthRoot(inject("runId"));
  mkdirSync(root, { recursive: true });
  const built = buildApp({
    ...build,
    outdir: build.outdir ?? mkdtempSync(join(root, "cdk.out-")),
    // As in cdk.json; findings land in the report (asserted in api.synth.ts) instead of throwing mid-synth.
    context: { "@aws-cdk/core:validateAgainstDefaultRules": true, "@aws-cdk/core:failSynthOnValidationErrors": false, ...build.context },
  });
  const before = process.env.CDK_VALIDATION;
  if (!validate) process.env.CDK_VALIDATION = "false";
  const assembly = built.app.synth();
  if (before === undefined) delete process.env.CDK_VALIDATION;
  else process.env.CDK_VALIDATION = before;
  const templates = new Map<cdk.Stack, Json>();
  const template = (stack: cdk.Stack): Json => {
    if (!templates.has(stack)) templates.set(stack, Template.fromStack(stack).toJSON());
    return templates.get(stack)!;
  };
  return {
    ...built,
    assembly,
    template,
    /** Every stack that becomes a CloudFormation template: the two top-level stacks, the area, engine, workflow engine, periodic and monitoring nested stacks, the upload service's. */
    stacks: [built.data, built.api, ...built.api.areas, ...built.api.engines, built.api.workflowEngine, built.api.periodic, built.monitoring, ...(built.uploads ? [built.uploads, built.uploads.service] : [])] as cdk.Stack[],
    validationReport: () => JSON.parse(readFileSync(join(assembly.directory, "validation-report.json"), "utf8")) as Json,
  };
}

export type Synth = Awaited<ReturnType<typeof synthesize>>;

/** The data stack's table `name`, found by the stack output that names its environment variable. */
export function tableOf(s: Synth, name: TableName): Json {
  const data = s.template(s.data);
  const output = Object.values(data.Outputs as Record<string, Json>).find((o) => o.Description === tableEnvVar(name))!;
  return data.Resources[output.Value.Ref];
}

/** Asserts a table keyed by workspace and `sk`, with one local index (all attributes) on `indexKey`, on demand and recoverable. */
export function expectWorkspaceTable(table: Json, index: string, indexKey: string): void {
  expect(table.Properties.KeySchema).toEqual([
    { AttributeName: "workspace", KeyType: "HASH" },
    { AttributeName: "sk", KeyType: "RANGE" },
  ]);
  expect(table.Properties.LocalSecondaryIndexes).toEqual([
    { IndexName: index, KeySchema: [{ AttributeName: "workspace", KeyType: "HASH" }, { AttributeName: indexKey, KeyType: "RANGE" }], Projection: { ProjectionType: "ALL" } },
  ]);
  expect(table.Properties.BillingMode).toBe("PAY_PER_REQUEST");
  expect(table.Properties.PointInTimeRecoverySpecification ?? table.Properties.PointInTimeRecoveryEnabled).toBeTruthy();
}

export const resourcesOf = (template: Json, type: string): [string, Json][] =>
  Object.entries(template.Resources as Json).filter(([, r]) => r.Type === type);

/** Where a template's Refs point: its own resources, or (for a nested stack) the parent's value for a parameter. */
interface Scope {
  template: Json;
  parameters?: Json;
  parent?: Scope;
}

export function scopeOf(s: Synth, stack: cdk.Stack): Scope {
  const parentStack = stack.nestedStackParent;
  if (!parentStack) return { template: s.template(stack) };
  const parent = scopeOf(s, parentStack);
  const logicalId = parentStack.getLogicalId(stack.nestedStackResource as cdk.CfnElement);
  return { template: s.template(stack), parameters: parent.template.Resources[logicalId].Properties.Parameters, parent };
}

/** Follows a Ref through nested-stack parameters to the resource it names, and the scope that holds it. */
export function deref(value: Json, scope: Scope): { id: string; resource?: Json; scope: Scope; value: Json } {
  const name: string | undefined = value.Ref;
  if (name && scope.template.Resources[name]) return { id: name, resource: scope.template.Resources[name], scope, value };
  if (name && scope.parameters?.[name] !== undefined) return deref(scope.parameters[name], scope.parent!);
  return { id: name ?? "", scope, value };
}

/** The full path of an API Gateway resource id, resolved across nested-stack boundaries. */
export function resourcePath(value: Json, scope: Scope): string {
  const target = deref(value, scope);
  if (target.value["Fn::GetAtt"]?.[1] === "RootResourceId") return "";
  if (target.resource?.Type !== "AWS::ApiGateway::Resource") throw new Error(`Not a resource: ${JSON.stringify(value)}`);
  return `${resourcePath(target.resource.Properties.ParentId, target.scope)}/${target.resource.Properties.PathPart}`;
}

export interface SynthMethod {
  /** A route's method: its row's "METHOD path" (its function's ROUTE_KEY); a mock's: "METHOD <resource path>". */
  key: string;
  /** The resource it sits on, as API Gateway serves it: the full path, one variable name per level (decision 0032). */
  resource: string;
  stack: cdk.Stack;
  method: Json;
  scope: Scope;
  /** Logical id of the function the integration invokes, in the method's own template. */
  functionId: string;
}

/** Every API Gateway method of the app: the routes' (Lambda) and the mocks' (405, CORS preflights). */
export function allMethodsOf(s: Synth): SynthMethod[] {
  return s.stacks
    .filter((stack) => stack !== s.data)
    .flatMap((stack) => {
      const scope = scopeOf(s, stack);
      return resourcesOf(scope.template, "AWS::ApiGateway::Method").map(([, method]) => {
        const uriParts: Json[] = method.Properties.Integration?.Uri?.["Fn::Join"]?.[1] ?? [];
        const functionId = uriParts.find((p) => p["Fn::GetAtt"]?.[1] === "Arn")?.["Fn::GetAtt"][0];
        const resource = resourcePath(method.Properties.ResourceId, scope);
        const routeKey: string | undefined = functionId ? scope.template.Resources[functionId]?.Properties.Environment?.Variables?.[ROUTE_KEY_ENV] : undefined;
        return { key: routeKey ?? `${method.Properties.HttpMethod} ${resource}`, resource, stack, method, scope, functionId };
      });
    });
}

/** Every API Gateway resource of the app, by its full path (across the nested stacks), with its path part. */
export function allResourcesOf(s: Synth): { path: string; parent: string; pathPart: string }[] {
  return s.stacks
    .filter((stack) => stack !== s.data)
    .flatMap((stack) => {
      const scope = scopeOf(s, stack);
      return resourcesOf(scope.template, "AWS::ApiGateway::Resource").map(([, resource]) => {
        const parent = resourcePath(resource.Properties.ParentId, scope);
        return { path: `${parent}/${resource.Properties.PathPart}`, parent, pathPart: resource.Properties.PathPart as string };
      });
    });
}

/** The routes' methods: those backed by a function. */
export const methodsOf = (s: Synth): SynthMethod[] => allMethodsOf(s).filter((m) => m.method.Properties.Integration?.Type !== "MOCK");

/** Allow statements of every identity and resource policy in a template. */
export function allowStatements(template: Json): { where: string; statement: Json }[] {
  const documents: [string, Json][] = Object.entries(template.Resources as Json).flatMap(([id, r]): [string, Json][] => {
    if (r.Type === "AWS::IAM::Role") return (r.Properties.Policies ?? []).map((p: Json) => [id, p.PolicyDocument]);
    if (["AWS::IAM::Policy", "AWS::IAM::ManagedPolicy", "AWS::S3::BucketPolicy"].includes(r.Type)) return [[id, r.Properties.PolicyDocument]];
    return [];
  });
  return documents.flatMap(([where, doc]) =>
    (doc.Statement as Json[]).filter((statement) => statement.Effect === "Allow").map((statement) => ({ where, statement })),
  );
}

export const list = <T>(value: T | T[] | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

// Written out here, not imported from infra/grants.ts, so that widening a grant there fails the tests that use them.
export const TABLE_READ = ["dynamodb:BatchGetItem", "dynamodb:ConditionCheckItem", "dynamodb:GetItem", "dynamodb:Query"];
export const TABLE_WRITE = ["dynamodb:BatchWriteItem", "dynamodb:ConditionCheckItem", "dynamodb:DeleteItem", "dynamodb:PutItem", "dynamodb:UpdateItem"];

/** The statements of the role behind the function of a route ("METHOD path"). */
export function routeRoleStatements(s: Synth, key: string): Json[] {
  const m = methodsOf(s).find((x) => x.key === key)!;
  const fn = m.scope.template.Resources[m.functionId];
  const role = m.scope.template.Resources[fn.Properties.Role["Fn::GetAtt"][0]];
  return role.Properties.Policies.flatMap((p: Json) => p.PolicyDocument.Statement);
}

/** What a statement's resource names: its Ref, or the Ref its Fn::Join starts with. */
export const refName = (resource: Json): string | undefined => resource.Ref ?? resource["Fn::Join"]?.[1]?.[0]?.Ref;

/** The distinct actions of some statements, sorted. */
export const actionsOf = (statements: Json[]): string[] => [...new Set(statements.flatMap((st) => list<string>(st.Action)))].toSorted();

/**
 * The logical id prefix of CDK's singleton AwsCustomResource function (custom-resources/aws-custom-resource; the
 * upload stack's prefix-list lookup): it runs once per deploy, CDK's and not one of ours to size or trace.
 */
export const AWS_CUSTOM_RESOURCE_PROVIDER = "AWS679f53fac002430cb0da5b7982bd2287";
/** The logical id prefix of CDK's BucketDeployment function (the upload stack's console assets, infra/console-assets.ts): deploy time only, CDK's too. */
export const BUCKET_DEPLOYMENT_PROVIDER = "CustomCDKBucketDeployment8693BB64968944B69AAFB0CC9EB8756C";
/** Whether a function's logical id is one of CDK's deploy-time providers above, not one of ours. */
export const isCdkProvider = (id: string): boolean => [AWS_CUSTOM_RESOURCE_PROVIDER, BUCKET_DEPLOYMENT_PROVIDER].some((prefix) => id.startsWith(prefix));
