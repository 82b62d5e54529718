import { Reply } from "../../shared/http/reply.js";
import { DatasetParams, RecordsFromSpansBody, RecordsFromSpansOut } from "../../shared/schemas/observability/datasets.js";
import { recordsFromSpans } from "../../shared/services/observability/datasets.js";
import { route } from "../route.js";

/** 201 `{records}`: one TELEMETRY_SPAN record per span, all or none. */
export const handler = route({ params: DatasetParams, body: RecordsFromSpansBody, returns: RecordsFromSpansOut }, async ({ params, body, caller }) =>
  Reply.json(201, RecordsFromSpansOut.parse({ records: await recordsFromSpans(caller, params.dataset_id, body) })),
);
