import { DatasetRecordParams, JudgeBody, JudgeOut } from "../../shared/schemas/observability/datasets.js";
import { judgeRecord } from "../../shared/services/observability/judging.js";
import { route } from "../route.js";

/** 200 `{analysis, answer}`; the judgement is also stored as a span evaluation. */
export const handler = route({ params: DatasetRecordParams, body: JudgeBody, response: JudgeOut }, ({ params, body, caller, requestId, route, signal }) =>
  judgeRecord({ caller, requestId, route, signal }, params.dataset_record_id, body.judge_definition),
);
