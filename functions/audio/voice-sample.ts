import { Reply } from "../../shared/http/reply.js";
import { VoiceLookupParams } from "../../shared/schemas/voices.js";
import { voiceSample } from "../../shared/services/audio/voices.js";
import { route } from "../route.js";

/**
 * A custom voice's bytes never pass through Lambda: the client follows a redirect to a short-lived S3 URL
 * serving them as audio/wav. A preset's few kilobytes are answered directly (audio/wav is a binary media type).
 */
export const handler = route({ params: VoiceLookupParams }, async ({ params, caller }) => {
  const sample = await voiceSample(caller, params.voice_id);
  return "url" in sample ? Reply.redirect(sample.url) : new Reply(200, sample.wav, { "content-type": "audio/wav" });
});
