import { VoiceOut, VoiceParams } from "../../shared/schemas/voices.js";
import { deleteVoice } from "../../shared/services/audio/voices.js";
import { route } from "../route.js";

/** Answers the voice as it was (the OpenAPI's 200 VoiceResponse); its sample object goes too. */
export const handler = route({ params: VoiceParams, response: VoiceOut }, ({ params, caller }) => deleteVoice(caller, params.voice_id));
