import { Reply } from "../../shared/http/reply.js";
import { CreateJudgeBody, SavedJudgeOut } from "../../shared/schemas/observability/judges.js";
import { createJudge } from "../../shared/services/observability/judges.js";
import { route } from "../route.js";

// 201: the SDK rejects a 200 here.
export const handler = route({ body: CreateJudgeBody, returns: SavedJudgeOut }, async ({ body, caller }) => Reply.json(201, SavedJudgeOut.parse(await createJudge(caller, body))));
