import { VoiceListOut, VoiceListQuery } from "../../shared/schemas/voices.js";
import { listVoices } from "../../shared/services/audio/voices.js";
import { route } from "../route.js";

export const handler = route({ query: VoiceListQuery, response: VoiceListOut }, ({ query, caller }) => listVoices(caller, query));
