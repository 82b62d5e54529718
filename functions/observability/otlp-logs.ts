import { route } from "../route.js";
import type { ExportLogsRequest } from "../../shared/domain/observability/otlp.js";
import { exportReply, otlpBody, type OtlpBody } from "../../shared/http/otlp.js";
import { ExportResponseOut } from "../../shared/schemas/observability/ingest.js";
import { ingestLogs } from "../../shared/services/observability/ingest.js";

/** OTLP/HTTP log export (JSON or protobuf, answered in the same encoding); records keep their trace and span ids. */
export const handler = route({ parser: otlpBody("logs"), returns: ExportResponseOut }, async ({ event, caller }) => {
  const { encoding, request } = event.body as unknown as OtlpBody<ExportLogsRequest>;
  return exportReply("logs", encoding, await ingestLogs(caller, request));
});
