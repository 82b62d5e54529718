import { multipartFormWithLists } from "../../shared/http/multipart.js";
import { TranscriptionForm } from "../../shared/schemas/audio.js";
import { transcribe } from "../../shared/services/audio/transcriptions.js";
import { toReply } from "../model-replies.js";
import { route } from "../route.js";

export const handler = route(
  { body: TranscriptionForm, parser: multipartFormWithLists(["context_bias", "timestamp_granularities"]) },
  async ({ body, caller, requestId, signal, route }) => toReply(await transcribe({ caller, requestId, signal, route }, body)),
);
