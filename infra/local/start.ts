import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { resolve } from "node:path";
import "./env.js";
import { corsOrigins } from "../../shared/http/cors.js";
import { BUNDLED_NODE_MAJOR, bundledRequested, NODE22 } from "./bundled-node.js";
import { JAVA_MISSING } from "./dynamodb.js";
import { DataDirLocked } from "./lock.js";
import { assertPortFree } from "./net.js";
import { loopbackWarning } from "./outbound-env.js";
import { startLocalStack } from "./stack.js";

const port = Number(process.env.PORT ?? 8080);
const host = process.env.HOST || "127.0.0.1";
const dataDir = resolve(process.env.PLATFORM_DATA_DIR ?? ".data");
const accessLog = !/^(0|off|false|no)$/i.test(process.env.ACCESS_LOG ?? "on");
const parent = process.ppid;
const bundled = bundledRequested();

// The bundles run on the Lambda runtime's Node: this same program again on Node 22 (the `node` devDependency),
// signals passed on, its exit code ours.
if (bundled && Number(process.versions.node.split(".")[0]) !== BUNDLED_NODE_MAJOR) {
  const child = spawn(NODE22, ["--import", "tsx", import.meta.filename, ...process.argv.slice(2)], { stdio: "inherit", env: { ...process.env, PLATFORM_BUNDLED: "1" } });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => child.kill(signal));
  child.once("error", (error) => (console.error(`npm start --bundled needs Node ${BUNDLED_NODE_MAJOR} at ${NODE22} (npm install): ${error.message}`), process.exit(1)));
  child.once("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else {
  await serve();
}

async function serve(): Promise<void> {
  try {
    const cors = corsOrigins();
    let bundles: { functions: string; root: string } | undefined;
    if (bundled) {
      await assertPortFree(port, host);
      console.log("Building the Lambda bundles (infra/build.ts, as cdk deploy ships them)…");
      bundles = await (await import("./bundles.js")).buildBundles();
    }
    const stack = await startLocalStack({
      port,
      host,
      accessLog,
      dataDir,
      persist: true,
      apiKey: process.env.PLATFORM_API_KEY || undefined,
      authorizerCacheSeconds: Number(process.env.AUTHORIZER_CACHE_SECONDS ?? 0),
      catalog: process.env.MODEL_CATALOG || undefined,
      bundles: bundles?.functions,
      // The bundles run as deployed: each handler writes its own bookkeeping, as in a Lambda instance.
      bookkeepingThread: !bundles,
    });
    const everywhere = host === "0.0.0.0" || host === "::";
    console.log(`Platform API listening on ${stack.url}${everywhere ? ` (and on every interface: HOST=${host})` : ""}`);
    console.log(`Dev API key (admin): ${stack.apiKey}`);
    console.log(`Workspace:           ${stack.workspace} (organization ${stack.organization})`);
    console.log(`Data directory:      ${dataDir}`);
    if (bundles) console.log(`Handlers:            the esbuild bundles in ${bundles.functions}, on Node ${process.versions.node}, the AWS SDK clients from ${bundles.root}/node_modules (as the Lambda runtime provides them)`);
    if (stack.offlineModels) {
      console.log("Models:              OFFLINE provider: labelled echoes, protocol-shaped placeholders and feature-hashing vectors, not model output (set MODEL_CATALOG for real models)");
    }
    console.log(`Try: curl -H "Authorization: Bearer ${stack.apiKey}" ${stack.url}/v1/models`);
    console.log(`API reference:       ${stack.url}/docs (OpenAPI document: ${stack.url}/openapi.json)`);
    console.log(`Web console:         ${stack.url}/console (sign in with the key above)`);
    if (cors) console.log(`CORS:                browser clients of ${cors === "*" ? "any origin" : cors.join(", ")} (CORS_ORIGINS)`);
    const warning = loopbackWarning(host, process.env);
    if (warning) console.warn(warning);
    if (accessLog) console.log("Access log (ACCESS_LOG=off to silence): time method path status latency request-id");
    let stopping = false;
    const stop = async (why: string) => {
      if (stopping) return;
      stopping = true;
      console.log(`\n${why}: stopping the local stack…`);
      const timer = setTimeout(() => (console.error("The local stack did not stop within 15 s: exiting anyway"), process.exit(1)), 15_000);
      try {
        await stack.stop();
        if (bundles) rmSync(bundles.root, { recursive: true, force: true });
        console.log("Stopped.");
      } finally {
        clearTimeout(timer);
        process.exit(0);
      }
    };
    // What Ctrl-C, `docker stop`, systemd, `timeout` and a closed terminal send.
    for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => void stop(signal));
    // `npm start` dies of a SIGHUP without passing it on (npm forwards only SIGINT and SIGTERM): the stack
    // notices it was orphaned and stops too, rather than keep DynamoDB Local and the port.
    setInterval(() => process.ppid !== parent && void stop(`parent process ${parent} exited`), 1000).unref();
  } catch (error) {
    const message = (error as Error).message;
    console.error(message === JAVA_MISSING || error instanceof DataDirLocked ? message : `npm start failed: ${message}`);
    process.exit(1);
  }
}
