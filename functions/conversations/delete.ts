import * as conversations from "../../shared/services/conversations/conversations.js";
import { Reply } from "../../shared/http/reply.js";
import { ConversationParams } from "../../shared/schemas/conversation.js";
import { route } from "../route.js";

// 204 with no body, as the OpenAPI answers.
export const handler = route({ params: ConversationParams }, async ({ params, caller }) => {
  await conversations.remove(caller, params.conversation_id);
  return Reply.empty(204);
});
