import { VoiceLookupParams, VoiceOut } from "../../shared/schemas/voices.js";
import { getVoice } from "../../shared/services/audio/voices.js";
import { route } from "../route.js";

export const handler = route({ params: VoiceLookupParams, response: VoiceOut }, ({ params, caller }) => getVoice(caller, params.voice_id));
