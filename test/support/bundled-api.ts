/**
 * The API Gateway stand-in serving the Lambda bundles in BUNDLES_DIR, as its own process (run on Node 22 by
 * test/support/api.ts): the environment the test run's backends gave, port 0, its URL on the first line.
 */
import "../../infra/local/env.js";
import { startApiServer } from "../../infra/local/server.js";
import { ROOT_DIR } from "../../infra/local/stack.js";
import { PUBLIC_URL_ENV } from "../../shared/config.js";

const api = await startApiServer({
  port: 0,
  authorizerCacheSeconds: Number(process.env.AUTHORIZER_CACHE_SECONDS ?? 0),
  rootDir: ROOT_DIR,
  bundles: process.env.BUNDLES_DIR!,
});
process.env[PUBLIC_URL_ENV] = api.url;
console.log(`listening ${api.url}`);
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => void api.stop().then(() => process.exit(0)));
