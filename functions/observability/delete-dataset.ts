import { Reply } from "../../shared/http/reply.js";
import { DatasetParams } from "../../shared/schemas/observability/datasets.js";
import { deleteDataset } from "../../shared/services/observability/datasets.js";
import { route } from "../route.js";

/** The dataset and its records. */
export const handler = route({ params: DatasetParams }, async ({ params, caller }) => {
  await deleteDataset(caller, params.dataset_id);
  return Reply.empty(204);
});
