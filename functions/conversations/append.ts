import * as conversations from "../../shared/services/conversations/conversations.js";
import { callHeadersOf } from "../../shared/http/call-headers.js";
import { ConversationAppendRequest, ConversationParams, ConversationResponse } from "../../shared/schemas/conversation.js";
import { route } from "../route.js";
import { turnReply } from "./turn-reply.js";

export const handler = route({ params: ConversationParams, body: ConversationAppendRequest, returns: ConversationResponse }, async ({ params, body, caller, requestId, signal, route, event }) =>
  turnReply(await conversations.append({ caller, requestId, signal, route, ...callHeadersOf(event) }, params.conversation_id, body)),
);
