import { JudgeParams, SavedJudgeOut } from "../../shared/schemas/observability/judges.js";
import { getJudge } from "../../shared/services/observability/judges.js";
import { route } from "../route.js";

export const handler = route({ params: JudgeParams, response: SavedJudgeOut }, ({ params, caller }) => getJudge(caller, params.judge_id));
