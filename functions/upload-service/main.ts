/**
 * The upload service's container entry (functions/upload-service/Dockerfile runs its bundle): an HTTP server
 * on PORT (8080) that serves its upload routes (`POST /v1/files`, `POST /v1/libraries/{library_id}/documents`: server.ts),
 * the realtime transcription socket (realtime.ts) and the load balancer's health check. The settings
 * (table names, bucket, log level) come from the task definition (infra/upload-service.ts).
 */
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { gatewayAnswers } from "../../shared/http/gateway.js";
import { logger } from "../../shared/observability/logger.js";
import { realtimeSockets } from "./realtime.js";
import { uploadRouteOf } from "./routes.js";
import { HEALTH_PATH, uploadService } from "./server.js";

function startUploadService(port: number) {
  const serveUpload = uploadService();
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    if (uploadRouteOf(req.method ?? "GET", path)) return void serveUpload(req, res, randomUUID());
    if (req.method === "GET" && path === HEALTH_PATH) {
      res.writeHead(200, { "content-type": "application/json" });
      return void res.end('{"status":"ok"}');
    }
    const { status, body } = gatewayAnswers.MISSING_AUTHENTICATION_TOKEN;
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  });
  const sockets = realtimeSockets();
  server.on("upgrade", sockets.upgrade);
  // A 512 MB body over a slow link takes longer than Node's default 5 minutes per request.
  server.requestTimeout = 60 * 60 * 1000;
  // Longer than the load balancer's idle timeout (120 s, infra/upload-service.ts), so the balancer, not the
  // task, closes idle connections: a connection the task closed under it would answer a 502.
  server.keepAliveTimeout = 125_000;
  server.headersTimeout = 126_000;
  // The port bound, not the one asked for: PORT=0 takes any free one (the tests' way to avoid a race for it).
  server.listen(port, "0.0.0.0", () => logger.info("upload service listening", { port: (server.address() as AddressInfo).port }));
  // ECS stops a task with SIGTERM: uploads under way may finish (until the stop timeout), new ones go to other tasks.
  // Realtime sessions are told to reconnect (1001): their clients open new ones on the tasks that stay.
  process.once("SIGTERM", () => {
    // Exits once the uploads under way are done and every session has written its usage.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    void Promise.all([closed, sockets.closeAll()]).then(() => process.exit(0));
  });
  return server;
}

startUploadService(Number(process.env.PORT ?? 8080));
