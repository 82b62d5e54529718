import { UpdateVoiceBody, VoiceOut, VoiceParams } from "../../shared/schemas/voices.js";
import { updateVoice } from "../../shared/services/audio/voices.js";
import { route } from "../route.js";

export const handler = route({ params: VoiceParams, body: UpdateVoiceBody, response: VoiceOut }, ({ params, body, caller }) => updateVoice(caller, params.voice_id, body));
