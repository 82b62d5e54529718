import { DatasetListOut, DatasetListQuery } from "../../shared/schemas/observability/datasets.js";
import { listDatasets } from "../../shared/services/observability/datasets.js";
import { route } from "../route.js";

export const handler = route({ query: DatasetListQuery, response: DatasetListOut }, ({ query, caller }) => listDatasets(caller, query));
