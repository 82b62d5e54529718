import * as agents from "../../shared/services/agents/agents.js";
import { Reply } from "../../shared/http/reply.js";
import { route } from "../route.js";
import { AgentParams } from "../../shared/schemas/agent.js";

// 204 with no body: the SDK rejects a 200 here.
export const handler = route({ params: AgentParams }, async ({ params, caller }) => {
  await agents.remove(caller, params.agent_id);
  return Reply.empty(204);
});
