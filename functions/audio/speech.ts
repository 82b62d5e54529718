import { Reply } from "../../shared/http/reply.js";
import { SpeechRequest } from "../../shared/schemas/audio.js";
import { speak } from "../../shared/services/audio/speech.js";
import { toReply } from "../model-replies.js";
import { route } from "../route.js";

/** Also says which format the audio is in (`x-audio-format`): a backend may make another than asked (docs/audio.md). */
export const handler = route({ body: SpeechRequest }, async ({ body, caller, requestId, signal, route }) => {
  const { answer, format } = await speak({ caller, requestId, signal, route }, body);
  const reply = toReply(answer);
  return new Reply(reply.status, reply.body, { ...reply.headers, "x-audio-format": format });
});
