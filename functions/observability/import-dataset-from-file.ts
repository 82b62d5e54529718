import { Reply } from "../../shared/http/reply.js";
import { DatasetImportTaskOut, ImportFromFileBody } from "../../shared/schemas/observability/dataset-imports.js";
import { DatasetParams } from "../../shared/schemas/observability/datasets.js";
import { importFromFile } from "../../shared/services/observability/dataset-imports.js";
import { route } from "../route.js";

/** 202 DatasetImportTask: the lines are imported in the background (the dataset import state machine). */
export const handler = route({ params: DatasetParams, body: ImportFromFileBody, returns: DatasetImportTaskOut }, async ({ params, body, caller }) =>
  Reply.json(202, DatasetImportTaskOut.parse(await importFromFile(caller, params.dataset_id, body))),
);
