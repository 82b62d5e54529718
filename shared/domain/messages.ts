import type { Message } from "../schemas/inference.js";
import { BadRequest } from "./errors.js";

/**
 * A chat is answered after a user or tool turn, or to continue an assistant turn marked `prefix: true`;
 * ending on a plain assistant (or system) message is a 400, as Mistral's API answers it.
 */
export function requireAnswerableEnd(messages: readonly Message[]): void {
  const last = messages.at(-1);
  if (!last || last.role === "user" || last.role === "tool" || (last.role === "assistant" && last.prefix)) return;
  throw new BadRequest(
    `Expected last role user or tool (or assistant with prefix true) for serving but got ${last.role}`,
    "invalid_request_message_order",
    "messages",
  );
}
