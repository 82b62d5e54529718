import { SpeechRequest } from "../../shared/schemas/audio.js";
import * as replies from "../model-replies.js";
import { route } from "../route.js";

export const handler = route({ body: SpeechRequest }, ({ body, caller, requestId, signal, route }) => replies.speak({ caller, requestId, signal, route }, body));
