import { CreateVoiceBody, VoiceOut } from "../../shared/schemas/voices.js";
import { createVoice } from "../../shared/services/audio/voices.js";
import { route } from "../route.js";

export const handler = route({ body: CreateVoiceBody, response: VoiceOut }, ({ body, caller }) => createVoice(caller, body));
