import { Reply } from "../../shared/http/reply.js";
import type { TurnAnswer } from "../../shared/services/conversations/conversations.js";

/** A turn's answer on the wire: JSON, or Mistral's conversation events as server-sent events. */
export const turnReply = (answer: TurnAnswer): Reply => (answer.kind === "stream" ? Reply.events(answer.frames) : Reply.json(200, answer.body));
