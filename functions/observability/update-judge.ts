import { Reply } from "../../shared/http/reply.js";
import { JudgeParams, UpdateJudgeBody } from "../../shared/schemas/observability/judges.js";
import { updateJudge } from "../../shared/services/observability/judges.js";
import { route } from "../route.js";

/** 204, as the SDK expects: the whole definition is replaced; the judge keeps its id. */
export const handler = route({ params: JudgeParams, body: UpdateJudgeBody }, async ({ params, body, caller }) => {
  await updateJudge(caller, params.judge_id, body);
  return Reply.empty(204);
});
