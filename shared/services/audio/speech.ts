/**
 * POST /v1/audio/speech (extension; the SDK's `audio.speech.complete`, docs/audio.md): text to speech
 * with the model's provider, in the voice the request names (a preset or one of the workspace's voices).
 * Answered as `{audio_data}` (base64) or as `speech.audio.delta` / `speech.audio.done` events; the
 * `x-audio-format` header says which format the bytes are in (a backend may answer another than asked).
 */
import { requireEndpoint, type ModelEntry } from "../../domain/models.js";
import { BadRequest, Unprocessable } from "../../domain/errors.js";
import { providerNamed } from "../../inference/registry.js";
import { countTokens } from "../../inference/tokenizer.js";
import { UnsupportedByProvider } from "../../inference/types.js";
import type { SpeechRequest } from "../../schemas/audio.js";
import type { ModelAnswer, ModelStream } from "../inference/completions.js";
import { failuresRecorded, recordUsage, type CallContext } from "../inference/usage.js";
import { bodyModel, serving } from "../models/catalog.js";
import { voiceForSpeech } from "./voices.js";

/** Base64 characters per `speech.audio.delta` event (a multiple of 4: each event decodes on its own). */
const DELTA_CHARS = 64 * 1024;

export interface SpeechAnswer {
  answer: ModelAnswer<{ audio_data: string }> | ModelStream;
  format: string;
}

/** The model named, or the first the catalog has for speech when the request names none. */
async function speechModel(ctx: CallContext, name: string | null | undefined): Promise<ModelEntry> {
  if (name) return bodyModel(ctx.caller, name);
  const [model] = await serving(ctx.caller, "speech");
  if (!model) throw new BadRequest("No speech model is configured in this deployment; name one with model", "model_capability_missing", "model");
  return model;
}

export async function speak(ctx: CallContext, request: SpeechRequest): Promise<SpeechAnswer> {
  if (request.ref_audio) {
    throw new Unprocessable([{ loc: ["body", "ref_audio"], msg: "Reference audio is not taken here; create a voice from it (POST /v1/audio/voices) and name it with voice_id", type: "value_error" }]);
  }
  const model = await speechModel(ctx, request.model);
  requireEndpoint(model, "speech");
  const provider = await providerNamed(model.provider);
  if (!provider.speak) throw new UnsupportedByProvider(provider.backend, "speech");
  const voice = request.voice_id ? await voiceForSpeech(ctx.caller, request.voice_id) : undefined;
  const promptTokens = countTokens(model.tokenizer, request.input);

  const started = Date.now();
  const speech = await failuresRecorded(ctx, { model, provider }, started, () =>
    provider.speak!({ model: model.upstream, input: request.input, format: request.response_format, voice }, { signal: ctx.signal }),
  );
  await recordUsage(ctx, { model, provider }, { promptTokens, completionTokens: 0, started, status: 200 });
  const audioData = speech.audio.toString("base64");
  const usage = { prompt_tokens: promptTokens, completion_tokens: 0, total_tokens: promptTokens, prompt_audio_seconds: null };
  if (!request.stream) return { answer: { kind: "answer", body: { audio_data: audioData }, backend: provider.backend }, format: speech.format };
  return { answer: { kind: "stream", frames: speechFrames(audioData, usage), backend: provider.backend }, format: speech.format };
}

async function* speechFrames(audioData: string, usage: Record<string, number | null>): AsyncGenerator<string> {
  for (let at = 0; at < audioData.length; at += DELTA_CHARS) {
    yield `event: speech.audio.delta\ndata: ${JSON.stringify({ type: "speech.audio.delta", audio_data: audioData.slice(at, at + DELTA_CHARS) })}\n\n`;
  }
  yield `event: speech.audio.done\ndata: ${JSON.stringify({ type: "speech.audio.done", usage })}\n\n`;
}
