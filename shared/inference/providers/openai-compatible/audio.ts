/**
 * The audio endpoints of OpenAI-compatible upstreams.
 *
 * Transcription (`POST /v1/audio/transcriptions`, multipart): `file`, `model`, `language`, `temperature`;
 * the OpenAI dialect (whisper.cpp server, vLLM) asks for `response_format=verbose_json` (segments, language)
 * and `timestamp_granularities[]`; Mistral's dialect sends its own fields (`diarize`, `context_bias`,
 * `timestamp_granularities`). Either answer's `text`, `language` and `segments` are read; a language given
 * as a name ("english", as whisper answers) becomes its two-letter code where we know it, else null.
 *
 * Speech (`POST /v1/audio/speech`, JSON): Mistral's dialect takes `voice_id`-less requests with the voice's
 * sample as `ref_audio` (base64 WAV) and answers `{audio_data}`; the OpenAI dialect takes `voice` (the
 * voice's slug, else its name) and answers the bytes.
 */
import { UpstreamError, type SpeakRequest, type SpeechAudio, type TranscribeRequest, type TranscriptionEvent } from "../../types.js";
import { malformed } from "./errors.js";
import { isRecord, type Json } from "./json.js";

const LANGUAGE_NAMES: Record<string, string> = {
  english: "en",
  french: "fr",
  german: "de",
  spanish: "es",
  italian: "it",
  portuguese: "pt",
  dutch: "nl",
  japanese: "ja",
  korean: "ko",
  chinese: "zh",
  hindi: "hi",
  arabic: "ar",
  russian: "ru",
};

export function transcriptionForm(request: TranscribeRequest, dialect: "mistral" | "openai"): FormData {
  const form = new FormData();
  form.append("file", new Blob([Uint8Array.from(request.audio)]), request.filename);
  form.append("model", request.model);
  if (request.language) form.append("language", request.language);
  if (request.temperature !== undefined) form.append("temperature", String(request.temperature));
  if (dialect === "mistral") {
    form.append("diarize", String(request.diarize));
    for (const bias of request.contextBias) form.append("context_bias", bias);
    for (const granularity of request.timestampGranularities) form.append("timestamp_granularities", granularity);
  } else {
    form.append("response_format", "verbose_json");
    for (const granularity of request.timestampGranularities) form.append("timestamp_granularities[]", granularity);
  }
  return form;
}

function languageOf(value: unknown): string | null {
  if (typeof value !== "string" || !value) return null;
  const lower = value.toLowerCase();
  if (/^[a-z]{2}$/.test(lower)) return lower;
  if (/^[a-z]{2}[-_]/.test(lower)) return lower.slice(0, 2);
  return LANGUAGE_NAMES[lower] ?? null;
}

/** The upstream's whole answer as the events a stream would have carried. */
export function* transcriptionEvents(answer: unknown): Generator<TranscriptionEvent> {
  if (!isRecord(answer) || typeof answer.text !== "string") throw malformed("a transcription has no text");
  const language = languageOf(answer.language);
  if (language) yield { type: "language", language };
  if (answer.text) yield { type: "text", text: answer.text };
  for (const segment of Array.isArray(answer.segments) ? answer.segments : []) {
    if (!isRecord(segment) || typeof segment.text !== "string") continue;
    const start = typeof segment.start === "number" ? segment.start : 0;
    const end = typeof segment.end === "number" ? segment.end : start;
    const speaker = typeof segment.speaker_id === "string" ? segment.speaker_id : undefined;
    yield { type: "segment", text: segment.text.trim(), start, end, ...(speaker ? { speakerId: speaker } : {}) };
  }
}

export async function speechBody(request: SpeakRequest, dialect: "mistral" | "openai"): Promise<Json> {
  const body: Json = { model: request.model, input: request.input, response_format: request.format };
  if (dialect === "mistral") {
    body.stream = false;
    if (request.voice) body.ref_audio = (await request.voice.sample()).toString("base64");
  } else if (request.voice) {
    body.voice = request.voice.slug ?? request.voice.name;
  }
  return body;
}

export function speechFromAnswer(bytes: Buffer, contentType: string | null, format: SpeakRequest["format"], dialect: "mistral" | "openai"): SpeechAudio {
  if (dialect === "mistral" || contentType?.startsWith("application/json")) {
    let answer: unknown;
    try {
      answer = JSON.parse(bytes.toString("utf8"));
    } catch {
      throw malformed("the body is not JSON");
    }
    if (!isRecord(answer) || typeof answer.audio_data !== "string") throw malformed("a speech answer has no audio_data");
    return { audio: Buffer.from(answer.audio_data, "base64"), format };
  }
  if (!bytes.length) throw new UpstreamError(502, "The upstream answered no audio");
  return { audio: bytes, format };
}
