import { Reply } from "../../shared/http/reply.js";
import { DatasetImportTaskOut, ImportFromDatasetBody } from "../../shared/schemas/observability/dataset-imports.js";
import { DatasetParams } from "../../shared/schemas/observability/datasets.js";
import { importFromDataset } from "../../shared/services/observability/dataset-imports.js";
import { route } from "../route.js";

/** 202 DatasetImportTask: copies of the named records are made in the background. */
export const handler = route({ params: DatasetParams, body: ImportFromDatasetBody, returns: DatasetImportTaskOut }, async ({ params, body, caller }) =>
  Reply.json(202, DatasetImportTaskOut.parse(await importFromDataset(caller, params.dataset_id, body))),
);
