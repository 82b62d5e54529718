import { resolve } from "node:path";
import "./env.js";
import { JAVA_MISSING } from "./dynamodb.js";
import { startLocalStack } from "./stack.js";

const port = Number(process.env.PORT ?? 8080);
const dataDir = resolve(process.env.PLATFORM_DATA_DIR ?? ".data");

try {
  const stack = await startLocalStack({
    port,
    dataDir,
    persist: true,
    apiKey: process.env.PLATFORM_API_KEY || undefined,
    authorizerCacheSeconds: Number(process.env.AUTHORIZER_CACHE_SECONDS ?? 0),
    catalog: process.env.MODEL_CATALOG || undefined,
  });
  console.log(`Platform API listening on ${stack.url}`);
  console.log(`Dev API key (admin): ${stack.apiKey}`);
  console.log(`Workspace:           ${stack.workspace} (organization ${stack.organization})`);
  console.log(`Data directory:      ${dataDir}`);
  if (stack.offlineModels) {
    console.log("Models:              OFFLINE provider: answers are labelled echoes and feature-hashing vectors, not model output (set MODEL_CATALOG for real models)");
  }
  console.log(`Try: curl -H "Authorization: Bearer ${stack.apiKey}" ${stack.url}/v1/files`);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping the local stack…`);
    await stack.stop();
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
} catch (error) {
  const message = (error as Error).message;
  console.error(message === JAVA_MISSING ? message : `npm start failed: ${message}`);
  process.exit(1);
}
