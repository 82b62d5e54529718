import * as conversations from "../../shared/services/conversations/conversations.js";
import { callHeadersOf } from "../../shared/http/call-headers.js";
import { ConversationRequest, ConversationResponse } from "../../shared/schemas/conversation.js";
import { route } from "../route.js";
import { turnReply } from "./turn-reply.js";

export const handler = route({ body: ConversationRequest, returns: ConversationResponse }, async ({ body, caller, requestId, signal, route, event }) =>
  turnReply(await conversations.start({ caller, requestId, signal, route, ...callHeadersOf(event) }, body)),
);
