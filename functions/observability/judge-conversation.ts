import { JudgeOut } from "../../shared/schemas/observability/datasets.js";
import { JudgeConversationBody, JudgeParams } from "../../shared/schemas/observability/judges.js";
import { judgeConversation } from "../../shared/services/observability/judges.js";
import { route } from "../route.js";

/** 200 `{analysis, answer}` from the saved judge; not stored (decision 61). */
export const handler = route({ params: JudgeParams, body: JudgeConversationBody, response: JudgeOut }, ({ params, body, caller, requestId, route, signal }) =>
  judgeConversation({ caller, requestId, route, signal }, params.judge_id, body),
);
