import { startApiServer, type RunningApi } from "../../infra/local/server.js";
import { ROOT_DIR } from "../../infra/local/stack.js";

/** The local API Gateway stand-in on a free port, in front of the run's embedded backends. */
export function startTestApi(options: { authorizerCacheSeconds?: number } = {}): Promise<RunningApi> {
  return startApiServer({ port: 0, authorizerCacheSeconds: options.authorizerCacheSeconds ?? 0, rootDir: ROOT_DIR });
}
