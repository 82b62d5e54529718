/**
 * Example workflow "summarize", for the reference worker (README.md here):
 *
 *   npm run worker -- --deployment examples --module examples/workflows/summarize/activities.mjs
 *
 * ReadFile (activity) → AskModel (platform:model) → Summarize (activity, with a heartbeat and a retry
 * when its worker goes quiet) → Publish (platform:publish_state) → Result.
 */

export const workflows = [
  {
    name: "summarize",
    display_name: "Summarize a document",
    description: "Reads an uploaded file (or text), asks a model about it, summarises it and publishes the summary.",
    definition: {
      input_schema: {
        title: "run_Input",
        type: "object",
        properties: {
          text: { type: "string", description: "The text to summarise" },
          file_id: { type: "string", description: "Or an uploaded file's id" },
          max_words: { type: "integer", minimum: 1, default: 30 },
        },
        additionalProperties: false,
      },
      output_schema: { type: "object", properties: { summary: { type: "string" }, words: { type: "integer" }, model_note: { type: "string" } } },
      execution_timeout: 3600,
    },
    program: {
      Comment: "Summarise a document",
      StartAt: "ReadFile",
      States: {
        ReadFile: {
          Type: "Task",
          Resource: "activity:read_file",
          Parameters: { "request.$": "$" },
          ResultPath: "$.doc",
          Next: "AskModel",
        },
        AskModel: {
          Type: "Task",
          Resource: "platform:model",
          Parameters: { model: "mistral-small-latest", "messages.$": "States.Array($.doc.message)", max_tokens: 64 },
          ResultSelector: { "note.$": "$.choices[0].message.content" },
          ResultPath: "$.model",
          Retry: [{ ErrorEquals: ["Model.RateLimited"], IntervalSeconds: 2, MaxAttempts: 3, BackoffRate: 2 }],
          Next: "Summarize",
        },
        Summarize: {
          Type: "Task",
          Resource: "activity:summarize",
          Parameters: { "text.$": "$.doc.content", "max_words.$": "$.doc.max_words" },
          HeartbeatSeconds: 30,
          TimeoutSeconds: 600,
          Retry: [{ ErrorEquals: ["States.HeartbeatTimeout"], IntervalSeconds: 1, MaxAttempts: 3 }],
          ResultPath: "$.summary",
          Next: "Publish",
        },
        Publish: {
          Type: "Task",
          Resource: "platform:publish_state",
          Parameters: { stage: "summarized", "summary.$": "$.summary.summary" },
          ResultPath: null,
          Next: "Result",
        },
        Result: {
          Type: "Pass",
          Parameters: { "summary.$": "$.summary.summary", "words.$": "$.summary.words", "model_note.$": "$.model.note" },
          End: true,
        },
      },
    },
  },
];

export const activities = {
  /** The text to work on: given directly, or an uploaded file's content read through the API with the worker's key. */
  async read_file({ request }, ctx) {
    let content = request.text;
    if (content === undefined && request.file_id) {
      const response = await ctx.api(`/v1/files/${encodeURIComponent(request.file_id)}/content`);
      if (!response.ok) throw Object.assign(new Error(`Reading file ${request.file_id} answered ${response.status}`), { name: "FileUnreadable" });
      content = await response.text();
    }
    if (typeof content !== "string" || content.trim() === "") throw Object.assign(new Error("Give `text` or the `file_id` of a non-empty file"), { name: "NothingToRead" });
    return {
      content,
      max_words: request.max_words ?? 30,
      message: { role: "user", content: `In one sentence, what is this text about?\n\n${content.slice(0, 4000)}` },
    };
  },

  /** The first sentences, up to max_words words (no model needed): it heartbeats as a long activity would. */
  async summarize({ text, max_words }, ctx) {
    const words = text.split(/\s+/).filter(Boolean);
    const kept = [];
    for (const [i, word] of words.entries()) {
      if (kept.length >= max_words) break;
      kept.push(word);
      if (i % 500 === 499) {
        const { cancel_requested } = await ctx.heartbeat({ done: i + 1 });
        if (cancel_requested) throw Object.assign(new Error("Cancelled"), { name: "Cancelled" });
      }
    }
    return { summary: kept.join(" ") + (words.length > kept.length ? " …" : ""), words: words.length };
  },
};
