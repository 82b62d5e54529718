import { Reply } from "../../shared/http/reply.js";
import { VoiceLookupParams } from "../../shared/schemas/voices.js";
import { sampleUrl } from "../../shared/services/audio/voices.js";
import { route } from "../route.js";

/** Bytes never pass through Lambda: the client follows a redirect to a short-lived S3 URL serving them as audio/wav. */
export const handler = route({ params: VoiceLookupParams }, async ({ params, caller }) => Reply.redirect(await sampleUrl(caller, params.voice_id)));
