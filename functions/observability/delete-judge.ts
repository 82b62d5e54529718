import { Reply } from "../../shared/http/reply.js";
import { JudgeParams } from "../../shared/schemas/observability/judges.js";
import { deleteJudge } from "../../shared/services/observability/judges.js";
import { route } from "../route.js";

export const handler = route({ params: JudgeParams }, async ({ params, caller }) => {
  await deleteJudge(caller, params.judge_id);
  return Reply.empty(204);
});
