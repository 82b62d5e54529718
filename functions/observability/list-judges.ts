import { JudgeListOut, JudgeListQuery } from "../../shared/schemas/observability/judges.js";
import { listJudges } from "../../shared/services/observability/judges.js";
import { route } from "../route.js";

export const handler = route({ query: JudgeListQuery, response: JudgeListOut }, ({ query, caller }) => listJudges(caller, query));
