import { multipartFormWithLists } from "../../shared/http/multipart.js";
import { TranscriptionForm } from "../../shared/schemas/audio.js";
import * as replies from "../model-replies.js";
import { route } from "../route.js";

export const handler = route(
  { body: TranscriptionForm, parser: multipartFormWithLists(["context_bias", "timestamp_granularities"]) },
  ({ body, caller, requestId, signal, route }) => replies.transcribe({ caller, requestId, signal, route }, body),
);
