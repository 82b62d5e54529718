/**
 * Model catalog administration, against a deployment's tables or the running local stack:
 *
 *   npm run models -- seed [--catalog config/models.aws.json]
 *   npm run models -- list --workspace WORKSPACE_ID
 *   npm run models -- register --workspace WORKSPACE_ID --id ft:mistral-small-latest:acme:1 --root mistral-small-latest
 *                      [--upstream UPSTREAM_MODEL_ID] [--provider NAME] [--job JOB_ID] [--name N] [--description D]
 *
 * Real tables: set TABLE_MODELS (a DataStack output) and the usual AWS credentials and region.
 * Local: with TABLE_MODELS unset, it uses the stack `npm start` is running (PLATFORM_DATA_DIR/local-stack.json).
 */
import { CLOUD_CATALOG, LOCAL_CATALOG, readCatalog } from "../infra/catalog.js";
import { printTable } from "./cli-output.js";
import { cliArgs, fail, useTablesOrLocalStack } from "./cli-target.js";

const USAGE = `Usage:
  npm run models -- seed [--catalog FILE]
  npm run models -- list --workspace WORKSPACE_ID
  npm run models -- register --workspace WS --id MODEL_ID --root BASE_MODEL [--upstream ID] [--provider NAME] [--job ID] [--name N] [--description D]\n\nAgainst a deployment: set TABLE_MODELS and AWS credentials. Otherwise the stack npm start runs
(PLATFORM_DATA_DIR, default .data).`;

const { positionals, values } = cliArgs(USAGE, {
  catalog: { type: "string" },
  workspace: { type: "string" },
  id: { type: "string" },
  root: { type: "string" },
  upstream: { type: "string" },
  provider: { type: "string" },
  job: { type: "string" },
  name: { type: "string" },
  description: { type: "string" },
});

const [command] = positionals;
if (!command || !["seed", "list", "register"].includes(command)) fail(`${command ? `Unknown command '${command}'.\n\n` : ""}${USAGE}`);
const local = useTablesOrLocalStack("models") === "local";
// Loaded after the environment is settled: the SDK clients are built from it.
const catalogs = await import("../shared/services/models/catalog.js");

switch (command) {
  case "seed": {
    const file = values.catalog ?? (local ? process.env.MODEL_CATALOG || LOCAL_CATALOG : CLOUD_CATALOG);
    const entries = await catalogs.seed(readCatalog(file));
    console.log(`Seeded ${entries.length} base models from ${file}: ${entries.map((e) => e.id).join(", ")}`);
    break;
  }
  case "list": {
    if (!values.workspace) fail("list needs --workspace (fine-tuned models belong to one)");
    const models = await catalogs.list({ workspace: values.workspace } as Parameters<typeof catalogs.list>[0], {});
    printTable(models.map((m) => ({ id: m.id, type: m.type, provider: m.provider, upstream: m.upstream, endpoints: m.endpoints.join(","), archived: m.archived })));
    break;
  }
  case "register": {
    if (!values.workspace || !values.id || !values.root) fail("register needs --workspace, --id and --root");
    const file = values.catalog ?? (local ? process.env.MODEL_CATALOG || LOCAL_CATALOG : CLOUD_CATALOG);
    if (values.provider && !readCatalog(file).providers[values.provider]) fail(`${file} defines no provider '${values.provider}'`);
    const model = await catalogs.registerFineTuned({
      workspace: values.workspace,
      id: values.id,
      root: values.root,
      upstream: values.upstream,
      provider: values.provider,
      job: values.job,
      name: values.name,
      description: values.description,
    });
    console.log(`Registered ${model.id} in workspace ${values.workspace}: served by ${model.provider} as ${model.upstream}`);
    break;
  }
}
