import * as agents from "../../shared/services/agents/agents.js";
import { Reply } from "../../shared/http/reply.js";
import { route } from "../route.js";
import { AgentAliasDeleteQuery, AgentParams } from "../../shared/schemas/agent.js";

export const handler = route({ params: AgentParams, query: AgentAliasDeleteQuery }, async ({ params, query, caller }) => {
  await agents.removeAlias(caller, params.agent_id, query.alias);
  return Reply.empty(204);
});
