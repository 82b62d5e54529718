import { Reply } from "../../shared/http/reply.js";
import { DatasetImportTaskOut, ImportFromPlaygroundBody } from "../../shared/schemas/observability/dataset-imports.js";
import { DatasetParams } from "../../shared/schemas/observability/datasets.js";
import { importFromPlayground } from "../../shared/services/observability/dataset-imports.js";
import { route } from "../route.js";

/** 202 DatasetImportTask: conversations (by gen_ai.conversation.id) become records in the background. */
export const handler = route({ params: DatasetParams, body: ImportFromPlaygroundBody, returns: DatasetImportTaskOut }, async ({ params, body, caller }) =>
  Reply.json(202, DatasetImportTaskOut.parse(await importFromPlayground(caller, params.dataset_id, body))),
);
