/**
 * Which example programs of the official SDK (`@mistralai/mistralai/examples/src`) the examples test runs
 * against `npm start`, and which it leaves out and why. docs/sdk-examples.md shows the same lists.
 */

/** Run unmodified, each must exit 0. */
export const SERVED_EXAMPLES = [
  "async_batch_jobs.ts",
  "async_chat_no_streaming.ts",
  "async_chat_prediction.ts",
  "async_chat_streaming.ts",
  "async_chat_with_image_no_streaming.ts",
  "async_embeddings.ts",
  "async_files.ts",
  "async_function_calling.ts",
  "async_function_calling_streaming.ts",
  "async_json_format.ts",
  "async_list_models.ts",
  "async_ocr_process_from_file.ts",
  "async_structured_outputs.ts",
  "error_handling.ts",
  "model_management.ts",
  "observability/dedicated_telemetry.ts",
  "observability/global_provider_with_redaction.ts",
  "observability/redaction_policies.ts",
  "observability/serverless_telemetry.ts",
  "prompt_lifecycle.ts",
  "realtime_transcription.ts",
  "reasoning.ts",
  "reasoning_multi_turn.ts",
  "reasoning_response_shape.ts",
  "reasoning_with_streaming.ts",
  "skill_lifecycle.ts",
] as const;

/** The arguments an example takes on its command line (the files named are written beside it by the test). */
export const EXAMPLE_ARGS: Partial<Record<(typeof SERVED_EXAMPLES)[number], string[]>> = {
  // Raw PCM (.pcm), which it streams without ffmpeg: 2 s of 16 kHz 16-bit silence.
  "realtime_transcription.ts": ["speech.pcm"],
};

/** Left out, with the reason. */
export const LEFT_OUT_EXAMPLES: Record<string, string> = {
  "async_audio_transcription_diarize.ts": "fetches its audio from docs.mistral.ai (the internet); audio transcription is being added",
  "async_audio_transcription_stream.ts": "fetches its audio from docs.mistral.ai (the internet); audio transcription is being added",
  "realtime_microphone.ts": "records from a microphone (with an external recorder program), which a test machine has not",
  "async_conversation_agent.ts": "its agent's web_search tool needs the internet; conversations refuse it by name (docs/conversations.md)",
  "async_ocr_process_from_url.ts": "its document is fetched from arxiv.org (the internet)",
  "azure/async_chat_no_streaming.ts": "talks to Azure AI's endpoint with the Azure package, not to api.mistral.ai",
  "gcp/async_chat_no_streaming.ts": "talks to Google Cloud Vertex AI with the GCP package, not to api.mistral.ai",
};
