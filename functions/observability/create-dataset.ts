import { Reply } from "../../shared/http/reply.js";
import { CreateDatasetBody, DatasetOut } from "../../shared/schemas/observability/datasets.js";
import { createDataset } from "../../shared/services/observability/datasets.js";
import { route } from "../route.js";

// 201: the SDK rejects a 200 here.
export const handler = route({ body: CreateDatasetBody, returns: DatasetOut }, async ({ body, caller }) => Reply.json(201, DatasetOut.parse(await createDataset(caller, body))));
